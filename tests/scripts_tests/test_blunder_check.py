"""scripts/blunder_check.py: the deciding position of each lost game, searched again."""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest
from game_support import game_outcome
from script_support import load_script

from agents.matches.results import ResultsFile
from agents.registry import agent_config
from go_env.rules import Rules


@pytest.fixture(scope="module")
def check() -> ModuleType:
    return load_script("blunder_check")


def test_the_deciding_move_is_before_the_largest_fall(check) -> None:
    values = np.array([0.9, 0.2, 0.1, -0.3, -0.5])
    assert check.deciding_move(values) == 0  # 0.9 -> 0.2 is the largest fall
    assert check.deciding_move(values, first=1) == 2  # the opening's move is no suspect
    assert check.deciding_move(np.array([0.2])) is None
    assert check.deciding_move(values, first=4) is None


def test_a_plies_follow_a_colour(check) -> None:
    assert check.a_plies(game_outcome(0, moves=(1, 2, 3, 4, 5))) == [0, 2, 4]
    assert check.a_plies(game_outcome(1, moves=(1, 2, 3, 4, 5))) == [1, 3]


def test_a_lost_game_is_replayed_at_its_deciding_position(check) -> None:
    config = agent_config("mcts:sims=24,batch=4")
    # A (White, odd plies) lost; its value falls most after its move at ply 3
    game = game_outcome(1, moves=(40, 41, 30, 31, 50, 51), opening=(40, 41), score_a=0.0)
    values = np.array([0.9, 0.1, -0.2])  # A to move at plies 1 (opening), 3, 5
    verdict = check.check_game(game, Rules(size=9), values, config, 3, 2)
    assert verdict.ply == 3 and verdict.played == 31  # the opening's fall is not A's
    assert math.isclose(verdict.fall, 0.3)
    assert 0 <= verdict.again <= verdict.seeds == 3
    assert 0 <= verdict.deep_move <= 81
    assert math.isnan(verdict.deep_gap) or abs(verdict.deep_gap) <= 2


def test_seeded_moves_are_fresh_seeded_searches(check) -> None:
    from go_env.state import GoState

    config = agent_config("mcts:sims=16,batch=4")
    state = GoState(Rules(size=9))
    moves = check.seeded_moves(state, config, 3)
    assert len(moves) == 3 and all(state.is_legal(move) for move in moves)
    assert check.seeded_moves(state, config, 3) == moves


def test_a_search_judges_every_position_a_is_to_move(check) -> None:
    config = agent_config("mcts:sims=16,batch=4")
    game = game_outcome(1, moves=(40, 41, 30, 31, 50), score_a=0.0)  # A is White
    values = check.search_values(game, Rules(size=9), config)
    assert values.shape == (2,) and np.all(np.abs(values) <= 1)
    again = check.search_values(game, Rules(size=9), config)
    assert np.array_equal(values, again)  # seeded by the ply


def test_report(check) -> None:
    verdicts = [
        check.Verdict(10, 0.5, 3, 8, 8, 3, 0.0),
        check.Verdict(20, 0.7, 4, 0, 8, 5, 0.1),
        check.Verdict(30, 0.9, 6, 2, 8, 7, float("nan")),
    ]
    lines = check.report(verdicts)
    assert lines[0] == "deciding positions: 3, median fall of the value 0.70"
    assert "41.7% of the searches (in 1 positions by half or more, in 1 by none)" in lines[1]
    assert lines[2] == "the deep search plays the suspect in 1, another move in 2"
    assert "median 0.100 of mean value (1 with the suspect searched)" in lines[3]
    assert check.report([]) == ["no lost game with a fall to replay"]


def test_books_of_the_suspects_and_the_deep_moves(check, tmp_path, monkeypatch, capsys) -> None:
    path = tmp_path / "results.jsonl"
    results = ResultsFile(path, {"agent_a": "a", "agent_b": "b", "rules": {"size": 9}})
    results.load()
    results.append(game_outcome(1, moves=(40, 41, 30, 31, 50, 51), score_a=0.0, result="B+3"))
    results.append(game_outcome(2, moves=(40, 41, 30, 31), score_a=1.0))
    results.close()
    monkeypatch.setattr(check, "search_values", lambda *_: np.array([0.5, -0.5, -0.6]))
    monkeypatch.setattr(check, "replay", lambda *_: (2, 12, 0.25))  # deep plays D8
    prefix = tmp_path / "book"
    assert check.main([str(path), "--agent", "mcts", "--book", str(prefix)]) == 0
    assert (
        "lost game   1 ply   1: fall 1.00, played again 2/8, deep another"
        in capsys.readouterr().out
    )
    assert (tmp_path / "book-suspect.txt").read_text() == "E5 F5\n"
    assert (tmp_path / "book-deep.txt").read_text() == "E5 D8\n"


def test_bad_input(check, tmp_path, capsys) -> None:
    path = tmp_path / "results.jsonl"
    results = ResultsFile(path, {"agent_a": "a", "agent_b": "b", "rules": {"size": 9}})
    results.load()
    results.close()
    assert check.main([str(path), "--agent", "random"]) == 2
    assert "must be an mcts spec" in capsys.readouterr().err
    assert check.main([str(tmp_path / "none.jsonl"), "--agent", "mcts", "--net", "x"]) == 2
    with pytest.raises(SystemExit):
        check.main([str(path), "--agent", "mcts", "--net", "x", "--seeds", "0"])
