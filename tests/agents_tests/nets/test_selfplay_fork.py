"""Forking a self-play run: a copy that resumes with other self-play settings."""

from __future__ import annotations

import json

import pytest

from agents.cli import main as gomcts
from agents.nets.checkpoint import load_checkpoint
from agents.nets.training.fork import FORK_FIELDS, fork_run
from agents.nets.training.manifest import Manifest
from agents.nets.training.records import GameFile, GameRecord
from agents.nets.training.report import render_summary, write_report
from agents.nets.training.selfplay import run_selfplay
from agents.nets.training.selfplay_config import field_value

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _interrupted_run(tmp_path, selfplay_config):
    """A Gumbel run with generation 1 finished and generation 2 interrupted after a game."""
    out = tmp_path / "run"
    assert run_selfplay(out, selfplay_config(search="gumbel")) == "done"
    seen: list[int] = []

    def kill_after_one(record: GameRecord) -> None:
        seen.append(record.index)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_selfplay(out, selfplay_config(search="gumbel", generations=2), on_game=kill_after_one)
    return out, seen


def test_a_fork_resumes_from_the_same_state_with_its_own_search(tmp_path, selfplay_config):
    out, seen = _interrupted_run(tmp_path, selfplay_config)
    parent_manifest = (out / "manifest.json").read_bytes()
    fork = tmp_path / "fork"
    record = fork_run(out, fork, {"search": "puct"})
    assert (out / "manifest.json").read_bytes() == parent_manifest  # the run is only read
    assert record["changes"] == {"search": ["gumbel", "puct"]}
    assert (record["generation"], record["phase"], record["after_start"]) == (2, "selfplay", 2)
    copy = Manifest.load(fork / "manifest.json")
    assert copy.data["config"]["search"] == "puct" and copy.data["forks"] == [record]
    assert copy.data["starts"] == json.loads(parent_manifest)["starts"]  # its history, kept
    # the game played before the fork stays; the others are played with the new search
    assert run_selfplay(fork, selfplay_config(search="puct", generations=2)) == "done"
    assert run_selfplay(out, selfplay_config(search="gumbel", generations=2)) == "done"
    mine = GameFile(fork / "games" / "gen-0002.jsonl").read()
    theirs = GameFile(out / "games" / "gen-0002.jsonl").read()
    assert sorted(mine) == sorted(theirs) == [0, 1, 2]
    assert mine[seen[0]] == theirs[seen[0]]
    assert any(mine[i].moves != theirs[i].moves for i in mine if i != seen[0])
    # generation 1 is shared history; the fork keeps its search from now on
    rows = [json.loads(x) for x in (fork / "metrics.jsonl").read_text().splitlines()]
    parent_rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert rows[0] == parent_rows[0] and [r["generation"] for r in rows] == [1, 2]
    with pytest.raises(ValueError, match="search: 'puct' -> 'gumbel'"):
        run_selfplay(fork, selfplay_config(search="gumbel", generations=3))
    summary = render_summary(write_report(fork, tmp_path / "record").parent)
    assert "Forked after start 2 from `run`, at generation 2 (phase selfplay): " in summary
    assert "`search` 'gumbel' -> 'puct'" in summary


def test_a_fork_refuses_what_would_break_the_copied_state(tmp_path, selfplay_config):
    out, _ = _interrupted_run(tmp_path, selfplay_config)
    with pytest.raises(ValueError, match="may not change gate_sims, net"):
        fork_run(out, tmp_path / "f1", {"gate_sims": 8, "net": None})
    assert "gate_sims" not in FORK_FIELDS and "c" not in FORK_FIELDS
    with pytest.raises(ValueError, match="fast_sims must be"):
        fork_run(out, tmp_path / "f2", {"fast_sims": 0})
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(ValueError, match="not empty"):
        fork_run(out, tmp_path / "full", {"search": "puct"})
    with pytest.raises(ValueError, match="inside the run"):
        fork_run(out, out / "sub", {"search": "puct"})
    with pytest.raises(ValueError, match="holds no self-play run"):
        fork_run(tmp_path / "full", tmp_path / "f3", {})
    manifest = Manifest.load(out / "manifest.json")
    manifest.data["starts"][-1]["status"] = "running"
    manifest.save()
    with pytest.raises(ValueError, match="recorded as running"):
        fork_run(out, tmp_path / "f4", {"search": "puct"})
    assert not (tmp_path / "f4").exists()
    assert fork_run(out, tmp_path / "f4", {"seed": 5}, force=True)["changes"] == {"seed": [0, 5]}


def test_a_fork_trains_with_its_own_learning_rate(tmp_path, selfplay_config):
    """The copied optimizer keeps its moments and takes the fork's learning rate and decay."""
    out, _ = _interrupted_run(tmp_path, selfplay_config)
    before = load_checkpoint(out / "state.pt").train["optimizer"]
    record = fork_run(out, tmp_path / "fork", {"lr": 2e-4, "weight_decay": 0.0})
    assert record["changes"] == {
        "lr": [selfplay_config().lr, 2e-4],
        "weight_decay": [selfplay_config().weight_decay, 0.0],
    }
    config = selfplay_config(search="gumbel", generations=2, lr=2e-4, weight_decay=0.0)
    assert run_selfplay(tmp_path / "fork", config) == "done"
    after = load_checkpoint(tmp_path / "fork" / "state.pt").train["optimizer"]
    assert [(g["lr"], g["weight_decay"]) for g in after["param_groups"]] == [(2e-4, 0.0)]
    steps = [s["step"] for s in after["state"].values()]
    first = [s["step"] for s in before["state"].values()]
    assert all(a > b for a, b in zip(steps, first, strict=True))  # the moments went on
    assert run_selfplay(out, selfplay_config(search="gumbel", generations=2)) == "done"
    parent = load_checkpoint(out / "state.pt").train["optimizer"]["param_groups"]
    assert [g["lr"] for g in parent] == [selfplay_config().lr]


def test_fork_command(tmp_path, capsys, selfplay_config):
    out, _ = _interrupted_run(tmp_path, selfplay_config)
    fork = tmp_path / "fork"
    assert gomcts(["train", "fork", str(out), "--out", str(fork), "--set", "search=puct",
                   "--set", "full_share=1", "--quiet"]) == 0  # fmt: skip
    said = json.loads(capsys.readouterr().out)
    assert said["changes"] == {"search": ["gumbel", "puct"], "full_share": [0.5, 1.0]}
    assert Manifest.load(fork / "manifest.json").data["config"]["full_share"] == 1.0
    assert gomcts(["train", "fork", str(out), "--out", str(tmp_path / "g"), "--set", "sims"]) == 2
    assert "expected FIELD=VALUE" in capsys.readouterr().err
    assert gomcts(["train", "fork", str(out), "--out", str(tmp_path / "g"), "--set", "x=1"]) == 2
    assert "unknown field 'x'" in capsys.readouterr().err
    assert gomcts(["train", "fork", str(out), "--out", str(fork), "--set", "sims=8"]) == 2
    assert "not empty" in capsys.readouterr().err


def test_field_values_take_their_fields_type():
    assert field_value("search", "puct") == "puct"
    assert field_value("full_share", "1") == 1.0 and isinstance(field_value("sims", "8"), int)
    assert field_value("init", "runs/x/best.pt") == "runs/x/best.pt"
    with pytest.raises(ValueError, match="sims='many': expected int"):
        field_value("sims", "many")
    with pytest.raises(ValueError, match="unknown field 'net'"):
        field_value("net", "b4c32")


def test_a_run_from_before_fpu_resumes_with_fpu_zero_and_forks_to_parent(tmp_path, selfplay_config):
    """A manifest without ``fpu`` holds a run with FPU 0 (the only rule then): it resumes only
    as ``auto``, the default ``parent`` is refused by name, and a fork may change it."""
    out = tmp_path / "run"
    legacy = selfplay_config(search="puct", fpu="auto", fpu_reduction=0.0)
    assert run_selfplay(out, legacy) == "done"
    manifest = Manifest.load(out / "manifest.json")
    for name in ("fpu", "fpu_reduction"):  # as a manifest written before the fields existed
        del manifest.data["config"][name]
    manifest.save()
    with pytest.raises(ValueError, match="fpu: 'auto' -> 'parent'"):
        run_selfplay(out, selfplay_config(search="puct", generations=2))
    record = fork_run(out, tmp_path / "fork", {"fpu": "parent", "fpu_reduction": 0.2})
    assert record["changes"] == {"fpu": ["auto", "parent"], "fpu_reduction": [0.0, 0.2]}
    assert run_selfplay(tmp_path / "fork", selfplay_config(search="puct", generations=2)) == (
        "done"
    )
    # --fpu auto with the command line's default reduction (0.2) resumes it: no reduction
    # under auto
    assert selfplay_config(fpu="auto", fpu_reduction=0.2).fpu_reduction == 0.0
    resumed = selfplay_config(search="puct", fpu="auto", fpu_reduction=0.2, generations=2)
    assert run_selfplay(out, resumed) == "done"
    summary = render_summary(write_report(tmp_path / "fork", tmp_path / "record").parent)
    assert "unvisited children at the parent's value - 0.2" in summary
