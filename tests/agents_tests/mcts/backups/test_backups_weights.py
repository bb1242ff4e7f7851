"""The G_d family of Lemma 3.1 ([LL20]): closed forms against direct numerical integration."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.mcts.backups.weights import (
    TAU_MAX,
    knot_times,
    log_integral,
    log_phi,
    log_weight_table,
    tau_table,
)


def numeric_integral(g: list[float], n_sims: int, x: float, points: int = 400_001) -> float:
    """∫_0^x exp(g(t)) dt with g piecewise linear (held at g_d past N), by Simpson's rule."""
    knots = knot_times(len(g), n_sims)
    t = np.linspace(0.0, x, points)
    gt = np.interp(t, knots, np.asarray(g, dtype=float))  # np.interp holds g_d past the end
    h = t[1] - t[0]
    y = np.exp(gt)
    return float(h / 3 * (y[0] + y[-1] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum()))


@pytest.mark.parametrize(
    "z",
    [
        0.0,
        1e-12,
        -1e-12,
        1e-6,
        -3e-7,
        0.5,
        -0.5,
        3.0,
        -3.0,
        29.0,
        31.0,
        -40.0,
        200.0,
        800.0,
        -800.0,
    ],
)
def test_log_phi_matches_definition(z: float) -> None:
    got = float(log_phi(np.array([z]))[0])
    if z == 0.0:
        expected = 0.0
    elif z > 700:  # log((e^z - 1)/z) = z + log(1 - e^-z) - log z
        expected = z - math.log(z)
    else:
        expected = math.log(math.expm1(z) / z)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_knots_are_uniform_over_the_budget() -> None:
    np.testing.assert_allclose(knot_times(6, 5000), [0, 1000, 2000, 3000, 4000, 5000])
    np.testing.assert_allclose(knot_times(4, 10), [0, 10 / 3, 20 / 3, 10])


@pytest.mark.parametrize(
    "g",
    [
        [0.0, 0.0],
        [-2.0, 1.0, 0.5],
        [1.0, -3.0, 2.0, 2.0, -1.0],
        [-6.0, -4.5, -7.0, -5.0, -6.5, -3.0],
    ],
)
def test_log_integral_matches_numerical_integration(g: list[float]) -> None:
    n_sims = 30
    for x in (0.7, 5.0, 10.0, 17.3, 30.0, 41.0):  # inside segments, at knots, past N
        got = float(np.exp(log_integral(g, n_sims, np.array([x]))[0]))
        assert got == pytest.approx(numeric_integral(g, n_sims, x), rel=1e-9)


def test_log_integral_is_zero_at_zero_and_increasing() -> None:
    values = log_integral([-1.0, 2.0, -0.5], 20, np.arange(21.0))
    assert values[0] == -np.inf
    assert np.all(np.diff(values) > 0)


def test_constant_g_gives_linear_weights() -> None:
    c = 0.37
    log_f = log_weight_table([math.log(c)] * 4, 50, f0=1.0)
    np.testing.assert_allclose(np.exp(log_f), 1.0 + c * np.arange(51), rtol=1e-13)


def test_linear_g_gives_exponential_weights() -> None:
    c, n_sims = 0.02, 400
    log_f = log_weight_table([math.log(c), math.log(c) + c * n_sims], n_sims, f0=1.0)
    np.testing.assert_allclose(log_f, c * np.arange(n_sims + 1), rtol=1e-13, atol=1e-14)


def test_large_knots_stay_finite_in_log_space() -> None:
    log_f = log_weight_table([40.0, 60.0, 900.0], 5000, f0=1.0)
    assert np.isfinite(log_f).all() and np.all(np.diff(log_f) > 0)
    tau = tau_table([40.0, 60.0, 900.0], 5000)
    assert np.isfinite(tau).all() and tau[-1] == TAU_MAX


def test_minus_infinity_knots_give_zero_integral_on_their_segments() -> None:
    # g = -inf on the first two segments (both touch the -inf knot), finite after.
    g = [0.0, -math.inf, 0.0, 0.0]
    n_sims = 30
    tau = tau_table(g, n_sims)
    assert tau[0] == 0.0 and np.all(tau[:21] == 0.0)
    np.testing.assert_allclose(tau[20:], np.arange(11.0), rtol=1e-13)
    np.testing.assert_array_equal(tau_table([-math.inf, -math.inf], 10), np.zeros(11))


def test_weight_table_offsets() -> None:
    g = [-1.0, 0.5, 0.0]
    tau = tau_table(g, 12)
    assert tau[0] == 0.0
    np.testing.assert_allclose(np.exp(log_weight_table(g, 12, f0=1.0)), 1.0 + tau, rtol=1e-13)
