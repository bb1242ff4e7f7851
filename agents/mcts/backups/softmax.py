"""Softmax MCTS: a visit- and value-weighted soft maximum over the children.

Li & Lim, *Bayesian optimization for backpropagation in Monte-Carlo tree search*, 2020, §3.2.
EXACT in words, DERIVED in formula (``docs/backups.md#softmax``), for a node ``s`` and its visited
children ``c_i`` with values ``q_i`` from the perspective of the player to move at ``s``:

    V_soft(s) = Σ_i w_i q_i,   w_i ∝ n_i exp(τ(n(s)) q_i)

evaluated with the max-shift ``exp(τ (q_i - max_j q_j))``. The temperature grows with the
node's own visit count: ``τ(n) = ∫_0^n exp(g(t)) dt`` with ``g`` in ``G_d`` (Lemma 3.1 with
``f(0) = 0``, tabulated at bind time by :func:`agents.mcts.backups.weights.tau_table`).
``τ = 0`` (all ``g_j = -inf``) is the standard mean; ``τ -> inf`` the hard max.

After each simulation the values of the nodes on the path are recomputed, leaf first. Options
for the RECONSTRUCTED interpretation choices of ``docs/backups.md#softmax``:

* ``recursive`` (default on): ``q_i = -V(c_i)``, the child's own recomputed value
  (``tree.value[c_i]``); off: ``q_i`` is the child's plain mean.
* ``self_mixed`` (default on): the node's own leaf evaluations are mixed in untilted,
  ``V(s) = (v(s) + (n(s)-1) V_soft(s)) / n(s)`` ; generalised to ``(Σ own evaluations +
  Σ_i n_i V_soft(s)) / (#own evaluations + Σ_i n_i)`` when a node was a leaf more than once,
  so that ``τ = 0`` equals the standard mean exactly in every case. Off: the literal
  ``V(s) = V_soft(s)``.

A node without visited children keeps its plain mean. Values are in ``[-1, 1]``; with winrates
in ``[0, 1]`` the same ``τ`` would have to be doubled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from agents.mcts.backups._aggregate import MEAN, count_return, mix_own_evaluation
from agents.mcts.backups._common import bound_copy, check_knots, check_simulations, require_bound
from agents.mcts.backups._kernel import kernel_params
from agents.mcts.backups.params_io import apply_params_file
from agents.mcts.backups.tunable import SoftmaxTunable, Tunable
from agents.mcts.backups.weights import TAU_MAX, tau_table
from agents.mcts.tree import Tree, TreeArrays

__all__ = ["SoftmaxBackup"]


@njit(cache=True)
def _softmax_backup(t, path, leaf_value, table, params):  # pragma: no cover - compiled
    """Softmax on ``path`` (``agents.mcts.backups._kernel``'s signature).

    ``table`` holds ``τ(0..N)``, ``params`` ``(tail_slope, recursive, self_mixed)``.
    """
    visits, value, stats = t.visits, t.value, t.stats
    first_child, n_children = t.first_child, t.n_children
    tau = table
    tail_slope = params[0]
    recursive = params[1] != 0.0
    self_mixed = params[2] != 0.0
    last = path.shape[0] - 1
    top = tau.shape[0] - 1
    x = -leaf_value
    for i in range(last, -1, -1):
        node = path[i]
        n = count_return(visits, stats, node, x, i == last)
        x = -x
        first = first_child[node]
        stop = first + n_children[node]
        q_max = -math.inf
        total = 0.0
        for c in range(first, stop):
            if visits[c] > 0:
                q = value[c] if recursive else stats[c, MEAN]
                q_max = max(q_max, q)
                total += visits[c]
        if total == 0.0:
            value[node] = stats[node, MEAN]
            continue
        t = tau[n] if n <= top else min(tau[top] + tail_slope * (n - top), TAU_MAX)
        w_sum = 0.0
        wq_sum = 0.0
        for c in range(first, stop):
            if visits[c] > 0:
                q = value[c] if recursive else stats[c, MEAN]
                w = visits[c] * math.exp(t * (q - q_max))
                w_sum += w
                wq_sum += w * q
        soft = -wq_sum / w_sum  # perspective of the mover into ``node``
        value[node] = mix_own_evaluation(stats, node, total, soft, self_mixed)


@njit(cache=True)
def _softmax_packed(packed, path, leaf_value, table, params):  # pragma: no cover - compiled
    _softmax_backup(TreeArrays(*packed), path, leaf_value, table, params)


@dataclass(frozen=True, kw_only=True)
class SoftmaxBackup:
    """Softmax MCTS ([LL20] §3.2) with temperature ``τ(n) = ∫_0^n exp(g)``, ``g`` in G_d.

    Attributes:
        g: Knot heights ``(g_0, ..., g_d)`` of ``g`` (``d >= 1``) at ``t_j = j N / d``; a knot
            may be ``-inf``. Default ``(-6,) * 6``, a placeholder (``τ(N) = e^-6 N``, about 12 at
            ``N = 5000``; [LL20]'s tuned values are lost).
        recursive: Children's values are their recomputed softmax values (default) rather than
            their plain means. RECONSTRUCTED option.
        self_mixed: Mix the node's own leaf evaluation(s) in, untilted (default), so ``τ = 0``
            equals the standard mean. RECONSTRUCTED option.
        file: A parameter file for ``"softmax"`` (:mod:`agents.mcts.backups.params_io`) whose
            values replace the defaults; also the positional value of a spec.
    """

    n_stats: ClassVar[int] = 3
    __spec_positional__: ClassVar[str] = "file"
    tunable: ClassVar[Tunable] = SoftmaxTunable(bounds=(-12.0, 2.0))
    """Tuned: the knot heights, each in (-12.0, 2.0) by default.

    See ``docs/backups.md#weight-family``.
    """

    g: tuple[float, ...] = (-6.0, -6.0, -6.0, -6.0, -6.0, -6.0)
    recursive: bool = True
    self_mixed: bool = True
    file: str | None = None

    def __post_init__(self) -> None:
        if self.file is not None:
            apply_params_file(self, "softmax", self.file)
        object.__setattr__(self, "g", check_knots("softmax", "g", self.g))
        for name in ("recursive", "self_mixed"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(
                    f"softmax: parameter {name!r} must be true or false, "
                    f"got {getattr(self, name)!r}"
                )

    def bind(self, n_simulations: int) -> SoftmaxBackup:
        """Tabulate ``τ(k)`` for ``k = 0..N`` (cached per ``N``)."""
        n = check_simulations("softmax", n_simulations)
        g_end = self.g[-1]
        tail_slope = math.exp(g_end) if g_end < math.log(TAU_MAX) else TAU_MAX
        return bound_copy(
            self,
            n,
            lambda: {
                "_tau": tau_table(self.g, n),
                "_params": kernel_params(tail_slope, self.recursive, self.self_mixed),
            },
        )

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        """Update the means on ``path`` and recompute the softmax values leaf first."""
        tau = require_bound(self, "_tau", "softmax")
        _softmax_packed(tree.packed, path, float(leaf_value), tau, self.__dict__["_params"])
