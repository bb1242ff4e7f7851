"""Xie–Liu fixed-profile weighted average (RECONSTRUCTED stand-in, docs/backups.md#xie-liu)."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pytest
from game_support import LONE_ROOT, feed

from agents.mcts.backups.mean import MeanBackup
from agents.mcts.backups.xie_liu import XieLiuBackup
from agents.mcts.testing import run_random_search
from agents.mcts.tree import Tree

Profile = Literal["linear", "exponential"]


def test_linear_by_hand() -> None:
    # N = 4, β = 2: w(k) = 1 + k/2 = 1.5, 2, 2.5
    got = feed(XieLiuBackup(profile="linear", beta=2.0), [1.0, 0.0, -1.0], n_sims=4)
    assert got == pytest.approx((1.5 - 2.5) / 6.0, abs=1e-15)


def test_exponential_by_hand() -> None:
    # N = 4, β = 4 ln 2: w(k) = 2^k = 2, 4, 8
    got = feed(XieLiuBackup(beta=4 * math.log(2.0)), [1.0, 0.0, -1.0], n_sims=4)
    assert got == pytest.approx((2.0 - 8.0) / 14.0, abs=1e-15)


@pytest.mark.parametrize("profile", ["linear", "exponential"])
@pytest.mark.parametrize("beta", [0.5, 3.0, 40.0])
def test_matches_explicit_weights_past_the_budget(profile: Profile, beta: float) -> None:
    n_sims = 50
    rng = np.random.default_rng(1)
    returns = rng.uniform(-1, 1, 120)  # runs past N (tree reuse): the formula continues
    u = np.arange(1, 121) / n_sims
    w = 1 + beta * u if profile == "linear" else np.exp(beta * u)
    for n in (1, 2, 49, 50, 51, 120):
        expected = float(w[:n] @ returns[:n] / w[:n].sum())
        got = feed(XieLiuBackup(profile=profile, beta=beta), list(returns[:n]), n_sims=n_sims)
        assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("profile", ["linear", "exponential"])
def test_constant_weights_are_the_mean(profile: Profile) -> None:
    got = run_random_search(XieLiuBackup(profile=profile, beta=0.0), seed=3)
    ref = run_random_search(MeanBackup(), seed=3)
    np.testing.assert_allclose(got.value[: got.size], ref.value[: ref.size], atol=1e-14)


def test_later_returns_weigh_more() -> None:
    early_win = feed(XieLiuBackup(beta=3.0), [1.0] * 5 + [-1.0] * 5, n_sims=10)
    assert early_win < 0.0  # the mean would be exactly 0


def test_unbound_backup_says_to_bind() -> None:
    with pytest.raises(RuntimeError, match="bind"):
        XieLiuBackup().backup(Tree(), LONE_ROOT, 0.0)


def test_invalid_parameters_are_named() -> None:
    with pytest.raises(ValueError, match="beta"):
        XieLiuBackup(beta=-1.0)
    with pytest.raises(ValueError, match="profile"):
        XieLiuBackup(profile="cubic")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_simulations"):
        XieLiuBackup().bind(0)
