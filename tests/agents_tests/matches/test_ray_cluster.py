"""Matches on a real Ray cluster (agents/matches/ray_pool.py, docs/cluster.md).

The cluster test starts a head node and a second node on 127.0.0.1 (one CPU each) inside
fresh network and PID namespaces (tests/ray_cluster_scenario.py), plays a match on them, kills
the second node's raylet while it plays a game, and checks here that every game is recorded
exactly once and that the games equal those of a local run. Without Ray or ``unshare`` the
test is skipped, except under CI=true, where it fails.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from agents.matches import ray_pool
from agents.matches.arena import iter_games

ROOT = Path(__file__).resolve().parents[3]
SCENARIO = ROOT / "tests" / "ray_cluster_scenario.py"
IN_CI = os.environ.get("CI") == "true"

sys.path.insert(0, str(ROOT / "tests"))
import ray_cluster_scenario as scenario  # noqa: E402


def _unshare() -> list[str] | None:
    """The ``unshare`` command line for new network and PID namespaces, if it works here."""
    exe = shutil.which("unshare")
    if exe is None:
        return None
    # --kill-child: a scenario killed by its timeout takes its Ray nodes with it
    command = [exe, "--net", "--pid", "--fork", "--mount-proc", "--kill-child"]
    if os.geteuid() != 0:
        command.insert(1, "--map-root-user")
    probe = subprocess.run([*command, "true"], capture_output=True, check=False)
    return command if probe.returncode == 0 else None


#: Ray's driver gives up on a head it cannot reach (see the retry in the cluster test).
GCS_LOST = "Failed to connect to GCS within"


def _failure(run: subprocess.CompletedProcess, report: dict) -> str:
    """Why the scenario failed: Ray's last words first, then the cluster's logs."""
    logs = "\n".join(f"--- {name}:\n{tail}" for name, tail in report.get("logs", {}).items())
    return (
        f"the scenario exited {run.returncode} after writing steps {sorted(report)}; "
        f"its stderr ends:\n{run.stderr[-6000:]}\n{logs}"
    )


def _need(what: str, available: bool) -> None:
    if not available:
        if IN_CI:
            pytest.fail(f"{what} is needed under CI=true (scripts/bootstrap.sh installs Ray)")
        pytest.skip(f"{what} is not available")


@pytest.mark.slow
def test_match_on_two_nodes_survives_a_dead_node(tmp_path):
    _need('Ray (pip install "gomcts[cluster]")', importlib.util.find_spec("ray") is not None)
    unshare = _unshare()
    _need("unshare (network and PID namespaces)", unshare is not None)
    assert unshare is not None
    report_file = tmp_path / "report.json"
    for attempt in (1, 2):
        report_file.unlink(missing_ok=True)
        run = subprocess.run(
            [*unshare, sys.executable, str(SCENARIO), str(report_file)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            cwd=ROOT,
        )
        assert report_file.exists(), run.stdout[-3000:] + run.stderr[-3000:]
        report = json.loads(report_file.read_text())
        if run.returncode == 0 or GCS_LOST not in run.stderr or attempt == 2:
            break
        # Ray's own race: the driver can lose the head's GCS when a node dies (about one run
        # in fifteen on a loaded 2-core machine; ray-project/ray#44704). It is not this
        # project's code; the cluster is started afresh once, and the second run must pass.
        message = f"Ray lost its GCS when the node died; once more:\n{_failure(run, report)}"
        warnings.warn(message, stacklevel=1)
    assert run.returncode == 0, _failure(run, report)

    # The pool itself: calls spread over both nodes, one initialisation per worker process,
    # an exception comes back with its type, queued calls can be cancelled.
    assert report["pool_slots"] == 2
    assert report["squares"] == [x * x for x in range(12)]
    assert report["init_counts"] == [1]
    assert report["error_type"] == "KeyError"
    assert "no such thing: 3" in report["error_text"]
    assert report["cancelled"] == [True, True, True]
    assert report["first"] == 1

    # The node was killed while it played a game, after two games were recorded.
    assert report["killed"] is not None
    assert report["killed"]["after_games"] >= 2
    games = scenario.MATCH["games"]
    # Every game recorded exactly once, in the file and in what the match yielded.
    assert sorted(report["file_indices"]) == list(range(games))
    assert [g["index"] for g in report["games"]] == list(range(games))

    # The same games as a local run (timing fields aside).
    local = [scenario.game_record(g) for g in iter_games(scenario.match_config(), workers=1)]
    assert report["games"] == local
    # Resume from a file cut to four games: the rest is played again, each game once.
    assert report["resumed"] == local
    assert sorted(report["resumed_file_indices"]) == list(range(games))
    assert report["resumed_file_indices"][:4] == report["file_indices"][:4]

    # A study whose two drivers played their trials on the cluster: the same trials as one
    # driver playing them on this machine.
    from tuning.studies.study import run_study

    study = scenario.study_config(tmp_path / "study", None, jobs=1)
    run_study(study, progress=None, outputs=False)
    local_study = scenario.study_record(study)
    assert len(report["study"]["trials"]) == 3
    assert report["study"]["trials"] == local_study["trials"]
    # A trial that both drivers started for the last place was pruned unplayed, nothing else.
    assert all(other == ["PRUNED", True] for other in report["study"]["others"].values())
    assert local_study["others"] == {}


def test_missing_ray_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ray_pool.RayUnavailableError, match=r'pip install "gomcts\[cluster\]"'):
        ray_pool.RayPool("auto")
    config = scenario.match_config()
    with pytest.raises(ray_pool.RayUnavailableError, match="gomcts\\[cluster\\]"):
        next(iter_games(config, ray="auto"))


def test_arena_cli_without_ray_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    from agents.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)
    out = tmp_path / "m"
    status = main(["arena", "random", "random", "--games", "2", "--ray", "--out", str(out)])
    assert status == 2
    err = capsys.readouterr().err
    assert 'pip install "gomcts[cluster]"' in err
    assert (
        not (out / "results.jsonl").exists()
        or len((out / "results.jsonl").read_text().splitlines()) <= 1
    )


def test_tune_cli_ray_option(monkeypatch, tmp_path, capsys):
    from agents.cli import build_parser, main
    from tuning.studies.cli import config_from_args

    def config(*args: str):
        return config_from_args(build_parser().parse_args(["tune", "monotone", *args]))

    assert (config().ray, config().workers) == (None, 1)
    assert (config("--ray").ray, config("--ray").workers) == ("auto", None)
    assert config("--ray", "10.0.0.1:6379", "--workers", "8").ray == "10.0.0.1:6379"
    assert config("--ray", "local", "--workers", "8").workers == 8
    monkeypatch.setitem(sys.modules, "ray", None)
    status = main(["tune", "monotone", "--ray", "--out", str(tmp_path / "t")])
    assert status == 2
    assert 'pip install "gomcts[cluster]"' in capsys.readouterr().err


def test_resumed_match_needs_no_cluster(tmp_path, monkeypatch):
    """A match whose games are all in the results file is not sent to the cluster."""
    config = scenario.match_config()
    small = type(config)(agent_a="random", agent_b="random", games=2, seed=3, rules=config.rules)
    path = tmp_path / "r.jsonl"
    first = list(iter_games(small, results=path, workers=1))
    monkeypatch.setitem(sys.modules, "ray", None)
    assert list(iter_games(small, results=path, ray="auto")) == first


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_pool_rejects_bad_slots(bad):
    with pytest.raises(ValueError, match="slots"):
        ray_pool.RayPool("auto", slots=bad)


def test_connect_rejects_an_empty_address():
    with pytest.raises(ValueError, match="Ray address"):
        ray_pool.connect(" ")


@pytest.mark.parametrize(
    "command",
    [["arena", "random", "random"], ["train", "selfplay", "--out", "run"]],
    ids=["arena", "selfplay"],
)
def test_ray_option_reads_the_same_in_every_command(command):
    from agents.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(command).ray is None
    assert parser.parse_args([*command, "--ray"]).ray == "auto"
    assert parser.parse_args([*command, "--ray", "local"]).ray == "local"
    assert parser.parse_args([*command, "--ray", "10.0.0.1:6379"]).ray == "10.0.0.1:6379"
