"""Trials of a study can play an opening book, each trial on the next part of it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import optuna
import pytest
from study_support import tiny_study

from go_env.rules import Rules
from tuning.studies.cli import add_arguments, config_from_args
from tuning.studies.objective import Objective

BOOK = ["C3 D4", "B2 C4", "D2 B3", "C2", "B4 D3 C4"]


def _book(tmp_path: Path) -> Path:
    path = tmp_path / "book.txt"
    path.write_text("# a 5x5 book\n" + "\n".join(BOOK) + "\n", encoding="utf-8")
    return path


def _opening(line: str) -> tuple[int, ...]:
    size = 5
    out = []
    for vertex in line.split():
        col = "ABCDEFGHJ".index(vertex[0])
        row = size - int(vertex[1:])
        out.append(row * size + col)
    return tuple(out)


def test_trials_play_the_book_each_from_the_next_part(tmp_path: Path) -> None:
    book = _book(tmp_path)
    config = tiny_study(tmp_path, book=str(book))
    openings = config.openings()
    assert openings == tuple(_opening(line) for line in BOOK)
    objective = config.objective_config()
    params = {"g0": 0.0, "g1": 0.0, "g2": 0.0}
    # 4 games = 2 pairs per trial: trial k starts at opening 2k (mod 5)
    assert objective.match(params, 0).book[:2] == openings[:2]
    assert objective.match(params, 1).book[:2] == openings[2:4]
    assert objective.match(params, 2).book[:2] == (openings[4], openings[0])
    study = optuna.create_study(direction="maximize")
    study.enqueue_trial(params)
    study.optimize(Objective(objective), n_trials=1)  # trial 0: openings 0 and 1
    lines = objective.results_file(0).read_text().splitlines()[1:]
    played = {json.loads(line)["pair"]: tuple(json.loads(line)["opening"]) for line in lines}
    assert played == {0: openings[0], 1: openings[1]}
    identity = config.identity()
    assert identity["book"] == str(book) and len(identity["book_sha256"]) == 64


def test_without_a_book_the_identity_is_unchanged(tmp_path: Path) -> None:
    config = tiny_study(tmp_path)
    assert "book" not in config.identity() and config.openings() == ()
    assert config.objective_config().match({"g0": 0, "g1": 0, "g2": 0}, 1).book == ()


def test_a_bad_book_is_refused_with_its_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"cannot read the opening book .*missing\.txt"):
        tiny_study(tmp_path, book=str(tmp_path / "missing.txt"))
    bad = tmp_path / "bad.txt"
    bad.write_text("Z9\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.txt"):
        tiny_study(tmp_path, book=str(bad))


def test_the_cli_passes_the_book(tmp_path: Path) -> None:
    book = _book(tmp_path)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(
        [
            "monotone",
            "--size",
            "5",
            "--komi",
            "0.5",
            "--agent",
            "mcts:sims=8",
            "--d",
            "2",
            "--games",
            "4",
            "--batch",
            "2",
            "--book",
            str(book),
            "--out",
            str(tmp_path),
        ]
    )
    config = config_from_args(args)
    assert config.book == str(book) and config.rules == Rules(size=5, komi=0.5)
