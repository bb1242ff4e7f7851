"""Smoke tests of the speed benchmarks: the scripts run, print their tables, verdicts and JSON.

They check that the scripts work, never how fast anything is (see docs/performance.md).
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
HAS_OPENSPIEL = importlib.util.find_spec("pyspiel") is not None
HAS_PYGAME = importlib.util.find_spec("pygame") is not None  # go_v5 imports it
HAS_TORCH = importlib.util.find_spec("torch") is not None  # net_forward needs the nets extra
VERDICT = re.compile(r"^(PASS|FAIL) .+: [\d,.]+(x| \S+/s) \(target >?=? ", re.MULTILINE)


def _run(script: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    out = tmp_path_factory.mktemp("bench")
    return _run("run_all.py", "--quick", "--json-dir", str(out)), out


def test_run_all_quick_prints_every_table_and_a_summary(quick_run: tuple[str, Path]) -> None:
    stdout, _ = quick_run
    for title in (
        "### AEC moves per second, 9x9",
        "### Random playouts per second, 9x9",
        "### Simulations per second: ours (mean) and OpenSpiel",
        "### Simulations per second by backup (relative to mean)",
    ):
        assert title in stdout
    if HAS_TORCH:
        assert "### Positions per second, batch 32" in stdout
        assert "### Positions per CPU-second by batch size (ratio to fp32" in stdout
    assert "| kernels.heavy_playout with patterns " in stdout
    assert "playouts/s, patterns / heavy kernel (no target): " in stdout
    summary = stdout.split("summary", 1)[1]
    assert "CRASHED" not in summary
    assert re.search(r"^playout_speed: (PASS|FAIL) playouts 9x9 GoState", summary, re.MULTILINE)
    assert re.search(r"^mcts_speed: (PASS|FAIL) mcts slowest backup", summary, re.MULTILINE)


def test_quick_json_records_samples_machine_and_verdicts(quick_run: tuple[str, Path]) -> None:
    stdout, out = quick_run
    for name in ("env_speed", "playout_speed", "mcts_speed", *(["net_forward"] * HAS_TORCH)):
        data = json.loads((out / f"{name}.json").read_text())
        assert data["quick"] is True
        assert data["machine_start"]["cpu_count"] >= 1
        for section in data["sections"]:
            for series in section["series"]:
                assert len(series["samples"]) == data["trials"] == 1
                assert series["min"] <= series["median"] <= series["max"]
                assert series["median"] > 0
        for verdict in data["verdicts"]:
            assert verdict["line"] in stdout
            assert verdict["passed"] is (verdict["line"].startswith("PASS"))


def test_mcts_table_lists_every_builtin_backup(quick_run: tuple[str, Path]) -> None:
    from agents.mcts.backups import BACKUPS

    stdout, _ = quick_run
    table = stdout.split("by backup (relative to mean)", 1)[1]
    for name in BACKUPS.names():
        assert f"| gomcts mcts backup={name} " in table


def test_peers_are_measured_when_installed_and_skipped_otherwise(
    quick_run: tuple[str, Path],
) -> None:
    stdout, _ = quick_run
    for peer in ("OpenSpiel go, Python API", "OpenSpiel C++ MCTSBot", "OpenSpiel Python MCTSBot"):
        assert (f"| {peer} " in stdout) is HAS_OPENSPIEL
    assert ("| PettingZoo go_v5.env " in stdout) is HAS_PYGAME
    assert ("| PettingZoo go_v5.raw_env " in stdout) is HAS_PYGAME
    if not HAS_OPENSPIEL:
        assert "skipped (open_spiel not installed" in stdout
    if not HAS_PYGAME:
        assert "go_v5: skipped" in stdout or "go_v5.env: skipped" in stdout


def test_env_speed_rotates_trials_and_prints_a_verdict_per_size(tmp_path: Path) -> None:
    path = tmp_path / "env.json"
    stdout = _run(
        "env_speed.py",
        "--quick",
        "--sizes",
        "5",
        "7",
        "--seconds",
        "0.05",
        "--trials",
        "2",
        "--json",
        str(path),
    )
    assert "### AEC moves per second, 5x5" in stdout
    assert "### AEC moves per second, 7x7" in stdout
    assert "| gomcts go_env.env " in stdout
    assert "| gomcts go_env.raw_env " in stdout
    data = json.loads(path.read_text())
    assert [s["board_size"] for s in data["sections"]] == [5, 7]
    assert all(len(series["samples"]) == 2 for s in data["sections"] for series in s["series"])
    for size in (5, 7):
        for ours, peer in (("go_env.env", "go_v5.env"), ("go_env.raw_env", "go_v5.raw_env")):
            line = f"env {size}x{size}: gomcts {ours} / PettingZoo {peer}: "
            assert (line in stdout) is HAS_PYGAME
    assert len(VERDICT.findall(stdout)) == (4 if HAS_PYGAME else 0)


def test_bad_arguments_are_refused_with_a_message() -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH / "mcts_speed.py"), "--sims", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "expected a positive integer, got 0" in proc.stderr


def test_move_time_times_each_agent_on_the_same_positions() -> None:
    out = _run("move_time.py", "random", "mcts:sims=8", "--positions", "2", "--size", "5")
    lines = out.strip().splitlines()
    assert len(lines) == 2
    assert re.match(r"^[\d.]+ s a move \(CPU [\d.]+ s, x(1\.00|-)\): random$", lines[0])
    assert re.match(
        r"^[\d.]+ s a move \(CPU [\d.]+ s, x([\d.]+|-), 8 simulations\): mcts:sims=8$", lines[1]
    )
