"""scripts/deciding_moves_played.py: the suspect and the deep move, played out from a book."""

from __future__ import annotations

from types import ModuleType

import pytest
from game_support import game_outcome
from script_support import load_script

from agents.matches.results import ResultsFile


@pytest.fixture(scope="module")
def played() -> ModuleType:
    return load_script("deciding_moves_played")


def write(path, lines, scores, opponent="gnugo"):
    """A book match: pair p plays ``lines[p]``, A Black first; ``scores`` by game index."""
    results = ResultsFile(path, {"agent_a": "a", "agent_b": opponent, "rules": {"size": 9}})
    results.load()
    for index, score in enumerate(scores):
        line = lines[index // 2]
        results.append(
            game_outcome(index, opening=line, moves=(*line, 81, 81), score_a=score, result="?")
        )
    results.close()
    return path


def test_each_side_of_each_line(played, tmp_path, capsys) -> None:
    # line 0: A moved last as Black (3 moves); line 1: as White (2 moves)
    suspect = write(tmp_path / "s.jsonl", [(1, 2, 3), (1, 4)], [0.0, 1.0, 0.0, 0.0])
    deep = write(tmp_path / "d.jsonl", [(1, 2, 5), (1, 6)], [1.0, 0.0, 0.0, 1.0])
    assert played.main([str(suspect), str(deep)]) == 0
    out = capsys.readouterr().out.splitlines()
    # own side: line 0 is game 0 (A Black), line 1 game 3 (A White): both won after deep
    assert out[0].startswith("A on its own side: 2 lines, A scored 0 after the suspect and 2")
    assert "2 lines better for A after the deep move, 0 after the suspect, p = 0.5" in out[0]
    # the opponent's side: games 1 and 2; A lost game 1 after the deep move
    assert out[1].startswith("A on the opponent's side: 2 lines, A scored 1 after the suspect")
    assert "0 lines better for A after the deep move, 1 after the suspect" in out[1]


def test_mismatched_books_and_opponents_are_refused(played, tmp_path, capsys) -> None:
    suspect = write(tmp_path / "s.jsonl", [(1, 2, 3)], [0.0, 1.0])
    other = write(tmp_path / "o.jsonl", [(7, 2, 5)], [1.0, 0.0])
    assert played.main([str(suspect), str(other)]) == 2
    assert "differ before their last move" in capsys.readouterr().err
    rival = write(tmp_path / "r.jsonl", [(1, 2, 5)], [1.0, 0.0], opponent="pachi")
    assert played.main([str(suspect), str(rival)]) == 2
    assert "different opponents" in capsys.readouterr().err
