"""ERWA ([LL20] eq. 3): both initialisations against hand-computed and explicit weights."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pytest
from game_support import LONE_ROOT, feed

from agents.mcts.backups import make_backup
from agents.mcts.backups.erwa import ErwaBackup
from agents.mcts.backups.mean import MeanBackup
from agents.mcts.testing import run_random_search
from agents.mcts.tree import Tree
from agents.spec import SpecError

Variant = Literal["plain", "unbiased"]


def explicit_weights(alpha: float, n: int, variant: str) -> np.ndarray:
    k = np.arange(1, n + 1)
    w = (1 - alpha) ** (n - k)
    if variant == "plain":  # X_1 keeps (1-α)^(n-1); the others α(1-α)^(n-k)
        w = alpha * w
        w[0] = (1 - alpha) ** (n - 1)
        return w
    return w / w.sum()


def test_plain_by_hand() -> None:
    # α = 0.5: 0.5 -> 0.5 + 0.5 (-1 - 0.5) = -0.25 -> -0.25 + 0.5 (1 + 0.25) = 0.375
    assert feed(ErwaBackup(alpha=0.5), [0.5, -1.0, 1.0]) == pytest.approx(0.375, abs=1e-15)


def test_unbiased_by_hand() -> None:
    # weights ∝ (1-α)^(n-k) = 0.25, 0.5, 1
    expected = (0.25 * 0.5 + 0.5 * -1.0 + 1.0 * 1.0) / 1.75
    got = feed(ErwaBackup(alpha=0.5, variant="unbiased"), [0.5, -1.0, 1.0])
    assert got == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("variant", ["plain", "unbiased"])
@pytest.mark.parametrize("alpha", [0.003, 0.1, 0.7])
def test_matches_explicit_weights(variant: Variant, alpha: float) -> None:
    rng = np.random.default_rng(4)
    returns = rng.uniform(-1, 1, 300)
    for n in (1, 2, 17, 300):
        expected = float(explicit_weights(alpha, n, variant) @ returns[:n])
        got = feed(ErwaBackup(alpha=alpha, variant=variant), list(returns[:n]))
        assert got == pytest.approx(expected, abs=1e-12)


def test_alternating_signs_along_the_path() -> None:
    tree = Tree()
    strategy = ErwaBackup(alpha=0.5)
    strategy.backup(tree, LONE_ROOT, 0.0)
    tree.add_children(0, np.array([3, 4]), np.array([0.5, 0.5]))
    strategy.backup(tree, np.array([0, 1]), 0.4)
    assert tree.value[1] == pytest.approx(-0.4)  # first return of node 1
    assert tree.value[0] == pytest.approx(0.0 + 0.5 * (0.4 - 0.0))
    assert tree.visits[0] == 2 and tree.visits[1] == 1 and tree.visits[2] == 0


@pytest.mark.parametrize("variant", ["plain", "unbiased"])
def test_alpha_one_keeps_the_last_return(variant: Variant) -> None:
    rng = np.random.default_rng(0)
    returns = list(rng.uniform(-1, 1, 50))
    assert feed(ErwaBackup(alpha=1.0, variant=variant), returns) == returns[-1]


def test_unbiased_small_alpha_is_the_mean() -> None:
    a = run_random_search(ErwaBackup(alpha=1e-9, variant="unbiased"), seed=2)
    b = run_random_search(MeanBackup(), seed=2)
    np.testing.assert_allclose(a.value[: a.size], b.value[: b.size], atol=1e-6)
    np.testing.assert_array_equal(a.visits, b.visits)


def test_plain_small_alpha_is_the_first_return() -> None:
    returns = [0.8, -1.0, -1.0, 0.3, -0.9]
    assert feed(ErwaBackup(alpha=1e-9), returns) == pytest.approx(0.8, abs=1e-8)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"alpha": 0.0}, ["alpha", "(0, 1]"]),
        ({"alpha": 1.5}, ["alpha", "(0, 1]"]),
        ({"alpha": float("nan")}, ["alpha"]),
        ({"alpha": "0.1"}, ["alpha", "number"]),
        ({"variant": "biased"}, ["variant", "plain", "unbiased"]),
    ],
)
def test_invalid_parameters_are_named(kwargs: dict, words: list[str]) -> None:
    with pytest.raises(ValueError) as info:
        ErwaBackup(**kwargs)
    for word in words:
        assert word in str(info.value)


def test_spec_errors_name_the_parameter() -> None:
    with pytest.raises(SpecError, match="alpha"):
        make_backup("erwa:alpha=2")
    with pytest.raises(SpecError, match="allowed: plain, unbiased"):
        make_backup("erwa:variant=other")
    assert make_backup("erwa:alpha=0.03,variant=unbiased") == ErwaBackup(
        alpha=0.03, variant="unbiased"
    )
