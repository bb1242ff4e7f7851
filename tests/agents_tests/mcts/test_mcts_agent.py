"""The MCTS agent: move choice, temperature, reuse, budgets, resignation, whole games."""

from __future__ import annotations

import time

import numpy as np
import pytest
from search_support import make_stats

from agents.base import Agent, AgentError
from agents.game import play_game
from agents.mcts import MCTSAgent, MCTSConfig, Resignation, choose_move
from agents.mcts.tree import PROVEN_LOSS, PROVEN_WIN
from agents.random_agent import RandomAgent, RandomConfig
from go_env.rules import Rules
from go_env.state import Color, GoState


def test_choice_by_visits_breaks_ties_by_value():
    stats = make_stats([10, 40, 40, 5], [0.9, 0.1, 0.3, 1.0])
    assert choose_move(stats, "visits") == 12


def test_choice_by_value_ignores_rarely_visited_children():
    stats = make_stats([100, 60, 9, 2], [0.1, 0.2, 0.9, 1.0])
    assert choose_move(stats, "value") == 11  # 9 and 2 visits are below a tenth of 100


def test_secure_child_is_a_lower_bound():
    stats = make_stats([100, 4], [0.5, 0.8])
    assert choose_move(stats, "secure") == 10  # 0.5 - 1/10 = 0.4 beats 0.8 - 1/2 = 0.3
    stats = make_stats([100, 16], [0.5, 0.8])
    assert choose_move(stats, "secure") == 11  # 0.8 - 1/4 = 0.55 beats 0.4


def test_proven_results_override_the_rule():
    stats = make_stats([100, 3, 50], [0.5, 0.1, 0.6], proven=[0, PROVEN_WIN, 0])
    assert choose_move(stats, "visits") == 11
    stats = make_stats([100, 3, 50], [0.5, 0.1, 0.6], proven=[PROVEN_LOSS, 0, 0])
    assert choose_move(stats, "visits") == 12
    stats = make_stats([100, 3], [0.5, 0.1], proven=[PROVEN_LOSS, PROVEN_LOSS])
    assert choose_move(stats, "visits") == 10


def test_unknown_rule_and_missing_generator():
    stats = make_stats([1, 2], [0.0, 0.0])
    with pytest.raises(ValueError, match="allowed: visits, value, secure"):
        choose_move(stats, "robust")
    with pytest.raises(ValueError, match="generator"):
        choose_move(stats, "visits", temperature=1.0)


def test_temperature_samples_in_proportion_to_visits():
    stats = make_stats([60, 30, 10, 0], [0.0, 0.0, 0.0, 0.0])
    rng = np.random.default_rng(0)
    draws = [choose_move(stats, "visits", rng=rng, temperature=1.0) for _ in range(4000)]
    freq = np.bincount(np.asarray(draws) - 10, minlength=4) / 4000
    assert np.allclose(freq, [0.6, 0.3, 0.1, 0.0], atol=0.03)
    cold = [choose_move(stats, "visits", rng=rng, temperature=0.1) for _ in range(200)]
    assert set(cold) == {10} or cold.count(10) > 190


def test_agent_samples_only_in_the_first_moves():
    state = GoState(Rules(size=5, komi=0.5))
    agent = MCTSConfig(sims=60, seed=1, temperature_moves=1, temperature=4.0).build()
    sampled = {agent.act(state) for _ in range(12)}
    assert len(sampled) > 3  # a hot temperature spreads the first move
    later = state.clone()
    later.play(12)
    agent = MCTSConfig(sims=200, seed=1, temperature_moves=1, temperature=4.0).build()
    stats_moves = []
    for _ in range(3):
        move = agent.act(later)
        stats = agent.last_stats
        assert stats is not None
        stats_moves.append(move == choose_move(stats, "visits"))
    assert all(stats_moves)  # from move 1 on: most visits


def test_act_leaves_the_state_untouched():
    state = GoState(Rules(size=5, komi=0.5))
    state.play(12)
    before = (state.history, state.zobrist, state.to_ascii(), state.legal_moves().tolist())
    agent = MCTSConfig(sims=100, seed=2, reuse_tree=True).build()
    move = agent.act(state)
    assert state.is_legal(move)
    assert (state.history, state.zobrist, state.to_ascii(), state.legal_moves().tolist()) == before


def test_avoid_eyes_leaves_own_eye_fills_out_of_the_tree():
    """Black's eyes on the first line are children without the option and not with it; a
    position where every move but pass fills an own eye is passed."""
    walled = GoState.from_ascii(
        """
        . . . . .
        O O O O O
        . . . . .
        X X X X X
        . X . X .
        """,
        Rules(size=5, komi=0.5),
    )
    eyes = {20, 22, 24}  # A1, C1, E1
    assert set(np.flatnonzero(walled.own_eye_mask())) == eyes
    children = {}
    for avoid in (False, True):
        agent = MCTSConfig(sims=200, seed=1, avoid_eyes=avoid).build()
        agent.act(walled)
        assert agent.last_stats is not None
        children[avoid] = {int(m) for m in agent.last_stats.moves}
    assert eyes <= children[False]
    assert children[True] == children[False] - eyes
    only_eyes = GoState.from_ascii(
        """
        X X X X X
        X . X . X
        X X X X X
        O O O O O
        O . O . O
        """,
        Rules(size=5, komi=0.5),
    )
    agent = MCTSConfig(sims=50, seed=1, avoid_eyes=True).build()
    assert agent.act(only_eyes) == only_eyes.pass_move
    assert agent.last_stats is not None and agent.last_stats.moves.tolist() == [25]
    with pytest.raises(ValueError, match="avoid_eyes must be True or False"):
        MCTSConfig(avoid_eyes=1)


def test_tree_reuse_between_moves():
    state = GoState(Rules(size=5, komi=0.5))
    agent = MCTSConfig(sims=300, seed=3, reuse_tree=True).build()
    move = agent.act(state)
    assert agent.last_stats is not None
    pv = agent.last_stats.pv
    state.play(move)
    state.play(pv[1] if len(pv) > 1 else state.pass_move)
    agent.act(state)
    assert agent.last_stats.root_visits > 300  # the reply's subtree came along
    fresh = MCTSConfig(sims=300, seed=3).build()
    fresh.act(state)
    assert fresh.last_stats is not None and fresh.last_stats.root_visits == 300


def test_time_budget_per_move():
    agent = MCTSConfig(time=0.15, seed=4).build()
    agent.act(GoState())  # warm-up
    start = time.perf_counter()
    agent.act(GoState())
    assert 0.15 <= time.perf_counter() - start < 2.0  # loose: the exact stop is in test_mcts_search
    assert agent.last_stats is not None and agent.last_stats.simulations > 10


HOPELESS = """
O O O O O
O . O . O
O O O O O
O O . O O
. O O O .
"""


def test_resigns_a_lost_position():
    state = GoState.from_ascii(HOPELESS, Rules(size=5, komi=0.5))
    agent = MCTSConfig(sims=200, seed=5, resign=-0.9).build()
    with pytest.raises(Resignation) as info:
        agent.act(state)
    assert info.value.color is Color.BLACK
    assert info.value.value < -0.9
    assert isinstance(info.value, AgentError)
    late = MCTSConfig(sims=200, seed=5, resign=-0.9, resign_after=10).build()
    assert state.is_legal(late.act(state))  # no resignation before move 10
    assert state.is_legal(MCTSConfig(sims=200, seed=5).build().act(state))


def test_finished_game_is_refused():
    state = GoState(Rules(size=5))
    state.play(25)
    state.play(25)
    with pytest.raises(AgentError, match="game is over"):
        MCTSConfig(sims=10).build().act(state)


def test_same_seed_same_moves():
    def moves(seed):
        agent = MCTSConfig(sims=150, seed=seed).build()
        state = GoState(Rules(size=5, komi=0.5))
        out = []
        for _ in range(6):
            move = agent.act(state)
            out.append(move)
            state.play(move)
        return out

    assert moves(6) == moves(6)


def test_agent_protocol_and_reset():
    agent = MCTSConfig(sims=20, seed=7).build()
    assert isinstance(agent, Agent) and isinstance(agent, MCTSAgent)
    agent.act(GoState(Rules(size=5)))
    assert agent.last_stats is not None
    agent.reset()
    assert agent.last_stats is None and agent.search.tree is None
    agent.close()


def test_beats_random_on_7x7():
    wins = 0
    games = 6
    for game in range(games):
        mcts = MCTSConfig(sims=200, seed=100 + game, reuse_tree=bool(game % 2)).build()
        rand = RandomAgent(RandomConfig(seed=200 + game))
        if game % 2 == 0:
            result = play_game(mcts, rand, Rules(size=7))
            wins += result.winner is Color.BLACK
        else:
            result = play_game(rand, mcts, Rules(size=7))
            wins += result.winner is Color.WHITE
        assert not result.truncated
    assert wins >= games - 1
