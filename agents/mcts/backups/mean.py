"""Standard MCTS backup: the running mean of the returns ([LL20] eq. 1).

``Xbar_n = Xbar_{n-1} + (X_n - Xbar_{n-1}) / n`` with ``X`` the return from the perspective of
the player who moved into the node. Li & Lim, *Bayesian optimization for backpropagation in
Monte-Carlo tree search*, 2020, eq. (1); the baseline "standard MCTS" of every table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from agents.mcts.backups._kernel import NO_TABLE, kernel_params
from agents.mcts.tree import Tree, TreeArrays

__all__ = ["MeanBackup"]


_PARAMS = kernel_params()


@njit(cache=True)
def _mean_backup(t, path, leaf_value, table, params):  # pragma: no cover - compiled
    """The running mean on ``path`` (``agents.mcts.backups._kernel``'s signature)."""
    visits, value = t.visits, t.value
    x = -leaf_value
    for i in range(path.shape[0] - 1, -1, -1):
        node = path[i]
        n = visits[node] + 1
        visits[node] = n
        value[node] += (x - value[node]) / n
        x = -x


@njit(cache=True)
def _mean_packed(packed, path, leaf_value, table, params):  # pragma: no cover - compiled
    _mean_backup(TreeArrays(*packed), path, leaf_value, table, params)


@dataclass(frozen=True, kw_only=True)
class MeanBackup:
    """Running mean of the returns: standard MCTS. No parameters."""

    n_stats: ClassVar[int] = 0

    def bind(self, n_simulations: int) -> MeanBackup:
        """No dependence on the budget."""
        return self

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        """Update every node on ``path`` with the alternating-sign return."""
        _mean_packed(tree.packed, path, float(leaf_value), NO_TABLE, _PARAMS)
