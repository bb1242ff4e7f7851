"""Teaching a network arena games alone: the teacher's policy as target, resumed exactly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from game_support import corner_arena_folders
from training_support import killed_then_resumed

from agents.cli import main as gomcts
from agents.nets.checkpoint import load_checkpoint, save_checkpoint
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.training import teach as teach_module
from agents.nets.training.arena_games import arena_buffer, read_arena_games
from agents.nets.training.distill import buffer_losses
from agents.nets.training.teach import TeachConfig, teach, teacher_policies

NET = NetConfig(size=5, blocks=1, filters=8, history=2)


@pytest.fixture
def start(tmp_path: Path) -> Path:
    torch.manual_seed(3)
    return save_checkpoint(tmp_path / "start.pt", PolicyValueNet(NET))


@pytest.fixture
def folders(tmp_path: Path) -> tuple[str, str]:
    return corner_arena_folders(tmp_path)


def _config(folders: tuple[str, str], **extra: object) -> TeachConfig:
    base = {"arena": (folders[0],), "arena_held_out": (folders[1],), "steps": 6}
    return TeachConfig(**{**base, "batch_size": 8, "eval_every": 3, "threads": 1, **extra})


def test_the_policy_targets_are_the_teachers_own_distribution(folders: tuple[str, str]) -> None:
    torch.manual_seed(0)
    teacher = PolicyValueNet(NET).eval()
    buffer = arena_buffer(read_arena_games([folders[0]]), NET)
    assert not buffer.policies[: len(buffer)].any()  # the arena records no search
    teacher_policies(teacher, buffer, chunk=5)
    with torch.no_grad():
        logits, _ = teacher(torch.from_numpy(buffer.planes[: len(buffer)].astype(np.float32)))
    expected = torch.softmax(logits, dim=1).numpy()
    np.testing.assert_allclose(buffer.policies[: len(buffer)], expected, rtol=1e-5, atol=1e-7)
    # its own targets cost the teacher exactly their entropy: no drift at the start
    drift = buffer_losses(teacher, buffer)["policy"] - teach_module._entropy(buffer)
    assert drift == pytest.approx(0.0, abs=1e-5)


def test_teaching_learns_results_and_owners_and_a_rerun_resumes_exactly(
    start: Path, folders: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = teach(str(start), tmp_path / "whole", _config(folders))
    assert (whole["games"], whole["positions"]) == (3, 12)
    assert (whole["held_out_games"], whole["held_out_positions"]) == (2, 8)
    assert whole["last"]["step"] == 6 and whole["last"]["train_ownership"] > 0
    assert whole["last"]["val_policy_kl"] >= 0 and whole["last"]["val_arena_value"] >= 0
    assert whole["start_on_held_out"]["val_arena_value"] >= 0
    table = whole["held_out_by_result"][folders[1]]
    assert {part: (row["games"], row["positions"]) for part, row in table.items()} == {
        "all": (2, 8),
        "a_won": (1, 4),
        "a_lost": (1, 4),
    }
    assert table["all"]["start"] == pytest.approx(whole["start_on_held_out"]["val_arena_value"])
    assert table["all"]["taught"] == pytest.approx(whole["last"]["val_arena_value"])
    model = load_checkpoint(tmp_path / "whole" / "model.pt")
    assert not model.config.ownership and model.config == NET  # for play, the start's shape
    assert load_checkpoint(tmp_path / "whole" / "checkpoint.pt").config.ownership
    assert (tmp_path / "whole" / "losses.png").is_file() or not _has_matplotlib()
    halves = tmp_path / "halves"
    resumed = killed_then_resumed(
        monkeypatch, lambda: teach(str(start), halves, _config(folders))
    )  # at step 3
    assert resumed["last"]["val_arena_value"] == pytest.approx(whole["last"]["val_arena_value"])
    for name, weight in model.weights.items():
        assert torch.equal(weight, load_checkpoint(halves / "model.pt").weights[name]), name
    rows = [json.loads(line) for line in (halves / "metrics.jsonl").open()]
    assert [r["step"] for r in rows] == [3, 6]
    with pytest.raises(ValueError, match="belongs to another run"):
        teach(str(start), halves, _config(folders, lr=0.5))
    other = save_checkpoint(tmp_path / "other.pt", PolicyValueNet(NET))
    with pytest.raises(ValueError, match="belongs to another run"):
        teach(str(other), halves, _config(folders))
    copy = tmp_path / "copy.pt"  # the same network by another name: the same run, done
    copy.write_bytes(start.read_bytes())
    assert teach(str(copy), halves, _config(folders))["last"]["step"] == 6


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def test_a_vanishing_step_leaves_the_learned_weights_of_the_start(
    start: Path, folders: tuple[str, str], tmp_path: Path
) -> None:
    teach(str(start), tmp_path / "still", _config(folders, lr=1e-12))
    before = load_checkpoint(start).weights
    after = load_checkpoint(tmp_path / "still" / "model.pt").weights
    for name in before:
        if "running_" not in name and "num_batches" not in name:
            assert torch.allclose(after[name], before[name], atol=1e-6), name


def test_bad_input_is_refused_with_what_is_allowed(
    start: Path, folders: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match="give the arena games to teach on"):
        TeachConfig(arena=())
    with pytest.raises(ValueError, match="hold out games no step trains on"):
        TeachConfig(arena=(folders[0],), arena_held_out=(folders[0],))
    with pytest.raises(ValueError, match="steps"):
        _config(folders, steps=0)
    with pytest.raises(ValueError, match="lr must be > 0"):
        _config(folders, lr=0.0)
    with pytest.raises(FileNotFoundError, match="no network checkpoint"):
        teach(str(tmp_path / "missing.pt"), tmp_path / "x", _config(folders))
    with pytest.raises(FileNotFoundError, match="no results file"):
        teach(str(start), tmp_path / "z", _config(folders, arena=(str(tmp_path / "none"),)))
    assert not (tmp_path / "z").exists()  # refused before anything was written
    with pytest.raises(ValueError, match="cannot train a 9x9 network"):
        teach("supervised", tmp_path / "y", _config(folders))
    args = ["train", "teach", str(start), "--arena", folders[0], "--out", str(tmp_path / "cli")]
    more = ["--arena-held-out", folders[1], "--steps", "2", "--batch-size", "4", "--quiet"]
    assert gomcts([*args, *more]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["positions"] == 12 and answer["last"]["step"] == 2
    assert gomcts([*args[:-2], "--out", str(tmp_path / "bad"), "--steps", "0"]) != 0
    assert "steps" in capsys.readouterr().err
