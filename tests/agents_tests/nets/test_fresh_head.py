"""A fresh ownership head on a trained tower is fitted alone before the tower trains with it."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.nets.checkpoint import load_checkpoint, save_checkpoint
from agents.nets.model import OWNERSHIP_PREFIX, NetConfig, PolicyValueNet
from agents.nets.training.fork import fork_run
from agents.nets.training.replay import ReplayBuffer
from agents.nets.training.selfplay import run_selfplay
from agents.nets.training.step import (
    adamw,
    fit_fresh_head,
    head_is_fresh,
    ownership_loss,
    replay_step,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")

HEADED = NetConfig(size=5, blocks=1, filters=8, history=2, ownership=True)


def _buffer(with_owners: bool = True) -> ReplayBuffer:
    """Random positions whose owner map is the first plane's stones (a target to learn)."""
    rng = np.random.default_rng(0)
    buffer = ReplayBuffer(64, (HEADED.in_planes, 5, 5), ownership=with_owners)
    planes = (rng.random((64, HEADED.in_planes, 5, 5)) < 0.3).astype(np.int8)
    owners = planes[:, 0].reshape(64, 25) * 2 - 1
    policies = np.full((64, 26), 1 / 26, np.float32)
    values = rng.choice([-1.0, 1.0], 64).astype(np.float32)
    buffer.add(planes, policies, values, owners if with_owners else None)
    return buffer


def _ownership_loss(net: PolicyValueNet, buffer: ReplayBuffer) -> float:
    """The ownership term over the whole buffer, without augmentation."""
    net.eval()
    with torch.no_grad():
        x = torch.from_numpy(buffer.planes[: buffer.count].astype(np.float32))
        assert buffer.ownership is not None
        target = torch.from_numpy(buffer.ownership[: buffer.count].astype(np.float32))
        _, _, owned = net.forward_with_ownership(x)
    return float(ownership_loss(owned, target))


def test_the_fit_trains_the_head_alone_and_lowers_its_loss() -> None:
    torch.manual_seed(3)
    net = PolicyValueNet(HEADED)
    buffer = _buffer()
    before = {k: v.clone() for k, v in net.state_dict().items()}
    unfitted = _ownership_loss(net, buffer)
    fitted = fit_fresh_head(net, [(buffer, 16)], np.random.default_rng(1), steps=200, lr=0.05)
    assert fitted["head_fit_steps"] == 200
    assert fitted["head_fit_ownership_last"] < fitted["head_fit_ownership_first"]
    assert _ownership_loss(net, buffer) < unfitted - 0.02
    after = net.state_dict()
    for name, weight in before.items():
        if name.startswith(OWNERSHIP_PREFIX):
            assert not torch.equal(after[name], weight), name
        else:  # the tower, the other heads and their BatchNorm statistics are untouched
            assert torch.equal(after[name], weight), name
    assert all(p.requires_grad for p in net.parameters())  # unfrozen again


def test_a_head_is_fresh_until_the_optimizer_has_stepped_it() -> None:
    net = PolicyValueNet(HEADED)
    optimizer = adamw(net, 1e-3, 0.0)
    assert head_is_fresh(net, optimizer)
    fit_fresh_head(net, [(_buffer(), 8)], np.random.default_rng(1), steps=1)
    assert head_is_fresh(net, optimizer)  # the fit's own optimizer is not the run's
    replay_step(net, optimizer, _buffer(), 8, np.random.default_rng(2), 1.5)
    assert not head_is_fresh(net, optimizer)
    assert not head_is_fresh(PolicyValueNet(NetConfig(size=5, blocks=1, filters=8)), optimizer)
    again = adamw(net, 1e-3, 0.0, optimizer.state_dict())  # a resumed start keeps the moments
    assert not head_is_fresh(net, again)


def test_bad_input_is_refused() -> None:
    plain = PolicyValueNet(NetConfig(size=5, blocks=1, filters=8, history=2))
    with pytest.raises(ValueError, match="no ownership head"):
        fit_fresh_head(plain, [(_buffer(), 8)], np.random.default_rng(0))
    with pytest.raises(ValueError, match="no ownership targets"):
        fit_fresh_head(PolicyValueNet(HEADED), [(_buffer(False), 8)], np.random.default_rng(0))
    with pytest.raises(ValueError, match="at least 1"):
        fit_fresh_head(PolicyValueNet(HEADED), [(_buffer(), 8)], np.random.default_rng(0), steps=0)


def _first_row(out) -> dict:
    return json.loads((out / "metrics.jsonl").read_text().splitlines()[0])


def test_selfplay_fits_the_head_a_headless_start_lacks(tmp_path, selfplay_config) -> None:
    torch.manual_seed(5)
    headless = save_checkpoint(
        tmp_path / "start.pt", PolicyValueNet(NetConfig(size=5, blocks=1, filters=8, history=2))
    )
    logged: list[str] = []
    config = selfplay_config(init=str(headless), ownership_weight=1.5)
    assert run_selfplay(tmp_path / "run", config, log=logged.append) == "done"
    row = _first_row(tmp_path / "run")
    assert row["head_fit_steps"] == 300 and row["train_ownership"] > 0
    assert any("fitted the fresh ownership head alone" in line for line in logged)
    assert not load_checkpoint(tmp_path / "run" / "state.pt").train["fresh_head"]
    # a start that has its own head, and a tabula-rasa run, train it jointly from the start
    headed = save_checkpoint(tmp_path / "headed.pt", PolicyValueNet(HEADED))
    assert run_selfplay(tmp_path / "own", selfplay_config(init=str(headed), ownership_weight=1.5))
    assert "head_fit_steps" not in _first_row(tmp_path / "own")
    assert run_selfplay(tmp_path / "rasa", selfplay_config(ownership_weight=1.5)) == "done"
    assert "head_fit_steps" not in _first_row(tmp_path / "rasa")


def test_a_fork_that_switches_the_head_on_fits_it_first(tmp_path, selfplay_config) -> None:
    assert run_selfplay(tmp_path / "run", selfplay_config()) == "done"
    fork_run(tmp_path / "run", tmp_path / "fork", {"ownership_weight": 1.5})
    config = selfplay_config(generations=2, ownership_weight=1.5)
    assert run_selfplay(tmp_path / "fork", config) == "done"
    rows = [json.loads(x) for x in (tmp_path / "fork" / "metrics.jsonl").read_text().splitlines()]
    assert "head_fit_steps" not in rows[0] and rows[1]["head_fit_steps"] == 300
