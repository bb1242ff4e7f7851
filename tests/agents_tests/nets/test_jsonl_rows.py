"""The run's JSON-lines reader and writer: torn appends dropped, damage named, rewrites whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.nets.training.jsonl import append_row, read_rows, write_rows


def test_rows_round_trip_and_a_missing_file_has_none(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    assert read_rows(path) == []
    rows = [{"generation": 1, "loss": 0.5}, {"generation": 2, "elo": None}]
    write_rows(path, rows)
    assert read_rows(path) == rows
    assert path.read_text().count("\n") == 2
    assert [p.name for p in tmp_path.iterdir()] == ["metrics.jsonl"]  # no temporary left


def test_a_torn_last_line_is_dropped_and_a_whole_one_without_newline_kept(tmp_path: Path) -> None:
    path = tmp_path / "ladder.jsonl"
    path.write_text('{"generation": 1}\n\n{"generation": 2, "sc')
    assert read_rows(path) == [{"generation": 1}]
    path.write_text('{"generation": 1}\n{"generation": 2}')
    assert read_rows(path) == [{"generation": 1}, {"generation": 2}]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"generation": 1}\n{"gen\n{"generation": 3}\n', r"x\.jsonl, line 2: not JSON"),
        ('{"generation": 1}\n[1, 2]\n', r"x\.jsonl, line 2: not a JSON object"),
        ('{"generation": 1}\n{"generation": 2\n', r"x\.jsonl, line 2: not JSON"),
    ],
)
def test_damage_is_an_error_that_names_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_rows(path)


def test_append_row_adds_one_line_and_resume_rewrites_a_torn_file(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    append_row(path, {"step": 1})
    append_row(path, {"step": 2})
    assert read_rows(path) == [{"step": 1}, {"step": 2}]
    with path.open("a") as handle:
        handle.write('{"step": 3, "lo')  # a kill during the third append
    write_rows(path, read_rows(path))  # what a resumed run does first (restart_metrics)
    append_row(path, {"step": 3})
    assert read_rows(path) == [{"step": 1}, {"step": 2}, {"step": 3}]
