"""Backup parameter files (the tuner's output, the strategies' input)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agents.mcts.backups.params_io import (
    FORMAT,
    VERSION,
    ParamsFileError,
    read_params,
    write_params,
)


def test_round_trip_with_meta(tmp_path: Path) -> None:
    path = write_params(
        tmp_path / "sub" / "best.json",
        "softmax",
        {"g": (-7.0, -math.inf, 2.5), "recursive": False},
        meta={"n_simulations": 5000, "study": "s1", "objective": 0.563},
    )
    doc = json.loads(path.read_text())
    assert doc["format"] == FORMAT and doc["version"] == VERSION
    assert doc["params"] == {"g": [-7.0, "-inf", 2.5], "recursive": False}
    loaded = read_params(path, backup="softmax")
    assert loaded.backup == "softmax"
    assert loaded.params["g"] == [-7.0, "-inf", 2.5]
    assert loaded.meta == {"n_simulations": 5000, "study": "s1", "objective": 0.563}


def test_nan_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        write_params(tmp_path / "x.json", "monotone", {"g": (float("nan"), 1.0)})


@pytest.mark.parametrize(
    "content, words",
    [
        ("not json", "not JSON"),
        ('{"backup": "monotone", "params": {}}', "not a backup parameter file"),
        (json.dumps({"format": FORMAT, "version": 99, "backup": "m", "params": {}}), "version 99"),
        (json.dumps({"format": FORMAT, "version": VERSION, "params": {}}), 'needs "backup"'),
        (
            json.dumps({"format": FORMAT, "version": VERSION, "backup": "x", "params": []}),
            'needs "backup"',
        ),
    ],
)
def test_malformed_files_are_explained(tmp_path: Path, content: str, words: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ParamsFileError, match=words):
        read_params(path)


def test_wrong_strategy_is_refused(tmp_path: Path) -> None:
    path = write_params(tmp_path / "m.json", "monotone", {"g": [0.0, 1.0]})
    assert read_params(path).backup == "monotone"
    with pytest.raises(ParamsFileError, match="for backup 'monotone', not 'softmax'"):
        read_params(path, backup="softmax")


def test_field_types_are_checked_when_applied(tmp_path: Path) -> None:
    from agents.mcts.backups.softmax import SoftmaxBackup

    for params, words in (
        ({"g": 3}, "expected a list"),
        ({"g": ["a", 1]}, "not a number"),
        ({"recursive": "yes"}, "true or false"),
    ):
        path = write_params(tmp_path / "p.json", "softmax", params)
        with pytest.raises(ParamsFileError, match=words):
            SoftmaxBackup(file=str(path))
