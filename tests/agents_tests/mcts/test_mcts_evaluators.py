"""Leaf evaluators: rollout values and perspective, lambda mixing, network-style priors."""

from __future__ import annotations

import numpy as np
import pytest
from game_support import SEKI

from agents.mcts import (
    Evaluator,
    LeafBatch,
    MCTSConfig,
    MixedEvaluator,
    RolloutEvaluator,
    Search,
)
from go_env.rules import Rules
from go_env.state import Color, GoState

WON_BY_BLACK = """
X X X X X
X . X . X
X X X X X
. . . . .
. . . O .
"""


def batch_of(*states):
    root = states[0]
    compiled = root.compiled()
    vectors = np.stack([s.compiled().vector for s in states])
    return LeafBatch(
        root,
        compiled,
        vectors,
        np.zeros((len(states), 4), np.int64),
        np.zeros(len(states), np.int64),
    )


def test_rollout_values_are_from_the_player_to_move():
    black = GoState.from_ascii(WON_BY_BLACK, Rules(size=5, komi=0.5))
    white = GoState.from_ascii(WON_BY_BLACK, Rules(size=5, komi=0.5), to_play=Color.WHITE)
    evaluator = RolloutEvaluator(seed=1)
    priors, values = evaluator.evaluate(batch_of(black, white, black))
    assert priors.shape == (3, 26) and np.allclose(priors.sum(axis=1), 1.0)
    assert values.shape == (3,)
    assert set(values.tolist()) <= {-1.0, 0.0, 1.0}
    many = np.array([evaluator.evaluate(batch_of(black, white))[1] for _ in range(40)])
    assert many[:, 0].mean() > 0.8 and many[:, 1].mean() < -0.8


def test_rollouts_are_seeded():
    state = GoState(Rules(size=7, komi=7.5))
    batch = batch_of(*[state] * 16)
    a = RolloutEvaluator(seed=3).evaluate(batch)[1].copy()
    b = RolloutEvaluator(seed=3).evaluate(batch)[1].copy()
    c = RolloutEvaluator(seed=4).evaluate(batch)[1].copy()
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_heavy_rollouts_value_a_seki_as_it_stands():
    # Both chains live, and with them the area count is 22 for Black and 26 for White.
    state = GoState.from_ascii(SEKI, Rules(size=7, komi=0.5), to_play=Color.WHITE)
    batch = batch_of(*[state] * 64)
    heavy = RolloutEvaluator(seed=5, playout="heavy").evaluate(batch)[1]
    light = RolloutEvaluator(seed=5).evaluate(batch)[1]
    assert (heavy == 1.0).all()
    assert (light < 1.0).any()


def test_rollouts_average_that_many_playouts_per_leaf():
    # The playouts are drawn leaf by leaf from one generator: four per leaf are the playouts
    # one per leaf gives for four copies of each leaf in a row.
    state = GoState(Rules(size=7, komi=7.5))
    other = GoState.from_ascii(WON_BY_BLACK, Rules(size=5, komi=0.5))
    for playout, leaf in (("light", state), ("heavy", state), ("heavy", other)):
        averaged = RolloutEvaluator(seed=9, playout=playout, rollouts=4)
        values = averaged.evaluate(batch_of(*[leaf] * 8))[1].copy()
        single = RolloutEvaluator(seed=9, playout=playout).evaluate(batch_of(*[leaf] * 32))[1]
        assert np.array_equal(values, single.reshape(8, 4).mean(axis=1))
    values = RolloutEvaluator(seed=2, rollouts=4).evaluate(batch_of(*[state] * 64))[1]
    assert set((values * 4).tolist()) <= {-4.0, -2.0, 0.0, 2.0, 4.0}
    assert (np.abs(values) < 1.0).any()  # leaves whose four playouts disagree


def test_rollouts_average_the_score_values_too():
    black = GoState.from_ascii(WON_BY_BLACK, Rules(size=5, komi=0.5))
    values = RolloutEvaluator(seed=4, score_scale=10.0, rollouts=3)
    single = RolloutEvaluator(seed=4, score_scale=10.0).evaluate(batch_of(*[black] * 6))[1]
    averaged = values.evaluate(batch_of(black, black))[1]
    assert np.allclose(averaged, single.reshape(2, 3).mean(axis=1))


@pytest.mark.parametrize("rollouts", [0, -1, 65, 1.5, True, "2"])
def test_rollouts_must_be_an_int_from_1_to_64(rollouts):
    with pytest.raises(ValueError, match=r"rollouts.*an int in \[1, 64\]"):
        RolloutEvaluator(rollouts=rollouts)


def test_playout_policy_must_be_one_of_the_five():
    with pytest.raises(
        ValueError,
        match="playout must be one of light, heavy, nakade, patterns, lowlib; got 'medium'",
    ):
        RolloutEvaluator(playout="medium")


def test_score_scale_gives_the_margin():
    black = GoState.from_ascii(WON_BY_BLACK, Rules(size=5, komi=0.5))
    values = np.array(
        [
            RolloutEvaluator(seed=s, score_scale=10.0).evaluate(batch_of(black))[1][0]
            for s in range(20)
        ]
    )
    assert ((values > 0) & (values < 1)).all()
    assert np.isclose(values.max(), np.tanh(24.5 / 10.0))  # at best Black owns the board
    with pytest.raises(ValueError, match="score_scale"):
        RolloutEvaluator(score_scale=-1.0)


class ConstantValue:
    """A stand-in value evaluator: fixed priors and value."""

    def __init__(self, value, priors):
        self.value = value
        self.priors = np.asarray(priors, dtype=float)
        self.uniform_priors = False
        self.calls = 0

    def evaluate(self, batch):
        self.calls += 1
        return np.tile(self.priors, (len(batch), 1)), np.full(len(batch), self.value)


def test_lambda_mixing():
    state = GoState(Rules(size=5, komi=0.5))
    batch = batch_of(*[state] * 8)
    net = ConstantValue(0.6, np.full(26, 1 / 26))
    assert isinstance(net, Evaluator)
    z = RolloutEvaluator(seed=5).evaluate(batch)[1].copy()
    mixed = MixedEvaluator(net, RolloutEvaluator(seed=5), lam=0.25).evaluate(batch)[1]
    assert np.allclose(mixed, 0.75 * 0.6 + 0.25 * z)
    only_net = MixedEvaluator(net, RolloutEvaluator(seed=5), lam=0.0).evaluate(batch)[1]
    assert np.allclose(only_net, 0.6)
    only_rollout = MixedEvaluator(net, RolloutEvaluator(seed=5), lam=1.0).evaluate(batch)[1]
    assert np.allclose(only_rollout, z)
    with pytest.raises(ValueError, match="lam"):
        MixedEvaluator(net, RolloutEvaluator(), lam=1.5)


def test_search_uses_evaluator_priors_over_the_legal_moves():
    state = GoState(Rules(size=5, komi=0.5))
    state.play(12)  # the centre is taken: its prior must be dropped and the rest renormalised
    priors = np.full(26, 0.01)
    priors[12] = 0.5
    priors[7] = 0.24
    net = ConstantValue(0.0, priors)
    search = Search(MCTSConfig(policy="puct", sims=200, seed=6).search_params(), net)
    search.set_root(state)
    stats = search.run(sims=200)
    expected = priors[stats.moves] / priors[stats.moves].sum()
    assert np.allclose(stats.priors, expected)
    assert stats.moves[np.argmax(stats.visits)] == 7  # equal values: PUCT follows the prior
    assert 190 <= net.calls <= 200  # one call per simulation that did not end the game


def test_leaf_batch_states_replay_the_path():
    root = GoState(Rules(size=5, komi=0.5))
    moves = np.array([[12, 7, 25, 0]], dtype=np.int64)
    after = root.clone()
    for move in moves[0, :3]:
        after.play(int(move))
    batch = LeafBatch(root, root.compiled(), after.compiled().vector[None, :], moves, np.array([3]))
    (state,) = batch.states()
    assert state.history == after.history and state.zobrist == after.zobrist
    assert batch.to_play.tolist() == [int(after.to_play)]
    assert [m.tolist() for m in batch.move_sequences()] == [[12, 7, 25]]
    assert root.move_number == 0
