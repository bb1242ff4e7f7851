"""MaxMCTS(λ): returns that mix the sampled return with the best child's value.

Piyush Khandelwal, Elad Liebman, Scott Niekum and Peter Stone, *On the analysis of complex
backup strategies in Monte Carlo tree search*, ICML 2016; described by Li & Lim, *Bayesian
optimization for backpropagation in Monte-Carlo tree search*, 2020, as interpolating between
the average of the children's values (``λ = 1``) and the value of the best child (``λ = 0``).

RECONSTRUCTED transcription for games (``docs/backups.md#maxmcts``; ``r = 0`` before the end,
``γ = 1``, negamax). On the path ``s_0 .. s_L``, leaf first:

    T_L = -v(s_L)
    T_t = -[ λ T_{t+1} + (1-λ) max_{c in children(s_t), n_c > 0} Q(c) ]
    n(s_t) += 1;  Q(s_t) += (T_t - Q(s_t)) / n(s_t)

``Q(c)`` is ``tree.value[c]`` (the perspective of the player to move at ``c``'s parent). The
child is updated before the max is taken, so the max includes the child just updated. The root
is updated by the same rule (the transcription's ``t >= 1`` leaves it free; the protocol counts its
visits). ``λ = 1`` is standard MCTS; ``λ = 0`` a one-step max backup (Q-learning-like).
MCTS(λ) and the γ-return variants are not implemented.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from agents.mcts.backups._common import check_number
from agents.mcts.backups._kernel import NO_TABLE, kernel_params
from agents.mcts.tree import Tree, TreeArrays

__all__ = ["MaxMctsBackup"]


@njit(cache=True)
def _maxmcts_backup(t, path, leaf_value, table, params):  # pragma: no cover - compiled
    """MaxMCTS(λ) on ``path``; ``params``: ``(lam,)`` (``agents.mcts.backups._kernel``)."""
    visits, value, first_child, n_children = t.visits, t.value, t.first_child, t.n_children
    lam = params[0]
    last = path.shape[0] - 1
    ret = -leaf_value
    for i in range(last, -1, -1):
        node = path[i]
        if i < last and lam < 1.0:
            best = -math.inf
            first = first_child[node]
            for c in range(first, first + n_children[node]):
                if visits[c] > 0 and value[c] > best:
                    best = value[c]
            ret = -(lam * ret + (1.0 - lam) * best)
        elif i < last:
            ret = -ret
        n = visits[node] + 1
        visits[node] = n
        value[node] += (ret - value[node]) / n


@njit(cache=True)
def _maxmcts_packed(packed, path, leaf_value, table, params):  # pragma: no cover - compiled
    _maxmcts_backup(TreeArrays(*packed), path, leaf_value, table, params)


@dataclass(frozen=True, kw_only=True)
class MaxMctsBackup:
    """MaxMCTS(λ) of Khandelwal et al. (2016), RECONSTRUCTED for two-player games.

    Attributes:
        lam: ``λ`` in ``[0, 1]``: 1 (default) is the standard mean, 0 the one-step max backup.
    """

    n_stats: ClassVar[int] = 0

    lam: float = 1.0

    def __post_init__(self) -> None:
        check_number("maxmcts", "lam", self.lam, low=0.0, high=1.0)
        object.__setattr__(self, "_params", kernel_params(self.lam))

    def bind(self, n_simulations: int) -> MaxMctsBackup:
        """No dependence on the budget."""
        return self

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        """Compute the λ-returns leaf first and average them into the nodes on ``path``."""
        _maxmcts_packed(tree.packed, path, float(leaf_value), NO_TABLE, self.__dict__["_params"])
