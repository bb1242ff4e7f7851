"""The Gymnasium single-agent environment: Go against a fixed opponent."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents.gym_env import SpecOpponent, make_env
from go_env.single_agent import ENV_ID, GoVsOpponentEnv
from go_env.state import Color, GoState


def _passer(state: GoState) -> int:
    return state.pass_move


def _check(env: gymnasium.Env) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "no spec: cannot test render modes"
        check_env(env)


@pytest.mark.parametrize("colour", ["black", "white", "random"])
def test_passes_gymnasiums_env_checker_with_a_callable_and_with_a_spec(colour: str) -> None:
    _check(GoVsOpponentEnv(_passer, colour=colour, board_size=5))
    _check(make_env("random", colour=colour, board_size=5))
    _check(make_env("mcts:sims=4", colour=colour, board_size=5))


def test_registered_ids_make_the_environment() -> None:
    env = gymnasium.make(ENV_ID, opponent=_passer, board_size=5, colour="black")
    obs, info = env.reset(seed=0)
    assert info["colour"] == "black" and obs["action_mask"].sum() == 26
    env = gymnasium.make("go_env/GoVsAgent-v0", opponent="random", board_size=5)
    obs, _ = env.reset(seed=0)
    assert obs["observation"].shape == (17 * 5 * 5,)  # the default layout, "flat"


def test_go_env_does_not_import_agents() -> None:
    code = (
        "import sys, gymnasium, go_env.single_agent as s\n"
        "e = gymnasium.make(s.ENV_ID, opponent=lambda st: st.pass_move, board_size=5)\n"
        "e.reset(seed=0)\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in ('agents', 'tuning')]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_opponent_answers_and_the_mask_is_in_the_observation_and_action_masks() -> None:
    seen: list[int] = []

    def first_legal(state: GoState) -> int:
        move = int(state.legal_moves()[0])
        seen.append(move)
        return move

    env = GoVsOpponentEnv(first_legal, colour="black", board_size=5, observation_format="hwc")
    obs, info = env.reset(seed=0)
    assert info["colour"] == "black" and not seen
    obs, reward, terminated, truncated, info = env.step(12)
    assert seen == [0] and env.game_state.move_number == 2 and reward == 0
    assert not terminated and not truncated
    np.testing.assert_array_equal(obs["action_mask"], env.action_masks().astype(np.int8))
    assert obs["action_mask"][12] == 0 and obs["action_mask"][0] == 0  # both points taken
    assert obs["observation"][2, 2, 0] == 1 and obs["observation"][0, 0, 8] == 1  # own first


def test_white_learner_sees_the_opponents_first_move() -> None:
    env = GoVsOpponentEnv(lambda state: 12, colour="white", board_size=5, observation_format="hwc")
    obs, info = env.reset(seed=0)
    assert info["colour"] == "white" and env.game_state.to_play == Color.WHITE
    assert obs["observation"][2, 2, 8] == 1  # the opponent's (Black's) stone, second block


def test_random_colour_draws_both_and_repeats_with_the_seed() -> None:
    env = make_env("random", board_size=5)
    colours = [env.reset(seed=seed)[1]["colour"] for seed in range(20)]
    assert set(colours) == {"black", "white"}
    assert colours == [env.reset(seed=seed)[1]["colour"] for seed in range(20)]


def test_win_loss_rewards_and_the_end_of_the_game() -> None:
    env = GoVsOpponentEnv(_passer, colour="black", board_size=5, komi=0.5)
    env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(12)  # the opponent passes
    assert reward == 0 and not terminated
    _, reward, terminated, truncated, info = env.step(25)  # two passes: Black owns it all
    assert terminated and not truncated and reward == 1.0 and info["result"] == "B+24.5"
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    env = GoVsOpponentEnv(_passer, colour="white", board_size=5, komi=0.5)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(25)  # 0.5 komi: White wins the empty board
    assert terminated and reward == 1.0 and info["result"] == "W+0.5"


def test_an_illegal_action_ends_the_episode_with_minus_one() -> None:
    env = GoVsOpponentEnv(lambda state: 0, colour="white", board_size=5)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(0)  # occupied by the opponent
    assert (reward, terminated, truncated, info["illegal"]) == (-1.0, True, False, True)
    with pytest.raises(TypeError, match="action must be an int"):
        env.step(True)


def test_bad_arguments_and_an_opponent_that_plays_illegally() -> None:
    with pytest.raises(ValueError, match="colour must be one of black, white, random"):
        GoVsOpponentEnv(_passer, colour="red")
    with pytest.raises(ValueError, match="opponent must be a callable"):
        GoVsOpponentEnv(42)
    with pytest.raises(ValueError, match=r"looks like an agent spec.*GoVsAgent-v0"):
        gymnasium.make(ENV_ID, opponent="random", board_size=5)
    env = GoVsOpponentEnv(lambda state: 12, colour="black", board_size=5)
    env.reset(seed=0)
    with pytest.raises(RuntimeError, match="not a legal move"):
        env.step(12)  # the opponent answers on the same point


def test_spec_opponents_are_reseeded_so_seeded_episodes_repeat() -> None:
    def episode() -> list[int]:
        env = make_env("random", board_size=5, colour="white")
        env.reset(seed=7)
        return [move for _, move in env.game_state.history]

    assert episode() == episode()
    opponent = SpecOpponent("mcts:sims=4")
    assert opponent.name == "mcts"
    opponent.reseed(3)
    assert opponent.agent.config.seed == 3  # type: ignore[attr-defined]


def test_the_training_example_runs_and_reports_winrates() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [
            sys.executable,
            str(root / "examples" / "masked_policy_vs_random.py"),
            "--steps", "200", "--eval-every", "100", "--eval-games", "4",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
        check=True,
    )  # fmt: skip
    rows = [line.split() for line in proc.stdout.splitlines()[1:-1]]
    assert [int(row[0]) >= 100 * i for i, row in enumerate(rows)] == [True] * len(rows)
    assert all(0.0 <= float(row[2]) <= 1.0 for row in rows) and len(rows) >= 3
