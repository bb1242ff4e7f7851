"""The PettingZoo AEC environment: observations, masks, rewards, endings, errors, rendering."""

from __future__ import annotations

import pickle
import random
from typing import Any

import numpy as np
import pytest
from game_support import random_env_game, step_env
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers

from go_env.aec_env import AGENTS, GoEnv, env, raw_env
from go_env.coords import from_gtp
from go_env.errors import IllegalMoveError, IllegalReason
from go_env.handicap import fixed_handicap_points
from go_env.rules import KoRule, Rules
from go_env.state import Color, GoState

BLACK, WHITE = AGENTS

# 5x5: Black fills column C, White column D, then both pass. Black's area is columns A-C
# (15 points), White's D-E (10 points): the score is 5 - komi.
COLUMNS_GAME = [v for r in range(1, 6) for v in (f"C{r}", f"D{r}")] + ["pass", "pass"]

# 3x3: after these moves White's C1 would recreate the position after Black's A1 (move 5):
# legal under simple ko and situational superko, illegal under positional superko.
SUPERKO_GAME = ["C2", "C1", "B2", "A2", "A1", "B1", "A1"]


def board(text: str) -> np.ndarray:
    """0/1 plane of the X stones of an ASCII board."""
    return (GoState.from_ascii(text).board == Color.BLACK).astype(np.int8)


# -- spaces, agents, observations ------------------------------------------------------------


@pytest.mark.parametrize("size", [2, 5, 9, 19])
def test_spaces(size: int) -> None:
    game = raw_env(board_size=size, history=3)
    for agent in AGENTS:
        obs_space = game.observation_space(agent)
        assert obs_space is game.observation_space(agent)
        assert isinstance(obs_space, spaces.Dict)
        assert obs_space["observation"].shape == (size, size, 7)
        assert obs_space["observation"].dtype == np.int8
        assert obs_space["action_mask"].shape == (size * size + 1,)
        assert obs_space["action_mask"].dtype == np.int8
        action_space = game.action_space(agent)
        assert action_space is game.action_space(agent)
        assert action_space == spaces.Discrete(size * size + 1)
    game.reset()
    assert game.agents == [BLACK, WHITE] == game.possible_agents
    assert game.agent_selection == BLACK
    for agent in AGENTS:
        assert game.observation_space(agent).contains(game.observe(agent))


def test_observations_from_each_agents_side() -> None:
    game = raw_env(board_size=5, history=3)
    game.reset()
    step_env(game, ["C3", "D3", "C2"])  # Black C3, White D3, Black C2; White to move
    black_now = board("""
        . . . . .
        . . . . .
        . . X . .
        . . X . .
        . . . . .""")
    white_now = board("""
        . . . . .
        . . . . .
        . . . X .
        . . . . .
        . . . . .""")
    black_before = board("""
        . . . . .
        . . . . .
        . . X . .
        . . . . .
        . . . . .""")
    empty = np.zeros((5, 5), dtype=np.int8)
    expected = {
        BLACK: [black_now, black_before, black_before, white_now, white_now, empty],
        WHITE: [white_now, white_now, empty, black_now, black_before, black_before],
    }
    for agent, colour in ((BLACK, 1), (WHITE, 0)):
        planes = game.observe(agent)["observation"]
        assert planes.shape == (5, 5, 7)
        for index, plane in enumerate(expected[agent]):
            np.testing.assert_array_equal(planes[:, :, index], plane, err_msg=f"{agent} {index}")
        assert (planes[:, :, 6] == colour).all()


def test_pitfall_history_planes_are_not_shared_between_agents() -> None:
    """go_v5 gave both agents the same history planes, in the mover's perspective."""
    game = env(board_size=9)
    game.reset()
    step_env(game, ["E5", "D4", "F6", "C3"])
    black = game.observe(BLACK)["observation"]
    white = game.observe(WHITE)["observation"]
    k = 8
    assert not np.array_equal(black, white)
    np.testing.assert_array_equal(black[:, :, :k], white[:, :, k : 2 * k])
    np.testing.assert_array_equal(black[:, :, k : 2 * k], white[:, :, :k])
    assert black[:, :, :k].sum() == 2 + 2 + 1 + 1 + 0 + 0 + 0 + 0  # Black's stones, by age


def test_pitfall_colour_plane_is_ones_for_black() -> None:
    """go_v5's colour plane was the inverse of its documentation."""
    game = raw_env(board_size=9, history=2)
    game.reset()
    assert (game.observe(BLACK)["observation"][:, :, 4] == 1).all()
    assert (game.observe(WHITE)["observation"][:, :, 4] == 0).all()
    game.step(40)
    assert (game.observe(BLACK)["observation"][:, :, 4] == 1).all()
    assert (game.observe(WHITE)["observation"][:, :, 4] == 0).all()


def test_observations_are_fresh_arrays() -> None:
    game = raw_env(board_size=5)
    game.reset()
    first = game.observe(BLACK)
    first["action_mask"][:] = 0
    first["observation"][:] = 1
    second = game.observe(BLACK)
    assert second["action_mask"].sum() == 26
    assert second["observation"][:, :, :16].sum() == 0


# -- action masks ----------------------------------------------------------------------------


def test_action_mask_is_the_movers_legal_moves() -> None:
    game = raw_env(board_size=5)
    game.reset()
    step_env(game, ["C3", "D3"])
    mover = game.observe(BLACK)["action_mask"]
    waiting = game.observe(WHITE)["action_mask"]
    assert mover.dtype == np.int8 and waiting.dtype == np.int8
    assert waiting.sum() == 0
    np.testing.assert_array_equal(mover, game.unwrapped.game_state.legal_mask().astype(np.int8))
    assert mover[from_gtp("C3", 5)] == 0 and mover[from_gtp("D3", 5)] == 0
    assert mover[25] == 1  # pass
    assert mover.sum() == 24


def test_action_mask_is_zero_for_both_after_the_end() -> None:
    game = raw_env(board_size=5)
    game.reset()
    step_env(game, ["pass", "pass"])
    for agent in AGENTS:
        assert game.observe(agent)["action_mask"].sum() == 0


def test_suicide_is_masked_unless_allowed() -> None:
    # Black A2 would leave the chain A1-A2 without liberties and capture nothing.
    for suicide, expected in ((False, 0), (True, 1)):
        game = raw_env(board_size=5, suicide=suicide)
        game.reset()
        step_env(game, ["A1", "B1", "E5", "B2", "E4", "A3"])
        assert game.observe(BLACK)["action_mask"][from_gtp("A2", 5)] == expected
        if suicide:
            game.step(from_gtp("A2", 5))
            assert game.unwrapped.game_state.board[3:, 0].tolist() == [0, 0]
        else:
            with pytest.raises(IllegalMoveError, match="suicide"):
                game.step(from_gtp("A2", 5))


@pytest.mark.parametrize(
    ("ko", "legal"),
    [(KoRule.SIMPLE, 1), ("simple", 1), (KoRule.SITUATIONAL, 1), (KoRule.POSITIONAL, 0)],
)
def test_pitfall_superko_is_masked(ko: KoRule | str, legal: int) -> None:
    """go_v5 only knew simple ko; positional superko is the default here."""
    game = raw_env(board_size=3, ko=ko)
    game.reset()
    step_env(game, SUPERKO_GAME)
    assert game.agent_selection == WHITE
    assert game.observe(WHITE)["action_mask"][from_gtp("C1", 3)] == legal


def test_default_ko_rule_is_positional_superko() -> None:
    game = raw_env(board_size=3)
    game.reset()
    step_env(game, SUPERKO_GAME)
    game.observe(WHITE)  # the masked path
    with pytest.raises(IllegalMoveError) as caught:
        game.step(from_gtp("C1", 3))
    assert caught.value.reason is IllegalReason.SUPERKO
    assert game.unwrapped.rules.ko is KoRule.POSITIONAL


# -- rewards, infos, endings -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("komi", "result", "black_reward"),
    [(7.5, "W+2.5", -1.0), (4.5, "B+0.5", 1.0), (5, "0", 0.0), (5.0, "0", 0.0)],
)
def test_rewards_of_a_known_final_position(komi: float, result: str, black_reward: float) -> None:
    game = raw_env(board_size=5, komi=komi)
    game.reset()
    step_env(game, COLUMNS_GAME)
    assert game.terminations == {BLACK: True, WHITE: True}
    assert game.truncations == {BLACK: False, WHITE: False}
    assert game.rewards == {BLACK: black_reward, WHITE: -black_reward}
    for agent in AGENTS:
        info = game.infos[agent]
        assert info == {"move_number": 12, "score": 5 - komi, "result": result}
    assert game.unwrapped.game_state.is_terminal


def test_pitfall_draw_is_a_draw() -> None:
    """go_v5 scored a draw as a White win."""
    game = env(board_size=5, komi=5)
    game.reset()
    step_env(game, COLUMNS_GAME)
    rewards = {}
    for agent in game.agent_iter():
        _, reward, term, _, info = game.last()
        assert term and info["result"] == "0" and info["score"] == 0.0
        rewards[agent] = reward
        game.step(None)
    assert rewards == {BLACK: 0.0, WHITE: 0.0}
    assert game.agents == []


def test_rewards_reach_both_agents_through_the_agent_loop() -> None:
    game = env(board_size=5, komi=7.5)
    game.reset()
    step_env(game, COLUMNS_GAME)
    seen = {}
    for agent in game.agent_iter():
        _, reward, term, trunc, _ = game.last()
        assert term and not trunc
        seen[agent] = reward
        game.step(None)
    assert seen == {BLACK: -1.0, WHITE: 1.0}


def test_pitfall_move_cap_truncates_and_scores() -> None:
    """go_v5 had no move cap; here max_moves ends the game as a truncation, scored."""
    game = raw_env(board_size=5, max_moves=4, komi=0.5)
    game.reset()
    step_env(game, ["C3", "D3", "C2"])
    assert not any(game.truncations.values())
    step_env(game, ["D2"])
    assert game.truncations == {BLACK: True, WHITE: True}
    assert game.terminations == {BLACK: False, WHITE: False}
    # two stones each, the empty points touch both colours: score = -komi
    assert game.infos[BLACK] == {"move_number": 4, "score": -0.5, "result": "W+0.5"}
    assert game.rewards == {BLACK: -1.0, WHITE: 1.0}
    assert game.unwrapped.game_state.is_truncated


def test_default_move_cap_is_two_board_areas() -> None:
    game = raw_env(board_size=2)
    game.reset()
    assert game.unwrapped.rules.move_limit == 8
    order = random_env_game(game, seed=3)
    assert len(order) <= 8 + 2
    state = game.unwrapped.game_state
    assert state.is_over and state.move_number <= 8


def test_pitfall_infos_are_not_empty() -> None:
    """go_v5's infos were empty dicts."""
    game = raw_env(board_size=9, komi=6.5)
    game.reset()
    for agent in AGENTS:
        assert game.infos[agent] == {"move_number": 0, "score": -6.5, "result": None}
    game.step(from_gtp("E5", 9))
    for agent in AGENTS:
        assert game.infos[agent] == {"move_number": 1, "score": 81 - 6.5, "result": None}
    assert game.infos[BLACK] is not game.infos[WHITE]


@pytest.mark.parametrize(("size", "seed"), [(2, 0), (4, 1), (7, 2), (9, 3), (13, 4)])
def test_observations_agree_with_the_state_through_random_games(size: int, seed: int) -> None:
    game = raw_env(board_size=size, history=2)
    game.reset()
    rng = random.Random(seed)
    previous = {agent: np.zeros((size, size), dtype=np.int8) for agent in AGENTS}
    for agent in game.agent_iter(3 * size * size):
        state = game.unwrapped.game_state
        board = state.board
        for viewer, colour in ((BLACK, Color.BLACK), (WHITE, Color.WHITE)):
            obs = game.observe(viewer)
            planes = obs["observation"]
            np.testing.assert_array_equal(planes[:, :, 0], board == colour)
            np.testing.assert_array_equal(planes[:, :, 2], board == colour.opponent)
            np.testing.assert_array_equal(planes[:, :, 1], previous[viewer])
            assert (planes[:, :, 4] == (colour == Color.BLACK)).all()
            if viewer == agent and not state.is_over:
                np.testing.assert_array_equal(obs["action_mask"], state.legal_mask())
            else:
                assert obs["action_mask"].sum() == 0
        obs, _, term, trunc, _ = game.last()
        if term or trunc:
            game.step(None)
            continue
        for viewer, colour in ((BLACK, Color.BLACK), (WHITE, Color.WHITE)):
            previous[viewer] = (board == colour).astype(np.int8)
        legal = np.flatnonzero(obs["action_mask"])
        game.step(int(legal[rng.randrange(len(legal))]))
    assert game.agents == []  # the move cap (2 N * N) ends every game within the loop


def test_random_games_end_properly() -> None:
    for seed, size in ((0, 5), (1, 9), (2, 4)):
        game = env(board_size=size)
        game.reset(seed=seed)
        order = random_env_game(game, seed)
        assert game.agents == []
        assert order.count(BLACK) >= 1 and order.count(WHITE) >= 1
        state = game.unwrapped.game_state
        assert state.is_over


# -- handicap --------------------------------------------------------------------------------


def test_handicap_white_moves_first() -> None:
    game = raw_env(board_size=9, handicap=3, history=2)
    game.reset()
    assert game.agent_selection == WHITE
    stones = np.zeros(81, dtype=np.int8)
    stones[fixed_handicap_points(9, 3)] = 1
    black = game.observe(BLACK)
    white = game.observe(WHITE)
    np.testing.assert_array_equal(black["observation"][:, :, 0].ravel(), stones)
    np.testing.assert_array_equal(white["observation"][:, :, 2].ravel(), stones)
    assert black["action_mask"].sum() == 0
    assert white["action_mask"].sum() == 81 - 3 + 1
    game.step(from_gtp("E5", 9))
    assert game.agent_selection == BLACK
    assert game.infos[WHITE]["move_number"] == 1


# -- bad input -------------------------------------------------------------------------------


def test_raw_env_raises_on_an_occupied_point_and_keeps_the_game() -> None:
    game = raw_env(board_size=9)
    game.reset()
    game.step(from_gtp("E5", 9))
    before = game.observe(WHITE)
    with pytest.raises(IllegalMoveError, match=r"E5 \(action 40\) by white_0: occupied") as err:
        game.step(40)
    assert err.value.move == 40 and err.value.reason is IllegalReason.OCCUPIED
    assert game.agent_selection == WHITE
    assert game.unwrapped.game_state.move_number == 1
    after = game.observe(WHITE)
    np.testing.assert_array_equal(before["observation"], after["observation"])
    np.testing.assert_array_equal(before["action_mask"], after["action_mask"])


def test_raw_env_raises_without_a_prior_observation() -> None:
    game = raw_env(board_size=3)
    game.reset()
    step_env(game, SUPERKO_GAME)  # no observe: the state validates the move itself
    with pytest.raises(IllegalMoveError, match=r"C1 .*by white_0: superko") as err:
        game.step(from_gtp("C1", 3))
    assert err.value.reason is IllegalReason.SUPERKO


@pytest.mark.parametrize("action", [-1, 82, 10**6])
def test_raw_env_off_board_action(action: int) -> None:
    game = raw_env(board_size=9)
    game.reset()
    with pytest.raises(IllegalMoveError, match=r"by black_0 \(actions are 0\.\.81, 81 = pass\)"):
        game.step(action)
    assert game.unwrapped.game_state.move_number == 0


@pytest.mark.parametrize("action", [None, 1.5, "E5", True, np.bool_(False)])
def test_raw_env_non_integer_action(action: object) -> None:
    game = raw_env(board_size=9)
    game.reset()
    with pytest.raises(TypeError, match="action of black_0 must be an int from 0 to 81"):
        game.step(action)  # type: ignore[arg-type]


def test_numpy_integer_actions_are_accepted() -> None:
    game = raw_env(board_size=9)
    game.reset()
    game.step(np.int32(40))
    game.step(np.int64(41))
    game.step(np.array(42))  # type: ignore[arg-type]
    assert game.unwrapped.game_state.history[-1] == (Color.BLACK, 42)


def test_dead_agents_step_with_none_only() -> None:
    game = raw_env(board_size=5)
    game.reset()
    step_env(game, ["pass", "pass"])
    with pytest.raises(ValueError, match="only valid action is None"):
        game.step(0)


def test_env_illegal_move_loses_and_ends_the_game() -> None:
    game = env(board_size=9)
    game.reset()
    game.step(40)
    _, _, term, trunc, _ = game.last()
    assert not term and not trunc
    game.step(40)  # White plays on Black's stone
    assert game.rewards[WHITE] == -1.0 and game.rewards[BLACK] == 0.0
    finals = {}
    for agent in game.agent_iter():
        obs, reward, term, trunc, _ = game.last()
        assert term and trunc
        assert obs["action_mask"].sum() == 0
        finals[agent] = reward
        game.step(None)
    assert finals == {WHITE: -1.0, BLACK: 0.0}
    assert game.unwrapped.game_state.move_number == 1  # the illegal move was not played


def test_env_out_of_bounds_action_fails_an_assertion() -> None:
    game = env(board_size=9)
    game.reset()
    with pytest.raises(AssertionError, match="not in action space"):
        game.step(82)


def test_env_enforces_reset_first() -> None:
    game = env(board_size=5)
    with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
        _ = game.agents
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        _ = game.agent_selection
    with pytest.raises(AssertionError, match="reset"):
        game.step(0)
    with pytest.raises(AssertionError, match="reset"):
        game.observe(BLACK)
    game.reset()
    assert game.agent_selection == BLACK and game.num_agents == 2


def test_env_uses_pettingzoos_wrappers() -> None:
    game = env(board_size=5)
    assert isinstance(game, wrappers.OrderEnforcingWrapper)
    assert isinstance(game.env, wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(game.env.env, wrappers.TerminateIllegalWrapper)
    assert isinstance(game.unwrapped, GoEnv)
    assert str(game) == "go_env_v0"


def vanilla_env(**kwargs: Any) -> Any:
    wrapped = wrappers.TerminateIllegalWrapper(raw_env(**kwargs), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(wrapped))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_env_behaves_as_the_plain_pettingzoo_wrappers(seed: int) -> None:
    """The one-hop attribute reads of env() change nothing, illegal moves included."""
    games = [env(board_size=5), vanilla_env(board_size=5)]
    logs: list[list[Any]] = [[], []]
    for game, log in zip(games, logs, strict=True):
        rng = random.Random(seed)
        game.reset()
        for agent in game.agent_iter(200):
            obs, reward, term, trunc, info = game.last()
            log.append(
                (
                    agent,
                    obs["observation"].tobytes(),
                    obs["action_mask"].tobytes(),
                    reward,
                    term,
                    trunc,
                    dict(info),
                    dict(game.rewards),
                    list(game.agents),
                )
            )
            if term or trunc:
                game.step(None)
            elif rng.random() < 0.03:  # now and then a move outside the mask
                game.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
            else:
                legal = np.flatnonzero(obs["action_mask"])
                game.step(int(legal[rng.randrange(len(legal))]))
        log.append((list(game.agents), dict(game.unwrapped._cumulative_rewards)))
    assert logs[0] == logs[1]


# -- constructor arguments -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"board_size": 1}, "board_size must be from 2 to 25"),
        ({"board_size": 26}, "board_size must be from 2 to 25"),
        ({"board_size": 9.0}, "board_size must be an int"),
        ({"komi": "7.5"}, "komi must be a number"),
        ({"komi": float("nan")}, "komi must be finite"),
        ({"ko": "superko"}, "ko must be one of simple, positional, situational"),
        ({"suicide": 1}, "suicide must be True or False"),
        ({"max_moves": 0}, "max_moves must be a positive int or None"),
        ({"handicap": 1}, "handicap must be 0 or 2..9"),
        ({"board_size": 5, "handicap": 2}, "handicap must be 0 .*this size has no handicap"),
        ({"history": 0}, "history .* must be a positive int"),
        ({"history": True}, "history .* must be a positive int"),
        ({"render_mode": "rgb"}, "render_mode must be one of None, 'ansi', 'rgb_array', 'human'"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        raw_env(**kwargs)
    with pytest.raises(ValueError, match=message):
        env(**kwargs)


def test_rules_come_from_the_arguments() -> None:
    game = env(board_size=7, komi=6, ko="situational", suicide=True, max_moves=30, handicap=2)
    assert game.unwrapped.rules == Rules(
        size=7, komi=6, ko=KoRule.SITUATIONAL, suicide=True, max_moves=30, handicap=2
    )


def test_from_rules() -> None:
    rules = Rules(size=9, komi=0, ko=KoRule.SIMPLE, suicide=True, max_moves=50, handicap=4)
    game = GoEnv.from_rules(rules, history=2, render_mode="ansi")
    assert game.rules == rules
    game.reset()
    assert game.agent_selection == WHITE
    assert game.observe(WHITE)["observation"].shape == (9, 9, 5)
    assert isinstance(game.render(), str)
    with pytest.raises(TypeError, match=r"rules must be a go_env\.rules\.Rules"):
        GoEnv.from_rules({"size": 9})  # type: ignore[arg-type]


@pytest.mark.parametrize("history", [1, 2, 8, 12])
def test_history_sets_the_number_of_planes(history: int) -> None:
    game = raw_env(board_size=5, history=history)
    game.reset()
    assert game.observe(BLACK)["observation"].shape == (5, 5, 2 * history + 1)


# -- PettingZoo's own checks -----------------------------------------------------------------


# PettingZoo warns about dict observations of environments outside its own list of names.
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning")
# White's view of an empty board (Black passed first in the random game) is all zeros by the
# AlphaGo Zero encoding (go_env.features: the colour plane is zeros for White), a true observation.
@pytest.mark.filterwarnings("ignore:Observation numpy array is all zeros:UserWarning")
@pytest.mark.parametrize("size", [5, 9, 19])
@pytest.mark.parametrize("make", [env, raw_env])
def test_pettingzoo_api_test(make: Any, size: int) -> None:
    api_test(make(board_size=size), num_cycles=1000)


@pytest.mark.parametrize("size", [5, 9, 19])
@pytest.mark.parametrize("make", [env, raw_env])
def test_pettingzoo_seed_test(make: Any, size: int) -> None:
    seed_test(lambda: make(board_size=size), num_cycles=200)


def test_reset_seed_gives_the_same_game() -> None:
    boards = []
    for _ in range(2):
        game = env(board_size=9)
        game.reset(seed=7)
        for i, agent in enumerate(AGENTS):
            game.action_space(agent).seed(42 + i)
        for agent in game.agent_iter(60):
            obs, _, term, trunc, _ = game.last()
            game.step(
                None if term or trunc else game.action_space(agent).sample(obs["action_mask"])
            )
        boards.append(game.unwrapped.game_state.board)
    np.testing.assert_array_equal(boards[0], boards[1])


def test_reset_restarts_the_game() -> None:
    game = raw_env(board_size=5)
    game.reset()
    step_env(game, COLUMNS_GAME)
    game.reset(seed=1, options={"ignored": True})
    assert game.agents == [BLACK, WHITE] and game.agent_selection == BLACK
    assert not any(game.terminations.values()) and not any(game.truncations.values())
    assert game.rewards == {BLACK: 0.0, WHITE: 0.0}
    assert game.unwrapped.game_state.move_number == 0
    assert game.observe(BLACK)["action_mask"].sum() == 26


def test_pickle_round_trip_gives_a_fresh_environment() -> None:
    game = raw_env(board_size=7, komi=5.5, history=3)
    clone = pickle.loads(pickle.dumps(game))
    clone.reset()
    assert clone.rules == game.rules
    assert clone.observe(BLACK)["observation"].shape == (7, 7, 7)


# -- pitfall: board size in module globals ---------------------------------------------------


def test_pitfall_two_sizes_alive_at_once() -> None:
    """go_v5 kept the board size in module globals: a 19x19 env broke a live 9x9 env."""
    small, large = env(board_size=9), env(board_size=19)
    small.reset()
    large.reset()
    rng = random.Random(5)
    for _ in range(40):
        for game, size in ((small, 9), (large, 19)):
            obs, _, term, trunc, _ = game.last()
            assert obs["observation"].shape == (size, size, 17)
            assert obs["action_mask"].shape == (size * size + 1,)
            legal = np.flatnonzero(obs["action_mask"])
            game.step(None if term or trunc else int(legal[rng.randrange(len(legal) - 1)]))
    later = env(board_size=13)
    later.reset()
    assert small.unwrapped.game_state.size == 9 and large.unwrapped.game_state.size == 19
    assert (
        small.unwrapped.game_state.move_number == 40
        and large.unwrapped.game_state.move_number == 40
    )
    assert small.last()[0]["action_mask"].shape == (82,)


# -- pitfall: no state to search from --------------------------------------------------------


def test_pitfall_state_is_live_and_clonable() -> None:
    """go_v5 offered planning agents no game state to clone and search."""
    game = env(board_size=9)
    game.reset()
    state = game.unwrapped.game_state
    assert isinstance(state, GoState)
    game.step(40)
    assert game.unwrapped.game_state is state and state.move_number == 1  # live
    mask_before = game.last()[0]["action_mask"].copy()
    search = state.clone()
    for _ in range(5):
        search.play(int(search.legal_moves()[0]))
    assert state.move_number == 1
    np.testing.assert_array_equal(game.last()[0]["action_mask"], mask_before)
    assert game.unwrapped.rules is state.rules
    assert game.game_state is state and game.rules is state.rules  # through the wrappers too


# -- rendering -------------------------------------------------------------------------------


def test_render_ansi_has_coordinates_and_stones() -> None:
    game = raw_env(board_size=9, render_mode="ansi")
    game.reset()
    step_env(game, ["E5", "D4"])
    text = game.render()
    assert isinstance(text, str)
    lines = text.splitlines()
    assert lines[0].split() == list("ABCDEFGHJ")  # no I, as in GTP
    assert lines[10].split() == list("ABCDEFGHJ")
    assert lines[1].split()[0] == "9" and lines[9].split()[0] == "1"
    assert lines[5] == " 5 . . . . X . . . . 5"
    assert lines[6] == " 4 . . .(O). . . . . 4"  # the last move is marked
    assert lines[7] == " 3 . . + . . . + . . 3"  # star points
    assert "move 2" in lines[11] and "Black to play" in lines[11]


def test_render_ansi_reports_the_result() -> None:
    game = raw_env(board_size=5, render_mode="ansi", komi=7.5)
    game.reset()
    step_env(game, COLUMNS_GAME)
    text = game.render()
    assert isinstance(text, str) and "game over (two passes): W+2.5" in text


def test_render_rgb_array() -> None:
    game = raw_env(board_size=9, render_mode="rgb_array")
    game.reset()
    step_env(game, ["E5", "D4"])
    image = game.render()
    assert isinstance(image, np.ndarray)
    assert image.dtype == np.uint8 and image.shape == (320, 320, 3)
    cell = 32

    def pixel(vertex: str, dy: int = 6, dx: int = 0) -> np.ndarray:
        row, col = divmod(from_gtp(vertex, 9), 9)
        return image[cell * (row + 1) + dy, cell * (col + 1) + dx].astype(int)

    assert pixel("E5").max() < 60  # black stone
    assert pixel("D4").min() > 200  # white stone (the red last-move dot is at its centre)
    assert tuple(image[5, 5]) == (220, 179, 92)  # wooden margin
    assert pixel("A1", dy=0, dx=12).max() < 60  # the grid line between A1 and B1
    assert pixel("A1", dy=6, dx=12).tolist() == [220, 179, 92]  # wood beside it


def test_render_human_prints(capsys: pytest.CaptureFixture[str]) -> None:
    game = raw_env(board_size=5, render_mode="human")
    game.reset()
    game.step(12)
    assert game.render() is None
    out = capsys.readouterr().out
    assert out.count("A B C D E") == 6  # reset, step and render, two label lines each


def test_render_without_mode_warns() -> None:
    game = raw_env(board_size=5)
    game.reset()
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert game.render() is None


# -- PettingZoo's global state and the deprecated env.state ---------------------------------


def test_state_is_pettingzoos_global_state_through_every_wrapper() -> None:
    from pettingzoo.utils.wrappers import BaseWrapper, OrderEnforcingWrapper

    for game in (
        env(board_size=5),
        BaseWrapper(env(board_size=5)),
        OrderEnforcingWrapper(raw_env(board_size=5)),
    ):
        game.reset(seed=0)
        game.step(12)  # Black plays the centre
        glob = game.state()
        assert game.state_space.contains(glob)
        assert glob.shape == (5, 5, 17) and glob.dtype == np.int8
        assert glob[2, 2, 0] == 1 and glob[:, :, 0].sum() == 1  # Black's stones now
        assert glob[:, :, 1].sum() == 0  # ... one move ago
        assert glob[:, :, 8].sum() == 0  # White's stones now
        assert not glob[:, :, 16].any()  # White to move
        game.step(6)
        glob = game.state()
        assert glob[1, 1, 8] == 1 and glob[:, :, 16].all()  # White's stone; Black to move


def test_env_state_as_the_gostate_still_works_with_a_deprecation_warning() -> None:
    game = env(board_size=5)
    game.reset(seed=0)
    game.step(12)
    with pytest.warns(DeprecationWarning, match="use env.unwrapped.game_state"):
        clone = game.unwrapped.state.clone()
    assert clone.move_number == 1
    with pytest.warns(DeprecationWarning):
        assert game.state.to_play == Color.WHITE


def test_env_state_as_the_gostate_prints_and_copies_as_the_gostate() -> None:
    import copy
    import warnings

    game = env(board_size=5)
    game.reset(seed=0)
    game.step(12)
    live = game.unwrapped.game_state
    with pytest.warns(DeprecationWarning, match="use env.unwrapped.game_state"):
        assert str(game.unwrapped.state) == str(live)
    with pytest.warns(DeprecationWarning):
        deep = copy.deepcopy(game.unwrapped.state)
    with pytest.warns(DeprecationWarning):
        shallow = copy.copy(game.unwrapped.state)
    for copied in (deep, shallow):
        assert type(copied) is type(live) and copied is not live
        assert copied.move_number == 1 and copied.to_play == Color.WHITE
    deep.play(0)
    assert live.move_number == 1  # the copy is the game's own, not the live state
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the environment itself copies without the old name
        copy.deepcopy(game.unwrapped)
