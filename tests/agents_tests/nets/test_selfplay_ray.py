"""Self-play on Ray (``gomcts train selfplay --ray``): the run folder's guarantees hold there.

A private Ray of 2 CPUs plays a tiny run's self-play games (2 workers, 2 games each at once):
a kill mid-generation keeps exactly the games recorded, the rerun plays only the others, the
budget stops cleanly, each start row says where its games were played, and the command's
default is one worker per CPU of the cluster. Without Ray,
``--ray`` stops at once with the command that installs it (that test runs everywhere).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from typing import Any

import pytest

from agents.cli import main as gomcts
from agents.matches.ray_pool import RayUnavailableError
from agents.nets.training.manifest import Manifest, StartClock
from agents.nets.training.records import GameFile, GameRecord
from agents.nets.training.selfplay import run_selfplay
from agents.nets.training.selfplay_ray import STALE_SECONDS, network_copy

pytestmark = pytest.mark.usefixtures("one_torch_thread")

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None, reason="needs Ray (gomcts[cluster])"
)


TINY_RUN = [
    *["--size", "5", "--history", "2", "--komi", "0.5", "--max-moves", "12"],
    *["--generations", "1", "--games", "4", "--sims", "2", "--fast-sims", "1"],
    *["--considered", "2", "--train-steps", "1", "--batch-size", "4", "--gate-sims", "1"],
    *["--gate-games", "2", "--book-size", "1", "--ladder-every", "0", "--games-per-worker", "2"],
    *["--evaluator", "net:symmetry=none", "--quiet"],
]


class _Stop(Exception):
    """Ends a start from ``on_game``, as a kill would (the phase in progress is kept)."""


@needs_ray
@pytest.mark.slow
def test_a_ray_run_keeps_its_games_through_a_kill_and_resumes(
    tmp_path, ray: Any, selfplay_config
) -> None:
    out = tmp_path / "run"
    config = selfplay_config(games=6, workers=2, games_per_worker=2)
    seen: list[int] = []

    def kill_at(count: int) -> Any:
        def on_game(record: GameRecord) -> None:
            seen.append(record.index)
            if len(seen) == count:
                raise _Stop

        return on_game

    with pytest.raises(_Stop):  # a kill of the driver in the middle of generation 1
        run_selfplay(out, config, on_game=kill_at(2), ray="local")
    assert sorted(GameFile(out / "games" / "gen-0001.jsonl").read()) == sorted(seen)
    logged: list[str] = []
    with pytest.raises(_Stop):  # the rerun plays the 4 others, then stops before training
        run_selfplay(out, config, log=logged.append, on_game=kill_at(6), ray="local")
    assert any("4 games (2 already played), 2 Ray workers (local) x 2" in x for x in logged)
    lines = (out / "games" / "gen-0001.jsonl").read_text().splitlines()
    assert sorted(json.loads(x)["index"] for x in lines) == list(range(6))  # none twice
    manifest = Manifest.load(out / "manifest.json")
    starts = manifest.data["starts"]
    assert [s.get("ray") for s in starts] == ["local", "local"]
    assert [s["games"] for s in starts] == [2, 4] and manifest.phase == "selfplay"
    assert "ray" not in manifest.data["config"]  # a choice of the start, not of the run
    # a budget stops a Ray start cleanly too
    assert run_selfplay(out, config, budget_minutes=1e-6, ray="local") == "budget"
    assert Manifest.load(out / "manifest.json").data["starts"][-1]["status"] == "budget"


@needs_ray
@pytest.mark.slow
def test_the_command_plays_on_ray_with_one_worker_per_cluster_cpu(
    tmp_path, ray: Any, capsys, monkeypatch
) -> None:
    import agents.nets.training.selfplay as selfplay
    from agents.nets.training.gating import GateResult

    gates: list[int] = []

    def gate(*args: Any, **kwargs: Any) -> GateResult:  # the gate's own tests play it
        gates.append(args[3].workers)
        return GateResult(False, None, 0, 0.5, 0.0, 1.0, 0.0, 0.0, False)

    monkeypatch.setattr(selfplay, "run_gate", gate)
    out = tmp_path / "cli"
    assert gomcts(["train", "selfplay", "--out", str(out), "--ray", "local", *TINY_RUN]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["status"] == "done"
    start = Manifest.load(out / "manifest.json").data["starts"][0]
    assert start["ray"] == "local" and start["workers"] == 2  # the private Ray's 2 CPUs
    assert gates == [min(2, os.cpu_count() or 1)]  # the gate plays on this machine's CPUs
    assert sorted(GameFile(out / "games" / "gen-0001.jsonl").read()) == [0, 1, 2, 3]


def test_without_ray_the_option_says_how_to_install_it(
    tmp_path, monkeypatch, capsys, selfplay_config
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails, as when not installed
    out = tmp_path / "run"
    assert gomcts(["train", "selfplay", "--out", str(out), "--ray", *TINY_RUN]) == 2
    error = capsys.readouterr().err
    assert 'pip install "gomcts[cluster]"' in error and "leave out --ray" in error
    assert not out.exists()  # nothing was started
    with pytest.raises(RayUnavailableError, match="gomcts\\[cluster\\]"):
        run_selfplay(out, selfplay_config(), ray="local")
    assert not out.exists()


def test_the_network_travels_as_bytes_and_is_written_once(tmp_path) -> None:
    first = network_copy(b"weights one", ".pt", tmp_path)
    assert first.suffix == ".pt" and first.read_bytes() == b"weights one"
    assert network_copy(b"weights one", ".pt", tmp_path) == first
    old = time.time() - STALE_SECONDS - 60
    os.utime(first, (old, old))
    second = network_copy(b"weights two", ".pt", tmp_path)
    assert second != first and not first.exists()  # unused for a day: removed
    assert network_copy(b"weights two", ".pt", tmp_path) == second and second.exists()


def test_the_start_clock_counts_the_cluster_cpu() -> None:
    clock = StartClock()
    before = clock.cpu()
    clock.remote += 120.0
    assert clock.cpu() >= before + 120.0
