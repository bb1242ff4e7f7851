"""The priors' temperature: ``net:...,policy_temp=T`` searches with softmax(logits / T)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.nets.checkpoint import save_checkpoint
from agents.nets.evaluator import NetEvaluator, masked_softmax
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.policy_temp import MAX_POLICY_TEMP, check_policy_temp, temper
from agents.registry import make_agent
from agents.spec import SpecError
from go_env.rules import Rules
from go_env.state import GoState

CONFIG = NetConfig(size=5, blocks=1, filters=8, history=2, value_hidden=8, tactical=True)

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def net():
    torch.manual_seed(11)
    return PolicyValueNet(CONFIG).eval()


def opening(moves=(6, 12, 18)):
    state = GoState(Rules(size=5, komi=0.5))
    for move in moves:
        state.play(move)
    return state


@pytest.mark.parametrize("temp", [0.5, 1.5, 3.0])
def test_temper_is_the_softmax_of_the_scaled_logits_over_legal_moves(temp):
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(4, 26)) * 3
    mask = rng.random((4, 26)) < 0.7
    mask[3] = False  # a row without legal moves stays all zeros
    tempered = temper(masked_softmax(logits, mask), temp)
    np.testing.assert_allclose(tempered, masked_softmax(logits / temp, mask), atol=1e-12)
    assert not tempered[3].any() and not tempered[~mask].any()


def test_temper_flattens_above_one_and_sharpens_below():
    p = np.array([[0.7, 0.2, 0.1, 0.0]])
    flat, sharp = temper(p, 2.0), temper(p, 0.5)
    assert flat[0, 0] < 0.7 < sharp[0, 0] and flat[0, 2] > 0.1 > sharp[0, 2]
    assert flat[0, 3] == sharp[0, 3] == 0.0
    assert temper(p, 1.0) is p
    near_uniform = temper(p, MAX_POLICY_TEMP)[0, :3]
    assert near_uniform.max() - near_uniform.min() < 0.15


def test_sharp_temperatures_do_not_underflow():
    p = np.array([[1e-40, 2e-40, 0.0], [0.5, 0.5, 0.0]])  # (1e-40) ** 10 is below any float
    sharp = temper(p, 0.1)
    np.testing.assert_allclose(sharp.sum(axis=1), 1.0)
    assert sharp[0, 1] > 0.99 and sharp[0, 2] == 0.0


def test_the_evaluator_tempers_its_priors_and_leaves_the_values(net):
    states = [opening(), opening((0, 24)), GoState(Rules(size=5, komi=0.5))]
    plain = NetEvaluator(net, symmetry="none").evaluate_states(states)
    warm = NetEvaluator(net, symmetry="none", policy_temp=2.0).evaluate_states(states)
    np.testing.assert_allclose(warm[0], temper(plain[0], 2.0), atol=1e-12)
    np.testing.assert_array_equal(warm[1], plain[1])
    # Cached answers are tempered too: the second call is all cache hits.
    evaluator = NetEvaluator(net, symmetry="none", policy_temp=2.0)
    first = evaluator.evaluate_states(states)
    again = evaluator.evaluate_states(states)
    assert evaluator.hits == len(states)
    np.testing.assert_array_equal(again[0], first[0])


def test_the_search_roots_on_the_tempered_priors(net, tmp_path):
    path = tmp_path / "tiny.pt"
    save_checkpoint(path, net)
    state = opening()
    plain = NetEvaluator(net, symmetry="none").evaluate_states([state])[0][0]
    for temp in (1.0, 2.5):
        spec = f'mcts:policy=puct,sims=16,evaluator="net:{path},symmetry=none,policy_temp={temp}"'
        agent = make_agent(spec)
        agent.act(state)
        stats = agent.last_stats
        expected = temper(plain[None, :], temp)[0][stats.moves]
        np.testing.assert_allclose(stats.priors, expected / expected.sum(), atol=1e-9)


@pytest.mark.parametrize("bad", [0, 0.05, -1, 11, float("nan"), float("inf"), True, "2"])
def test_a_bad_temperature_is_refused_with_the_range(bad, net):
    with pytest.raises(ValueError, match=r"policy_temp must be a number in \[0.1, 10\]"):
        check_policy_temp(bad)
    with pytest.raises(ValueError, match="policy_temp must be"):
        NetEvaluator(net, policy_temp=bad)  # type: ignore[arg-type]


def test_the_spec_refuses_a_bad_temperature():
    with pytest.raises(SpecError, match=r"policy_temp must be a number in \[0.1, 10\]"):
        make_agent('mcts:evaluator="net:policy_temp=0"')
