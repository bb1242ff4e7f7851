"""Interrupted studies continue where they stopped; no finished game or trial is lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

from optuna.trial import TrialState
from study_support import tiny_study

from go_env.rules import Rules
from tuning.search_spaces import make_space
from tuning.studies.recovery import process_identity
from tuning.studies.study import StudyConfig, load_study, run_study

ROOT = Path(__file__).resolve().parents[3]


def game_lines(path: Path) -> list[str]:
    return path.read_text().splitlines()[1:] if path.exists() else []


def wait_for_games(path: Path, count: int, proc: subprocess.Popen, timeout: float = 90) -> None:
    end = time.monotonic() + timeout
    while len(game_lines(path)) < count:
        assert proc.poll() is None, f"the study stopped early:\n{proc.communicate()[0]}"
        assert time.monotonic() < end, "no games were recorded in time"
        time.sleep(0.02)


def tune(out: Path) -> subprocess.Popen:
    cmd = [
        sys.executable,
        "-m",
        "tuning.studies.cli",
        "monotone",
        "--size",
        "5",
        "--komi",
        "0.5",
        "--agent",
        "mcts:sims=64",
        "--d",
        "2",
        "--trials",
        "2",
        "--startup-trials",
        "5",
        "--games",
        "16",
        "--batch",
        "2",
        "--no-prune",
        "--verify-games",
        "0",
        "--out",
        str(out),
    ]
    return subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def test_killed_and_stopped_workers_resume_without_losing_games(tmp_path: Path) -> None:
    games = tmp_path / "games" / "monotone-5x5-n64"
    # 1. killed without warning (SIGKILL) during trial 0: the trial is left RUNNING
    first = tune(tmp_path)
    wait_for_games(games / "trial-00000.jsonl", 3, first)
    first.kill()
    first.wait()
    kept = game_lines(games / "trial-00000.jsonl")
    assert 3 <= len(kept) < 16
    # 2. the next run sees the dead worker, retries trial 0 from its games, and is stopped
    #    politely (SIGTERM) during the following trial, which queues itself again
    second = tune(tmp_path)
    wait_for_games(games / "trial-00002.jsonl", 3, second)
    second.send_signal(signal.SIGTERM)
    output = second.communicate(timeout=60)[0]
    assert second.returncode == 130, output
    assert "its worker (pid" in output and "interrupted" in output
    # 3. the last run finishes the study
    third = tune(tmp_path)
    output = third.communicate(timeout=120)[0]
    assert third.returncode == 0, output

    config = StudyConfig(
        space=make_space("monotone", d=2),
        agent="mcts:sims=64",
        rules=Rules(size=5, komi=0.5),
        games=16,
        batch=2,
        prune=False,
        startup_trials=5,
        out=tmp_path,
        verify_games=0,
    )
    trials = load_study(config).trials
    states = [t.state for t in trials]
    assert states == [TrialState.FAIL, TrialState.COMPLETE, TrialState.FAIL, TrialState.COMPLETE]
    assert trials[2].user_attrs["interrupted"] is True
    for failed, retry in ((trials[0], trials[1]), (trials[2], trials[3])):
        assert retry.params == failed.params
        assert retry.user_attrs["origin"] == failed.number
        assert retry.user_attrs["retry_of"] == failed.number
        assert retry.user_attrs["games"] == 16
        lines = game_lines(games / f"trial-{failed.number:05d}.jsonl")
        indices = [json.loads(line)["index"] for line in lines]
        assert sorted(indices) == list(range(16))  # every game once: none replayed
        assert retry.value == sum(json.loads(line)["score_a"] for line in lines) / 16
    assert game_lines(games / "trial-00000.jsonl")[: len(kept)] == kept  # kept, not rewritten
    assert not (games / "trial-00001.jsonl").exists()
    assert not (games / "trial-00003.jsonl").exists()


def one_trial_study(out: Path, space: str, **changes) -> StudyConfig:
    """A study of one small trial whose worker the tests below pretend has died."""
    return tiny_study(out, space, trials=1, verify_games=0, **changes)


def test_a_trial_without_heartbeat_is_retried(tmp_path: Path) -> None:
    config = one_trial_study(tmp_path, "softmax", heartbeat_interval=1, grace_period=1)
    study = load_study(config)
    with warnings.catch_warnings():  # "heartbeat is supposed to be used with optimize": yes
        warnings.simplefilter("ignore", UserWarning)
        lost = study.ask()  # a worker on another machine that died during this trial
    config.space.suggest(lost)
    lost.set_user_attr("worker", {"host": "another-machine", "pid": 1, "start": None})
    study._storage.record_heartbeat(lost._trial_id)
    time.sleep(2.5)
    lines: list[str] = []
    run_study(config, progress=lines.append, outputs=False)
    first, retry = load_study(config).trials
    assert first.state == TrialState.FAIL and retry.state == TrialState.COMPLETE
    assert retry.params == first.params and retry.user_attrs["origin"] == 0
    assert any("no heartbeat" in line for line in lines)


def test_a_dead_local_worker_is_found_on_a_journal_storage(tmp_path: Path) -> None:
    config = one_trial_study(tmp_path, "monotone", storage=str(tmp_path / "study.log"))
    study = load_study(config)
    lost = study.ask()
    config.space.suggest(lost)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    lost.set_user_attr("worker", {**process_identity(), "pid": int(dead.stdout)})
    lines: list[str] = []
    run_study(config, progress=lines.append, outputs=False)
    first, retry = load_study(config).trials
    assert first.state == TrialState.FAIL and retry.state == TrialState.COMPLETE
    assert retry.params == first.params and retry.user_attrs["origin"] == 0
    assert any(f"its worker (pid {int(dead.stdout)}) is gone" in line for line in lines)


RECOVER_AT = """
import sys, time
sys.path.insert(0, {tests!r})
from pathlib import Path
from study_support import tiny_study
from tuning.studies.study import load_study, recover_dead_trials
study = load_study(tiny_study(Path({out!r}), "monotone", trials=1, verify_games=0))
while time.time() < {start}:
    pass
recover_dead_trials(study, max_retry=3)
"""


def test_workers_that_find_the_same_dead_trials_queue_one_retry_of_each(tmp_path: Path) -> None:
    """Four workers start at once and all find twelve trials of a dead worker (SQLite storage).

    Each dead trial must be retried once: two retries of one origin would play the same games
    into one file. Before SQLite transactions took the write lock at their start, four runs of
    this scenario gave 13-18 retries for the 12 trials; the race depends on timing, so the
    mechanism itself is pinned by test_an_sqlite_transaction_holds_the_write_lock_from_its_start.
    """
    config = one_trial_study(tmp_path, "monotone")
    study = load_study(config)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    for _ in range(12):
        lost = study.ask()
        config.space.suggest(lost)
        lost.set_user_attr("worker", {**process_identity(), "pid": int(dead.stdout)})
    script = RECOVER_AT.format(tests=str(ROOT / "tests"), out=str(tmp_path), start=time.time() + 6)
    workers = [subprocess.Popen([sys.executable, "-c", script], cwd=ROOT) for _ in range(4)]
    assert [w.wait(timeout=120) for w in workers] == [0] * 4
    trials = load_study(config).trials
    retries = [t for t in trials if t.state == TrialState.WAITING]
    assert [t.state for t in trials[:12]] == [TrialState.FAIL] * 12
    assert sorted(t.user_attrs["retry_of"] for t in retries) == list(range(12))


def test_a_trial_started_in_a_race_for_the_last_place_is_not_played(
    tmp_path: Path, monkeypatch
) -> None:
    """Two workers both see one trial missing; the one whose trial came second prunes it."""
    import dataclasses

    import tuning.studies.study as study_module

    config = tiny_study(tmp_path / "race", trials=2, verify_games=0)
    run_study(config, progress=None, outputs=False)
    config = dataclasses.replace(config, trials=3)
    real_count = study_module.count_states
    other: list = []

    def count_then_race(study):
        seen = real_count(study)
        if not other:  # another worker starts the last trial just after this one looked
            other.append(study.ask())
        elif other[0].number not in {
            t.number for t in study.get_trials(states=(TrialState.COMPLETE,))
        }:
            study.tell(other[0], 0.5)  # ... and finishes it
            seen = real_count(study)
        return seen

    monkeypatch.setattr(study_module, "count_states", count_then_race)
    lines: list[str] = []
    study_module.optimize(config, progress=lines.append, poll_seconds=0.01)
    trials = load_study(config).trials
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 3 + [TrialState.PRUNED]
    surplus = trials[3]
    assert surplus.user_attrs.get("surplus") is True and surplus.params == {}
    played = sorted(p.name for p in config.games_dir.iterdir())
    assert played == [f"trial-{n:05d}.jsonl" for n in range(2)]  # none for trial 3 (or 2)
    assert any("trial 3 not needed" in line for line in lines)


def test_surplus_trials_are_counted_by_number() -> None:
    import optuna

    from tuning.studies.study import surplus_trial

    study = optuna.create_study()
    done = study.ask()
    study.tell(done, 0.5)
    failed = study.ask()
    study.tell(failed, state=TrialState.FAIL)
    running = study.ask()  # number 2
    late = study.ask()  # number 3
    assert not surplus_trial(study, running.number, 2)  # only trial 0 counts before it
    assert surplus_trial(study, late.number, 2)  # trials 0 and 2 were there first
    assert not surplus_trial(study, late.number, 3)
    study.enqueue_trial({})  # a retry waiting for a worker counts too (number 4)
    assert surplus_trial(study, 5, 3)
