"""Two worker processes share one study on a real PostgreSQL server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from optuna.trial import TrialState
from postgres_support import PostgresServer, require_postgres, start_postgres

from go_env.rules import Rules
from tuning.samplers import proposed_by_model
from tuning.search_spaces import make_space
from tuning.studies.study import StudyConfig, load_study

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    require_postgres()
    server = start_postgres()
    try:
        yield server
    finally:
        server.stop()


def test_two_workers_share_a_study_without_losing_or_duplicating_trials(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    args = [
        "softmax",
        "--size",
        "5",
        "--komi",
        "0.5",
        "--agent",
        "mcts:sims=24",
        "--d",
        "2",
        "--trials",
        "6",
        "--startup-trials",
        "3",
        "--games",
        "4",
        "--batch",
        "2",
        "--storage",
        postgres.url,
        "--study-name",
        "shared",
        "--no-outputs",
    ]
    procs = []
    for worker in range(2):
        cmd = [
            sys.executable,
            "-m",
            "tuning.studies.cli",
            *args,
            "--out",
            str(tmp_path / f"w{worker}"),
        ]
        procs.append(
            subprocess.Popen(
                cmd,
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        )
    outputs = [proc.communicate(timeout=240)[0] for proc in procs]
    for proc, output in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, output

    config = StudyConfig(
        space=make_space("softmax", d=2),
        agent="mcts:sims=24",
        rules=Rules(size=5, komi=0.5),
        games=4,
        batch=2,
        startup_trials=3,
        storage=postgres.url,
        study_name="shared",
        out=tmp_path / "w0",
    )
    everything = load_study(config).trials
    trials = [t for t in everything if t.state == TrialState.COMPLETE]
    # exactly the six trials asked for (none RUNNING, FAIL or WAITING); a trial that both
    # workers started for the last place is pruned unplayed
    assert len(trials) == 6
    surplus = [t for t in everything if t.state != TrialState.COMPLETE]
    assert all(t.state == TrialState.PRUNED and t.user_attrs["surplus"] for t in surplus)
    assert len(surplus) <= 1 and [t.number for t in trials] == list(range(6))
    # start-up points are seeded by trial number: two workers never draw the same one
    uniform = [tuple(sorted(t.params.items())) for t in trials if not proposed_by_model(t)]
    assert len(set(uniform)) == len(uniform) >= 3
    pids = {t.user_attrs["worker"]["pid"] for t in trials}
    assert pids == {proc.pid for proc in procs}  # both workers ran trials
    for t in trials:  # each trial's games are in its worker's folder, each game once
        worker = [p.pid for p in procs].index(t.user_attrs["worker"]["pid"])
        path = tmp_path / f"w{worker}" / "games" / "shared" / f"trial-{t.number:05d}.jsonl"
        indices = [json.loads(line)["index"] for line in path.read_text().splitlines()[1:]]
        assert sorted(indices) == list(range(t.user_attrs["games"]))
        assert t.value == t.user_attrs["points"] / t.user_attrs["games"]
    # once three trials had finished, the GP proposed the points (seeing both workers' trials)
    assert sum(proposed_by_model(t) for t in trials) >= len(trials) - 5
