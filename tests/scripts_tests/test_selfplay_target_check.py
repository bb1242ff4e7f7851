"""scripts/selfplay_target_check.py: who wins, and each side's flat policy targets."""

from __future__ import annotations

import json
from types import ModuleType

import pytest
from script_support import load_script

from agents.nets.training.records import GameFile, GameRecord, PolicyTarget


@pytest.fixture(scope="module")
def check() -> ModuleType:
    return load_script("selfplay_target_check")


FLAT = (tuple(range(30)), (1 / 30,) * 30)  # 30 moves tried once each
SHARP = ((40, 41), (0.9, 0.1))


def _game(index: int, winner: int, black: tuple, white: tuple) -> GameRecord:
    targets = (PolicyTarget(0, *black), PolicyTarget(1, *white), PolicyTarget(2, *black))
    return GameRecord(
        index=index,
        seed=index,
        moves=(40, 41, 42),
        targets=targets,
        winner=winner,
        result="W+7.5" if winner < 0 else "B+2.5",
        full_searches=3,
        fast_searches=0,
        simulations=192,
        evaluations=192,
        seconds=0.1,
    )


def test_flat_targets_are_counted_by_side_and_generation(check, tmp_path, capsys) -> None:
    games = tmp_path / "run" / "games"
    games.mkdir(parents=True)
    first = [_game(0, 1, SHARP, SHARP), _game(1, -1, SHARP, FLAT)]
    GameFile(games / "gen-0001.jsonl").append(first)
    GameFile(games / "gen-0002.jsonl").append([_game(i, -1, FLAT, SHARP) for i in range(4)])
    rows = check.check_run(tmp_path / "run")
    assert [r["generation"] for r in rows] == [1, 2]
    assert rows[0]["black_win_share"] == 0.5 and rows[0]["black_flat_share"] == 0.0
    assert rows[0]["white_flat_share"] == 0.5 and rows[0]["black_targets"] == 4
    assert rows[1]["black_win_share"] == 0.0 and rows[1]["black_flat_share"] == 1.0
    assert check.check_run(tmp_path / "run", (2, 2)) == rows[1:]
    # a spread that is not even (one move tried 4 times) or too narrow is not flat
    assert not check.is_flat(PolicyTarget(0, tuple(range(30)), (4 / 33,) + (1 / 33,) * 29))
    assert not check.is_flat(PolicyTarget(0, tuple(range(10)), (0.1,) * 10))
    assert check.main([str(tmp_path / "run")]) == 0
    assert "| 2 | 4 | 0.0% | 100.0% | 0.0% |" in capsys.readouterr().out
    assert check.main([str(tmp_path / "run"), "--generations", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["white_flat_share"] == 0.5


def test_a_folder_without_games_is_refused(check, tmp_path, capsys) -> None:
    assert check.main([str(tmp_path)]) == 2
    assert "holds no self-play games" in capsys.readouterr().err
    assert check.main([str(tmp_path), "--generations", "3-1"]) == 2
    assert "--generations must be A-B" in capsys.readouterr().err
