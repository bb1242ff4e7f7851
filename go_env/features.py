"""Observation planes computed from a :class:`~go_env.state.GoState`.

This module is the one place that turns a game state into input planes: the environment's
observations and the neural networks' inputs both come from here, so they cannot disagree.

The planes follow AlphaGo Zero (Silver et al., 2017, "Mastering the game of Go without human
knowledge", Methods: "Neural network architecture"), with the stone planes taken from the point
of view of a chosen *perspective* colour instead of always the player to move:

============  ====================================================================
plane         content (``k`` = number of positions)
============  ====================================================================
``i``         stones of ``perspective`` ``i`` moves ago (``i = 0``: now), ``i < k``
``k + i``     stones of the opponent of ``perspective`` ``i`` moves ago, ``i < k``
``2k``        all ones if ``perspective`` is Black, all zeros if it is White
============  ====================================================================

A pass is a move: the position before a pass equals the one after it. Positions from before the
first move of the game are empty boards (also in handicap games, whose first real position
already holds the handicap stones). With ``perspective == state.to_play`` the planes are exactly
AlphaGo Zero's input features.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from go_env._core.fastcall import is_plain_int8, specialize

if TYPE_CHECKING:
    from go_env.state import Color, GoState

__all__ = [
    "PLANE_DTYPE",
    "HistoryPlanesHWC",
    "history_planes",
    "history_planes_hwc",
    "num_planes",
]

PLANE_DTYPE = np.int8
"""Data type of the planes: 0/1 values in ``int8`` (cast to float in the networks)."""


def num_planes(k: int) -> int:
    """Number of planes for ``k`` positions of history: ``2k + 1``."""
    return 2 * k + 1


@njit(cache=True)
def _fill_chw(boards, n_pos, own, out):  # pragma: no cover (jit)
    """Planes ``(2k + 1, N, N)`` from the flat board rows ``boards[:n_pos]`` (oldest first)."""
    k = (out.shape[0] - 1) // 2
    n = out.shape[1]
    opp = 3 - own
    colour = 1 if own == 1 else 0
    for t in range(k):
        row = n_pos - 1 - t
        for r in range(n):
            for c in range(n):
                if row >= 0:
                    v = boards[row, r * n + c]
                    out[t, r, c] = v == own
                    out[k + t, r, c] = v == opp
                else:
                    out[t, r, c] = 0
                    out[k + t, r, c] = 0
    for r in range(n):
        for c in range(n):
            out[2 * k, r, c] = colour


@njit(cache=True)
def _fill_hwc(boards, n_pos, own, out):  # pragma: no cover (jit)
    """Planes ``(N, N, 2k + 1)`` from the flat board rows ``boards[:n_pos]`` (oldest first).

    Computed indices are cast to ``uintp`` so that numba omits its negative-index wraparound
    test, which otherwise costs more than the loops' work.
    """
    planes = out.shape[2]
    k = (planes - 1) // 2
    points = boards.shape[1]
    dst = out.reshape(points * planes)
    have = min(k, n_pos)
    opp = 3 - own
    colour = 1 if own == 1 else 0
    for t in range(have):
        row = boards[n_pos - 1 - t]
        for p in range(points):
            v = row[p]
            dst[np.uintp(p * planes + t)] = v == own
            dst[np.uintp(p * planes + k + t)] = v == opp
    for t in range(have, k):
        for p in range(points):
            dst[np.uintp(p * planes + t)] = 0
            dst[np.uintp(p * planes + k + t)] = 0
    for p in range(points):
        dst[np.uintp(p * planes + 2 * k)] = colour


@njit(cache=True)
def _update_hwc(boards, n_pos, own, since, last, out):  # pragma: no cover (jit)
    """:func:`_fill_hwc` into ``out``, from ``last``: the planes ``since`` positions ago.

    ``last`` holds the planes of the same perspective for ``boards[: n_pos - since]`` (the same
    game); with ``0 <= since < k`` they are shifted by ``since`` ages and only the newest
    ``since`` ages are read from the boards, otherwise every plane is. ``last`` is then set
    to ``out``.
    """
    planes = out.shape[2]
    k = (planes - 1) // 2
    points = boards.shape[1]
    total = points * planes
    dst = out.reshape(total)
    src = last.reshape(total)
    if since < 0 or since >= k:
        _fill_hwc(boards, n_pos, own, out)
    else:
        # Byte i of the planes now is byte i - since of the planes then, except the bytes
        # rewritten below: in each point's run of 2k + 1 bytes, the newest ages (own and
        # opponent) and the colour byte.
        shifted = dst[since:]
        kept = src[: total - since]
        for i in range(total - since):
            shifted[i] = kept[i]
        opp = 3 - own
        colour = 1 if own == 1 else 0
        for t in range(since):
            row = boards[n_pos - 1 - t]
            for p in range(points):
                v = row[p]
                dst[np.uintp(p * planes + t)] = v == own
                dst[np.uintp(p * planes + k + t)] = v == opp
        for p in range(points):
            dst[np.uintp(p * planes + 2 * k)] = colour
    for i in range(total):
        src[i] = dst[i]


_FAST_UPDATE: list[Callable[..., None]] = []


def _fast_update() -> Callable[..., None]:
    """:func:`_update_hwc` compiled for ``int8`` C-contiguous boards and planes.

    Called without numba's type dispatch (:mod:`go_env._core.fastcall`): the boards must pass
    :func:`~go_env._core.fastcall.is_plain_int8` with 2 dimensions, the planes are
    :class:`HistoryPlanesHWC`'s own arrays.
    """
    if not _FAST_UPDATE:
        planes = np.zeros((2, 2, 3), dtype=PLANE_DTYPE)
        boards = np.zeros((1, 4), dtype=np.int8)
        _FAST_UPDATE.append(specialize(_update_hwc, boards, 1, 1, 0, planes, planes.copy()))
    return _FAST_UPDATE[0]


def _check(k: int, perspective: Color | int) -> int:
    """Validate the arguments; return the perspective as a plain int (1 or 2)."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k (positions of history) must be a positive int, got {k!r}")
    if isinstance(perspective, (bool, np.bool_)) or perspective not in (1, 2):
        raise ValueError(f"perspective must be Color.BLACK or Color.WHITE, got {perspective!r}")
    return int(perspective)


def history_planes(state: GoState, k: int, perspective: Color | int) -> np.ndarray:
    """Stone-history and colour planes, channels first.

    Args:
        state: The game state (read only).
        k: Number of positions of history (the current one included), at least 1.
        perspective: The colour whose stones come first (``Color.BLACK`` or ``Color.WHITE``).

    Returns:
        A new ``int8`` array of shape ``(2k + 1, N, N)`` holding 0s and 1s; see the module
        docstring for the meaning of each plane.

    Raises:
        ValueError: When ``k`` is not a positive int or ``perspective`` is not a player colour.
    """
    own = _check(k, perspective)
    boards, n_pos = state.board_rows()
    size = state.size
    planes = np.empty((2 * k + 1, size, size), dtype=PLANE_DTYPE)
    _fill_chw(boards, n_pos, own, planes)
    return planes


def history_planes_hwc(state: GoState, k: int, perspective: Color | int) -> np.ndarray:
    """The planes of :func:`history_planes`, channels last: shape ``(N, N, 2k + 1)``.

    This is the layout of the environment's ``observation`` (PettingZoo's convention for board
    games): plane ``c`` of :func:`history_planes` is ``[:, :, c]`` here.

    Args:
        state: The game state (read only).
        k: Number of positions of history (the current one included), at least 1.
        perspective: The colour whose stones come first.

    Returns:
        A new C-contiguous ``int8`` array of shape ``(N, N, 2k + 1)``.

    Raises:
        ValueError: When ``k`` is not a positive int or ``perspective`` is not a player colour.
    """
    own = _check(k, perspective)
    size = state.size
    planes = np.empty((size, size, 2 * k + 1), dtype=PLANE_DTYPE)
    boards, n_pos = state.board_rows()
    _fill_hwc(boards, n_pos, own, planes)
    return planes


class HistoryPlanesHWC:
    """The planes of :func:`history_planes_hwc` for one perspective, observation after observation.

    Each call returns new planes of the given state, like :func:`history_planes_hwc`, but
    computes them from the planes it returned last when the state continues the same game
    (the same board history, ``d`` positions further on, ``0 <= d < k``): the stone planes then
    only shift by ``d`` ages, so only the ``d`` newest ages are read from the boards. That is
    the environment's case: each agent observes every other position.

    Args:
        size: Board size N of the states it will be given.
        k: Number of positions of history, at least 1.
        perspective: The colour whose stones come first (``Color.BLACK`` or ``Color.WHITE``).

    Raises:
        ValueError: When ``k`` is not a positive int or ``perspective`` is not a player colour.
    """

    __slots__ = ("_boards", "_kernel", "_last", "_n", "_own", "_shape")

    def __init__(self, size: int, k: int, perspective: Color | int) -> None:
        self._own = _check(k, perspective)
        self._shape = (size, size, 2 * k + 1)
        self._last = np.zeros(self._shape, dtype=PLANE_DTYPE)
        self._boards: np.ndarray | None = None
        self._kernel: Callable[..., None] = _update_hwc
        self._n = 0

    def __call__(self, state: GoState) -> np.ndarray:
        """A new C-contiguous ``int8`` array ``(N, N, 2k + 1)``: the planes of ``state``.

        Raises:
            ValueError: When ``state`` is not of the board size given to the constructor.
        """
        boards, n_pos = state.board_rows()
        return self.from_rows(boards, n_pos)

    def from_rows(self, boards: np.ndarray, n_pos: int) -> np.ndarray:
        """The planes of the position whose history is ``(boards, n_pos)``.

        Args:
            boards: The board history of a state, as from :meth:`GoState.board_rows`.
            n_pos: The number of positions in it, as from :meth:`GoState.board_rows`.

        Returns:
            A new C-contiguous ``int8`` array ``(N, N, 2k + 1)``.

        Raises:
            ValueError: When the boards are not of the board size given to the constructor.
        """
        if boards is self._boards:
            since = n_pos - self._n
        else:
            since = -1
            size = self._shape[0]
            if boards.ndim != 2 or boards.shape[1] != size * size:
                raise ValueError(
                    f"these planes are for {size}x{size} boards (rows of {size * size} points), "
                    f"got a board history of shape {boards.shape}"
                )
            # GoState's board histories (the usual case) skip numba's type dispatch.
            self._kernel = _fast_update() if is_plain_int8(boards, 2) else _update_hwc
        planes = np.empty(self._shape, dtype=PLANE_DTYPE)
        self._kernel(boards, n_pos, self._own, since, self._last, planes)
        self._boards = boards
        self._n = n_pos
        return planes
