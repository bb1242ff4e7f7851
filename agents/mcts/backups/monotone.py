"""Monotone MCTS: returns weighted by a learnt increasing function of the visit index.

Li & Lim, *Bayesian optimization for backpropagation in Monte-Carlo tree search*, 2020, §3.1,
eq. (9). DERIVED update (``docs/backups.md#monotone``): the weighted average with weights ``f(k)``,
``k`` the node-local visit index,

    Xbar_n = Xbar_{n-1} + ( f(n) / F(n) ) (X_n - Xbar_{n-1}),    F(n) = Σ_{k=1}^{n} f(k)

with ``f(x) = 1 + ∫_0^x exp(g(t)) dt`` (Lemma 3.1 with ``f(0) = 1``, EXACT) and ``g`` in
``G_d``: piecewise linear with knot heights ``g_0..g_d`` at ``t_j = j N / d``
(:mod:`agents.mcts.backups.weights`). The step ``f(n)/F(n)`` depends only on ``n``, so it is
tabulated for ``n <= N`` at bind time (in log space); past ``N`` (tree reuse, ``g = g_d``
there) a closed form continues it.

Special cases (DERIVED): all ``g_j = -inf`` is the standard mean; ``g(t) = ln c + c t`` with
``c = -ln(1-α)`` is unbiased ERWA(α) (Proposition 3.2); constant ``g = ln c`` gives linear
weights ``1 + c k``.

RECONSTRUCTED, as options: ``zero_based`` indexing (the k-th return weighted by ``f(k-1)``) and
the default knots (``g ≡ 0``, i.e. ``f(x) = 1 + x``; [LL20]'s tuned values are lost).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numba import njit

from agents.mcts.backups._common import bound_copy, check_knots, check_simulations, require_bound
from agents.mcts.backups._kernel import kernel_params
from agents.mcts.backups.params_io import apply_params_file
from agents.mcts.backups.tunable import MonotoneTunable, Tunable
from agents.mcts.backups.weights import log_weight_table
from agents.mcts.tree import Tree, TreeArrays

__all__ = ["MonotoneBackup", "monotone_steps"]


@njit(cache=True)
def _logaddexp(a, b):  # pragma: no cover - compiled
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    hi = max(a, b)
    return hi + math.log1p(math.exp(-abs(a - b)))


@njit(cache=True)
def _monotone_backup(t, path, leaf_value, table, params):  # pragma: no cover - compiled
    """Monotone on ``path`` (``agents.mcts.backups._kernel``'s signature).

    ``table`` holds the steps, ``params`` ``(shift, log_f_end, log_s_end, g_end)``
    (:func:`monotone_steps`).
    """
    visits, value = t.visits, t.value
    steps = table
    shift = int(params[0])
    log_f_end, log_s_end, g_end = params[1], params[2], params[3]
    x = -leaf_value
    top = steps.shape[0] - 1
    for i in range(path.shape[0] - 1, -1, -1):
        node = path[i]
        n = visits[node] + 1
        visits[node] = n
        m = n - shift  # weight index of this return: n, or n-1 when zero-based
        if m <= top:
            step = steps[m]
        else:  # beyond N: f(m) = f(N) + e^{g_d} (m - N)
            r = m - top
            log_f = _logaddexp(log_f_end, g_end + math.log(r))
            log_s = _logaddexp(
                _logaddexp(log_s_end, math.log(r) + log_f_end), g_end + math.log(r * (r + 1) / 2.0)
            )
            step = math.exp(log_f - log_s)
        value[node] += step * (x - value[node])
        x = -x


@njit(cache=True)
def _monotone_packed(packed, path, leaf_value, table, params):  # pragma: no cover - compiled
    _monotone_backup(TreeArrays(*packed), path, leaf_value, table, params)


def monotone_steps(
    g: tuple[float, ...], n_simulations: int, *, zero_based: bool = False
) -> dict[str, Any]:
    """Step-size table ``f(w(n)) / Σ_{k<=n} f(w(k))`` indexed by the weight index ``w(n)``.

    ``w(n) = n``, or ``n - 1`` when ``zero_based``; entries run over ``w = 0..N``.

    Returns:
        ``steps`` (``float64 (N+1,)``) and the scalars the kernel needs past ``N``:
        ``shift``, ``log f(N)``, ``log Σ f`` up to ``N``, and ``g_d``.
    """
    log_f = log_weight_table(g, n_simulations, f0=1.0)
    start = 0 if zero_based else 1
    log_s = np.full_like(log_f, -np.inf)
    log_s[start:] = np.logaddexp.accumulate(log_f[start:])
    steps = np.ones_like(log_f)
    steps[start:] = np.exp(log_f[start:] - log_s[start:])
    return {
        "steps": steps,
        "shift": 1 if zero_based else 0,
        "log_f_end": float(log_f[-1]),
        "log_s_end": float(log_s[-1]),
        "g_end": float(g[-1]),
    }


@dataclass(frozen=True, kw_only=True)
class MonotoneBackup:
    """Monotone MCTS ([LL20] §3.1): the weighted average with weights ``f(k)``, ``f`` in G_d.

    Attributes:
        g: Knot heights ``(g_0, ..., g_d)`` of ``g`` (``d >= 1``), at ``t_j = j N / d``; a knot
            may be ``-inf``. Default ``(0,) * 6`` (``d = 5``, ``f(x) = 1 + x``), a placeholder.
        zero_based: Weight the k-th return by ``f(k-1)`` instead of ``f(k)`` (RECONSTRUCTED
            alternative; default off).
        file: A parameter file (:mod:`agents.mcts.backups.params_io`) for ``"monotone"`` whose
            values replace the defaults; also the positional value of a spec
            (``monotone:params.json``).
    """

    n_stats: ClassVar[int] = 0
    __spec_positional__: ClassVar[str] = "file"
    tunable: ClassVar[Tunable] = MonotoneTunable(bounds=(-10.0, 10.0))
    """Tuned: the knot heights, each in (-10.0, 10.0) by default.

    See ``docs/backups.md#weight-family``.
    """

    g: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    zero_based: bool = False
    file: str | None = None

    def __post_init__(self) -> None:
        if self.file is not None:
            apply_params_file(self, "monotone", self.file)
        object.__setattr__(self, "g", check_knots("monotone", "g", self.g))
        if not isinstance(self.zero_based, bool):
            raise ValueError(
                f"monotone: parameter 'zero_based' must be true or false, got {self.zero_based!r}"
            )

    def bind(self, n_simulations: int) -> MonotoneBackup:
        """Tabulate the step sizes for ``N = n_simulations`` (cached per ``N``)."""
        n = check_simulations("monotone", n_simulations)

        def build() -> dict[str, Any]:
            tables = monotone_steps(self.g, n, zero_based=self.zero_based)
            params = kernel_params(
                tables["shift"], tables["log_f_end"], tables["log_s_end"], tables["g_end"]
            )
            return {"_tables": tables, "_params": params}

        return bound_copy(self, n, build)

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        """Update every node on ``path`` with the alternating-sign return."""
        t = require_bound(self, "_tables", "monotone")
        _monotone_packed(tree.packed, path, float(leaf_value), t["steps"], self.__dict__["_params"])
