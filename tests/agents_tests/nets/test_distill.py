"""Distillation: a network of another shape trained on a tiny run's games, resumed exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from training_support import killed_then_resumed

from agents.cli import main as gomcts
from agents.nets.checkpoint import load_checkpoint
from agents.nets.training.distill import DistillConfig, distill
from agents.nets.training.selfplay import run_selfplay


@pytest.fixture
def run(tmp_path: Path, selfplay_config) -> Path:
    folder = tmp_path / "run"
    assert run_selfplay(folder, selfplay_config(max_moves=12, generations=2)) == "done"
    return folder


def _config(**extra: object) -> DistillConfig:
    base = {"first": 1, "last": 1, "held_out": 2, "blocks": 2, "filters": 4, "steps": 6}
    return DistillConfig(**{**base, "batch_size": 8, "eval_every": 3, "threads": 1, **extra})


def test_a_larger_network_trains_on_the_games_and_a_rerun_resumes_exactly(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = distill(run, tmp_path / "whole", _config(), compare=[run / "best.pt"])
    assert whole["net"]["blocks"] == 2 and whole["net"]["filters"] == 4
    assert whole["positions"] > 0 and whole["held_out_positions"] > 0
    assert whole["last"]["step"] == 6 and whole["last"]["val_policy"] > 0
    assert whole["last"]["train_ownership"] > 0
    assert set(whole["compare"][str(run / "best.pt")]) == {"policy", "value", "accuracy"}
    model = load_checkpoint(tmp_path / "whole" / "model.pt")
    assert not model.config.ownership and model.config.blocks == 2  # for play
    halves = tmp_path / "halves"
    resumed = killed_then_resumed(monkeypatch, lambda: distill(run, halves, _config()))  # at step 3
    assert resumed["last"]["val_policy"] == pytest.approx(whole["last"]["val_policy"])
    for name, weight in model.weights.items():
        assert torch.equal(weight, load_checkpoint(halves / "model.pt").weights[name]), name
    rows = [json.loads(line) for line in (halves / "metrics.jsonl").open()]
    assert [r["step"] for r in rows] == [3, 6]
    with pytest.raises(ValueError, match="belongs to another run"):
        distill(run, halves, _config(lr=0.5))


def test_bad_input_is_refused_with_what_is_allowed(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match="hold out a generation outside"):
        _config(held_out=1)
    with pytest.raises(ValueError, match="last"):
        _config(first=2, last=1)
    with pytest.raises(FileNotFoundError, match="no games of generation 3"):
        distill(run, tmp_path / "x", _config(last=3, held_out=None))
    with pytest.raises(ValueError, match="compare needs held-out games"):
        distill(run, tmp_path / "x", _config(held_out=None), compare=[run / "best.pt"])
    args = ["train", "distill", str(run), "--out", str(tmp_path / "y"), "--quiet"]
    assert gomcts([*args, "--games", "one-two"]) == 2
    assert "expected FIRST-LAST" in capsys.readouterr().err
    assert gomcts([*args, "--games", "1", "--held-out", "2", "--steps", "2", "--blocks", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["last"]["step"] == 2


def test_fine_tuning_starts_from_a_network_and_mixes_in_arena_games(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from game_support import corner_arena_folders

    folders = corner_arena_folders(tmp_path)
    base = distill(run, tmp_path / "base", _config())
    start = tmp_path / "base" / "checkpoint.pt"
    still = distill(run, tmp_path / "still", _config(init=str(start), lr=1e-12))
    before, after = load_checkpoint(start).weights, load_checkpoint(tmp_path / "still" / "model.pt")
    learned = [n for n in after.weights if "running_" not in n and "num_batches" not in n]
    for name in learned:  # a vanishing step leaves the start's weights
        assert torch.allclose(after.weights[name], before[name], atol=1e-6), name
    assert still["last"]["step"] == base["last"]["step"]
    tuned = distill(
        run,
        tmp_path / "tuned",
        _config(
            init=str(start), arena=(folders[0],), arena_share=0.5, arena_held_out=(folders[1],)
        ),
        compare=[start],
    )
    assert tuned["arena"] == {
        "games": 3,
        "left_out": {},
        "positions": 12,
        "held_out_positions": 8,
    }
    assert tuned["last"]["val_arena_value"] >= 0 and tuned["last"]["train_policy"] > 0
    assert "arena_value" in tuned["compare"][str(start)]
    with pytest.raises(ValueError, match=r"--init .* is a 1-block, 8-filter network"):
        distill(run, tmp_path / "wrong", _config(init=str(run / "best.pt")))
    with pytest.raises(ValueError, match="arena_share must be above 0 and below 1"):
        _config(arena=(folders[0],), arena_share=1.0)
    with pytest.raises(ValueError, match="leaves no position to the arena games or none"):
        _config(arena=(folders[0],), arena_share=0.9, batch_size=2)
    with pytest.raises(ValueError, match="hold out games no step trains on"):
        _config(arena=(folders[0],), arena_held_out=(folders[0],))
    args = ["train", "distill", str(run), "--games", "1", "--out", str(tmp_path / "cli")]
    more = ["--blocks", "2", "--filters", "4", "--init", str(start), "--arena", folders[0]]
    more += ["--arena-held-out", folders[1]]
    assert gomcts([*args, "--held-out", "2", "--steps", "2", *more, "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["arena"]["positions"] == 12
