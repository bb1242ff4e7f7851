"""Gumbel AlphaZero's root search against the definitions of Danihelka et al. (ICLR 2022)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.mcts import gumbel
from agents.mcts.config import MCTSConfig
from agents.mcts.evaluators import RolloutEvaluator
from agents.mcts.gumbel import (
    GumbelParams,
    GumbelSearch,
    completed_q,
    considered_visit_sequence,
    improved_policy,
    mixed_value,
    sequential_halving_visits,
    sigma,
)
from agents.nets.evaluator import NetEvaluator
from agents.nets.model import NetConfig, PolicyValueNet
from go_env.rules import Rules
from go_env.state import GoState

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_sequential_halving_schedule() -> None:
    # n = 32, m = 8: 3 phases; 8 x 1 visit, then 4 x 2 more, then 2 x 5 more, then the 2
    # survivors share the 6 simulations left (floor(32 / (3 r)) visits per phase)
    assert sequential_halving_visits(8, 32) == [11, 11, 3, 3, 1, 1, 1, 1]
    # n = 32, m = 16: 16 x 1, 8 x 1, 4 x 2: the budget is spent before the last halving
    assert sequential_halving_visits(16, 32) == [4] * 4 + [2] * 4 + [1] * 8
    assert considered_visit_sequence(4, 6) == (0, 0, 0, 0, 1, 1)
    assert considered_visit_sequence(1, 3) == (0, 1, 2)
    for m in range(1, 20):
        for n in range(0, 70, 7):
            assert sum(sequential_halving_visits(m, n)) == n
    with pytest.raises(ValueError, match="m >= 1"):
        considered_visit_sequence(0, 4)


def test_mixed_value_and_completed_q_follow_eq_33() -> None:
    priors = np.array([0.5, 0.3, 0.2, 0.0])
    q = np.array([0.4, -0.2, 9.0, 9.0])  # unvisited entries are ignored
    visits = np.array([2, 1, 0, 0])
    v_hat = 0.1
    # (v_hat + sum N / sum_visited pi * sum_visited pi q) / (1 + sum N)
    expected = (v_hat + 3 / 0.8 * (0.5 * 0.4 + 0.3 * -0.2)) / 4
    v_mix = mixed_value(v_hat, priors, q, visits)
    assert v_mix == pytest.approx(expected)
    assert mixed_value(v_hat, priors, q, np.zeros(4, dtype=int)) == v_hat
    assert completed_q(q, visits, v_mix).tolist() == pytest.approx([0.4, -0.2, v_mix, v_mix])


def test_improved_policy_is_softmax_of_logits_plus_sigma() -> None:
    legal = np.array([True, True, True, False])
    logits = np.array([0.2, -1.0, 0.5, -np.inf])
    cq = np.array([0.3, -0.5, 0.1, 0.0])
    visits = np.array([3, 1, 0, 0])
    s = sigma(cq, visits, legal, c_visit=50.0, c_scale=0.1, rescale=False)
    assert s.tolist() == pytest.approx((53 * 0.1 * cq).tolist())
    z = logits[:3] + s[:3]
    want = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    got = improved_policy(logits, s, legal)
    assert got[:3] == pytest.approx(want) and got[3] == 0.0
    rescaled = sigma(cq, visits, legal, c_visit=50.0, c_scale=1.0, rescale=True)
    assert rescaled[:3] == pytest.approx(53 * (cq[:3] + 0.5) / 0.8)


def _search(sims: int, considered: int, seed: int = 1):
    torch.manual_seed(0)
    net = PolicyValueNet(NetConfig(size=5, blocks=1, filters=8, history=2))
    evaluator = NetEvaluator(net, symmetry="none")
    below = MCTSConfig(policy="puct", sims=64).search_params()
    state = GoState(Rules(size=5, komi=0.5))
    state.play(12)
    search = GumbelSearch(
        GumbelParams(sims=sims, considered=considered), below, evaluator, seed=seed
    )
    steps = search.steps(state)
    batches = []
    batch = next(steps)
    try:
        while True:
            batches.append(len(batch))
            batch = steps.send(evaluator.evaluate(batch))
    except StopIteration as stop:
        return state, evaluator, stop.value, batches


def test_gumbel_search_visits_values_and_target() -> None:
    state, _evaluator, result, batches = _search(sims=32, considered=8)
    assert result.simulations == 32
    assert sorted(result.visits[result.visits > 0].tolist(), reverse=True) == [
        11,
        11,
        3,
        3,
        1,
        1,
        1,
        1,
    ]
    # one batch per round of sequential halving: the root, 8 leaves, then 4, 4, 2, 2...
    assert batches[0] == 1 and batches[1] == 8 and len(batches) == 1 + 1 + 2 + 5 + 3
    assert result.visits[result.action] == 11
    legal = state.legal_mask()
    assert result.policy[~legal].sum() == 0 and result.policy.sum() == pytest.approx(1.0)
    # the target is softmax(log prior + sigma(completed Q)) of the returned statistics
    logits = np.where(legal, np.log(np.maximum(result.priors, 1e-30)), -np.inf)
    params = GumbelParams()
    s = sigma(
        result.q, result.visits, legal, c_visit=params.c_visit, c_scale=params.c_scale, rescale=True
    )
    assert result.policy == pytest.approx(improved_policy(logits, s, legal))
    # unvisited legal actions carry the mixed value
    v_mix = mixed_value(result.root_value, result.priors, result.q, result.visits)
    unvisited = legal & (result.visits == 0)
    assert np.allclose(result.q[unvisited], v_mix)


def test_a_visit_below_the_root_is_the_childs_value_for_the_root_player() -> None:
    state, evaluator, result, _ = _search(sims=6, considered=6)
    for action in np.flatnonzero(result.visits):
        child = state.clone()
        child.play(int(action))
        _, value = evaluator.evaluate_states([child])
        assert result.q[action] == pytest.approx(-value[0])


@pytest.mark.parametrize("kind", ["net", "rollout"])
def test_an_action_visited_once_is_valued_as_a_search_below_it_would_value_it(
    monkeypatch, kind
) -> None:
    """Where every considered action gets one simulation, no search is built below them.

    The result is the same as with a search below every action: the same leaves are asked
    for (the rollouts read their state vectors, the network their moves) and each action's
    value is the running mean of its one return.
    """
    built = []

    class CountedSearch(gumbel.Search):
        def __init__(self, *args, **kwargs) -> None:
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(gumbel, "Search", CountedSearch)

    def run():
        torch.manual_seed(0)
        if kind == "net":
            evaluator = NetEvaluator(
                PolicyValueNet(NetConfig(size=5, blocks=1, filters=8, history=2)),
                symmetry="none",
            )
        else:
            evaluator = RolloutEvaluator(seed=3)
        below = MCTSConfig(policy="puct", sims=64).search_params()
        state = GoState(Rules(size=5, komi=0.5))
        state.play(12)
        search = GumbelSearch(GumbelParams(sims=8, considered=8), below, evaluator, seed=4)
        steps = search.steps(state)
        batch = next(steps)
        try:
            while True:
                batch = steps.send(evaluator.evaluate(batch))
        except StopIteration as stop:
            return stop.value

    once = run()
    assert built == [] and once.simulations == 8
    monkeypatch.setattr(gumbel, "_one_visit_is_its_value", lambda params: False)
    searched = run()
    assert len(built) == 8
    assert once.action == searched.action
    for name in ("policy", "visits", "q", "priors"):
        assert np.array_equal(getattr(once, name), getattr(searched, name)), name
