"""Network input planes: the stone history of :mod:`go_env.features`, optionally Boke Go's.

The planes come from the same functions as the environment's observations
(:func:`go_env.features.history_planes`, the one source of the stone and colour planes), always
from the perspective of the player to move, so a network's value is that player's:

* planes ``0 .. 2k``: :func:`~go_env.features.history_planes` with ``k = history`` positions;
* with ``tactical``: then the 24 planes of :func:`go_env.tactical_features.tactical_planes`
  (empty, last move, legal moves, binned liberties, liberties after a move, captures).

With ``history=1, tactical=True`` these are Boke Go's 27 planes (in another order).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from go_env.features import PLANE_DTYPE, history_planes
from go_env.features import num_planes as history_plane_count
from go_env.state import GoState
from go_env.tactical_features import TACTICAL_PLANES, tactical_planes

__all__ = ["input_planes", "num_input_planes", "stack_planes"]


def num_input_planes(history: int, tactical: bool) -> int:
    """Number of input planes: ``2 * history + 1``, plus 24 with ``tactical``."""
    return history_plane_count(history) + (TACTICAL_PLANES if tactical else 0)


def input_planes(state: GoState, history: int, tactical: bool = False) -> np.ndarray:
    """The input planes of one position, ``int8 (C, N, N)`` (see the module docstring)."""
    planes = history_planes(state, history, state.to_play)
    if not tactical:
        return planes
    return np.concatenate([planes, tactical_planes(state)], axis=0)


def stack_planes(states: Sequence[GoState], history: int, tactical: bool = False) -> np.ndarray:
    """The input planes of several positions of one board size, ``int8 (B, C, N, N)``."""
    if not states:
        raise ValueError("no states given")
    size = states[0].size
    out = np.empty((len(states), num_input_planes(history, tactical), size, size), PLANE_DTYPE)
    for i, state in enumerate(states):
        if state.size != size:
            raise ValueError(f"states of sizes {size} and {state.size} in one batch")
        out[i] = input_planes(state, history, tactical)
    return out
