"""scripts/opening_luck.py: A's losses by the network's value of A's side of the opening."""

from __future__ import annotations

from types import ModuleType

import pytest
from game_support import game_outcome
from script_support import load_script

from agents.matches.results import ResultsFile
from agents.nets.evaluator import NetEvaluator


@pytest.fixture(scope="module")
def luck() -> ModuleType:
    return load_script("opening_luck")


def game(luck: ModuleType, index: int, value: float, score_a: float):
    return luck.OpeningGame("m", index, index % 2 == 0, score_a, value, "E5 A9")


def test_the_table_bins_values_and_counts_losses(luck) -> None:
    games = [
        game(luck, 0, -0.9, 0.0),
        game(luck, 1, -0.5, 0.0),  # a bin's low edge belongs to it
        game(luck, 2, 0.1, 1.0),
        game(luck, 3, 1.0, 0.0),  # the last bin holds v = 1
    ]
    assert luck.loss_table(games, [-0.5, 0.0]) == [
        (-1.0, -0.5, 1, 1),
        (-0.5, 0.0, 1, 1),
        (0.0, 1.0, 2, 1),
    ]


def test_pairs_are_scored_per_file(luck) -> None:
    games = [
        game(luck, 0, 0, 1.0),
        game(luck, 1, 0, 0.0),
        game(luck, 2, 0, 1.0),
        game(luck, 3, 0, 1.0),
    ]
    games.append(luck.OpeningGame("other", 0, True, 0.0, 0.0, ""))  # a pair of one game: left out
    assert luck.pair_scores(games) == {1.0: 1, 2.0: 1}


def test_departures_find_where_each_game_leaves_the_earlier_ones(luck) -> None:
    def played(source: str, moves: tuple[int, ...]):
        return luck.OpeningGame(source, 0, True, 1.0, 0.0, "", moves)

    games = [
        played("m", (40, 41, 42)),
        played("m", (40, 41, 50)),  # leaves game 0 at its third move
        played("m", (40, 30, 42)),  # leaves both at its second
        played("m", (40, 41, 50)),  # repeats game 1
        played("other", (40, 41, 42)),  # another file's games are not compared
    ]
    assert luck.departures(games) == [1, 3, 2, None, 1]
    assert luck.common_prefix((1, 2), (1, 2, 3)) == 2


def write_match(path, games) -> None:
    results = ResultsFile(path, {"agent_a": "a", "agent_b": "b", "rules": {"size": 9}})
    results.load()
    for outcome in games:
        results.append(outcome)
    results.close()


def test_a_side_of_an_opening_is_the_negated_value_of_the_other(luck, tmp_path) -> None:
    path = tmp_path / "results.jsonl"
    # one opening (Black E5, White A9: Black to move), A Black in game 0 and White in game 1
    opening = (40, 0)
    write_match(
        path,
        [
            game_outcome(0, opening=opening, moves=(*opening, 81, 81), score_a=1.0),
            game_outcome(1, opening=opening, moves=(*opening, 81, 81), score_a=0.0, result="W+1"),
        ],
    )
    evaluator = NetEvaluator("strong-9x9-b6", symmetry="average", cache_size=0)
    black, white = luck.opening_games(evaluator, path)
    assert black.a_black and not white.a_black
    assert black.value == pytest.approx(-white.value) and black.value > 0.2  # E5 against A9
    assert black.opening == "E5 A9" and black.source == "results.jsonl"


def test_main_prints_the_table_the_pairs_and_the_lost_games(luck, tmp_path, capsys) -> None:
    path = tmp_path / "results.jsonl"
    write_match(path, [game_outcome(0, score_a=0.0, result="W+1"), game_outcome(1, score_a=1.0)])
    assert luck.main([str(path), "--net", "strong-9x9-b6", "--edges", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 games, 1 lost by A\n")
    assert "pairs by A's score in them: 1: 1" in out
    assert "distinct games: 1 of 2; each leaves every earlier game of its file by move 1" in out
    assert "lost results.jsonl game   0, A Black:" in out and "after (empty board)" in out
    assert luck.main([str(path), "--net", "no-such-net.pt"]) == 2
    assert "no-such-net.pt" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        luck.main([str(path), "--net", "strong-9x9-b6", "--edges", "0.5", "0.1"])
    assert "--edges must increase strictly" in capsys.readouterr().err


def test_files_of_the_same_name_are_kept_apart(luck, tmp_path, capsys) -> None:
    paths = []
    for run in ("one", "two"):  # arena folders: each holds a results.jsonl
        (tmp_path / run).mkdir()
        paths.append(tmp_path / run / "results.jsonl")
        write_match(paths[-1], [game_outcome(0, score_a=0.0, result="W+1"), game_outcome(1)])
    assert luck.main([*map(str, paths), "--net", "strong-9x9-b6", "--edges", "0"]) == 0
    out = capsys.readouterr().out
    assert "pairs by A's score in them: 1: 2" in out  # one split pair in each file
    assert "distinct games: 2 of 4" in out  # each file's second game repeats its first
