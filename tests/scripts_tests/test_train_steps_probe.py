"""The training-steps probe on a tiny self-play run: arms trained, matched, resumed."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
import torch
from script_support import load_script

from agents.nets.training.records import GameFile
from agents.nets.training.selfplay import run_selfplay

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    return load_script("train_steps_probe")


def test_two_arms_are_trained_and_matched_then_a_rerun_resumes(
    tmp_path: Path, selfplay_config, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert run_selfplay(run, selfplay_config(max_moves=12)) == "done"
    probe = _script()
    out = tmp_path / "probe"
    args = ["--run", str(run), "--generation", "1", "--steps", "2", "5", "--games", "2"]
    assert probe.main([*args, "--out", str(out), "--workers", "1"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    first, second = summary["arms"]
    assert (first["steps"], second["steps"]) == (2, 5)
    assert "vs_first" not in first and second["vs_first"]["games"] == 2
    assert 0.0 <= second["vs_first"]["score"] <= 1.0
    assert (out / "steps-2.pt").exists() and (out / "steps-5.pt").exists()
    before = (out / "steps-5.pt").read_bytes()
    assert probe.main([*args, "--out", str(out), "--workers", "1"]) == 0  # resumed
    assert (out / "steps-5.pt").read_bytes() == before  # not trained again
    text = capsys.readouterr().out
    assert "steps-5 against steps-2:" in text


def _probed(tmp_path: Path, selfplay_config, arms: list[str]) -> tuple[Path, Path, list[dict]]:
    """A tiny run's generation 1 probed with ``arms`` (2 games a match): run, out, arms."""
    run = tmp_path / "run"
    assert run_selfplay(run, selfplay_config(max_moves=12)) == "done"
    out = tmp_path / "probe"
    args = ["--run", str(run), "--generation", "1", "--steps", *arms, "--games", "2"]
    assert _script().main([*args, "--out", str(out), "--workers", "1"]) == 0
    return run, out, json.loads((out / "summary.json").read_text())["arms"]


def test_an_ownership_arm_draws_the_same_batches_and_ships_without_its_head(
    tmp_path: Path, selfplay_config
) -> None:
    from agents.nets.checkpoint import load_checkpoint

    _, out, (plain, owned) = _probed(tmp_path, selfplay_config, ["3", "3:own1.5"])
    assert (plain["arm"], owned["arm"]) == ("steps-3", "steps-3-own1.5")
    assert owned["ownership_weight"] == 1.5 and owned["train_ownership_last500"] > 0
    assert "train_ownership_last500" not in plain
    # the same minibatches: only the ownership term moved the policy and value losses apart
    assert owned["train_policy_last500"] == pytest.approx(plain["train_policy_last500"], rel=0.05)
    checkpoint = load_checkpoint(out / "steps-3-own1.5.pt")
    assert not checkpoint.config.ownership and owned["vs_first"]["games"] == 2
    assert "held_out" not in owned


def test_the_start_is_an_arm_and_a_fresh_head_can_be_fitted_first(
    tmp_path: Path, selfplay_config
) -> None:
    from agents.nets.checkpoint import load_checkpoint

    run, out, arms = _probed(tmp_path, selfplay_config, ["0", "3:own1.5", "3:own1.5:fit"])
    start, joint, fitted = arms
    assert [a["arm"] for a in (start, joint, fitted)] == [
        "steps-0",
        "steps-3-own1.5",
        "steps-3-own1.5-fit",
    ]
    assert "train_policy_last500" not in start and "head_fit_steps" not in joint
    assert fitted["head_fit_steps"] == 300 and fitted["vs_first"]["games"] == 2
    untrained = load_checkpoint(out / "steps-0.pt").weights
    for name, weight in load_checkpoint(run / "nets" / "gen-0000.pt").weights.items():
        assert torch.equal(untrained[name], weight), name  # arm 0 is the start itself


def test_held_out_losses_are_measured_on_a_later_generations_games(
    tmp_path: Path, selfplay_config, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert run_selfplay(run, selfplay_config(max_moves=12, generations=2)) == "done"
    out = tmp_path / "probe"
    args = ["--run", str(run), "--generation", "1", "--steps", "2", "4", "--games", "2"]
    assert _script().main([*args, "--out", str(out), "--workers", "1", "--held-out", "2"]) == 0
    arms = json.loads((out / "summary.json").read_text())["arms"]
    positions = sum(
        len(g.targets) for g in GameFile(run / "games" / "gen-0002.jsonl").read().values()
    )
    for arm in arms:
        held = arm["held_out"]
        assert held["generation"] == 2 and held["positions"] == positions
        assert held["policy"] > 0 and 0 <= held["value"] <= 4
    assert "steps-4 on generation 2's games" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        _script().main([*args, "--out", str(out), "--held-out", "1"])
    assert "--held-out must be a later generation than 1" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--generation", "3", "--steps", "2", "5"], "finished generation of the run"),
        (["--generation", "1", "--steps", "2", "2"], "distinct arms"),
        (["--generation", "1", "--steps", "2", "2:x1"], "expected 0, STEPS, STEPS:ownW or"),
        (["--generation", "1", "--steps", "2", "2:own0"], "W > 0, and no ownership on arm 0"),
        (["--generation", "1", "--steps", "2", "0:own1"], "W > 0, and no ownership on arm 0"),
        (["--generation", "1", "--steps", "2", "2::fit"], "STEPS:ownW:fit"),
        (["--generation", "1", "--steps", "2", "2:own1:fat"], "STEPS:ownW:fit"),
        (["--generation", "1", "--steps", "2", "-1"], "steps >= 0"),
        (["--generation", "1", "--steps", "2", "5", "--games", "1"], "--games must be"),
    ],
)
def test_bad_arguments_say_what_is_allowed(
    tmp_path: Path, selfplay_config, capsys: pytest.CaptureFixture[str], extra, message
) -> None:
    probe = _script()
    with pytest.raises(SystemExit):
        probe.main(["--run", str(tmp_path), "--out", str(tmp_path / "o"), *extra])
    assert "not a self-play run folder" in capsys.readouterr().err
    run = tmp_path / "run"
    assert run_selfplay(run, selfplay_config(max_moves=12)) == "done"
    with pytest.raises(SystemExit):
        probe.main(["--run", str(run), "--out", str(tmp_path / "o"), *extra])
    assert message in capsys.readouterr().err
