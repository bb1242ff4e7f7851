"""More search while the search has not settled (``MCTSConfig.extend``, Huang et al.'s UNST)."""

from __future__ import annotations

import numpy as np
import pytest
from search_support import make_stats

from agents.mcts import MCTSConfig
from agents.mcts.agent import EXTEND_ROUND, is_unstable
from agents.mcts.multi import answer_alone
from agents.mcts.requests import LeafRequest, SearchRequest
from agents.mcts.tree import PROVEN_WIN
from go_env.rules import Rules
from go_env.state import GoState


def test_settled_when_the_most_visited_move_has_the_best_value():
    assert not is_unstable(make_stats([100, 50, 10], [0.4, 0.3, 0.2]))
    assert not is_unstable(make_stats([0, 0], [0.0, 0.0]))  # nothing searched yet


def test_unsettled_when_a_rival_with_a_tenth_of_the_visits_is_better():
    assert is_unstable(make_stats([100, 10, 3], [0.4, 0.5, 0.2]))
    assert not is_unstable(make_stats([100, 9, 3], [0.4, 0.5, 0.9]))  # 9 and 3 are too few


def test_ties_in_visits_go_to_the_better_value():
    assert not is_unstable(make_stats([50, 50], [0.1, 0.3]))


def test_a_proven_win_is_settled():
    assert not is_unstable(make_stats([100, 20], [0.4, 0.5], proven=[PROVEN_WIN, 0]))


def unsettled_positions(count):
    """Positions of a 5x5 game with random moves, each the start of a search."""
    rng = np.random.default_rng(11)
    out = []
    state = GoState(Rules(size=5, komi=0.5))
    while len(out) < count and not state.is_over:
        out.append(state.clone())
        legal = np.flatnonzero(state.legal_mask()[:-1])
        state.play(int(rng.choice(legal)) if legal.size else state.pass_move)
    return out


def test_rounds_run_until_settled_or_spent():
    sims, extend = 40, 2.0
    extended = 0
    for index, state in enumerate(unsettled_positions(10)):
        agent = MCTSConfig(sims=sims, seed=index, extend=extend).build()
        agent.act(state)
        stats = agent.last_stats
        assert stats is not None
        rounds, rest = divmod(stats.simulations - sims, round(sims * EXTEND_ROUND))
        assert rest == 0 and 0 <= rounds <= extend / EXTEND_ROUND
        assert stats.visits.sum() == stats.simulations - 1  # one tree, all the rounds
        if rounds < extend / EXTEND_ROUND:
            assert not is_unstable(stats)  # stopped because it settled
        extended += rounds > 0
    assert extended >= 1  # the positions do need it


def test_off_by_default():
    state = unsettled_positions(3)[-1]
    agent = MCTSConfig(sims=40, seed=1).build()
    agent.act(state)
    assert agent.last_stats is not None and agent.last_stats.simulations == 40


def play_leaf_steps(agent, state):
    steps = agent.act_leaf_steps(state)
    try:
        request = next(steps)
        while True:
            assert isinstance(request, LeafRequest)
            request = steps.send(request.evaluator.evaluate(request.batch))
    except StopIteration as stop:
        return stop.value


def counted(steps, requests):
    """``steps``, with each request it yields appended to ``requests``."""
    request = next(steps)
    try:
        while True:
            requests.append(request)
            request = steps.send((yield request))
    except StopIteration as stop:
        return stop.value


def test_the_three_ways_to_act_agree():
    for index, state in enumerate(unsettled_positions(8)):
        spec = {"sims": 40, "seed": 20 + index, "extend": 1.5}
        plain = MCTSConfig(**spec).build()
        stepped = MCTSConfig(**spec).build()
        leaves = MCTSConfig(**spec).build()
        move = plain.act(state)
        requests: list[object] = []
        assert answer_alone(counted(stepped.act_steps(state), requests)) == move
        assert play_leaf_steps(leaves, state) == move
        assert all(isinstance(r, SearchRequest) for r in requests)
        sims = [plain.last_stats.simulations, stepped.last_stats.simulations]
        assert sims == [leaves.last_stats.simulations] * 2
        assert len(requests) == 1 + (sims[0] - 40) // 20


def test_time_budget_extends_in_seconds():
    agent = MCTSConfig(time=0.02, extend=1.0, seed=3).build()
    request = next(agent.act_steps(unsettled_positions(1)[0]))
    assert request.time_limit == pytest.approx(0.02) and request.sims is None


@pytest.mark.parametrize("bad", [-0.5, 65.0, float("nan"), True, "2"])
def test_bad_extend_is_refused(bad):
    with pytest.raises(ValueError, match="extend"):
        MCTSConfig(extend=bad)
