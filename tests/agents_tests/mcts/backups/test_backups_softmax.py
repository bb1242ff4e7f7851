"""Softmax MCTS ([LL20] §3.2): hand values, an independent reference, limits and options."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from agents.mcts.backups import make_backup
from agents.mcts.backups.mean import MeanBackup
from agents.mcts.backups.params_io import write_params
from agents.mcts.backups.softmax import SoftmaxBackup
from agents.mcts.testing import random_path, run_random_search
from agents.mcts.tree import Tree


def start(strategy: SoftmaxBackup, n_sims: int) -> tuple[Tree, SoftmaxBackup]:
    bound = strategy.bind(n_sims)
    tree = Tree(n_stats=bound.n_stats)
    bound.backup(tree, np.array([0]), 0.0)
    tree.add_children(0, np.array([0, 1]), np.array([0.5, 0.5]))
    return tree, bound


@pytest.mark.parametrize("self_mixed", [True, False])
def test_hand_computed_values(self_mixed: bool) -> None:
    # g ≡ 0: τ(n) = n.
    tree, s = start(SoftmaxBackup(g=(0.0, 0.0), self_mixed=self_mixed), 4)
    s.backup(tree, np.array([0, 1]), 0.5)
    assert tree.value[1] == pytest.approx(-0.5)
    # one child: V_soft = q_1 = -0.5; stored -V_soft = 0.5
    assert tree.value[0] == pytest.approx((0.0 + 0.5) / 2 if self_mixed else 0.5)
    s.backup(tree, np.array([0, 2]), -0.5)
    # τ(3) = 3; q = -0.5, 0.5 with one visit each
    w1, w2 = math.exp(3 * -1.0), 1.0
    v_soft = (w1 * -0.5 + w2 * 0.5) / (w1 + w2)
    expected = (0.0 + 2 * -v_soft) / 3 if self_mixed else -v_soft
    assert tree.value[0] == pytest.approx(expected, abs=1e-15)


def test_temperature_past_the_budget_grows_with_the_last_slope() -> None:
    # N = 2, g from 0 to ln 2: τ(2) = ∫_0^2 2^(t/2) dt = 2 / ln 2; past N the slope is e^{g_d} = 2
    tree, s = start(SoftmaxBackup(g=(0.0, math.log(2.0)), self_mixed=False), 2)
    s.backup(tree, np.array([0, 1]), 0.5)
    s.backup(tree, np.array([0, 2]), -0.2)  # root now has n = 3 > N
    tau = 2.0 / math.log(2.0) + 2.0
    q1, q2 = -0.5, 0.2
    w1, w2 = math.exp(tau * (q1 - q2)), 1.0
    assert tree.value[0] == pytest.approx(-(w1 * q1 + w2 * q2) / (w1 + w2), abs=1e-14)


def reference_backup(
    tree: Tree,
    path: np.ndarray,
    leaf_value: float,
    tau_of,
    recursive: bool,
    self_mixed: bool,
    own: dict[int, list[float]],
) -> None:
    """Spec §6 written out in Python; ``tree.stats[:, 0]`` holds the plain means."""
    x = -leaf_value
    for i in range(len(path) - 1, -1, -1):
        node = int(path[i])
        tree.visits[node] += 1
        n = tree.visits[node]
        tree.stats[node, 0] += (x - tree.stats[node, 0]) / n
        if i == len(path) - 1:
            own.setdefault(node, []).append(x)
        x = -x
        kids = [int(c) for c in tree.children(node) if tree.visits[c] > 0]
        if not kids:
            tree.value[node] = tree.stats[node, 0]
            continue
        q = np.array([tree.value[c] if recursive else tree.stats[c, 0] for c in kids])
        nk = np.array([tree.visits[c] for c in kids], dtype=float)
        w = nk * np.exp(tau_of(n) * (q - q.max()))
        soft = -float(w @ q / w.sum())
        if self_mixed:
            mine = own.get(node, [])
            tree.value[node] = (sum(mine) + nk.sum() * soft) / (len(mine) + nk.sum())
        else:
            tree.value[node] = soft


@pytest.mark.parametrize("recursive", [True, False])
@pytest.mark.parametrize("self_mixed", [True, False])
def test_matches_an_independent_reference(recursive: bool, self_mixed: bool) -> None:
    c = 0.05  # g ≡ ln c: τ(n) = c n
    strategy = SoftmaxBackup(g=(math.log(c),) * 3, recursive=recursive, self_mixed=self_mixed)
    bound = strategy.bind(100)
    ours, ref = Tree(n_stats=3), Tree(n_stats=3)
    rng_a, rng_b = np.random.default_rng(4), np.random.default_rng(4)
    own: dict[int, list[float]] = {}
    for _ in range(300):
        path, v = random_path(ours, rng_a)
        path_b, v_b = random_path(ref, rng_b)
        bound.backup(ours, path, v)
        reference_backup(ref, path_b, v_b, lambda n: c * n, recursive, self_mixed, own)
    np.testing.assert_allclose(ours.value, ref.value, atol=1e-13)


def test_zero_temperature_is_the_mean() -> None:
    ref = run_random_search(MeanBackup(), seed=12)
    for g in ((-math.inf, -math.inf), (-80.0, -80.0, -80.0)):
        got = run_random_search(SoftmaxBackup(g=g), seed=12)
        np.testing.assert_allclose(got.value, ref.value, atol=1e-12)


def test_high_temperature_is_the_hard_max() -> None:
    tree = run_random_search(SoftmaxBackup(g=(40.0, 40.0), self_mixed=False), seed=13)
    checked = 0
    for node in range(tree.size):
        kids = [int(c) for c in tree.children(node) if tree.visits[c] > 0]
        if kids:
            assert tree.value[node] == pytest.approx(-max(tree.value[kids]), abs=1e-12)
            checked += 1
    assert checked > 10


def test_max_shift_keeps_huge_temperatures_finite() -> None:
    tree = run_random_search(SoftmaxBackup(g=(700.0, 900.0)), n_simulations=300, seed=1)
    assert np.isfinite(tree.value).all() and np.abs(tree.value).max() <= 1.0


def test_parameter_file(tmp_path: Path) -> None:
    path = write_params(
        tmp_path / "soft.json", "softmax", {"g": [-7.0, -6.0, -5.5], "recursive": False}
    )
    strategy = make_backup(f"softmax:{path}")
    assert strategy == SoftmaxBackup(g=(-7.0, -6.0, -5.5), recursive=False, file=str(path))
    assert make_backup(f"softmax:file={path}") == strategy


def test_invalid_parameters_are_named() -> None:
    with pytest.raises(ValueError, match="needs at least 2"):
        SoftmaxBackup(g=(1.0,))
    with pytest.raises(ValueError, match="recursive"):
        SoftmaxBackup(recursive=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'softmax' has no parameter 'tau'; allowed: file, g"):
        make_backup("softmax:tau=3")
