"""``benchmarks/search_speed.py`` runs both leaf paths, prints its table, resumes from JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from benchmarks import search_speed

TINY = ["--sims", "4", "--ks", "2", "--baseline-k", "2", "--moves", "1", "--trials", "1"]


def test_a_tiny_run_prints_both_paths_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "run.json"
    assert search_speed.main([*TINY, "--json", str(record)]) == 0
    out = capsys.readouterr().out
    assert "| leaves | 2 | fp32 |" in out and "| rounds | 2 | fp32 |" in out
    assert "rounds K=2 fp32 over leaves K=2 fp32" in out and "CPU flags" in out
    runs = json.loads(record.read_text())["runs"]
    assert {(r["path"], r["k"]) for r in runs} == {("leaves", 2), ("rounds", 2)}
    assert all(r["moves"] == 2 and r["simulations"] == 2 * 4 for r in runs)  # 2 games, 1 move
    # the leaf path is restored after its arm
    from agents.mcts.agent import MCTSAgent

    assert MCTSAgent.act_steps is not MCTSAgent.act_leaf_steps
    assert search_speed.main([*TINY, "--json", str(record)]) == 0
    assert "resuming: 2 arms already" in capsys.readouterr().out


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        search_speed.main(["--ks", "0"])
    with pytest.raises(SystemExit):
        search_speed.main([*TINY, "--precision", "no-such-precision"])
    record = tmp_path / "run.json"
    record.write_text(json.dumps({"args": {"sims": 1}, "runs": []}))
    with pytest.raises(SystemExit):
        search_speed.main([*TINY, "--json", str(record)])
