"""A network quantised to int8 and run by ONNX Runtime (the ``int8`` precision).

The network is exported to ONNX (opset 17, the batch dimension left free), its weights and
activations quantised to 8 bits by ONNX Runtime's static quantisation (QDQ format, weights
int8 per output channel, activations uint8 per tensor, ranges by min-max calibration), and run
by ONNX Runtime's CPU provider, whose int8 convolutions use the CPU's dot-product
instructions (VNNI, AMX). Static quantisation needs activation ranges: they come from
:func:`calibration_planes`, positions of games the network plays against itself by sampling
its own policy (so they fit any board size and input planes, and are seeded: the same
network always quantises to the same model).

Why ONNX Runtime and not torch's own x86 int8 path: measured in ``docs/dependencies.md``
(ONNX Runtime int8 was about 1.6x torch's FX int8 at batch 32 and 16x at batch 1, and torch's
FX quantisation is deprecated).

ONNX Runtime and onnx are optional (``pip install 'gomcts[onnx]'``); this module imports
them only when a model is built.
"""

from __future__ import annotations

import logging
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.nets.features import stack_planes
from agents.nets.model import PolicyValueNet
from go_env.rules import Rules
from go_env.state import GoState

__all__ = ["CALIBRATION_POSITIONS", "OnnxInt8Net", "calibration_planes", "quantise"]

CALIBRATION_POSITIONS = 512
"""Positions whose activations set the quantisation ranges."""


def calibration_planes(
    net: PolicyValueNet, count: int = CALIBRATION_POSITIONS, *, seed: int = 0, games: int = 32
) -> np.ndarray:
    """Input planes ``float32 (count, C, N, N)`` of positions from the network's own games.

    ``games`` games are played at once from the empty board (komi 7.5, positional superko),
    each move drawn from the network's masked policy; ``count`` positions (fewer when the
    games had fewer) are then taken evenly spaced from all the positions of all the games,
    openings to endings.
    """
    config = net.config
    rng = np.random.default_rng(seed)
    device = next(net.parameters()).device
    boards = [GoState(Rules(size=config.size, komi=7.5)) for _ in range(games)]
    seen: list[np.ndarray] = []
    with torch.inference_mode():
        while True:
            live = [g for g in boards if not g.is_over]
            if not live:
                break
            planes = stack_planes(live, config.history, config.tactical)
            seen.append(planes)
            logits, _ = net(torch.from_numpy(planes.astype(np.float32)).to(device))
            masks = np.stack([g.legal_mask() for g in live])
            z = np.where(masks, logits.double().cpu().numpy(), -np.inf)
            for game, row, legal in zip(live, z, masks, strict=True):
                if not legal.any():
                    game.play(game.pass_move)
                    continue
                p = np.exp(row - row.max())
                game.play(int(rng.choice(p.size, p=p / p.sum())))
    every = np.concatenate(seen)
    pick = np.linspace(0, len(every) - 1, num=min(count, len(every))).round().astype(np.int64)
    return every[pick].astype(np.float32)


class _Outputs(torch.nn.Module):
    """The network with a plain forward (no shape check), for the ONNX export."""

    def __init__(self, net: PolicyValueNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n = self.net
        h = n.tower(n.stem(x))
        logits = n.policy_fc(n.policy_conv(h).flatten(1))
        v = torch.relu(n.value_fc1(n.value_conv(h).flatten(1)))
        return logits, torch.tanh(n.value_fc2(v)).squeeze(1)


def quantise(net: PolicyValueNet, calibration: np.ndarray) -> bytes:
    """The int8 ONNX model (serialised) of ``net``, its ranges from ``calibration`` planes.

    Raises:
        ImportError: When onnx or ONNX Runtime is not installed.
    """
    import onnx  # noqa: F401  (the quantiser needs it; fail here with a clear name)
    from onnxruntime.quantization import CalibrationDataReader

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter(
                [{"x": calibration[i : i + 64]} for i in range(0, len(calibration), 64)]
            )

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    cpu = _Outputs(_cpu_copy(net)).eval()
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser's advice to pre-process (no gain, measured)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the exporter's notes on its legacy path
            return _quantise(cpu, calibration, Reader())
    finally:
        root.setLevel(level)


def _quantise(cpu: torch.nn.Module, calibration: np.ndarray, reader: Any) -> bytes:
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    with tempfile.TemporaryDirectory(prefix="gomcts-int8-") as tmp:
        folder = Path(tmp)
        example = torch.from_numpy(calibration[:2])
        torch.onnx.export(
            cpu,
            (example,),
            str(folder / "fp32.onnx"),
            dynamo=False,
            input_names=["x"],
            output_names=["logits", "value"],
            dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}, "value": {0: "batch"}},
            opset_version=17,
        )
        quantize_static(
            str(folder / "fp32.onnx"),
            str(folder / "int8.onnx"),
            reader,
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
        )
        return (folder / "int8.onnx").read_bytes()


def _cpu_copy(net: PolicyValueNet) -> PolicyValueNet:
    copy = PolicyValueNet(net.config)
    copy.load_state_dict({k: v.detach().cpu() for k, v in net.state_dict().items()})
    return copy.eval()


class OnnxInt8Net:
    """``float32 (B, C, N, N) -> (logits float32 (B, A), values float64 (B,))`` in int8.

    Args:
        net: The network (left unchanged).
        threads: ONNX Runtime's threads (0: torch's current CPU thread count, which
            :func:`agents.nets.threads.use_threads` sets).
        calibration: Planes to calibrate on (``None``: :func:`calibration_planes`).
    """

    def __init__(
        self, net: PolicyValueNet, *, threads: int = 0, calibration: np.ndarray | None = None
    ) -> None:
        import onnxruntime as ort

        planes = calibration_planes(net) if calibration is None else calibration
        self.model = quantise(net, planes)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or torch.get_num_threads()
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session: Any = ort.InferenceSession(
            self.model, options, providers=["CPUExecutionProvider"]
        )

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits and values of input planes ``x``."""
        logits, values = self.session.run(None, {"x": np.ascontiguousarray(x, np.float32)})
        return logits, values.astype(np.float64)
