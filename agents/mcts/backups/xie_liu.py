"""Xie–Liu feedback adjustment: later returns get larger fixed weights.

Fan Xie and Zhiqing Liu, *Backpropagation modification in Monte-Carlo game tree search*, IITA
2009; used as a baseline by Li & Lim, *Bayesian optimization for backpropagation in Monte-Carlo
tree search*, 2020. The four profiles ``f1..f4`` of the original could not be recovered
(RECONSTRUCTED, ``docs/backups.md#xie-liu``). This module implements the project's stand-in: the
weighted average of the returns

    Xbar_n = Σ_{k=1}^{n} w(k) X_k / Σ_{k=1}^{n} w(k),     u = k / N

with ``w = 1 + β u`` (``linear``) or ``w = exp(β u)`` (``exponential``), ``k`` the node-local
visit index and ``N`` the simulations per move. Updated online with the closed-form step
``η_n = w(n) / Σ_{k<=n} w(k)``:

* linear: ``η_n = (1 + β n/N) / (n + β n(n+1) / (2N))``
* exponential (``c = β/N > 0``): ``η_n = (1 - e^{-c}) / (1 - e^{-c n})``

``β = 0`` (constant weights) is the standard mean. Past ``N`` (tree reuse) the same formulas
continue. The stand-ins for [LL20]'s ``f_A`` and ``f_B`` are ``exponential`` with ``β = 1`` and
``β = 3`` (``docs/backups.md#xie-liu``; a recorded choice, not the authors' profiles).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numba import njit

from agents.mcts.backups._common import bound_copy, check_number, check_simulations, require_bound
from agents.mcts.backups._kernel import NO_TABLE, kernel_params
from agents.mcts.tree import Tree, TreeArrays

__all__ = ["XieLiuBackup"]


@njit(cache=True)
def _xie_liu_backup(t, path, leaf_value, table, params):  # pragma: no cover - compiled
    """Xie-Liu on ``path``; ``params``: ``(rate, exponential)`` (see ``backups._kernel``)."""
    visits, value = t.visits, t.value
    rate = params[0]
    exponential = params[1] != 0.0
    # rate = β / N: w(k) = 1 + rate·k (linear) or exp(rate·k) (exponential).
    x = -leaf_value
    for i in range(path.shape[0] - 1, -1, -1):
        node = path[i]
        n = visits[node] + 1
        visits[node] = n
        if n == 1 or rate == 0.0:
            step = 1.0 / n
        elif exponential:
            step = math.expm1(-rate) / math.expm1(-rate * n)
        else:
            step = (1.0 + rate * n) / (n + rate * n * (n + 1) / 2.0)
        value[node] += step * (x - value[node])
        x = -x


@njit(cache=True)
def _xie_liu_packed(packed, path, leaf_value, table, params):  # pragma: no cover - compiled
    _xie_liu_backup(TreeArrays(*packed), path, leaf_value, table, params)


@dataclass(frozen=True, kw_only=True)
class XieLiuBackup:
    """Fixed increasing weights on later returns (RECONSTRUCTED stand-in for Xie & Liu 2009).

    Attributes:
        profile: ``"exponential"`` (``w = exp(β k/N)``, default) or ``"linear"``
            (``w = 1 + β k/N``).
        beta: Growth ``β >= 0`` over one search's budget; 0 is the standard mean. Default 1
            (the stand-in for [LL20]'s ``f_A``; ``β = 3`` stands in for ``f_B``).
    """

    n_stats: ClassVar[int] = 0

    profile: Literal["linear", "exponential"] = "exponential"
    beta: float = 1.0

    def __post_init__(self) -> None:
        if self.profile not in ("linear", "exponential"):
            raise ValueError(
                f"xie_liu: parameter 'profile' must be 'linear' or 'exponential', "
                f"got {self.profile!r}"
            )
        check_number("xie_liu", "beta", self.beta, low=0.0)

    def bind(self, n_simulations: int) -> XieLiuBackup:
        """Fix ``N``, the budget that normalises the visit index (``u = k/N``)."""
        n = check_simulations("xie_liu", n_simulations)
        exponential = self.profile == "exponential"
        return bound_copy(
            self,
            n,
            lambda: {
                "_params": kernel_params(self.beta / n, exponential),
            },
        )

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        """Update every node on ``path`` with the alternating-sign return."""
        params = require_bound(self, "_params", "xie_liu")
        _xie_liu_packed(tree.packed, path, float(leaf_value), NO_TABLE, params)
