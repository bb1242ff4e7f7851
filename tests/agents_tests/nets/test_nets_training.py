"""Training: data from SGF, a step lowers the loss, checkpoints, determinism, resume, self-play."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from game_support import random_game
from scripts_support import run_script

from agents.cli import main as gomcts
from agents.nets.checkpoint import load_checkpoint, save_checkpoint
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.training.data import examples_from_record, load_sgf_dir, result_value, sample_batch
from agents.nets.training.gnugo_games import RANDOM_OPENING_TAG
from agents.nets.training.replay import ReplayBuffer
from agents.nets.training.selfplay_config import SelfPlayConfig
from agents.nets.training.step import (
    evaluate_loss,
    generator_state,
    restore_generators,
    train_step,
)
from agents.nets.training.supervised import SupervisedConfig, held_out_losses, train_supervised
from go_env.sgf import load_sgf, record_from_state, save_sgf

TINY = NetConfig(size=5, blocks=1, filters=8, history=2, value_hidden=8)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def sgf_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sgf")
    for i in range(6):
        state = random_game(5, i, moves=30, komi=0.5, avoid_own_eyes=True)
        result = "B+R" if i % 3 == 0 else ("W+2.5" if i % 3 == 1 else None)
        record = record_from_state(state, result=result or "?")
        save_sgf(record, folder / f"g{i}.sgf")
    save_sgf(
        record_from_state(random_game(7, 9, moves=30, komi=0.5, avoid_own_eyes=True)),
        folder / "other-size.sgf",
    )
    return folder


def test_result_values():
    assert result_value("B+R") == 1.0 and result_value("W+0.5") == -1.0
    assert result_value("0") == 0.0 and result_value("Draw") == 0.0
    assert result_value("?") is None and result_value(None) is None


def test_examples_of_a_record(sgf_dir):
    record = load_sgf(sgf_dir / "g0.sgf")  # B+R
    record.move_comments[0] = RANDOM_OPENING_TAG
    ex = examples_from_record(record, history=2, tactical=False, game=4)
    assert len(ex) == len(record.moves) and ex.planes.shape[1:] == (5, 5, 5)
    assert [int(m) for m in ex.moves] == [m for _, m in record.moves]
    assert ex.values[0] == 1.0 and ex.values[1] == -1.0  # Black won; White to move loses
    assert ex.policy_weight[0] == 0 and ex.policy_weight[1:].all()
    assert (ex.game == 4).all()
    unknown = examples_from_record(load_sgf(sgf_dir / "g2.sgf"), 2, False)
    assert not unknown.value_weight.any()


def test_load_sgf_dir_skips_other_sizes(sgf_dir, tmp_path):
    ex, counts = load_sgf_dir(sgf_dir, size=5, history=2)
    assert counts["games"] == 6 and counts["skipped"] == 1 and counts["positions"] == len(ex)
    with pytest.raises(FileNotFoundError, match=r"no \*\.sgf files"):
        load_sgf_dir(tmp_path, size=5, history=2)


def test_augmented_batches_keep_the_move_on_an_empty_point(sgf_dir):
    ex, _ = load_sgf_dir(sgf_dir, size=5, history=2)
    rows = np.arange(len(ex))
    x, moves = sample_batch(ex, rows, np.random.default_rng(0), 5)
    plain, plain_moves = sample_batch(ex, rows, None, 5)
    assert not np.array_equal(x, plain)
    for planes, move in zip(x, moves, strict=True):
        if move < 25:
            r, c = divmod(int(move), 5)
            assert planes[0, r, c] == 0 and planes[2, r, c] == 0  # own and opponent stones
    assert ((moves == 25) == (plain_moves == 25)).all()


def test_a_training_step_lowers_the_loss():
    torch.manual_seed(0)
    net = PolicyValueNet(TINY)
    x = torch.randn(16, TINY.in_planes, 5, 5)
    moves = torch.randint(0, 26, (16,))
    values = torch.rand(16) * 2 - 1
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    first = train_step(net, optimizer, x, moves, values)
    for _ in range(30):
        last = train_step(net, optimizer, x, moves, values)
    assert last["loss"] < 0.7 * first["loss"]
    assert last["policy"] < first["policy"] and last["value"] < first["value"]
    dist = torch.softmax(torch.randn(16, 26), dim=1)
    first = train_step(net, optimizer, x, dist, values)
    for _ in range(30):
        last = train_step(net, optimizer, x, dist, values)
    assert last["policy"] < first["policy"]


def test_evaluate_loss_takes_moves_or_distributions_with_optional_weights():
    torch.manual_seed(1)
    net = PolicyValueNet(TINY).eval()
    x = torch.randn(6, TINY.in_planes, 5, 5)
    moves = torch.tensor([0, 3, 25, 7, 7, 12])
    values = torch.tensor([1.0, -1.0, 0.5, 0.0, 1.0, -1.0])
    with torch.no_grad():
        logits, v = net(x)
    log_p = torch.log_softmax(logits, dim=1)
    one_hot = torch.nn.functional.one_hot(moves, 26).float()
    by_index = evaluate_loss(net, x, moves, values)
    by_distribution = evaluate_loss(net, x, one_hot, values)
    assert by_index == pytest.approx(by_distribution)
    assert by_index["policy"] == pytest.approx(float(-log_p[range(6), moves].mean()), rel=1e-5)
    assert by_index["value"] == pytest.approx(float(((v - values) ** 2).mean()), rel=1e-5)
    dist = torch.softmax(torch.randn(6, 26), dim=1)
    weight = torch.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 0.0])
    weighted = evaluate_loss(net, x, dist, values, weight, weight)
    kept = weight.bool()
    assert weighted["policy"] == pytest.approx(
        float(-(dist[kept] * log_p[kept]).sum(dim=1).mean()), rel=1e-5
    )
    assert weighted["value"] == pytest.approx(float(((v - values)[kept] ** 2).mean()), rel=1e-5)
    top = (logits.argmax(dim=1) == dist.argmax(dim=1)).float()
    assert weighted["accuracy"] == pytest.approx(float(top[kept].mean()))


def sl_config(steps: int, **changes):
    return SupervisedConfig(
        net=TINY, steps=steps, batch_size=8, eval_every=2, validation=0.2, seed=3, **changes
    )


def weights(path):
    return load_checkpoint(path).weights


def test_supervised_run_writes_its_outputs(sgf_dir, tmp_path):
    model = train_supervised(sgf_dir, tmp_path / "run", sl_config(4), data_description="tests")
    assert model == tmp_path / "run" / "model.pt"
    saved = load_checkpoint(model)
    assert saved.config == TINY and saved.train is None
    assert saved.meta["data"] == "tests" and saved.meta["steps"] == 4
    assert saved.meta["data_counts"]["games"] == 6
    rows = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [2, 4]
    assert {"train_policy", "val_policy", "val_value", "val_accuracy"} <= rows[0].keys()
    assert (tmp_path / "run" / "losses.png").stat().st_size > 0
    assert load_checkpoint(tmp_path / "run" / "checkpoint.pt").train["step"] == 4


def test_supervised_is_deterministic_and_resumes_exactly(sgf_dir, tmp_path):
    a = weights(train_supervised(sgf_dir, tmp_path / "a", sl_config(6)))
    b = weights(train_supervised(sgf_dir, tmp_path / "b", sl_config(6)))

    class Interrupted(Exception):
        pass

    def interrupt_at_step_4(line: str) -> None:
        if line.startswith("{") and json.loads(line)["step"] == 4:
            raise Interrupted  # after the metrics line of step 4, before its checkpoint

    with pytest.raises(Interrupted):
        train_supervised(sgf_dir, tmp_path / "c", sl_config(6), log=interrupt_at_step_4)
    assert load_checkpoint(tmp_path / "c" / "checkpoint.pt").train["step"] == 2
    c = weights(train_supervised(sgf_dir, tmp_path / "c", sl_config(6)))  # resumes at step 2
    for key in a:
        assert torch.equal(a[key], b[key]) and torch.equal(a[key], c[key]), key
    rows = (tmp_path / "c" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(x)["step"] for x in rows] == [2, 4, 6]
    other = weights(train_supervised(sgf_dir, tmp_path / "d", sl_config(6, lr=2e-3)))
    assert not all(torch.equal(a[k], other[k]) for k in a)
    with pytest.raises(ValueError, match="belongs to another run"):
        train_supervised(sgf_dir, tmp_path / "c", sl_config(8, lr=2e-3))
    longer = weights(train_supervised(sgf_dir, tmp_path / "c", sl_config(8)))  # extended
    assert not all(torch.equal(a[k], longer[k]) for k in a)


def test_held_out_losses_reproduce_the_runs_validation_metrics(sgf_dir, tmp_path):
    config = sl_config(4)
    model = train_supervised(sgf_dir, tmp_path / "run", config)
    last = json.loads((tmp_path / "run" / "metrics.jsonl").read_text().splitlines()[-1])
    untrained = tmp_path / "untrained.pt"
    torch.manual_seed(0)
    save_checkpoint(untrained, PolicyValueNet(TINY))
    trained, fresh = held_out_losses(
        [model, untrained], sgf_dir, share=config.validation, seed=config.seed
    )
    for key in ("policy", "value", "accuracy"):
        assert trained[key] == pytest.approx(last[f"val_{key}"], rel=1e-5, abs=1e-6), key
    assert fresh != trained
    done = run_script(
        "compare_nets.py",
        str(sgf_dir),
        str(model),
        "--seed",
        "3",
        "--validation",
        "0.2",
        "--threads",
        "0",
    )
    assert done.returncode == 0, done.stderr
    assert f"{last['val_value']:5.3f}" in done.stdout.splitlines()[1]
    with pytest.raises(ValueError, match="holds out no game"):
        held_out_losses([model], sgf_dir, share=0.01, seed=3)
    other_size = tmp_path / "seven.pt"
    save_checkpoint(other_size, PolicyValueNet(NetConfig(size=7, blocks=1, filters=8, history=2)))
    with pytest.raises(ValueError, match="one board size"):
        held_out_losses([model, other_size], sgf_dir, share=0.2, seed=3)


@pytest.mark.parametrize(
    "device",
    [
        "cpu",
        pytest.param(
            "cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA")
        ),
    ],
)
def test_generators_restore_from_a_checkpoint_loaded_onto_any_device(tmp_path, device):
    """A trainer's state loaded onto the training device (``map_location="cuda"``) moves
    torch's generator state there too; restoring it must still work, and replay the draws."""
    torch.manual_seed(5)
    rng = np.random.default_rng(5)
    path = tmp_path / "state.pt"
    torch.save({"generators": generator_state(rng)}, path)
    expected = (rng.random(3), torch.rand(3))
    state = torch.load(path, map_location=device, weights_only=False)["generators"]
    restored = restore_generators(state)
    assert np.array_equal(restored.random(3), expected[0])
    assert torch.equal(torch.rand(3), expected[1])


def test_replay_buffer_ring_and_round_trip(tmp_path):
    buffer = ReplayBuffer(5, (3, 5, 5))
    planes = np.zeros((7, 3, 5, 5), np.int8)
    planes[:, 0, 0, 1] = 1
    policies = np.zeros((7, 26), np.float32)
    policies[:, 2] = 1.0  # the point right of the stone
    values = np.arange(7, dtype=np.float32)
    buffer.add(planes, policies, values)
    assert len(buffer) == 5 and buffer.added == 7
    assert sorted(buffer.values.tolist()) == [2, 3, 4, 5, 6]  # the two oldest were replaced
    x, p, v, _ = buffer.sample(64, np.random.default_rng(1))
    assert np.allclose(p.sum(axis=1), 1.0) and set(v.tolist()) <= {2, 3, 4, 5, 6}
    for planes_i, policy_i in zip(x, p, strict=True):  # the target stays next to the stone
        stone = np.argwhere(planes_i[0])[0]
        target = divmod(int(np.argmax(policy_i)), 5)
        assert abs(stone[0] - target[0]) + abs(stone[1] - target[1]) == 1
    buffer.save(tmp_path / "r.npz")
    again = ReplayBuffer.load(tmp_path / "r.npz")
    assert again.added == 7 and len(again) == 5
    assert np.array_equal(again.values, buffer.values)
    with pytest.raises(ValueError, match="empty"):
        ReplayBuffer(3, (3, 5, 5)).sample(1, np.random.default_rng(0))


def test_train_command(sgf_dir, tmp_path, capsys):
    status = gomcts(
        [
            "train",
            "sl",
            str(sgf_dir),
            "--out",
            str(tmp_path / "cli"),
            "--size",
            "5",
            "--history",
            "2",
            "--steps",
            "2",
            "--eval-every",
            "1",
            "--quiet",
        ]
    )
    assert status == 0
    assert "model:" in capsys.readouterr().out
    saved = load_checkpoint(tmp_path / "cli" / "model.pt")
    assert saved.config.shape_name == "b4c32" and saved.config.size == 5


def test_training_runs_refuse_a_bad_thread_count(tmp_path, capsys):
    message = r"threads must be an int >= 0 \(0: torch's setting\), got -2"
    with pytest.raises(ValueError, match=message):
        SupervisedConfig(net=NetConfig(size=5, blocks=1, filters=4), threads=-2)
    with pytest.raises(ValueError, match=message):
        SelfPlayConfig(net=NetConfig(size=5, blocks=1, filters=4), threads=-2)
    assert gomcts(["train", "sl", str(tmp_path), "--out", str(tmp_path / "run"), "--threads", "-2"])
    assert "threads must be an int >= 0" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
