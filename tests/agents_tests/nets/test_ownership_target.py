"""KataGo's ownership target: the head, its examples, its loss, and runs that switch it on."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.nets.checkpoint import load_checkpoint
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.training.fork import fork_run
from agents.nets.training.records import GameFile
from agents.nets.training.replay import ReplayBuffer
from agents.nets.training.selfplay import run_selfplay
from agents.nets.training.selfplay_config import SelfPlayConfig
from agents.nets.training.step import adamw, train_step
from agents.nets.training.window import game_examples
from go_env.state import GoState

pytestmark = pytest.mark.usefixtures("one_torch_thread")

SHAPE = NetConfig(size=5, blocks=1, filters=8, history=2)
OWNED = NetConfig(size=5, blocks=1, filters=8, history=2, ownership=True)


def test_the_head_is_for_training_only_and_leaves_play_unchanged() -> None:
    torch.manual_seed(0)
    net = PolicyValueNet(OWNED).eval()
    x = torch.randn(3, OWNED.in_planes, 5, 5)
    logits, values, owned = net.forward_with_ownership(x)
    assert owned.shape == (3, 25) and bool((owned.abs() <= 1).all())
    plain = PolicyValueNet(SHAPE).eval()
    plain.load_weights(net.state_dict())  # the head is dropped
    assert all(torch.equal(a, b) for a, b in zip(plain(x), (logits, values), strict=True))
    with pytest.raises(ValueError, match="no ownership head"):
        plain.forward_with_ownership(x)
    again = PolicyValueNet(OWNED)
    fresh = again.ownership_conv.weight.detach().clone()
    again.load_weights(plain.state_dict())  # no head in the weights: the fresh one stays
    assert torch.equal(again.ownership_conv.weight, fresh)
    assert NetConfig.from_dict({k: v for k, v in SHAPE.to_dict().items()}) == SHAPE
    legacy = {k: v for k, v in SHAPE.to_dict().items() if k != "ownership"}
    assert NetConfig.from_dict(legacy) == SHAPE  # a checkpoint from before the field
    with pytest.raises(ValueError, match="ownership must be True or False"):
        NetConfig(ownership=1)  # type: ignore[arg-type]


def test_examples_carry_the_final_owners_from_the_side_to_move(selfplay_config, tmp_path) -> None:
    config = selfplay_config(ownership_weight=1.5)
    assert config.net.ownership  # the head follows the weight
    assert run_selfplay(tmp_path / "run", config) == "done"
    game = GameFile(tmp_path / "run" / "games" / "gen-0001.jsonl").read()[0]
    examples = game_examples(game, config.net, config.rules)
    final = GoState(config.rules)
    for move in game.moves:
        final.play(move)
    owners = final.area_owners()
    assert examples.ownership is not None and examples.ownership.dtype == np.int8
    for target, row in zip(game.targets, examples.ownership, strict=True):
        black_to_move = target.move_number % 2 == 0
        assert row.tolist() == (owners if black_to_move else -owners).tolist()
    # the owners agree with the game's result, which the value target carries
    score = int(owners.sum()) - config.komi
    assert np.sign(score) == game.winner


def test_a_sampled_ownership_turns_with_its_board() -> None:
    buffer = ReplayBuffer(4, (1, 5, 5), ownership=True)
    planes = np.zeros((2, 1, 5, 5), np.int8)
    planes[0, 0, 0, 1] = planes[1, 0, 3, 4] = 1
    owners = planes.reshape(2, 25).copy()  # the owner map is the stone plane
    policies = np.full((2, 26), 1 / 26, np.float32)
    buffer.add(planes, policies, np.zeros(2, np.float32), owners)
    batch = buffer.sample(64, np.random.default_rng(3))
    assert batch.ownership is not None and batch.ownership.dtype == np.float32
    assert np.array_equal(batch.ownership, batch.planes.reshape(64, 25))
    with pytest.raises(ValueError, match="keeps ownership targets: give them"):
        buffer.add(planes, policies, np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="keeps no ownership targets"):
        ReplayBuffer(4, (1, 5, 5)).add(planes, policies, np.zeros(2, np.float32), owners)


def test_the_buffer_saves_its_ownership(tmp_path) -> None:
    buffer = ReplayBuffer(3, (1, 5, 5), ownership=True)
    owners = np.ones((2, 25), np.int8)
    owners[1] = -1
    buffer.add(np.zeros((2, 1, 5, 5), np.int8), np.zeros((2, 26), np.float32),
               np.zeros(2, np.float32), owners)  # fmt: skip
    buffer.save(tmp_path / "b.npz")
    again = ReplayBuffer.load(tmp_path / "b.npz")
    assert again.ownership is not None and np.array_equal(again.ownership[:2], owners)
    buffer = ReplayBuffer(3, (1, 5, 5))
    buffer.save(tmp_path / "plain.npz")
    assert ReplayBuffer.load(tmp_path / "plain.npz").ownership is None


def test_the_ownership_term_learns_a_fixed_target() -> None:
    torch.manual_seed(1)
    net = PolicyValueNet(OWNED)
    optimizer = adamw(net, 1e-2, 0.0)
    x = torch.randn(8, OWNED.in_planes, 5, 5)
    policy = torch.full((8, 26), 1 / 26)
    value = torch.zeros(8)
    target = torch.where(torch.arange(25) < 10, 1.0, -1.0).repeat(8, 1)
    first = train_step(net, optimizer, x, policy, value, ownership_target=target)
    for _ in range(60):
        last = train_step(net, optimizer, x, policy, value, ownership_target=target)
    assert last["ownership"] < first["ownership"] / 4
    assert first["loss"] == pytest.approx(
        first["policy"] + first["value"] + 1.5 * first["ownership"], rel=1e-5
    )
    assert "ownership" not in train_step(net, optimizer, x, policy, value)


def test_the_optimizer_keeps_its_moments_when_the_head_comes_and_goes() -> None:
    torch.manual_seed(2)
    plain = PolicyValueNet(SHAPE)
    optimizer = adamw(plain, 1e-3, 1e-4)
    x = torch.randn(4, SHAPE.in_planes, 5, 5)
    train_step(plain, optimizer, x, torch.full((4, 26), 1 / 26), torch.zeros(4))
    saved = optimizer.state_dict()
    owned = PolicyValueNet(OWNED)
    owned.load_weights(plain.state_dict())
    switched_on = adamw(owned, 5e-4, 0.0, saved)
    assert [len(g["params"]) for g in switched_on.param_groups] == [
        len(saved["param_groups"][0]["params"]),
        2,  # the head's weight and bias, fresh
    ]
    assert [(g["lr"], g["weight_decay"]) for g in switched_on.param_groups] == [(5e-4, 0.0)] * 2
    went_on = [p for p in owned.parameters() if p in switched_on.state]
    assert len(went_on) == len(saved["state"])  # every moment of the rest went on
    target = torch.zeros(4, 25)
    train_step(owned, switched_on, x, torch.full((4, 26), 1 / 26), torch.zeros(4),
               ownership_target=target)  # fmt: skip
    kept = adamw(PolicyValueNet(OWNED), 5e-4, 0.0, switched_on.state_dict())
    assert len(kept.state) == len(switched_on.state)  # the head's moments too
    dropped = adamw(PolicyValueNet(SHAPE), 5e-4, 0.0, switched_on.state_dict())
    assert len(dropped.param_groups) == 1 and len(dropped.state) == len(saved["state"])


def test_a_fork_switches_the_ownership_target_on(tmp_path, selfplay_config) -> None:
    out = tmp_path / "run"
    assert run_selfplay(out, selfplay_config()) == "done"
    record = fork_run(out, tmp_path / "fork", {"ownership_weight": 1.5})
    assert record["changes"] == {"ownership_weight": [0.0, 1.5]}
    config = selfplay_config(generations=2, ownership_weight=1.5)
    assert run_selfplay(tmp_path / "fork", config) == "done"
    rows = [json.loads(x) for x in (tmp_path / "fork" / "metrics.jsonl").read_text().splitlines()]
    assert "train_ownership" not in rows[0] and rows[1]["train_ownership"] > 0
    trained = load_checkpoint(tmp_path / "fork" / "nets" / "gen-0002.pt")
    assert trained.config.ownership and "ownership_conv.weight" in trained.weights
    with pytest.raises(ValueError, match=r"ownership_weight: 1\.5 -> 0\.0"):
        run_selfplay(tmp_path / "fork", selfplay_config(generations=3))
    # the parent still resumes as it was, a manifest from before the field as well
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["config"]["ownership_weight"]
    del manifest["config"]["net"]["ownership"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert run_selfplay(out, selfplay_config(generations=2)) == "done"


def test_the_weight_is_checked() -> None:
    for bad in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="ownership_weight must be a finite number >= 0"):
            SelfPlayConfig(net=SHAPE, ownership_weight=bad)
    assert not SelfPlayConfig(net=OWNED).net.ownership  # weight 0: no head


def test_the_loss_plot_gets_an_ownership_panel(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    from agents.nets.training.plots import plot_losses

    rows = [{"step": s, "train_policy": 3.0 / s, "train_value": 1.0 / s} for s in (1, 2, 3)]
    plain = plot_losses(rows, tmp_path / "plain.png")
    owned = plot_losses([{**r, "train_ownership": 0.6} for r in rows], tmp_path / "owned.png")
    assert plain is not None and owned is not None
    widths = imread(owned).shape[1], imread(plain).shape[1]
    assert widths[0] == pytest.approx(1.5 * widths[1], rel=0.01)  # three panels, not two
