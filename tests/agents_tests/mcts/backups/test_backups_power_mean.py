"""Power-mean backup (Dam et al. 2019, RECONSTRUCTED, docs/backups.md#power-mean)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.mcts.backups.mean import MeanBackup
from agents.mcts.backups.power_mean import PowerMeanBackup
from agents.mcts.testing import random_path, run_random_search
from agents.mcts.tree import Tree


def root_with_children(strategy: PowerMeanBackup) -> Tree:
    """Root evaluated at 0, child 1 with returns -0.5 and 0.1 (n = 2), child 2 with 0.5."""
    tree = Tree(n_stats=3)
    strategy.backup(tree, np.array([0]), 0.0)
    tree.add_children(0, np.array([0, 1]), np.array([0.5, 0.5]))
    strategy.backup(tree, np.array([0, 1]), 0.5)
    strategy.backup(tree, np.array([0, 2]), -0.5)
    strategy.backup(tree, np.array([0, 1]), -0.1)
    return tree


def test_p_one_is_the_visit_weighted_average_of_the_children() -> None:
    tree = root_with_children(PowerMeanBackup(p=1.0, self_mixed=False))
    q1, q2 = (-0.5 + 0.1) / 2, 0.5
    assert tree.value[1] == pytest.approx(q1) and tree.value[2] == pytest.approx(q2)
    assert tree.value[0] == pytest.approx(-(2 * q1 + 1 * q2) / 3, abs=1e-15)


def test_p_one_self_mixed_is_the_mean() -> None:
    got = run_random_search(PowerMeanBackup(p=1.0), seed=4)
    ref = run_random_search(MeanBackup(), seed=4)
    np.testing.assert_allclose(got.value, ref.value, atol=1e-13)


@pytest.mark.parametrize("p", [2.0, 2.5, 7.0])
def test_hand_computed_power_mean(p: float) -> None:
    tree = root_with_children(PowerMeanBackup(p=p, self_mixed=False))
    u = (1 + np.array([-0.2, 0.5])) / 2
    n = np.array([2.0, 1.0])
    v_u = float((n / n.sum()) @ u**p) ** (1 / p)
    assert tree.value[0] == pytest.approx(-(2 * v_u - 1), abs=1e-14)
    mixed = root_with_children(PowerMeanBackup(p=p))
    assert mixed.value[0] == pytest.approx((0.0 + 3 * -(2 * v_u - 1)) / 4, abs=1e-14)


def test_grows_towards_the_max_with_p() -> None:
    values = [
        -root_with_children(PowerMeanBackup(p=p, self_mixed=False)).value[0]
        for p in (1.0, 2.0, 4.0, 16.0, 64.0, 1000.0)
    ]
    assert all(a < b for a, b in itertools.pairwise(values))
    assert values[-1] == pytest.approx(0.5, abs=2e-3)  # the best child's value


def test_recursive_option_uses_plain_means_when_off() -> None:
    # Three levels: node 1's recomputed value differs from its plain mean when p > 1.
    for recursive in (True, False):
        s = PowerMeanBackup(p=4.0, recursive=recursive, self_mixed=False)
        tree = Tree(n_stats=3)
        rng = np.random.default_rng(3)
        for _ in range(200):
            path, v = random_path(tree, rng)
            s.backup(tree, path, v)
        kids = [int(c) for c in tree.children(0) if tree.visits[c] > 0]
        q = tree.value[kids] if recursive else tree.stats[kids, 0]
        u = (1 + q) / 2
        n = tree.visits[kids].astype(float)
        v_u = float((n / n.sum()) @ u**4) ** 0.25
        assert tree.value[0] == pytest.approx(-(2 * v_u - 1), abs=1e-13)


def test_invalid_p_is_named() -> None:
    for bad in (0.5, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="'p'"):
            PowerMeanBackup(p=bad)
