"""Power-mean backup ("Power-UCT"): a generalised mean of the children's values.

Tuan Dam, Pascal Klink, Carlo D'Eramo, Jan Peters and Joni Pajarinen, *Generalized mean
estimation in Monte-Carlo tree search*, arXiv 2019 / IJCAI 2020. RECONSTRUCTED formula
(``docs/backups.md#power-mean``), for a node's visited children with values ``q_i`` from the
perspective of the player to move at the node:

    V_p(s) = ( Σ_i (n_i / Σ_j n_j) u_i^p )^{1/p},   u_i = (1 + q_i) / 2,   q = 2 V_p - 1

evaluated as ``u_max (Σ_i (n_i/Σn) (u_i/u_max)^p)^{1/p}``. ``p = 1`` is the visit-weighted
average of the children, ``p -> inf`` their max.

Child aggregation like :mod:`agents.mcts.backups.softmax`: values are recomputed leaf first on
the simulated path, with the same two options, both RECONSTRUCTED for this operator and on by
default: ``recursive`` (children's recomputed values rather than their plain means) and
``self_mixed`` (the node's own leaf evaluations mixed in, so that ``p = 1`` equals the standard
mean). A node without visited children keeps its plain mean. The paper's visit-dependent ``p``
is not implemented.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from agents.mcts.backups._aggregate import MEAN, count_return, mix_own_evaluation
from agents.mcts.backups._common import check_number
from agents.mcts.backups._kernel import NO_TABLE, kernel_params
from agents.mcts.tree import Tree, TreeArrays

__all__ = ["PowerMeanBackup"]


@njit(cache=True)
def _power(r, p, int_p):  # pragma: no cover - compiled
    """``r ** p`` for ``r`` in [0, 1]; by squaring when ``p`` is a small integer."""
    if int_p < 0:
        return r**p
    out = 1.0
    while int_p > 0:
        if int_p & 1:
            out *= r
        r *= r
        int_p >>= 1
    return out


@njit(cache=True)
def _power_mean_backup(t, path, leaf_value, table, params):  # pragma: no cover - compiled
    """Power mean on ``path``; ``params``: ``(p, int_p, recursive, self_mixed)``.

    ``int_p`` is ``p`` when it is an integer up to 64, else -1 (``agents.mcts.backups._kernel``).
    """
    visits, value, stats = t.visits, t.value, t.stats
    first_child, n_children = t.first_child, t.n_children
    p = params[0]
    int_p = int(params[1])
    recursive = params[2] != 0.0
    self_mixed = params[3] != 0.0
    last = path.shape[0] - 1
    x = -leaf_value
    for i in range(last, -1, -1):
        node = path[i]
        count_return(visits, stats, node, x, i == last)
        x = -x
        first = first_child[node]
        stop = first + n_children[node]
        u_max = 0.0
        total = 0.0
        for c in range(first, stop):
            if visits[c] > 0:
                q = value[c] if recursive else stats[c, MEAN]
                u_max = max(u_max, 0.5 * (1.0 + q))
                total += visits[c]
        if total == 0.0:
            value[node] = stats[node, MEAN]
            continue
        if u_max > 0.0:
            acc = 0.0
            for c in range(first, stop):
                if visits[c] > 0:
                    q = value[c] if recursive else stats[c, MEAN]
                    u = max(0.5 * (1.0 + q), 0.0)
                    acc += visits[c] * _power(u / u_max, p, int_p)
            u_mean = u_max * (acc / total) ** (1.0 / p)
        else:
            u_mean = 0.0
        agg = -(2.0 * u_mean - 1.0)  # perspective of the mover into ``node``
        value[node] = mix_own_evaluation(stats, node, total, agg, self_mixed)


@njit(cache=True)
def _power_mean_packed(packed, path, leaf_value, table, params):  # pragma: no cover - compiled
    _power_mean_backup(TreeArrays(*packed), path, leaf_value, table, params)


@dataclass(frozen=True, kw_only=True)
class PowerMeanBackup:
    """Power mean of the children's values, mapped to ``[0, 1]`` (Dam et al., 2019).

    Attributes:
        p: Exponent ``p >= 1`` (finite): 1 is the visit-weighted average, large ``p``
            approaches the max. Default 2 (a useful sweep is 1, 2, 4, 8, 16).
        recursive: Children's values are their recomputed power means (default) rather than
            their plain means. RECONSTRUCTED option.
        self_mixed: Mix the node's own leaf evaluation(s) in (default). RECONSTRUCTED option.
    """

    n_stats: ClassVar[int] = 3

    p: float = 2.0
    recursive: bool = True
    self_mixed: bool = True

    def __post_init__(self) -> None:
        p = check_number("power_mean", "p", self.p, low=1.0)
        # Integer exponents up to 64 are computed by squaring (faster than pow).
        int_p = int(p) if p.is_integer() and p <= 64 else -1
        for name in ("recursive", "self_mixed"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(
                    f"power_mean: parameter {name!r} must be true or false, "
                    f"got {getattr(self, name)!r}"
                )
        object.__setattr__(
            self, "_params", kernel_params(p, int_p, self.recursive, self.self_mixed)
        )

    def bind(self, n_simulations: int) -> PowerMeanBackup:
        """No dependence on the budget."""
        return self

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        """Update the means on ``path`` and recompute the power means leaf first."""
        _power_mean_packed(tree.packed, path, float(leaf_value), NO_TABLE, self.__dict__["_params"])
