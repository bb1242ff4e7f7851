"""Coulom's Mix operator ([LL20] eq. 2) against hand-computed values and its limits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.mcts.backups import bind_backup, make_backup
from agents.mcts.backups.coulom import CoulomBackup
from agents.mcts.backups.mean import MeanBackup
from agents.mcts.testing import random_path, run_random_search
from agents.mcts.tree import Tree


def two_children(strategy: CoulomBackup) -> Tree:
    tree = Tree(n_stats=strategy.n_stats)
    strategy.backup(tree, np.array([0]), 0.2)
    tree.add_children(0, np.array([10, 11]), np.array([0.5, 0.5]))
    return tree


def test_hand_computed_sequence() -> None:
    # S = 1, a = 2, b = 2: w = 2 while n <= 2, then (a/b) n = n.
    strategy = CoulomBackup(a=2.0, b=2.0, points=1)
    tree = two_children(strategy)
    assert tree.value[0] == pytest.approx(-0.2)  # no children visited: the plain mean
    strategy.backup(tree, np.array([0, 1]), 0.5)
    # root mean (-0.2 + 0.5) / 2 = 0.15; robust-max child 1 (n=1, q=-0.5); w = 2
    assert tree.value[1] == pytest.approx(-0.5)
    assert tree.value[0] == pytest.approx((2 * 0.15 + 0.5) / 3)
    strategy.backup(tree, np.array([0, 2]), -0.3)
    # mean 0; equal visits: the larger value (child 2, q = 0.3) is the robust-max; w = 3
    assert tree.value[0] == pytest.approx((3 * 0.0 - 0.3) / 4)
    strategy.backup(tree, np.array([0, 1]), 0.1)
    # child 1: mean (-0.5 - 0.1)/2 = -0.3; root mean 0.1/4 = 0.025; w = 4
    assert tree.value[1] == pytest.approx(-0.3)
    assert tree.value[0] == pytest.approx((4 * 0.025 + 2 * 0.3) / 6)
    np.testing.assert_allclose(tree.stats[:3, 0], [0.025, -0.3, 0.3])


def reference_mix(tree: Tree, node: int, a: float, b: float, s: int) -> float:
    """Stored value of ``node`` from its children, computed independently."""
    kids = [int(c) for c in tree.children(node) if tree.visits[c] > 0]
    mean = tree.stats[node, 0]
    if not kids:
        return mean
    best = max(kids, key=lambda c: (tree.visits[c], tree.value[c], -c))
    n = tree.visits[node]
    w = a * s if n <= b * s else a / b * n
    v_mix = (w * -mean + tree.visits[best] * tree.value[best]) / (w + tree.visits[best])
    return -v_mix


@pytest.mark.parametrize("a, b", [(2.0, 16.0), (0.5, 0.25), (3.0, math.inf)])
def test_recursive_mix_on_random_trees(a: float, b: float) -> None:
    strategy = CoulomBackup(a=a, b=b, points=2)
    tree = Tree(n_stats=1)
    rng = np.random.default_rng(11)
    for _ in range(300):
        path, leaf_value = random_path(tree, rng)
        strategy.backup(tree, path, leaf_value)
        for node in path:  # every node on the path is recomputed from its children
            assert tree.value[node] == pytest.approx(
                reference_mix(tree, int(node), a, b, 2), abs=1e-12
            )


def test_huge_a_is_the_mean() -> None:
    got = run_random_search(CoulomBackup(a=1e15), seed=5)
    ref = run_random_search(MeanBackup(), seed=5)
    np.testing.assert_allclose(got.value[: got.size], ref.value[: ref.size], atol=1e-9)


def test_zero_a_is_the_robust_max_child() -> None:
    tree = run_random_search(CoulomBackup(a=0.0), seed=6)
    checked = 0
    for node in range(tree.size):  # a child changes only with its parent on the same path
        kids = [int(c) for c in tree.children(node) if tree.visits[c] > 0]
        if kids:
            most = max(tree.visits[c] for c in kids)
            best = max(tree.value[c] for c in kids if tree.visits[c] == most)
            assert tree.value[node] == pytest.approx(-best, abs=1e-12)
            checked += 1
    assert checked > 10


def test_infinite_b_keeps_the_weight_fixed() -> None:
    strategy = CoulomBackup(a=0.5, b=math.inf, points=1)
    tree = two_children(strategy)
    for _ in range(20):
        strategy.backup(tree, np.array([0, 1]), 0.6)
    mean = tree.stats[0, 0]
    assert tree.value[0] == pytest.approx((0.5 * mean + 20 * 0.6) / 20.5)


def test_board_points_come_from_the_search_unless_set() -> None:
    assert CoulomBackup().board_points == 81
    assert bind_backup(CoulomBackup(), 100, board_points=361).board_points == 361
    assert bind_backup(CoulomBackup(points=25), 100, board_points=361).board_points == 25
    assert CoulomBackup().bind(100) == CoulomBackup()


def test_points_change_the_threshold() -> None:
    # With S = 1 the weight grows past n = b = 2; with S = 81 it stays a*S = 162.
    small = CoulomBackup(a=2.0, b=2.0, points=1)
    big = bind_backup(CoulomBackup(a=2.0, b=2.0), 100, board_points=81)
    values = []
    for strategy in (small, big):
        tree = two_children(strategy)
        for _ in range(5):
            strategy.backup(tree, np.array([0, 1]), 0.9)
        values.append(tree.value[0])
    mean = (-0.2 + 5 * 0.9) / 6
    assert values[0] == pytest.approx((6 * mean + 5 * 0.9) / 11)
    assert values[1] == pytest.approx((162 * mean + 5 * 0.9) / 167)


@pytest.mark.parametrize(
    "spec, word",
    [
        ("coulom:a=-1", "'a'"),
        ("coulom:b=0", "'b'"),
        ("coulom:points=0", "points"),
        ("coulom:a=inf", "'a'"),
    ],
)
def test_invalid_parameters_are_named(spec: str, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        make_backup(spec)
