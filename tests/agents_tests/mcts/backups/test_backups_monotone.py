"""Monotone MCTS ([LL20] §3.1): hand values, Proposition 3.2, limits and parameter files."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from game_support import LONE_ROOT, feed

from agents.mcts.backups import backup_spec, make_backup
from agents.mcts.backups.erwa import ErwaBackup
from agents.mcts.backups.mean import MeanBackup
from agents.mcts.backups.monotone import MonotoneBackup
from agents.mcts.backups.params_io import ParamsFileError, write_params
from agents.mcts.testing import random_path, run_random_search
from agents.mcts.tree import Tree


def numeric_f(g: list[float], n_sims: int, x: float) -> float:
    """f(x) = 1 + ∫_0^x exp(g) with g piecewise linear, held at g_d past N (trapezoid rule)."""
    knots = np.linspace(0.0, n_sims, len(g))
    t = np.linspace(0.0, x, 200_001)
    return 1.0 + float(np.trapezoid(np.exp(np.interp(t, knots, g)), t))


def test_linear_weights_by_hand() -> None:
    # g ≡ 0: f(k) = 1 + k; weights f(1), f(2), f(3) = 2, 3, 4
    assert feed(MonotoneBackup(g=(0.0, 0.0)), [1.0, 0.0, -1.0], n_sims=10) == pytest.approx(-2 / 9)


def test_zero_based_indexing_by_hand() -> None:
    # weights f(0), f(1), f(2) = 1, 2, 3
    got = feed(MonotoneBackup(g=(0.0, 0.0), zero_based=True), [1.0, 0.0, -1.0], n_sims=10)
    assert got == pytest.approx(-2 / 6)


@pytest.mark.parametrize("zero_based", [False, True])
def test_matches_numerically_integrated_weights(zero_based: bool) -> None:
    g = [-1.0, 0.8, -0.3, 1.5]
    n_sims = 12
    rng = np.random.default_rng(3)
    returns = rng.uniform(-1, 1, 20)  # past N = 12: g held at g_d
    for n in (1, 5, 12, 13, 20):
        idx = np.arange(1, n + 1) - (1 if zero_based else 0)
        w = np.array([numeric_f(g, n_sims, float(k)) for k in idx])
        expected = float(w @ returns[:n] / w.sum())
        got = feed(
            MonotoneBackup(g=tuple(g), zero_based=zero_based), list(returns[:n]), n_sims=n_sims
        )
        assert got == pytest.approx(expected, abs=1e-9)


def test_minus_infinity_is_the_mean() -> None:
    ref = run_random_search(MeanBackup(), seed=9)
    exact = run_random_search(MonotoneBackup(g=(-math.inf,) * 3), seed=9)
    np.testing.assert_allclose(exact.value, ref.value, atol=1e-15)
    near = run_random_search(MonotoneBackup(g=(-60.0, -60.0)), seed=9)
    np.testing.assert_allclose(near.value, ref.value, atol=1e-12)


def erwa_knots(alpha: float, n_sims: int) -> tuple[float, ...]:
    """Proposition 3.2: g(t) = ln c + c t with c = -ln(1 - α), on d = 5 segments over [0, N]."""
    c = -math.log1p(-alpha)
    return tuple(math.log(c) + c * t for t in np.linspace(0.0, n_sims, 6))


@pytest.mark.parametrize("alpha", [0.0005, 0.002, 0.01, 0.05])
def test_proposition_3_2_equals_unbiased_erwa(alpha: float) -> None:
    n_sims = 2000
    mono = MonotoneBackup(g=erwa_knots(alpha, n_sims)).bind(n_sims)
    erwa = ErwaBackup(alpha=alpha, variant="unbiased").bind(n_sims)
    a, b = Tree(), Tree()
    rng = np.random.default_rng(0)
    for v in rng.uniform(-1, 1, n_sims):  # every update of a node visited N times
        mono.backup(a, LONE_ROOT, float(v))
        erwa.backup(b, LONE_ROOT, float(v))
        assert abs(a.value[0] - b.value[0]) <= 1e-13
    # and on a whole search tree
    ta = run_random_search(MonotoneBackup(g=erwa_knots(alpha, 400)), n_simulations=400, seed=1)
    tb = run_random_search(ErwaBackup(alpha=alpha, variant="unbiased"), n_simulations=400, seed=1)
    np.testing.assert_allclose(ta.value, tb.value, rtol=0, atol=1e-13)


def test_steep_slopes_keep_the_last_return() -> None:
    returns = [1.0, -1.0, 0.4, -0.7]
    assert feed(MonotoneBackup(g=(0.0, 400.0)), returns, n_sims=4) == pytest.approx(-0.7, abs=1e-12)


def test_large_knots_are_finite() -> None:
    tree = run_random_search(MonotoneBackup(g=(30.0, 80.0, 700.0)), n_simulations=300, seed=2)
    assert np.isfinite(tree.value).all() and np.abs(tree.value).max() <= 1.0


def test_bind_is_cached_per_budget() -> None:
    strategy = MonotoneBackup()
    assert strategy.bind(100) is strategy.bind(100)
    assert strategy.bind(100) is not strategy.bind(200)
    assert strategy.bind(100) == strategy  # the tables are not part of the parameters
    with pytest.raises(RuntimeError, match="bind"):
        strategy.backup(Tree(), LONE_ROOT, 0.0)


def test_reused_tree_past_the_budget() -> None:
    # A root visited far beyond N (tree reuse) keeps finite, sensible values.
    tree = Tree()
    bound = MonotoneBackup(g=(-2.0, 1.0)).bind(10)
    rng = np.random.default_rng(0)
    for _ in range(500):
        path, v = random_path(tree, rng)
        bound.backup(tree, path, v)
    assert tree.visits[0] == 500 and np.isfinite(tree.value).all()


# ----------------------------------------------------------------- parameter files
def test_loads_knots_from_a_parameter_file(tmp_path: Path) -> None:
    path = write_params(
        tmp_path / "best.json",
        "monotone",
        {"g": (1.0, -2.0, 3.5)},
        meta={"n_simulations": 5000, "trial": 3},
    )
    by_position = make_backup(f"monotone:{path}")
    by_key = make_backup(f"monotone:file={path}")
    assert by_position == by_key
    assert by_position.g == (1.0, -2.0, 3.5) and by_position.file == str(path)
    assert make_backup(f"monotone:{path},zero_based=true").zero_based is True


def test_file_based_strategy_survives_a_spec_round_trip(tmp_path: Path) -> None:
    path = write_params(tmp_path / "best.json", "monotone", {"g": (0.5, -1.0)})
    strategy = make_backup(f"monotone:{path}")
    assert make_backup(backup_spec(strategy)) == strategy


def test_numpy_knots_are_accepted() -> None:
    assert MonotoneBackup(g=np.array([1, -2])).g == (1.0, -2.0)  # type: ignore[arg-type]


def test_parameter_file_may_set_other_fields_and_minus_inf(tmp_path: Path) -> None:
    path = write_params(
        tmp_path / "p.json", "monotone", {"g": (-math.inf, -math.inf), "zero_based": True}
    )
    assert json.loads(path.read_text())["params"]["g"] == ["-inf", "-inf"]
    loaded = MonotoneBackup(file=str(path))
    assert loaded.g == (-math.inf, -math.inf) and loaded.zero_based


def test_parameter_file_conflicts_and_mistakes(tmp_path: Path) -> None:
    path = write_params(tmp_path / "p.json", "monotone", {"g": (1.0, 2.0)})
    with pytest.raises(ParamsFileError, match="given as"):
        MonotoneBackup(g=(0.5, 0.5), file=str(path))
    assert MonotoneBackup(g=(1.0, 2.0), file=str(path)).g == (1.0, 2.0)  # agreeing is fine
    soft = write_params(tmp_path / "s.json", "softmax", {"g": (1.0, 2.0)})
    with pytest.raises(ParamsFileError, match="'softmax', not 'monotone'"):
        MonotoneBackup(file=str(soft))
    odd = write_params(tmp_path / "o.json", "monotone", {"tau": 3})
    with pytest.raises(ParamsFileError, match="no parameter 'tau'; allowed: g, zero_based"):
        MonotoneBackup(file=str(odd))
    with pytest.raises(ParamsFileError, match="cannot read"):
        MonotoneBackup(file=str(tmp_path / "missing.json"))


@pytest.mark.parametrize(
    "g, word",
    [
        ((1.0,), "at least 2"),
        ((0.0, float("nan")), "g\\[1\\]"),
        ((math.inf, 0.0), "g\\[0\\]"),
        ("abc", "sequence"),
    ],
)
def test_invalid_knots_are_named(g: object, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        MonotoneBackup(g=g)  # type: ignore[arg-type]
