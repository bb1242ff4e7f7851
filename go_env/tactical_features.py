"""Tactical input planes in the style of Boke Go: liberties, liberties after a move, captures.

These optional planes complement the stone-history planes of :mod:`go_env.features` (which stay
the one source of the stone and colour planes). They follow the 27 input planes of Boke Go
(Meijke Balay, Kyle Chan, Duke Hong, *Monte Carlo Tree Search and Neural Networks in Small
Board Go*, UCLA, c. 2020; ``docs/protocol.md#boke-go``). :func:`tactical_planes` returns the
24 planes that :func:`go_env.features.history_planes` does not already give:

==========  ==============================================================================
plane       content
==========  ==============================================================================
0           1 on empty points
1           1 on the last move's point (none after a pass or before the first move)
2           1 on the points where the player to move may legally play (superko included)
3 - 9       liberties of the chain through each stone (either colour), binned
10 - 16     liberties the player's new chain would have after playing each legal point, binned
17 - 23    opponent stones that playing each legal point would capture, binned
==========  ==============================================================================

**Binning** (as Boke Go): of the 7 planes of a group, plane ``j`` (``0 <= j < 6``) holds the
value ``j + 1`` where the count is exactly ``j + 1``; the last plane holds 7 where the count is
7 or more. Values are these counts, not 0/1; a count of 0 marks no plane.

:func:`boke_planes` returns Boke Go's full 27-plane stack in its order: player-to-move stones,
opponent stones, empty, all ones if Black is to move, last move, legal moves, then the three
binned groups. Its planes 0, 1 and 3 are exactly planes 0, 1 and 2 of
``history_planes(state, 1, state.to_play)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from go_env.features import PLANE_DTYPE, history_planes
from go_env.kernels import geometry

if TYPE_CHECKING:
    from go_env.state import GoState

__all__ = ["BINS", "BOKE_PLANES", "TACTICAL_PLANES", "boke_planes", "tactical_planes"]

BINS = 7
"""Planes per binned count group."""

TACTICAL_PLANES = 3 + 3 * BINS
"""Number of planes of :func:`tactical_planes` (24)."""

BOKE_PLANES = 27
"""Number of planes of :func:`boke_planes`."""


@njit(cache=True, inline="always")
def _bin(out, first, point, count):  # pragma: no cover (jit)
    """Write ``count`` into its bin plane (of ``out[first : first + BINS]``) at ``point``."""
    if count <= 0:
        return
    j = count - 1 if count < 7 else 6
    v = count if count < 7 else 7
    out[first + j, point] = v


@njit(cache=True)
def _chain_liberties(board, nbr, start, chain_mark, lib_mark, stamp, stack):  # pragma: no cover
    """Flood-fill the chain through ``start``; mark its stones with ``stamp``; its liberties."""
    colour = board[start]
    top = 1
    stack[0] = start
    chain_mark[start] = stamp
    libs = 0
    while top > 0:
        top -= 1
        p = stack[top]
        for k in range(4):
            q = nbr[p, k]
            if q < 0:
                continue
            v = board[q]
            if v == 0:
                if lib_mark[q] != stamp:
                    lib_mark[q] = stamp
                    libs += 1
            elif v == colour and chain_mark[q] != stamp:
                chain_mark[q] = stamp
                stack[top] = q
                top += 1
    return libs


@njit(cache=True)
def _fill(board, nbr, to_play, legal, last, out):  # pragma: no cover (jit)
    """The 24 tactical planes, flat: ``out`` is ``int8 (24, P)``, zeroed by the caller."""
    points = board.shape[0]
    opp = 3 - to_play
    stack = np.empty(points, dtype=np.int64)
    chain_mark = np.zeros(points, dtype=np.int64)
    lib_mark = np.zeros(points, dtype=np.int64)
    chain_libs = np.zeros(points, dtype=np.int64)  # by stone, after labelling
    chain_size = np.zeros(points, dtype=np.int64)
    chain_of = np.full(points, -1, dtype=np.int64)
    stamp = 0
    # Chains: liberties and sizes, stored per stone through the chain's representative.
    for p in range(points):
        if board[p] == 0:
            out[0, p] = 1
            continue
        if chain_of[p] >= 0:
            continue
        stamp += 1
        libs = _chain_liberties(board, nbr, p, chain_mark, lib_mark, stamp, stack)
        size = 0
        for q in range(points):
            if chain_mark[q] == stamp:
                chain_of[q] = p
                size += 1
        chain_libs[p] = libs
        chain_size[p] = size
    for p in range(points):
        if board[p] != 0:
            _bin(out, 3, p, chain_libs[chain_of[p]])
    if 0 <= last < points:
        out[1, last] = 1
    work = np.empty(points, dtype=np.int8)
    seen = np.zeros(points, dtype=np.int64)  # representatives already counted, per move
    for p in range(points):
        if not legal[p]:
            continue
        out[2, p] = 1
        # Captures: opponent chains next to p whose only liberty is p.
        captured = 0
        for k in range(4):
            q = nbr[p, k]
            if q >= 0 and board[q] == opp:
                h = chain_of[q]
                if chain_libs[h] == 1 and seen[h] != p + 1:
                    seen[h] = p + 1
                    captured += chain_size[h]
        _bin(out, 17, p, captured)
        # Liberties after the move: play it on a copy, remove the captured chains, count.
        for q in range(points):
            work[q] = board[q]
        work[p] = to_play
        if captured > 0:
            for q in range(points):
                if work[q] == opp and chain_libs[chain_of[q]] == 1:
                    # Captured when its chain touches p (its last liberty).
                    h = chain_of[q]
                    if seen[h] == p + 1:
                        work[q] = 0
        stamp += 1
        libs = _chain_liberties(work, nbr, p, chain_mark, lib_mark, stamp, stack)
        _bin(out, 10, p, libs)


def tactical_planes(state: GoState) -> np.ndarray:
    """The 24 tactical planes of ``state`` (see the module docstring), channels first.

    Args:
        state: The game state (read only).

    Returns:
        A new ``int8`` array of shape ``(24, N, N)``; the player to move is
        ``state.to_play`` (the capture and liberties-after planes are for its moves).
    """
    size = state.size
    points = size * size
    board = np.ascontiguousarray(state.board.reshape(points))
    legal = np.ascontiguousarray(state.legal_mask()[:points])
    last = -1
    if state.history:
        last = int(state.history[-1][1])
    out = np.zeros((TACTICAL_PLANES, points), dtype=PLANE_DTYPE)
    _fill(board, geometry(size).nbr, int(state.to_play), legal, last, out)
    return out.reshape(TACTICAL_PLANES, size, size)


def boke_planes(state: GoState) -> np.ndarray:
    """Boke Go's 27 input planes of ``state``, in Boke Go's order (module docstring).

    Returns:
        A new ``int8`` array of shape ``(27, N, N)``.
    """
    history = history_planes(state, 1, state.to_play)  # own, opponent, black-to-move
    tactical = tactical_planes(state)
    return np.concatenate(
        [history[0:2], tactical[0:1], history[2:3], tactical[1:3], tactical[3:]], axis=0
    )
