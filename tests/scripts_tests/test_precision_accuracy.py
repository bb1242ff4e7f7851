"""``scripts/precision_accuracy.py`` at a tiny size: every stage runs, resumes and records.

The full-size run (10,000 positions, 400 games) is the coordinator's; this checks the
script's mechanics with a few positions, two games and four simulations.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from script_support import load_script

pytest.importorskip("torch")

from agents.nets.precision import unsupported_reason

REASON = unsupported_reason("bf16")
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"bf16: {REASON}")


def _script() -> ModuleType:
    return load_script("precision_accuracy")


SCRIPT = _script()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run the script's ``main`` in this process (one torch import); its stderr."""
    assert SCRIPT.main(list(args)) == 0
    return capsys.readouterr().err


TINY = ["--positions", "30", "--search-positions", "2", "--games", "2", "--sims", "4"]


def test_every_stage_runs_resumes_and_writes_a_partial_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["--out", str(out), *TINY, "--workers", "1", "--precisions", "bf16"]
    err = run(capsys, *args)
    assert "positions: chunk 1/1 (30/30 positions" in err
    assert "search: 6/6 searches" in err
    record = json.loads((out / "precision_checks.json").read_text())
    entry = record["precisions"]["bf16"]
    assert entry["passed"] is False and entry["complete"] is False
    assert entry["positions"]["positions"] == 30
    assert 0 < entry["positions"]["value_max"] < 0.1
    assert entry["positions"]["value_p99"] <= entry["positions"]["value_max"]
    assert entry["positions"]["tv_mean"] <= entry["positions"]["tv_max"] < 0.1
    assert entry["search"]["positions"] == 2
    assert entry["search_reference"]["positions"] == 2
    assert entry["match"]["games"] == 2
    assert entry["match"]["low"] <= entry["match"]["score"] <= entry["match"]["high"]
    summary = (out / "summary.md").read_text()
    assert "| bf16 | 30 |" in summary and "not yet (partial run)" in summary

    assert "search:" not in run(capsys, *args, "--stage", "search")  # nothing left to do
    (out / "positions" / "chunk-000000.npz").unlink()
    assert "positions: chunk 1/1" in run(capsys, *args, "--stage", "positions")

    with pytest.raises(SystemExit, match="holds 30 positions of seed 27"):
        SCRIPT.main(["--out", str(out), "--positions", "31", "--stage", "positions"])


def test_bad_sizes_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        SCRIPT.main(["--out", str(tmp_path), "--games", "0"])
    assert info.value.code == 2
    assert "--games must be >= 1, got 0" in capsys.readouterr().err
