"""The 8 symmetries of the square board (the dihedral group D4) on planes and on moves.

Symmetry ``k`` (``0 <= k < 8``) rotates the board ``k % 4`` quarter turns counter-clockwise
(``numpy.rot90`` on the last two axes) and then, for ``k >= 4``, mirrors it left to right.
Symmetry 0 is the identity. Pass (action ``N*N``) is fixed by every symmetry.

A network ``f`` is used with symmetry ``k`` as ``inverse_policy(f(transform_planes(x, k)), k)``
(AlphaGo Zero's "dihedral reflection or rotation selected uniformly at random").
"""

from __future__ import annotations

from functools import cache

import numpy as np

from go_env.validation import check_int

__all__ = [
    "SYMMETRIES",
    "action_permutation",
    "inverse",
    "inverse_policy",
    "transform_actions",
    "transform_planes",
    "transform_policy",
]

SYMMETRIES = 8
"""Number of board symmetries."""


def _check(k: int) -> int:
    return check_int("symmetry", k, min=0, max=SYMMETRIES - 1, numpy=True, allowed="an int in 0..7")


def transform_planes(planes: np.ndarray, k: int) -> np.ndarray:
    """Apply symmetry ``k`` to the last two axes (``(..., N, N)``); returns a new array."""
    k = _check(k)
    out = np.rot90(planes, k % 4, axes=(-2, -1))
    if k >= 4:
        out = np.flip(out, axis=-1)
    return np.ascontiguousarray(out)


def inverse(k: int) -> int:
    """The symmetry that undoes ``k``: rotations by ``-k``; mirror images are their own."""
    k = _check(k)
    return (4 - k) % 4 if k < 4 else k


@cache
def action_permutation(k: int, size: int) -> np.ndarray:
    """``int64 (N*N + 1,)`` index array ``perm`` with ``transformed = values[perm]``.

    For a per-action vector ``values`` (a policy), ``values[perm]`` is the vector of the
    transformed board: entry ``a`` of the result is the value of the action that symmetry
    ``k`` maps to ``a``. Read-only and cached.
    """
    k = _check(k)
    points = size * size
    board = np.arange(points, dtype=np.int64).reshape(size, size)
    perm = np.empty(points + 1, dtype=np.int64)
    perm[:points] = transform_planes(board, k).ravel()
    perm[points] = points
    perm.setflags(write=False)
    return perm


def transform_policy(policy: np.ndarray, k: int, size: int) -> np.ndarray:
    """Apply symmetry ``k`` to per-action vectors ``(..., N*N + 1)``; returns a new array."""
    return np.asarray(policy)[..., action_permutation(k, size)]


def inverse_policy(policy: np.ndarray, k: int, size: int) -> np.ndarray:
    """Undo symmetry ``k`` on per-action vectors ``(..., N*N + 1)`` (a network's output)."""
    return transform_policy(policy, inverse(k), size)


def transform_actions(actions: np.ndarray | int, k: int, size: int) -> np.ndarray:
    """Where symmetry ``k`` sends each action index (pass stays pass)."""
    perm = action_permutation(k, size)
    where = np.empty_like(perm)
    where[perm] = np.arange(perm.size)
    return where[np.asarray(actions, dtype=np.int64)]
