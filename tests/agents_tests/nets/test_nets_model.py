"""Network presets, shapes, checkpoints."""

from __future__ import annotations

import pytest
import torch

from agents.nets.checkpoint import (
    CheckpointError,
    NetworkNotFoundError,
    load_checkpoint,
    load_net,
    model_digest,
    resolve_model_path,
    save_checkpoint,
    shipped_model_path,
)
from agents.nets.model import PRESETS, NetConfig, PolicyValueNet

TINY = NetConfig(size=5, blocks=1, filters=8, history=2, value_hidden=8)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize(
    ("name", "size", "planes"), [("b4c32", 9, 11), ("b10c64", 19, 19), ("b20c256", 9, 17)]
)
def test_presets_shapes(name, size, planes):
    config = NetConfig.preset(name, size=size)
    assert config.shape_name == name and config.in_planes == planes
    assert config.actions == size * size + 1
    if name == "b20c256":
        return  # large: shape checked without building it
    net = PolicyValueNet(config).eval()
    with torch.no_grad():
        logits, values = net(torch.zeros(3, planes, size, size))
    assert logits.shape == (3, size * size + 1) and values.shape == (3,)


def test_lilim_presets_follow_the_paper():
    assert PRESETS["b4c32"]["blocks"] == 4 and PRESETS["b4c32"]["filters"] == 32
    assert PRESETS["b4c32"]["history"] == 5  # current + previous 4 positions
    assert PRESETS["b10c64"]["history"] == 9  # current + previous 8 positions
    tactical = NetConfig.preset("b4c32", tactical=True)
    assert tactical.in_planes == 11 + 24


def test_the_larger_9x9_preset_reads_b4c32s_inputs_with_a_wider_deeper_tower():
    larger = NetConfig.preset("b6c48", tactical=True)
    assert larger.in_planes == NetConfig.preset("b4c32", tactical=True).in_planes
    parameters = sum(p.numel() for p in PolicyValueNet(larger).parameters())
    assert parameters == 284_029  # the distilled network's count (docs/nets.md)


def test_values_are_in_range_and_inputs_checked():
    torch.manual_seed(0)
    net = PolicyValueNet(TINY).eval()
    with torch.no_grad():
        _, values = net(torch.randn(16, TINY.in_planes, 5, 5) * 10)
    assert bool(((values >= -1) & (values <= 1)).all())
    with pytest.raises(ValueError, match=r"expected input of shape \(B, 5, 5, 5\)"):
        net(torch.zeros(1, 4, 5, 5))


def test_config_validation_and_dict_round_trip():
    assert NetConfig.from_dict(TINY.to_dict()) == TINY
    with pytest.raises(ValueError, match="unknown network preset 'b3'; known: b4c32"):
        NetConfig.preset("b3")
    with pytest.raises(ValueError, match="blocks must be an int"):
        NetConfig(blocks=-1)
    with pytest.raises(ValueError, match="unknown network config keys"):
        NetConfig.from_dict({**TINY.to_dict(), "depth": 3})


def test_checkpoint_round_trip(tmp_path):
    torch.manual_seed(1)
    net = PolicyValueNet(TINY)
    x = torch.randn(4, TINY.in_planes, 5, 5)
    net.eval()
    with torch.no_grad():
        expected = net(x)
    path = save_checkpoint(
        tmp_path / "a" / "net.pt", net, meta={"games": 3}, train={"step": 7, "lr": 0.1}
    )
    assert not list(path.parent.glob(".*tmp"))  # the temporary file was renamed
    checkpoint = load_checkpoint(path)
    assert checkpoint.config == TINY and checkpoint.meta == {"games": 3}
    assert checkpoint.train == {"step": 7, "lr": 0.1}
    rebuilt = checkpoint.build()
    assert not rebuilt.training
    with torch.no_grad():
        got = rebuilt(x)
    assert torch.equal(got[0], expected[0]) and torch.equal(got[1], expected[1])
    assert load_net(path) is load_net(path)  # cached per process


def test_bad_checkpoints(tmp_path):
    with pytest.raises(FileNotFoundError, match="no network checkpoint"):
        load_checkpoint(tmp_path / "missing.pt")
    # a mistyped shipped name reads as a file: the message says which names there are
    hint = r"strong9: no network checkpoint there; give .* shipped network's name \(supervised, "
    for read in (load_checkpoint, load_net, model_digest):
        with pytest.raises(NetworkNotFoundError, match=hint):
            read("strong9")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        load_checkpoint(junk)
    other = tmp_path / "other.pt"
    torch.save({"weights": {}}, other)
    with pytest.raises(CheckpointError, match="not a gomcts-net checkpoint"):
        load_checkpoint(other)


def test_model_names():
    assert resolve_model_path("") == shipped_model_path() == resolve_model_path("default")
    assert resolve_model_path("x/y.pt").name == "y.pt"


def test_the_shipped_model_loads_and_plays():
    from agents.nets.agent import NetAgentConfig
    from go_env.state import GoState

    checkpoint = load_checkpoint(shipped_model_path())
    assert checkpoint.config == NetConfig.preset("b4c32", tactical=True)
    assert checkpoint.train is None and checkpoint.meta["data_counts"]["games"] > 0
    assert shipped_model_path().stat().st_size < 2_000_000
    state = GoState()
    agent = NetAgentConfig().build()
    for _ in range(6):
        move = agent.act(state)
        assert state.is_legal(move)
        state.play(move)
