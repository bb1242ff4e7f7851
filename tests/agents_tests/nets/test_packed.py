"""Packed networks: int8 weights in groups, gzip files, the check before writing, shipped names."""

from __future__ import annotations

import gzip
import json

import pytest
import torch

from agents.cli import main as gomcts
from agents.nets.checkpoint import (
    SHIPPED_MODELS,
    CheckpointError,
    load_checkpoint,
    load_net,
    model_digest,
    resolve_model_path,
    save_checkpoint,
    shipped_model_path,
    shipped_names,
)
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.packed import PackCheckError, compare, own_positions, pack_checkpoint, packed_copy
from agents.nets.packing import GROUP, pack_weights, unpack_weights

SMALL = NetConfig(size=5, blocks=1, filters=8, history=2, value_hidden=8)

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _net(seed: int = 0, config: NetConfig = SMALL) -> PolicyValueNet:
    torch.manual_seed(seed)
    net = PolicyValueNet(config)
    with torch.no_grad():  # batch-norm statistics away from their defaults
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
    return net.eval()


def test_packing_rounds_each_weight_to_its_groups_scale():
    weights = _net().state_dict()
    packed, packing = pack_weights(weights)
    restored = unpack_weights(packed, packing)
    assert restored.keys() == weights.keys()
    for name, original in weights.items():
        if original.is_floating_point() and original.dim() >= 2:
            assert packed[name].dtype == torch.int8 and packed[name].shape[2] == GROUP
            scale = packing["scales"][name]
            rows = original.reshape(original.shape[0], -1)
            groups = -(-rows.shape[1] // GROUP)
            assert scale.shape == (original.shape[0], groups, 1)
            error = (restored[name] - original).abs().reshape(original.shape[0], -1)
            bound = scale.expand(-1, -1, GROUP).reshape(original.shape[0], -1)[:, : rows.shape[1]]
            assert restored[name].shape == original.shape
            assert torch.all(error <= bound / 2 + 1e-7)
        else:  # batch norm and counters: unchanged
            assert torch.equal(restored[name], original)


def test_a_zero_group_and_the_largest_weight_survive():
    w = torch.zeros(2, 40)
    w[1, 5] = -3.0
    packed, packing = pack_weights({"w": w})
    restored = unpack_weights(packed, packing)["w"]
    assert torch.equal(restored[0], torch.zeros(40))
    assert restored[1, 5] == pytest.approx(-3.0) and int(packed["w"][1, 0, 5]) == -127


def test_unpacking_refuses_what_does_not_fit():
    packed, packing = pack_weights({"w": torch.randn(3, 4, 3, 3), "b": torch.randn(3)})
    with pytest.raises(ValueError, match="packing 'other' is not one this code reads"):
        unpack_weights(packed, {**packing, "scheme": "other"})
    with pytest.raises(ValueError, match="int8 tensors without a scale: w"):
        unpack_weights(packed, {**packing, "scales": {}})
    bad = {**packing, "scales": {"w": torch.ones(3, 1, 1)}}
    assert packed["w"].shape[1] == 2  # 36 weights a row: two groups
    with pytest.raises(ValueError, match="do not fit"):
        unpack_weights(packed, bad)
    with pytest.raises(ValueError, match="cannot have shape"):
        unpack_weights(packed, {**packing, "shapes": {"w": [3, 4, 5, 5]}})
    with pytest.raises(ValueError, match="belongs to no packed tensor"):
        unpack_weights(packed, {**packing, "scales": {**packing["scales"], "b": torch.ones(3)}})


def test_a_packed_gzip_checkpoint_loads_as_the_packed_copy(tmp_path):
    net = _net()
    path = save_checkpoint(tmp_path / "n.pt.gz", net, meta={"games": 3}, packed=True)
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    assert save_checkpoint(tmp_path / "again.pt.gz", net, meta={"games": 3}, packed=True)
    assert (tmp_path / "again.pt.gz").read_bytes() == raw  # no time stamp: same bytes
    checkpoint = load_checkpoint(path)
    assert checkpoint.config == SMALL and checkpoint.meta == {"games": 3}
    expected = packed_copy(net).state_dict()
    for name, tensor in checkpoint.weights.items():
        assert tensor.dtype == expected[name].dtype and torch.equal(tensor, expected[name])
    plain = save_checkpoint(tmp_path / "plain.pt", net)
    assert path.stat().st_size < plain.stat().st_size / 2
    x = torch.randn(4, SMALL.in_planes, 5, 5)
    with torch.no_grad():
        a, b = load_net(path)(x), packed_copy(net)(x)
    assert torch.allclose(a[0], b[0]) and torch.allclose(a[1], b[1])


def test_compression_alone_keeps_the_weights_and_the_digest(tmp_path):
    net = _net()
    plain = save_checkpoint(tmp_path / "n.pt", net)
    packed = tmp_path / "n.pt.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for name, tensor in load_checkpoint(packed).weights.items():
        assert torch.equal(tensor, net.state_dict()[name])
    assert model_digest(packed)[1] == model_digest(plain)[1]


def test_versions_and_broken_packings_are_refused(tmp_path):
    net = _net()
    path = save_checkpoint(tmp_path / "n.pt", net, packed=True)
    data = torch.load(path, weights_only=True)
    assert data["version"] == 2  # code that reads only version 1 refuses it
    torch.save({**data, "version": 3}, tmp_path / "v3.pt")
    with pytest.raises(CheckpointError, match="version 3; this code reads 1 and 2"):
        load_checkpoint(tmp_path / "v3.pt")
    torch.save({**data, "packing": {"scheme": "x"}}, tmp_path / "bad.pt")
    with pytest.raises(CheckpointError, match="unreadable packed weights: packing 'x'"):
        load_checkpoint(tmp_path / "bad.pt")
    (tmp_path / "cut.pt.gz").write_bytes(gzip.compress(path.read_bytes())[:-20])
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        load_checkpoint(tmp_path / "cut.pt.gz")


def test_own_positions_are_seeded_legal_and_counted():
    net = _net()
    states = own_positions(net, 150, seed=4, games=8)
    again = own_positions(net, 150, seed=4, games=8)
    assert len(states) == 150
    assert [s.history for s in states] == [s.history for s in again]
    assert any(s.move_number > 5 for s in states)
    assert [s.history for s in own_positions(net, 150, seed=5, games=8)] != [
        s.history for s in states
    ]
    with pytest.raises(ValueError, match="count and games must be >= 1"):
        own_positions(net, 0)


def test_compare_measures_the_change():
    net = _net()
    states = own_positions(net, 60, seed=1)
    same = compare(net, net, states, batch=16)
    assert same["top_move_agreement"] == 1.0 and same["tv_max"] == 0 and same["value_max"] == 0
    other = compare(net, _net(seed=1), states)
    assert other["positions"] == 60 and other["tv_mean"] > 0.01 and other["value_max"] > 0
    assert 0 <= other["tv_mean"] <= other["tv_p99"] <= other["tv_max"] <= 1
    with pytest.raises(ValueError, match="no positions"):
        compare(net, net, [])


def test_pack_checkpoint_checks_before_it_writes(tmp_path):
    source = save_checkpoint(tmp_path / "n.pt", _net(), meta={"generation": 7})
    out = tmp_path / "n.pt.gz"
    answer = pack_checkpoint(source, out, positions=80, seed=2)
    assert answer["within_limits"] and answer["bytes"] == out.stat().st_size
    assert answer["bytes"] < answer["source_bytes"]
    meta = load_checkpoint(out).meta
    assert meta["generation"] == 7
    assert meta["packed"]["check"] == answer["check"] and meta["packed"]["from"] == "n.pt"
    assert meta["packed"]["sha256"] == model_digest(source)[1]
    refused = tmp_path / "refused.pt.gz"
    with pytest.raises(PackCheckError, match=r"moves the network too much.*nothing written"):
        pack_checkpoint(source, refused, positions=80, max_tv_mean=1e-9)
    assert not refused.exists()
    forced = pack_checkpoint(source, refused, positions=80, max_tv_mean=1e-9, force=True)
    assert not forced["within_limits"] and refused.exists()
    with pytest.raises(ValueError, match="max_value_p99 must be > 0"):
        pack_checkpoint(source, refused, positions=80, max_value_p99=0)


def test_the_pack_command(tmp_path, capsys):
    source = save_checkpoint(tmp_path / "n.pt", _net())
    out = tmp_path / "p.pt.gz"
    assert gomcts(["train", "pack", str(source), "--out", str(out), "--positions", "40"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["out"] == str(out) and answer["check"]["positions"] == 40
    args = ["train", "pack", str(source), "--out", str(out), "--max-tv-mean", "1e-9"]
    assert gomcts([*args, "--positions", "40"]) == 2
    assert "gomcts train pack: error: the packed copy moves" in capsys.readouterr().err
    assert gomcts(["train", "pack", str(tmp_path / "none.pt"), "--out", str(out)]) == 2
    assert "no network checkpoint" in capsys.readouterr().err


def test_shipped_names_resolve(tmp_path, monkeypatch):
    assert resolve_model_path("") == shipped_model_path() == resolve_model_path("supervised")
    assert resolve_model_path("default") == shipped_model_path("supervised")
    assert resolve_model_path("paper-9x9") == shipped_model_path("paper-9x9")
    assert resolve_model_path("strong-9x9") == shipped_model_path("strong-9x9")
    assert resolve_model_path("strong-9x9-b6") == shipped_model_path("strong-9x9-b6")
    monkeypatch.chdir(tmp_path)
    assert resolve_model_path("./paper-9x9").resolve() == tmp_path / "paper-9x9"
    with pytest.raises(ValueError, match="no shipped network is called 'x'; the shipped ones"):
        shipped_model_path("x")
    assert set(shipped_names()) == set(SHIPPED_MODELS)


def test_the_shipped_supervised_network_keeps_its_digest():
    path, digest = model_digest("supervised")
    assert path.name.endswith(".pt.gz")
    assert digest.startswith("ca3e8cefbfb9")  # the records' and the precision check's network


def _shipped_packed_network_that_was_checked_and_plays(name: str):  # type: ignore[no-untyped-def]
    """The checkpoint of a shipped packed network, once its check and four moves pass."""
    from agents.nets.agent import NetAgentConfig
    from go_env.state import GoState

    checkpoint = load_checkpoint(name)
    check = checkpoint.meta["packed"]["check"]
    limits = checkpoint.meta["packed"]["limits"]
    assert check["positions"] >= 4000 and check["tv_mean"] <= limits["tv_mean"]
    assert check["value_p99"] <= limits["value_p99"] and checkpoint.train is None
    state = GoState()
    agent = NetAgentConfig(model=name).build()
    for _ in range(4):
        move = agent.act(state)
        assert state.is_legal(move)
        state.play(move)
    return checkpoint


def test_the_shipped_strong_network_has_the_supervised_inputs_and_was_checked():
    checkpoint = _shipped_packed_network_that_was_checked_and_plays("strong-9x9")
    assert checkpoint.config == load_checkpoint("supervised").config  # its start's shape, inputs


def test_the_shipped_b6_network_is_larger_with_the_supervised_inputs_and_was_checked():
    checkpoint = _shipped_packed_network_that_was_checked_and_plays("strong-9x9-b6")
    supervised = load_checkpoint("supervised").config
    assert (checkpoint.config.blocks, checkpoint.config.filters) == (6, 48)
    assert checkpoint.config.tactical and checkpoint.config.history == supervised.history
    assert not checkpoint.config.ownership  # the training-only head is left behind


def test_the_shipped_paper_network_is_the_papers_shape_and_was_checked():
    checkpoint = _shipped_packed_network_that_was_checked_and_plays("paper-9x9")
    assert checkpoint.config == NetConfig.preset("paper-9x9")
    assert not checkpoint.config.tactical and checkpoint.config.history == 5


def test_a_packed_network_leaves_its_ownership_head_behind(tmp_path):
    torch.manual_seed(4)
    owned = PolicyValueNet(NetConfig(size=5, blocks=1, filters=8, history=2, ownership=True))
    source = save_checkpoint(tmp_path / "owned.pt", owned.eval())
    pack_checkpoint(source, tmp_path / "p.pt.gz", positions=40, seed=1)
    packed = load_checkpoint(tmp_path / "p.pt.gz")
    assert not packed.config.ownership
    assert not any(k.startswith("ownership") for k in packed.weights)
    x = torch.randn(2, owned.config.in_planes, 5, 5)
    plain = owned.without_ownership()
    assert not plain.training and all(
        torch.equal(a, b) for a, b in zip(plain(x), owned(x), strict=True)
    )
