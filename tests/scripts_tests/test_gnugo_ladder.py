"""scripts/gnugo_ladder.py: one row a network's match against GNU Go, the lines' Elo curves."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from game_support import game_outcome
from script_support import load_script

from agents.matches.results import ResultsFile

MATCH = {"agent_a": "a", "agent_b": "gnugo", "rules": {"size": 9}, "seed": 2065}


@pytest.fixture(scope="module")
def ladder() -> ModuleType:
    return load_script("gnugo_ladder")


def _match(folder: Path, wins: int, games: int = 4, **match: str) -> None:
    folder.mkdir(parents=True)
    results = ResultsFile(folder / "results.jsonl", {**MATCH, **match})
    results.load()
    for i in range(games):
        results.append(game_outcome(i, score_a=float(i < wins), time_black=0.2, time_white=0.4))
    results.close()


def test_rows_by_line_and_generation_then_references_and_a_plot(ladder, tmp_path, capsys):
    _match(tmp_path / "paper-0070", wins=3)
    _match(tmp_path / "paper-0023", wins=0)
    _match(tmp_path / "strong-0008", wins=4)
    _match(tmp_path / "supervised", wins=2)
    (tmp_path / "nets").mkdir()  # the networks' folder: no results file, left out
    rows_file, plot = tmp_path / "rows.json", tmp_path / "elo.png"
    assert ladder.main([str(tmp_path), "--json", str(rows_file), "--plot", str(plot)]) == 0
    captured = capsys.readouterr()
    assert "nets: no results file, left out" in captured.err
    lines = captured.out.splitlines()
    assert lines[0] == "opponent: gnugo"
    assert lines[3].startswith("| paper | 23 | 0 of 4 | 0.000 [0.000, 0.490] | <= -7 |")
    assert lines[4].startswith("| paper | 70 | 3 of 4 | 0.750")
    assert lines[5].startswith("| strong | 8 | 4 of 4 | 1.000 [0.510, 1.000] | >= +7 |")
    assert lines[6].startswith("| supervised |  | 2 of 4 | 0.500")
    rows = json.loads(rows_file.read_text())
    assert [(r["line"], r["generation"]) for r in rows] == [
        ("paper", 23),
        ("paper", 70),
        ("strong", 8),
        (None, None),
    ]
    # A played Black in even games (0.2 s) and White in odd ones (0.4 s), 2 moves each.
    assert rows[0]["seconds_per_move"] == pytest.approx(0.15)
    assert rows[0]["elo"] is None and rows[0]["elo_high"] == pytest.approx(-6.95, abs=0.1)
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_matches_against_different_opponents_are_refused(ladder, tmp_path, capsys):
    _match(tmp_path / "paper-0001", wins=1)
    _match(tmp_path / "paper-0002", wins=1, agent_b="pachi")
    assert ladder.main([str(tmp_path)]) == 1
    assert "different opponents" in capsys.readouterr().out


def test_a_folder_without_matches_is_an_error(ladder, tmp_path, capsys):
    with pytest.raises(SystemExit):
        ladder.main([str(tmp_path)])
    assert "holds no match folder with a results file" in capsys.readouterr().err
