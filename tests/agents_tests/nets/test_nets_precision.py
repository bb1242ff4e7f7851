"""The network's precision: the choices, machine detection, ``auto``, and reduced-precision
tolerances against fp32 (``agents/nets/precision.py``, ``docs/nets.md``).

The tolerances are stated here and measured on positions of the shipped network's own games;
a reduced precision this machine cannot run is skipped with the reason
:func:`~agents.nets.precision.unsupported_reason` gives (e.g. no ``avx512_bf16`` flag, or
ONNX Runtime not installed).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.nets import precision as precision_module
from agents.nets.precision import (
    CHOICES,
    PrecisionError,
    check_precision,
    passed_precisions,
    read_record,
    resolve_precision,
    unsupported_reason,
)
from agents.registry import make_agent
from agents.spec import SpecError

BF16_REASON = unsupported_reason("bf16")
INT8_REASON = unsupported_reason("int8")

# Stated tolerances against fp32 on positions of the network's own games (measured on 1,000
# recorded positions: bf16 max |dv| 0.032, TV max 0.028; int8 max |dv| 0.26, p99 0.14,
# TV mean 0.028, max 0.11).
BF16_VALUE_MAX = 0.06
BF16_TV_MEAN = 0.015
BF16_TV_MAX = 0.06
INT8_VALUE_MAX = 0.35
INT8_VALUE_MEAN = 0.06
INT8_TV_MEAN = 0.05
INT8_TV_MAX = 0.2


@pytest.fixture(scope="module")
def positions() -> tuple[np.ndarray, np.ndarray]:
    """96 positions' planes (float32) and legal masks from the shipped network's own games."""
    from agents.nets.checkpoint import load_net
    from agents.nets.onnx_int8 import calibration_planes

    planes = calibration_planes(load_net(""), 96, seed=11, games=6)
    masks = np.ones((len(planes), 82), dtype=bool)  # the whole policy is compared
    return planes, masks


def _compare(precision: str, positions: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, ...]:
    import torch

    from agents.nets.checkpoint import load_net
    from agents.nets.evaluator import NetForward

    planes, masks = positions
    net = load_net("")
    syms = np.zeros(len(planes), dtype=np.int64)
    p32, v32 = NetForward(net, torch.device("cpu"), "fp32")(planes, syms, masks)
    p, v = NetForward(net, torch.device("cpu"), precision)(planes, syms, masks)
    return np.abs(v - v32), 0.5 * np.abs(p - p32).sum(axis=1)


def test_bad_precision_names_the_allowed_values() -> None:
    with pytest.raises(PrecisionError, match="precision must be one of auto, fp32, bf16, int8"):
        check_precision("fp16")
    for spec in ('mcts:evaluator="net:precision=fp16"', "net:precision=half"):
        with pytest.raises(SpecError, match="precision must be one of auto, fp32, bf16, int8"):
            make_agent(spec)
    assert [check_precision(c) for c in CHOICES] == list(CHOICES)


def test_bad_device_is_one_sentence_naming_the_devices() -> None:
    """Issue 31: ``net:device=foo`` was a torch traceback."""
    for spec in ('mcts:evaluator="net:device=foo"', "net:device=foo", "net:device=cuda:x"):
        with pytest.raises(SpecError) as info:
            make_agent(spec)
        message = str(info.value)
        assert "device must be one of cpu, cuda, cuda:N, auto; got" in message
        assert "\n" not in message


def test_resolve_device_refuses_other_torch_devices() -> None:
    from agents.nets.evaluator import resolve_device

    with pytest.raises(ValueError, match="device must be one of cpu, cuda, cuda:N, auto"):
        resolve_device("meta")
    assert str(resolve_device("cpu")) == "cpu"


def test_int8_never_runs_on_a_gpu() -> None:
    reason = unsupported_reason("int8", "cuda")
    assert reason is not None and "CPU only" in reason
    with pytest.raises(PrecisionError, match="precision int8 cannot run on cuda"):
        resolve_precision("int8", "cuda")


def test_a_cpu_without_the_flags_runs_no_reduced_precision(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(precision_module, "cpu_flags", lambda: frozenset({"sse4_2", "fma"}))
    monkeypatch.setattr(precision_module, "_has_onnxruntime", lambda: True)
    assert "no native bfloat16 (avx512_bf16 or amx_bf16 flag)" in str(unsupported_reason("bf16"))
    assert "neither int8 dot-product instructions nor AVX2" in str(unsupported_reason("int8"))
    assert precision_module.supported_precisions("cpu") == ["fp32"]
    with pytest.raises(PrecisionError, match="precision bf16 cannot run on cpu: this CPU"):
        resolve_precision("bf16", "cpu")
    with pytest.raises(PrecisionError, match="precision int8 cannot run on cpu: this CPU"):
        resolve_precision("int8", "cpu")
    record = {"precisions": {"bf16": {"passed": True}, "int8": {"passed": True}}}
    assert resolve_precision("auto", "cpu", record=record) == "fp32"


def test_an_avx2_cpu_without_vnni_runs_int8_but_not_bf16(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(precision_module, "cpu_flags", lambda: frozenset({"avx2", "fma"}))
    monkeypatch.setattr(precision_module, "_has_onnxruntime", lambda: True)
    assert precision_module.supported_precisions("cpu") == ["fp32", "int8"]
    assert resolve_precision("int8", "cpu") == "int8"
    record = {"precisions": {"bf16": {"passed": True}, "int8": {"passed": True}}}
    assert resolve_precision("auto", "cpu", record=record) == "int8"


def test_auto_takes_the_fastest_supported_precision_that_passed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        precision_module, "cpu_flags", lambda: frozenset({"avx512_bf16", "avx512_vnni"})
    )
    monkeypatch.setattr(precision_module, "_has_onnxruntime", lambda: True)
    assert resolve_precision("auto", "cpu", record={}) == "fp32"
    failed = {"precisions": {"int8": {"passed": False}, "bf16": {"passed": True}}}
    assert resolve_precision("auto", "cpu", record=failed) == "bf16"
    both = {"precisions": {"int8": {"passed": True}, "bf16": {"passed": True}}}
    assert resolve_precision("auto", "cpu", record=both) == "int8"
    monkeypatch.setattr(precision_module, "_has_onnxruntime", lambda: False)
    assert resolve_precision("auto", "cpu", record=both) == "bf16"
    # explicit choices are kept whatever the record says
    assert resolve_precision("bf16", "cpu", record={}) == "bf16"


def test_the_package_record_is_readable(tmp_path: Path) -> None:
    record = read_record()
    assert isinstance(passed_precisions(record), set)
    assert read_record(tmp_path / "missing.json") == {}
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(PrecisionError, match="not a precision record"):
        read_record(bad)


def test_fp32_is_the_default_and_each_precision_has_its_own_forward() -> None:
    from agents.nets.evaluator import NetEvaluator

    a = NetEvaluator("", cache_size=0)
    b = NetEvaluator("", cache_size=0, precision="fp32")
    assert a.precision == "fp32" and a.shared is b.shared
    if BF16_REASON is None:
        c = NetEvaluator("", cache_size=0, precision="bf16")
        assert c.shared is not a.shared and c.shared.precision == "bf16"


def test_calibration_positions_are_seeded_and_of_the_network_shape() -> None:
    from agents.nets.checkpoint import load_net
    from agents.nets.onnx_int8 import calibration_planes

    net = load_net("")
    a = calibration_planes(net, 40, seed=3, games=2)
    b = calibration_planes(net, 40, seed=3, games=2)
    c = net.config
    assert a.shape == (40, c.in_planes, c.size, c.size) and a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    assert a[0, :10].sum() == 0 and a[-1, :10].sum() > 0  # the empty board, then stones


@pytest.mark.skipif(BF16_REASON is not None, reason=f"bf16: {BF16_REASON}")
def test_bf16_is_within_its_tolerance_of_fp32(positions: tuple[np.ndarray, np.ndarray]) -> None:
    dv, tv = _compare("bf16", positions)
    assert dv.max() <= BF16_VALUE_MAX, dv.max()
    assert tv.mean() <= BF16_TV_MEAN, tv.mean()
    assert tv.max() <= BF16_TV_MAX, tv.max()
    assert dv.max() > 0  # it really ran in another precision


@pytest.mark.skipif(INT8_REASON is not None, reason=f"int8: {INT8_REASON}")
def test_int8_is_within_its_tolerance_of_fp32(positions: tuple[np.ndarray, np.ndarray]) -> None:
    dv, tv = _compare("int8", positions)
    assert dv.max() <= INT8_VALUE_MAX, dv.max()
    assert dv.mean() <= INT8_VALUE_MEAN, dv.mean()
    assert tv.mean() <= INT8_TV_MEAN, tv.mean()
    assert tv.max() <= INT8_TV_MAX, tv.max()
    assert dv.max() > 0


@pytest.mark.skipif(BF16_REASON is not None, reason=f"bf16: {BF16_REASON}")
def test_a_search_runs_in_bf16_from_the_spec() -> None:
    from go_env import GoState, Rules

    agent = make_agent('mcts:sims=16,policy=puct,evaluator="net:precision=bf16",seed=1')
    move = agent.act(GoState(Rules(size=9)))
    assert 0 <= move <= 81
    assert agent.search.evaluator.shared.precision == "bf16"  # type: ignore[attr-defined]
