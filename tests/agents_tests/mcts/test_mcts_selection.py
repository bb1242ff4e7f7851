"""Tree-policy formulas, first-play urgency, solver-aware selection and root noise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.mcts.selection import (
    FPU_ABSOLUTE,
    FPU_INFINITE,
    FPU_PARENT,
    POLICY_PUCT,
    POLICY_UCT,
    dirichlet_noise,
    puct_scores,
    select_child,
    uct_scores,
)
from agents.mcts.tree import PROVEN_LOSS, PROVEN_WIN, Tree


def make_tree(visits, values, priors, parent_visits=None, parent_value=0.0):
    """A root with one child per entry and the given statistics."""
    tree = Tree()
    k = len(visits)
    tree.add_children(0, np.arange(k), np.asarray(priors, dtype=float))
    tree.visits[1 : k + 1] = visits
    tree.value[1 : k + 1] = values
    tree.visits[0] = sum(visits) + 1 if parent_visits is None else parent_visits
    tree.value[0] = parent_value
    return tree


def kernel_choice(tree, policy, c, fpu_mode=FPU_INFINITE, fpu_value=0.0, solver=False):
    child = select_child(tree.arrays, 0, policy, c, fpu_mode, fpu_value, solver)
    return int(child) - int(tree.first_child[0])


def test_uct_formula_by_hand():
    q = np.array([0.2, -0.1, 0.5])
    n = np.array([3, 1, 0])
    scores = uct_scores(q, n, c=1.5)
    assert scores[0] == pytest.approx(0.2 + 1.5 * math.sqrt(math.log(4) / 3))
    assert scores[1] == pytest.approx(-0.1 + 1.5 * math.sqrt(math.log(4) / 1))
    assert scores[2] == math.inf
    assert uct_scores(q, n, c=1.5, fpu=0.25)[2] == 0.25


def test_puct_formula_by_hand():
    q = np.array([0.2, -0.1, 0.5])
    n = np.array([3, 1, 0])
    p = np.array([0.5, 0.3, 0.2])
    scores = puct_scores(q, n, p, c=0.5, fpu=-0.3)
    assert scores[0] == pytest.approx(0.2 + 0.5 * 0.5 * 2.0 / 4)
    assert scores[1] == pytest.approx(-0.1 + 0.5 * 0.3 * 2.0 / 2)
    assert scores[2] == pytest.approx(-0.3 + 0.5 * 0.2 * 2.0 / 1)


def test_puct_without_visits_orders_by_prior():
    scores = puct_scores(np.zeros(3), np.zeros(3, dtype=int), np.array([0.2, 0.7, 0.1]), c=0.5)
    assert np.allclose(scores, 0.5 * np.array([0.2, 0.7, 0.1]))
    tree = make_tree([0, 0, 0], [0, 0, 0], [0.2, 0.7, 0.1], parent_visits=1)
    assert kernel_choice(tree, POLICY_PUCT, 0.5, FPU_ABSOLUTE, 0.0) == 1


@pytest.mark.parametrize("policy", [POLICY_UCT, POLICY_PUCT])
@pytest.mark.parametrize("fpu_mode", [FPU_INFINITE, FPU_PARENT, FPU_ABSOLUTE])
def test_kernel_matches_formulas_on_random_trees(policy, fpu_mode):
    rng = np.random.default_rng(policy * 10 + fpu_mode)
    for _ in range(200):
        k = int(rng.integers(1, 12))
        visits = rng.integers(0, 6, size=k) * rng.integers(0, 2, size=k)
        values = np.where(visits > 0, rng.uniform(-1, 1, size=k), 0.0)
        priors = rng.dirichlet(np.ones(k))
        parent_value = float(rng.uniform(-1, 1))
        c = float(rng.uniform(0.1, 3.0))
        fpu_value = float(rng.uniform(0, 0.5))
        tree = make_tree(visits, values, priors, parent_value=parent_value)
        if fpu_mode == FPU_INFINITE:
            fpu = math.inf
        elif fpu_mode == FPU_PARENT:
            fpu = -parent_value - fpu_value  # the parent's value from the chooser's side
        else:
            fpu = fpu_value
        if policy == POLICY_UCT:
            scores = uct_scores(values, visits, c, fpu)
        else:
            scores = puct_scores(values, visits, priors, c, fpu)
        assert kernel_choice(tree, policy, c, fpu_mode, fpu_value) == int(np.argmax(scores))


def test_uct_tries_every_child_first_and_then_prefers_value():
    tree = make_tree([5, 0, 5], [0.1, 0.0, 0.9], [1 / 3] * 3)
    assert kernel_choice(tree, POLICY_UCT, 1.0) == 1
    tree = make_tree([5, 5, 5], [0.1, 0.0, 0.9], [1 / 3] * 3)
    assert kernel_choice(tree, POLICY_UCT, 1.0) == 2


def test_solver_takes_a_proven_win_at_once():
    tree = make_tree([50, 1, 50], [0.9, -1.0, 0.8], [0.4, 0.2, 0.4])
    assert kernel_choice(tree, POLICY_UCT, 1.0, solver=True) == 0
    tree.proven[2] = PROVEN_WIN  # the child at index 1 of the block
    assert kernel_choice(tree, POLICY_UCT, 1.0, solver=True) == 1
    assert kernel_choice(tree, POLICY_UCT, 1.0, solver=False) == 0


def test_solver_avoids_proven_losses_while_others_remain():
    tree = make_tree([50, 5, 50], [0.9, -0.5, 0.8], [0.4, 0.2, 0.4])
    tree.proven[1] = PROVEN_LOSS
    assert kernel_choice(tree, POLICY_UCT, 1.0, solver=True) == 2
    tree.proven[3] = PROVEN_LOSS
    assert kernel_choice(tree, POLICY_UCT, 1.0, solver=True) == 1
    tree.proven[2] = PROVEN_LOSS  # all lost: still a child is chosen
    assert kernel_choice(tree, POLICY_UCT, 1.0, solver=True) in (0, 1, 2)


def test_dirichlet_noise_sums_to_one_and_mixes():
    rng = np.random.default_rng(0)
    priors = np.full(82, 1 / 82)
    for alpha in (0.03, 0.3, 3.0):
        noisy = dirichlet_noise(priors, alpha, 0.25, rng)
        assert noisy.shape == priors.shape
        assert noisy.sum() == pytest.approx(1.0)
        assert (noisy >= 0.75 / 82 - 1e-12).all()  # (1 - eps) * P is a floor
        assert not np.allclose(noisy, priors)
    pure = dirichlet_noise(priors, 0.3, 1.0, rng)
    assert pure.sum() == pytest.approx(1.0)
    assert np.array_equal(dirichlet_noise(priors, 0.3, 0.0, rng), priors)


def test_dirichlet_noise_is_seeded_and_validated():
    priors = np.array([0.5, 0.25, 0.25])
    a = dirichlet_noise(priors, 0.3, 0.25, np.random.default_rng(4))
    b = dirichlet_noise(priors, 0.3, 0.25, np.random.default_rng(4))
    assert np.array_equal(a, b)
    with pytest.raises(ValueError, match="alpha"):
        dirichlet_noise(priors, 0.0, 0.25, np.random.default_rng(0))
    with pytest.raises(ValueError, match="epsilon"):
        dirichlet_noise(priors, 0.3, 1.5, np.random.default_rng(0))
