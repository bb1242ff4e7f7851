"""Coulom's Mix operator as described by [LL20] (eq. 2).

Rémi Coulom, *Efficient selectivity and backup operators in Monte-Carlo tree search*, Computers
and Games 2006; in the form of Li & Lim, *Bayesian optimization for backpropagation in
Monte-Carlo tree search*, 2020, eq. (2). Structure DERIVED from [LL20]'s prose
(``docs/backups.md#coulom``); in the perspective of the player to move at ``s``:

    V_mix(s) = ( w(n(s)) · Xbar(s) + n_b · q_b ) / ( w(n(s)) + n_b )
    w(n) = a·S if n <= b·S, else (a/b)·n

``Xbar(s)`` is the plain mean of all returns through ``s``; ``b`` is the robust-max child (most
visits) with ``n_b`` visits and recursive value ``q_b = -V_mix(c_b)``; ``S`` is the number of
board points. A node without visited children keeps its plain mean.

RECONSTRUCTED (configurable, not the authors' verified formula): the scaling of ``a`` and ``b``
by ``S`` (Crazy Stone's constants ``2·W·H`` and ``16·W·H``), the omission of Coulom's secondary
rules for a highest-value child that differs from the robust-max child, and the tie-break
between children with equal visits (the larger value, then the first child).

Special cases: ``a -> inf`` is the standard mean, ``a = 0`` the robust-max child's value,
``b = inf`` a fixed mean weight ``a·S``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from agents.mcts.backups._common import DEFAULT_BOARD_POINTS, check_number
from agents.mcts.backups._kernel import NO_TABLE, kernel_params
from agents.mcts.tree import Tree, TreeArrays
from go_env.validation import check_int

__all__ = ["CoulomBackup"]

MEAN = 0  # stats column: plain mean of the returns, perspective of the mover into the node


@njit(cache=True)
def _coulom_backup(t, path, leaf_value, table, params):  # pragma: no cover - compiled
    """Coulom's Mix on ``path``; ``params``: ``(weight, threshold, slope)``.

    ``weight = a S``, ``threshold = b S``, ``slope = a / b`` (``agents.mcts.backups._kernel``).
    """
    visits, value, stats = t.visits, t.value, t.stats
    first_child, n_children = t.first_child, t.n_children
    weight, threshold, slope = params[0], params[1], params[2]
    x = -leaf_value
    for i in range(path.shape[0] - 1, -1, -1):
        node = path[i]
        n = visits[node] + 1
        visits[node] = n
        mean = stats[node, MEAN] + (x - stats[node, MEAN]) / n
        stats[node, MEAN] = mean
        x = -x
        best = -1
        best_n = 0
        best_q = -math.inf
        first = first_child[node]
        for c in range(first, first + n_children[node]):
            nc = visits[c]
            if nc > best_n or (nc == best_n and nc > 0 and value[c] > best_q):
                best = c
                best_n = nc
                best_q = value[c]
        if best < 0:
            value[node] = mean
            continue
        w = weight if n <= threshold else slope * n
        # Stored perspective (mover into ``node``): -V_mix with Xbar = -mean and q_b = value[best].
        value[node] = (w * mean - best_n * best_q) / (w + best_n)


@njit(cache=True)
def _coulom_packed(packed, path, leaf_value, table, params):  # pragma: no cover - compiled
    _coulom_backup(TreeArrays(*packed), path, leaf_value, table, params)


@dataclass(frozen=True, kw_only=True)
class CoulomBackup:
    """Coulom's Mix operator: the plain mean mixed with the robust-max child's value.

    Attributes:
        a: Mean-weight factor, ``>= 0``; the mean's weight is ``a·S`` until ``n > b·S``.
            ``a = 0`` backs up the robust-max child's value. Default 2 (Coulom(2,16)).
        b: Threshold factor, ``> 0`` (``inf`` allowed: the weight never grows). Default 16.
        points: Number of board points ``S``. ``None`` (default) takes it from the search via
            ``bind(n_simulations, board_points=...)`` (see
            :func:`agents.mcts.backups.binding.bind_backup`), and 81 (9x9) when the search does
            not say.
    """

    n_stats: ClassVar[int] = 1

    a: float = 2.0
    b: float = 16.0
    points: int | None = None

    def __post_init__(self) -> None:
        check_number("coulom", "a", self.a, low=0.0)
        check_number("coulom", "b", self.b, low=0.0, low_open=True, allow_inf=True)
        if self.points is not None:
            check_int(
                "coulom: parameter 'points'",
                self.points,
                min=1,
                allowed="a positive int (81 on 9x9, 361 on 19x19) or None",
            )
        s = self.board_points  # weight a S, threshold b S, slope a / b
        object.__setattr__(self, "_params", kernel_params(self.a * s, self.b * s, self.a / self.b))

    @property
    def board_points(self) -> int:
        """``S`` as used by :meth:`backup`."""
        return self.points if self.points is not None else DEFAULT_BOARD_POINTS

    def bind(self, n_simulations: int, *, board_points: int | None = None) -> CoulomBackup:
        """Fix ``S`` from the board unless the ``points`` parameter already sets it."""
        if board_points is None or self.points is not None:
            return self
        return dataclasses.replace(self, points=int(board_points))

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        """Update the plain means on ``path`` and recompute the Mix values leaf first."""
        _coulom_packed(tree.packed, path, float(leaf_value), NO_TABLE, self.__dict__["_params"])
