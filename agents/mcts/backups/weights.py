"""The monotone-function family ``G_d`` of Lemma 3.1 in [LL20], as tables over visit counts.

Li & Lim, *Bayesian optimization for backpropagation in Monte-Carlo tree search*, 2020, Lemma
3.1: ``f`` is continuously differentiable and strictly increasing on ``[0, inf)`` iff

    f(x) = f(0) + ∫_0^x exp(g(t)) dt

for a continuous ``g``. The finite family ``G_d`` (``docs/backups.md#weight-family``) takes ``g``
piecewise linear with knots ``t_j = j N / d`` (``j = 0..d``, ``N`` the simulations per move)
and heights ``g_j``; past ``N`` (only with tree reuse) ``g`` stays at ``g_d`` (a RECONSTRUCTED
choice). On a segment, with ``Δ = N/d`` and slope ``σ_j = (g_{j+1} - g_j) / Δ``:

    ∫_{t_j}^{t_j + u} exp(g(t)) dt = exp(g_j) · u · φ(σ_j u),   φ(z) = (e^z - 1) / z

Everything is computed in log space (``g`` may reach tens), with ``φ`` through ``expm1``, once
per parameter vector for the integer visit counts ``k = 0..N``; each backup is then O(1).

A knot may be ``-inf``: ``exp(g)`` is then zero on the segments that touch it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "TAU_MAX",
    "knot_times",
    "log_integral",
    "log_phi",
    "log_weight_table",
    "tau_table",
]

TAU_MAX = 1e300
"""Ceiling of the softmax temperature table (``exp`` of a log-integral above ~709 overflows)."""


def log_phi(z: np.ndarray | float) -> np.ndarray:
    """``log φ(z)`` with ``φ(z) = (e^z - 1) / z`` and ``φ(0) = 1``, accurate for all real ``z``."""
    z = np.asarray(z, dtype=np.float64)
    out = np.empty_like(z)
    small = np.abs(z) < 1e-8
    big = z > 30.0
    neg = (z < 0) & ~small
    mid = ~small & ~big & ~neg
    out[small] = z[small] / 2.0  # φ(z) = 1 + z/2 + O(z²)
    out[big] = z[big] + np.log1p(-np.exp(-z[big])) - np.log(z[big])
    out[mid] = np.log(np.expm1(z[mid])) - np.log(z[mid])
    out[neg] = np.log(-np.expm1(z[neg])) - np.log(-z[neg])
    return out


def knot_times(n_knots: int, n_simulations: int) -> np.ndarray:
    """Knot positions ``t_j = j N / d`` for ``j = 0..d`` (``d = n_knots - 1``)."""
    d = n_knots - 1
    return np.arange(n_knots, dtype=np.float64) * (n_simulations / d)


def _segment_log_integral(g0: float, g1: float, delta: float, u: np.ndarray) -> np.ndarray:
    """``log ∫_{t_j}^{t_j+u} exp(g)`` on one segment with end heights ``g0``, ``g1``."""
    if not (np.isfinite(g0) and np.isfinite(g1)):
        return np.full(u.shape, -np.inf)
    slope = (g1 - g0) / delta
    with np.errstate(divide="ignore"):
        return g0 + np.log(u) + log_phi(slope * u)


def log_integral(g: Sequence[float], n_simulations: int, x: np.ndarray) -> np.ndarray:
    """``log ∫_0^x exp(g(t)) dt`` for ``g`` in ``G_d`` with knot heights ``g`` over ``[0, N]``.

    Args:
        g: Knot heights ``(g_0, ..., g_d)``, ``d >= 1``.
        n_simulations: ``N``, the end of the last segment.
        x: ``float64 (K,)`` non-negative points; beyond ``N``, ``g`` is held at ``g_d``.

    Returns:
        ``float64 (K,)``; ``-inf`` where the integral is zero.
    """
    heights = np.asarray(g, dtype=np.float64)
    d = heights.shape[0] - 1
    delta = n_simulations / d
    x = np.asarray(x, dtype=np.float64)
    # Integral over each full segment, then cumulative integrals at the knots.
    full = np.array(
        [
            _segment_log_integral(heights[j], heights[j + 1], delta, np.array([delta]))[0]
            for j in range(d)
        ]
    )
    at_knot = np.concatenate(([-np.inf], np.logaddexp.accumulate(full)))
    out = np.empty_like(x)
    inside = x <= n_simulations
    xi = x[inside]
    seg = np.minimum((xi // delta).astype(np.int64), d - 1)
    u = xi - seg * delta
    vals = np.empty_like(xi)
    for j in np.unique(seg):
        mask = seg == j
        part = _segment_log_integral(heights[j], heights[j + 1], delta, u[mask])
        vals[mask] = np.logaddexp(at_knot[j], part)
    out[inside] = vals
    beyond = ~inside
    if beyond.any():
        with np.errstate(divide="ignore"):
            tail = heights[d] + np.log(x[beyond] - n_simulations)
        out[beyond] = np.logaddexp(at_knot[d], tail)
    return out


def log_weight_table(g: Sequence[float], n_simulations: int, *, f0: float = 1.0) -> np.ndarray:
    """``log f(k)`` for ``k = 0..N`` with ``f(x) = f0 + ∫_0^x exp(g)`` (Lemma 3.1, eq. 8).

    Monotone MCTS uses ``f0 = 1`` ([LL20]: "with f(0) set to 1").
    """
    k = np.arange(n_simulations + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        log_f0 = np.log(f0)
    return np.logaddexp(log_f0, log_integral(g, n_simulations, k))


def tau_table(g: Sequence[float], n_simulations: int) -> np.ndarray:
    """The Softmax temperature ``τ(k) = ∫_0^k exp(g)`` for ``k = 0..N`` (``f(0) = 0``).

    Values are capped at :data:`TAU_MAX` (a hard max for every practical purpose).
    """
    k = np.arange(n_simulations + 1, dtype=np.float64)
    logs = log_integral(g, n_simulations, k)
    capped = logs >= np.log(TAU_MAX)
    tau = np.exp(np.where(capped, 0.0, logs))
    tau[capped] = TAU_MAX
    return tau
