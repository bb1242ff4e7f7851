"""MaxMCTS(λ) (Khandelwal et al. 2016, RECONSTRUCTED for games, docs/backups.md#maxmcts)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.mcts.backups.maxmcts import MaxMctsBackup
from agents.mcts.backups.mean import MeanBackup
from agents.mcts.testing import random_path, run_random_search
from agents.mcts.tree import Tree


def test_lambda_one_is_the_mean_exactly() -> None:
    got = run_random_search(MaxMctsBackup(lam=1.0), seed=8)
    ref = run_random_search(MeanBackup(), seed=8)
    np.testing.assert_array_equal(got.value, ref.value)
    np.testing.assert_array_equal(got.visits, ref.visits)


def test_lambda_zero_by_hand() -> None:
    s = MaxMctsBackup(lam=0.0)
    tree = Tree()
    s.backup(tree, np.array([0]), 0.0)
    tree.add_children(0, np.array([0, 1]), np.array([0.5, 0.5]))
    s.backup(tree, np.array([0, 1]), 0.6)
    assert tree.value[1] == pytest.approx(-0.6)
    assert tree.value[0] == pytest.approx(0.3)  # T_0 = -max(-0.6) = 0.6, averaged with 0
    s.backup(tree, np.array([0, 2]), -0.2)
    assert tree.value[2] == pytest.approx(0.2)
    assert tree.value[0] == pytest.approx(0.3 + (-0.2 - 0.3) / 3)  # T_0 = -max(-0.6, 0.2)
    tree.add_children(1, np.array([0, 1]), np.array([0.5, 0.5]))
    s.backup(tree, np.array([0, 1, 3]), 0.5)
    assert tree.value[3] == pytest.approx(-0.5)
    assert tree.value[1] == pytest.approx(-0.6 + (0.5 + 0.6) / 2)  # T_1 = -max(-0.5)
    root_before = 0.3 + (-0.2 - 0.3) / 3
    assert tree.value[0] == pytest.approx(root_before + (-0.2 - root_before) / 4)


def reference_returns(tree: Tree, path: np.ndarray, leaf_value: float, lam: float) -> None:
    """Spec §8 recursion written out in Python, updating ``tree`` in place."""
    ret = -leaf_value
    for i in range(len(path) - 1, -1, -1):
        node = int(path[i])
        if i < len(path) - 1:
            kids = [int(c) for c in tree.children(node) if tree.visits[c] > 0]
            best = max(tree.value[c] for c in kids)
            ret = -(lam * ret + (1 - lam) * best)
        tree.visits[node] += 1
        tree.value[node] += (ret - tree.value[node]) / tree.visits[node]


@pytest.mark.parametrize("lam", [0.0, 0.3, 0.9])
def test_matches_the_spec_recursion(lam: float) -> None:
    strategy = MaxMctsBackup(lam=lam)
    ours, ref = Tree(), Tree()
    rng_a, rng_b = np.random.default_rng(2), np.random.default_rng(2)
    for _ in range(300):
        path, leaf_value = random_path(ours, rng_a)
        path_b, leaf_b = random_path(ref, rng_b)
        strategy.backup(ours, path, leaf_value)
        reference_returns(ref, path_b, leaf_b, lam)
    np.testing.assert_allclose(ours.value, ref.value, atol=1e-13)


def test_lambda_zero_tracks_the_best_child() -> None:
    # One good and one bad reply: the max backup ignores the bad one, the mean does not.
    values = {}
    for lam in (0.0, 1.0):
        s = MaxMctsBackup(lam=lam)
        tree = Tree()
        s.backup(tree, np.array([0]), 0.0)
        tree.add_children(0, np.array([0, 1]), np.array([0.5, 0.5]))
        for i in range(20):
            s.backup(tree, np.array([0, 1 + i % 2]), -0.8 if i % 2 == 0 else 0.8)
        values[lam] = tree.value[0]
    assert values[1.0] == pytest.approx(0.0, abs=0.05)
    assert values[0.0] < -0.6  # the root player's best move is worth +0.8


def test_invalid_lambda_is_named() -> None:
    for bad in (-0.1, 1.1, float("nan")):
        with pytest.raises(ValueError, match=r"'lam'.*\[0, 1\]"):
            MaxMctsBackup(lam=bad)
