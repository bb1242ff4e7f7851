"""The network evaluator: masking, symmetries, cache, batched equals one by one."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.mcts import LeafBatch
from agents.nets.evaluator import NetEvaluator, masked_softmax
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.symmetry import transform_actions, transform_policy
from go_env.rules import Rules
from go_env.state import GoState

CONFIG = NetConfig(size=5, blocks=1, filters=8, history=2, value_hidden=8, tactical=True)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def net():
    torch.manual_seed(3)
    model = PolicyValueNet(CONFIG)
    # Random batch-norm statistics, so that evaluation mode is not an identity.
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    return model.eval()


def positions(count=6, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        state = GoState(Rules(size=5, komi=0.5))
        for _ in range(int(rng.integers(0, 9))):
            legal = state.legal_moves()
            state.play(int(rng.choice(legal[legal != state.pass_move])))
        out.append(state)
    return out


def test_masked_softmax():
    logits = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    mask = np.array([[True, False, True], [False, False, False]])
    p = masked_softmax(logits, mask)
    assert p[0, 1] == 0 and np.isclose(p[0].sum(), 1) and p[0, 2] > p[0, 0]
    assert not p[1].any()


@pytest.mark.parametrize("symmetry", ["none", "random", "average"])
def test_priors_are_masked_to_legal_moves(net, symmetry):
    states = positions()
    ko = GoState.from_ascii(". X O . .\nX O . O .\n. X O . .\n. . . . .\n. . . . .", Rules(size=5))
    ko.play(1 * 5 + 2)  # black captures at the ko point; white may not retake
    states.append(ko)
    priors, values = NetEvaluator(net, symmetry=symmetry, seed=1).evaluate_states(states)
    assert priors.shape == (len(states), 26) and values.shape == (len(states),)
    for state, p in zip(states, priors, strict=True):
        assert np.isclose(p.sum(), 1.0)
        assert (p[~state.legal_mask()] == 0).all() and (p[state.legal_mask()] > 0).all()
    assert priors[-1][1 * 5 + 1] == 0  # the ko retake
    assert ((values >= -1) & (values <= 1)).all()


@pytest.mark.parametrize("symmetry", ["none", "average"])
def test_batched_equals_one_by_one(net, symmetry):
    states = positions(8, seed=4)
    together = NetEvaluator(net, symmetry=symmetry, cache_size=0).evaluate_states(states)
    alone = NetEvaluator(net, symmetry=symmetry, cache_size=0)
    for i, state in enumerate(states):
        p, v = alone.evaluate_states([state])
        np.testing.assert_allclose(p[0], together[0][i], rtol=0, atol=1e-6)
        np.testing.assert_allclose(v[0], together[1][i], rtol=0, atol=1e-6)


def test_random_symmetries_are_seeded_and_batched_equal(net):
    states = positions(8, seed=5)
    a = NetEvaluator(net, symmetry="random", seed=9, cache_size=0).evaluate_states(states)
    b = NetEvaluator(net, symmetry="random", seed=9, cache_size=0).evaluate_states(states)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    c = NetEvaluator(net, symmetry="random", seed=10, cache_size=0).evaluate_states(states)
    assert not np.allclose(a[0], c[0])


def test_averaged_evaluation_is_equivariant(net):
    moves = [6, 12, 7, 18]
    evaluator = NetEvaluator(net, symmetry="average", cache_size=0)
    base = GoState(Rules(size=5))
    for move in moves:
        base.play(move)
    p0, v0 = evaluator.evaluate_states([base])
    for k in range(1, 8):
        image = GoState(Rules(size=5))
        for move in moves:
            image.play(int(transform_actions(move, k, 5)))
        p, v = evaluator.evaluate_states([image])
        np.testing.assert_allclose(p[0], transform_policy(p0[0], k, 5), atol=1e-6)
        np.testing.assert_allclose(v, v0, atol=1e-6)


def test_cache_answers_repeats(net):
    states = positions(4, seed=6)
    evaluator = NetEvaluator(net, symmetry="random", seed=2, cache_size=3)
    first = evaluator.evaluate_states(states)
    assert evaluator.evaluations == 4 and evaluator.hits == 0
    again = evaluator.evaluate_states(states[-3:])
    assert evaluator.evaluations == 4 and evaluator.hits == 3
    assert np.array_equal(again[0], first[0][-3:]) and np.array_equal(again[1], first[1][-3:])
    evaluator.evaluate_states(states[:1])  # evicted by the size limit
    assert evaluator.evaluations == 5


def test_leaf_batch_protocol(net):
    root = positions(1, seed=7)[0]
    moves = np.array([[root.legal_moves()[0], 0], [root.legal_moves()[1], 0]], dtype=np.int64)
    vectors = np.stack([root.compiled().vector] * 2)
    batch = LeafBatch(root, root.compiled(), vectors, moves, np.array([1, 1]))
    evaluator = NetEvaluator(net, symmetry="none")
    priors, values = evaluator.evaluate(batch)
    expected = evaluator.evaluate_states(batch.states())
    assert np.array_equal(priors, expected[0]) and np.array_equal(values, expected[1])
    assert evaluator.uniform_priors is False


def test_errors(net):
    with pytest.raises(ValueError, match="symmetry must be one of"):
        NetEvaluator(net, symmetry="all")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="for 5x5 boards, got a 7x7"):
        NetEvaluator(net).evaluate_states([GoState(Rules(size=7))])
    with pytest.raises(ValueError, match="no positions"):
        NetEvaluator(net).evaluate_states([])
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available"):
            NetEvaluator(net, device="cuda")
