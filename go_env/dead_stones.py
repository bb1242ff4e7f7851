"""End-of-game scoring with dead stones: an ownership estimate and area scores without them.

Tromp-Taylor area scoring counts every stone on the board as alive. Players that pass with
dead stones still on the board (GNU Go, people) expect those stones to be removed before
counting. This module supplies both halves for Python callers (the GTP engine's
``final_status_list`` and ``final_score``):

* :func:`estimate_dead` judges stones dead from random-playout ownership: a chain is dead when
  the opponent owns its points in most of ``playouts`` uniform random playouts from the
  position (Monte-Carlo ownership, as in Fuego and Pachi). The compiled kernels are
  :mod:`go_env._core.ownership` (``go_env.kernels.ownership``, ``mark_dead``), which the MCTS
  search also uses to score finished games with ``end_scoring="remove_dead"``. The estimate
  is reliable for settled positions and cannot recognise seki (both sides die in random
  playouts about equally often).
* :func:`score_without` is the Tromp-Taylor area score after removing given stones, and
  :func:`owners_without` the owner of every point under that count.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from go_env.kernels import HEADER, area, area_owners, mark_dead, seed_rng
from go_env.kernels import ownership as ownership_kernel
from go_env.state import CompiledState, GoState
from go_env.validation import check_int

__all__ = [
    "chains",
    "estimate_dead",
    "owners_without",
    "ownership",
    "result_string",
    "score_without",
]


def ownership(state: GoState, playouts: int = 64, seed: int = 0) -> np.ndarray:
    """Mean ownership of every point over random playouts from ``state``.

    Args:
        state: The position (left unchanged; a finished game is played on as if not over).
        playouts: Number of playouts.
        seed: Seed of the playouts (one generator, ``seed_rng(seed)``, runs them all).

    Returns:
        ``float64 (N*N,)`` in ``[-1, 1]``: +1 where Black owns the point in every playout,
        -1 where White does.

    Raises:
        ValueError: When ``playouts`` is not positive.
    """
    check_int("playouts", playouts, min=1, allowed="a positive int")
    compiled = state.compiled()
    geo = compiled.geometry
    vector = compiled.vector
    out = np.zeros(state.size * state.size, dtype=np.float64)
    work = np.empty_like(vector)
    ownership_kernel(vector, geo.nbr, geo.diag, geo.zobrist, playouts, seed_rng(seed), work, out)
    return out


def chains(state: GoState) -> list[list[int]]:
    """The chains of stones on the board, each a sorted list of points, in board order."""
    seen: set[int] = set()
    out = []
    for point in np.flatnonzero(state.board.ravel()):
        p = int(point)
        if p not in seen:
            chain = state.chain(p)
            seen.update(chain)
            out.append(chain)
    return out


def estimate_dead(state: GoState, playouts: int = 64, seed: int = 0) -> list[int]:
    """Stones judged dead by playout ownership (see the module docstring), sorted.

    Args:
        state: The position.
        playouts: Number of random playouts.
        seed: Seed of the playouts; the estimate is deterministic for a given seed.
    """
    owned = ownership(state, playouts, seed)
    dead = np.zeros(state.size * state.size, dtype=np.bool_)
    mark_dead(state.compiled().vector, owned, dead)
    return [int(p) for p in np.flatnonzero(dead)]


def _without(state: GoState, dead: Iterable[int]) -> CompiledState:
    """A snapshot of ``state`` with the ``dead`` stones taken off the board.

    Raises:
        ValueError: When a point of ``dead`` is not a stone on the board.
    """
    compiled = state.compiled()
    vector = compiled.vector
    points = state.size * state.size
    for p in dead:
        if not 0 <= p < points or vector[HEADER + p] == 0:
            raise ValueError(
                f"dead stone {p} is not a stone on the {state.size}x{state.size} board"
            )
        vector[HEADER + p] = 0
    return compiled


def score_without(state: GoState, dead: Iterable[int]) -> float:
    """Tromp-Taylor area score (Black - White - komi) after removing the ``dead`` stones.

    Raises:
        ValueError: When a point of ``dead`` is not a stone on the board.
    """
    cleared = _without(state, dead)
    black, white = area(cleared.vector, cleared.geometry.nbr)
    return float(black - white) - float(state.rules.komi)


def owners_without(state: GoState, dead: Iterable[int]) -> np.ndarray:
    """The owner of every point under :func:`score_without`'s count, ``int8 (N*N,)``.

    :meth:`GoState.area_owners` once the ``dead`` stones are removed: 1 Black, -1 White, 0
    neither; the owners sum to ``score_without(state, dead) + komi``.

    Raises:
        ValueError: When a point of ``dead`` is not a stone on the board.
    """
    cleared = _without(state, dead)
    owners = np.zeros(state.size * state.size, dtype=np.int8)
    area_owners(cleared.vector, cleared.geometry.nbr, owners)
    return owners


def result_string(score: float) -> str:
    """A score as a GTP/SGF result: ``"B+3.5"``, ``"W+0.5"`` or ``"0"`` for a draw."""
    if score == 0:
        return "0"
    return f"{'B' if score > 0 else 'W'}+{abs(score):g}"
