"""The re-scoring and trap heat-map scripts at a tiny size (their full runs are long)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from script_support import load_script

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str) -> ModuleType:
    return load_script(name)


def test_rescoring_replays_the_recorded_games_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    rescore = _script("rescore_dead")
    out = tmp_path / "games.jsonl"
    args = ["--rows", "coulom-2-16", "--sample", "3", "--playouts", "8", "--out", str(out)]
    assert rescore.main(args) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["index"] for r in lines] == [0, 1, 2]
    assert all(r["raw_matches_record"] for r in lines)  # the replay gives the recorded count
    assert rescore.main(args) == 0  # resumed: nothing scored again
    assert len(out.read_text().splitlines()) == 3
    text = capsys.readouterr().out
    assert "3 games scored before, 0 to score" in text and "| `coulom-2-16` | 3 |" in text
    assert rescore.main(["--rows", "nosuchrow", "--out", str(out)]) == 2


def test_the_heat_map_runs_tiny_and_labels_both_heats(tmp_path: Path) -> None:
    heat = _script("trap_heat_map")
    assert heat.softmax_at(27.0, 200) == "softmax:g=[-2.0025,-2.0025]"
    assert heat.softmax_constant(-1) == "softmax:g=[-1,-1]"
    args = ["--families", "deceptive-k3", "--budgets", "20", "40", "--trees", "2"]
    args += ["--g", "-1", "--p", "8", "--tau", "10", "--workers", "1", "--out", str(tmp_path)]
    assert heat.main(args) == 0
    table = (tmp_path / "deceptive-k3" / "table.md").read_text()
    for label in ("| mean |", "softmax g = -1 (tau(n) = e^g n)", "power_mean:p=8", "tau(N) = 10"):
        assert label in table
    assert (tmp_path / "deceptive-k3" / "heat.png").stat().st_size > 1000
