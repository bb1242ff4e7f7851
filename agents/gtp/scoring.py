"""End-of-game scoring with dead stones: an ownership estimate and area scores without them.

Tromp-Taylor area scoring counts every stone on the board as alive. Players that pass with
dead stones still on the board (GNU Go, people) expect those stones to be removed before
counting. This module supplies both halves:

* :func:`estimate_dead` judges stones dead from random-playout ownership: from the position,
  ``playouts`` compiled uniform random playouts (the policy of
  :mod:`go_env._core.playout`, which never fills its own eyes) are played to the end; a
  point is *owned* by a colour in one playout if it holds that colour's stone or is an empty
  point whose neighbours are all of that colour. A chain is dead when, averaged over its
  stones and the playouts, the opponent owns its points more than half the time. This is the
  Monte-Carlo ownership estimate used by playout engines (e.g. Fuego and Pachi); it is
  reliable for settled positions and cannot recognise seki (both sides die in random
  playouts about equally often).
* :func:`score_without` is the Tromp-Taylor area score after removing given stones.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from go_env.kernels import H_MOVES, H_PASSES, HEADER, area, random_playout, seed_rng
from go_env.state import Color, GoState

__all__ = ["chains", "estimate_dead", "ownership", "result_string", "score_without"]


def ownership(state: GoState, playouts: int = 64, seed: int = 0) -> np.ndarray:
    """Mean ownership of every point over random playouts from ``state``.

    Args:
        state: The position (left unchanged; a finished game is played on as if not over).
        playouts: Number of playouts.
        seed: Seed of the playouts (playout ``i`` uses ``seed_rng(seed * 1_000_003 + i)``).

    Returns:
        ``float64 (N*N,)`` in ``[-1, 1]``: +1 where Black owns the point in every playout,
        -1 where White does.

    Raises:
        ValueError: When ``playouts`` is not positive.
    """
    if playouts < 1:
        raise ValueError(f"playouts must be positive, got {playouts}")
    compiled = state.compiled()
    geo = compiled.geometry
    points = state.size * state.size
    padded_nbr = np.where(geo.nbr < 0, points, geo.nbr)  # off-board -> an always-empty slot
    total = np.zeros(points, dtype=np.float64)
    for i in range(playouts):
        vector = compiled.vector.copy()
        vector[H_PASSES] = 0
        limit = int(vector[H_MOVES]) + 3 * points
        rng = seed_rng(seed * 1_000_003 + i)
        random_playout(vector, geo.nbr, geo.diag, geo.zobrist, limit, rng)
        colours = np.append(vector[HEADER : HEADER + points], 0)
        around = colours[padded_nbr]
        black_only = (around == Color.BLACK).any(axis=1) & ~(around == Color.WHITE).any(axis=1)
        white_only = (around == Color.WHITE).any(axis=1) & ~(around == Color.BLACK).any(axis=1)
        board = colours[:points]
        own = np.where(board == Color.BLACK, 1.0, np.where(board == Color.WHITE, -1.0, 0.0))
        empty = board == 0
        own[empty & black_only] = 1.0
        own[empty & white_only] = -1.0
        total += own
    return total / playouts


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
    board = state.board.ravel()
    dead: list[int] = []
    for chain in chains(state):
        sign = 1.0 if board[chain[0]] == Color.BLACK else -1.0
        if float(np.mean(owned[chain])) * sign < 0.0:
            dead.extend(chain)
    return sorted(dead)


def score_without(state: GoState, dead: Iterable[int]) -> float:
    """Tromp-Taylor area score (Black - White - komi) after removing the ``dead`` stones.

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
    black, white = area(vector, compiled.geometry.nbr)
    return float(black - white) - float(state.rules.komi)


def result_string(score: float) -> str:
    """A score as a GTP/SGF result: ``"B+3.5"``, ``"W+0.5"`` or ``"0"`` for a draw."""
    if score == 0:
        return "0"
    return f"{'B' if score > 0 else 'W'}+{abs(score):g}"
