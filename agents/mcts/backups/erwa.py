"""ERWA: exponential recency-weighted average of the returns ([LL20] eq. 3).

``Xbar_n = Xbar_{n-1} + α (X_n - Xbar_{n-1})``, ``0 < α <= 1`` (EXACT; Sutton & Barto,
*Reinforcement Learning: An Introduction*, 2nd ed., 2018, §2.5; used as a baseline by Li & Lim,
*Bayesian optimization for backpropagation in Monte-Carlo tree search*, 2020).

How the first return is handled is not stated in [LL20] (RECONSTRUCTED,
``docs/backups.md#erwa``); both readings are offered through ``variant``:

* ``plain``: ``Xbar_1 = X_1``, then the constant step ``α``. ``X_1`` keeps the weight
  ``(1-α)^{n-1}``, so with ``α << 1/n`` a node's value is mostly its first return.
* ``unbiased``: step ``η_n = α / (1 - (1-α)^n)`` (Sutton & Barto, Exercise 2.7), weights
  exactly proportional to ``(1-α)^{n-k}``; tends to the standard mean as ``α -> 0``.

``α = 1`` keeps the last return only, in both variants.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numba import njit

from agents.mcts.backups._common import check_number
from agents.mcts.backups._kernel import NO_TABLE, kernel_params
from agents.mcts.tree import Tree, TreeArrays

__all__ = ["ErwaBackup"]


@njit(cache=True)
def _erwa_backup(t, path, leaf_value, table, params):  # pragma: no cover - compiled
    """ERWA on ``path``; ``params``: ``(alpha, unbiased)`` (``agents.mcts.backups._kernel``)."""
    visits, value = t.visits, t.value
    alpha = params[0]
    unbiased = params[1] != 0.0
    x = -leaf_value
    log_keep = math.log1p(-alpha) if alpha < 1.0 else -math.inf
    for i in range(path.shape[0] - 1, -1, -1):
        node = path[i]
        n = visits[node] + 1
        visits[node] = n
        if n == 1:
            step = 1.0
        elif unbiased:
            step = alpha / -math.expm1(n * log_keep)  # α / (1 - (1-α)^n)
        else:
            step = alpha
        value[node] += step * (x - value[node])
        x = -x


@njit(cache=True)
def _erwa_packed(packed, path, leaf_value, table, params):  # pragma: no cover - compiled
    _erwa_backup(TreeArrays(*packed), path, leaf_value, table, params)


@dataclass(frozen=True, kw_only=True)
class ErwaBackup:
    """Exponential recency-weighted average of the returns ([LL20] eq. 3).

    Attributes:
        alpha: Step size ``α`` in ``(0, 1]``. [LL20]'s three table values are lost; the default
            0.01 is a placeholder inside the recommended range ``[1e-4, 0.1]``
            (``docs/backups.md#erwa``).
        variant: ``"plain"`` (``Xbar_1 = X_1``, then step ``α``; the default for the "ERWA"
            rows) or ``"unbiased"`` (step ``α / (1 - (1-α)^n)``). Both RECONSTRUCTED.
    """

    n_stats: ClassVar[int] = 0

    alpha: float = 0.01
    variant: Literal["plain", "unbiased"] = "plain"

    def __post_init__(self) -> None:
        check_number("erwa", "alpha", self.alpha, low=0.0, high=1.0, low_open=True)
        if self.variant not in ("plain", "unbiased"):
            raise ValueError(
                f"erwa: parameter 'variant' must be 'plain' or 'unbiased', got {self.variant!r}"
            )
        object.__setattr__(self, "_params", kernel_params(self.alpha, self.variant == "unbiased"))

    def bind(self, n_simulations: int) -> ErwaBackup:
        """No dependence on the budget."""
        return self

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        """Update every node on ``path`` with the alternating-sign return."""
        _erwa_packed(tree.packed, path, float(leaf_value), NO_TABLE, self.__dict__["_params"])
