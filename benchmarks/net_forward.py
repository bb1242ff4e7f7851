"""The network alone, by precision and runtime: positions per second by batch size.

The shipped network (``agents/nets/models/b4c32-9x9.pt.gz``) evaluates batches of real positions
(positions of games it plays against itself, :func:`agents.nets.onnx_int8.calibration_planes`
with another seed than the quantiser's) on one thread: input planes ``float32 (B, C, 9, 9)`` in,
logits and values out (``NetForward.raw``: no symmetry, no mask, no softmax). The search's
time outside the network is measured by ``benchmarks/shared_evaluator.py``; this table is the
network's own limit on this CPU.

Cases, each measured when this machine runs it (:mod:`agents.nets.precision`):

* ``fp32``: torch, float32 (today's path, the reference of every ratio);
* ``bf16``: torch under ``torch.autocast`` in bfloat16 (CPUs with ``avx512_bf16``/AMX);
* ``int8``: ONNX Runtime, the network quantised to int8 (``pip install 'gomcts[onnx]'``);

and, with ``--references``, two runtimes that are not precision options, measured to show
why (``docs/dependencies.md``): ``onnxruntime fp32`` (the same network unquantised) and
``torch int8 (FX, x86)`` (torch's own static int8 quantisation, deprecated in torch).

Every trial runs every case of a batch size once, in an order that rotates between trials;
ratios are per trial, against fp32 of the same trial.

Usage::

    python benchmarks/net_forward.py                 # recorded numbers (a few minutes)
    python benchmarks/net_forward.py --references    # with the rejected runtimes
    python benchmarks/net_forward.py --quick         # smoke test
"""

from __future__ import annotations

import copy
import logging
import math
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from common import (
    SERIES_HEADER,
    Case,
    Report,
    Sample,
    Stopwatch,
    base_parser,
    cpu_ratio_cell,
    finish_args,
    format_rate,
    optional_import,
    positive_int,
    print_table,
    ratio_cell,
    run_trials,
    series_row,
)

__all__ = ["BATCHES", "main"]

BATCHES = (1, 8, 32, 128, 256)
"""Batch sizes of the recorded table."""

Forward = Callable[[np.ndarray], Any]


def _cpu_flags_line() -> str:
    from agents.nets.precision import BF16_FLAGS, INT8_DOT_FLAGS, INT8_FLAGS, cpu_flags

    flags = cpu_flags()
    wanted = sorted(f for f in flags if f.startswith(("avx512", "amx", "avx_vnni", "avx2")))
    shown = " ".join(wanted) or "(none of avx2, avx512*, amx*, avx_vnni)"
    bf16 = "yes" if flags & set(BF16_FLAGS) else "no"
    dot = flags & set(INT8_DOT_FLAGS)
    int8 = "dot products" if dot else "AVX2" if flags & set(INT8_FLAGS) else "no"
    return f"CPU flags: {shown}; native bf16: {bf16}; int8 kernels: {int8}"


def _forwards(references: bool) -> tuple[dict[str, Forward], list[str]]:
    """The cases this machine runs, and a line for each one it skips."""
    import torch

    from agents.nets.checkpoint import load_net
    from agents.nets.evaluator import NetForward
    from agents.nets.precision import PRECISIONS, unsupported_reason

    net = load_net("")
    cpu = torch.device("cpu")
    out: dict[str, Forward] = {}
    skipped: list[str] = []
    for precision in PRECISIONS:
        reason = unsupported_reason(precision, "cpu")
        if reason is None:
            out[precision] = NetForward(net, cpu, precision).raw
        else:
            skipped.append(f"{precision}: skipped ({reason})")
    if references:
        try:
            out["onnxruntime fp32"] = _onnxruntime_fp32(net)
        except ImportError as exc:
            skipped.append(f"onnxruntime fp32: skipped ({exc})")
        try:
            out["torch int8 (FX, x86)"] = _torch_fx_int8(net)
        except (ImportError, RuntimeError, AttributeError) as exc:
            skipped.append(f"torch int8 (FX, x86): skipped ({exc})")
    return out, skipped


def _onnxruntime_fp32(net: Any) -> Forward:
    """ONNX Runtime on the float32 export of ``net`` (one thread)."""
    import tempfile

    import onnxruntime as ort
    import torch

    from agents.nets.onnx_int8 import _Outputs

    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = f"{tmp}/fp32.onnx"
        torch.onnx.export(
            _Outputs(net).eval(),
            (torch.zeros(2, net.config.in_planes, net.config.size, net.config.size),),
            path,
            dynamo=False,
            input_names=["x"],
            output_names=["logits", "value"],
            dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}, "value": {0: "batch"}},
            opset_version=17,
        )
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    return lambda x: session.run(None, {"x": x})


def _torch_fx_int8(net: Any) -> Forward:
    """torch's FX graph-mode static int8 quantisation with the x86 backend."""
    import torch

    from agents.nets.onnx_int8 import _Outputs, calibration_planes

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.getLogger("torch").setLevel(logging.ERROR)
        from torch.ao.quantization import get_default_qconfig_mapping
        from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

        torch.backends.quantized.engine = "x86"
        calibration = torch.from_numpy(calibration_planes(net))
        prepared = prepare_fx(
            _Outputs(copy.deepcopy(net)).eval(),
            get_default_qconfig_mapping("x86"),
            example_inputs=(calibration[:2],),
        )
        with torch.inference_mode():
            for i in range(0, len(calibration), 64):
                prepared(calibration[i : i + 64])
        model = convert_fx(prepared)

    def forward(x: np.ndarray) -> Any:
        with torch.inference_mode():
            return model(torch.from_numpy(x))

    return forward


def _case(name: str, forward: Forward, planes: np.ndarray, batch: int, positions: int) -> Case:
    calls = max(1, math.ceil(positions / batch))
    rows = np.resize(np.arange(len(planes)), batch)
    x = np.ascontiguousarray(planes[rows])

    def run() -> Sample:
        forward(x)  # warm: a first call of a shape may allocate or plan
        clock = Stopwatch()
        with clock:
            for _ in range(calls):
                forward(x)
        return clock.sample(calls * batch, calls=calls)

    return Case(name, "positions/s", run)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (see the module docstring); returns the exit status."""
    parser = base_parser(__doc__.splitlines()[0], trials=5)
    parser.add_argument(
        "--batches",
        type=positive_int,
        nargs="+",
        default=list(BATCHES),
        help=f"batch sizes (default {' '.join(map(str, BATCHES))})",
    )
    parser.add_argument(
        "--positions",
        type=positive_int,
        default=None,
        help="positions per case and trial (default 4096; 64 with --quick)",
    )
    parser.add_argument(
        "--references",
        action="store_true",
        help="also measure ONNX Runtime fp32 and torch's FX int8 (not precision options)",
    )
    args = finish_args(parser.parse_args(argv))
    positions = args.positions or (64 if args.quick else 4096)
    if optional_import("torch") is None:
        print("net_forward: skipped (torch not installed: pip install -e .[nets])")
        return 0

    from agents.nets.checkpoint import load_net
    from agents.nets.onnx_int8 import calibration_planes
    from agents.nets.threads import use_threads

    use_threads(1)
    report = Report("net_forward: the shipped network alone, by precision and batch size", args)
    print(_cpu_flags_line())
    import torch

    print(
        f"torch {torch.__version__}, capability {torch.backends.cpu.get_cpu_capability()}, "
        f"oneDNN {torch.backends.mkldnn.is_available()}; one thread; "
        f"{positions} positions per case and trial"
    )
    forwards, skipped = _forwards(args.references)
    for line in skipped:
        print(line)
    planes = calibration_planes(load_net(""), 256, seed=1)
    summary: dict[str, dict[int, str]] = {name: {} for name in forwards}
    for batch in args.batches:
        print(f"batch {batch}: {args.trials} trials", file=sys.stderr)
        cases = [_case(n, f, planes, batch, positions) for n, f in forwards.items()]
        series = run_trials(cases, args.trials)
        base = series["fp32"]
        ratios = {n: s.ratio_to(base) for n, s in series.items()}
        print_table(
            f"Positions per second, batch {batch}",
            [*SERIES_HEADER, "this / fp32", "same, per CPU-s"],
            [
                series_row(s, ratio_cell(ratios[n]), cpu_ratio_cell(ratios[n]))
                for n, s in series.items()
            ],
        )
        report.add_section(
            f"batch {batch}", series, [r for n, r in ratios.items() if n != "fp32"], batch=batch
        )
        for n, s in series.items():
            summary[n][batch] = (
                f"{format_rate(s.cpu_median)} ({ratios[n].cpu_median:.2f}x)"
                if n != "fp32"
                else format_rate(s.cpu_median)
            )
    print_table(
        "Positions per CPU-second by batch size (ratio to fp32 in the same trials)",
        ["case", *(f"batch {b}" for b in args.batches)],
        [[n, *(cells[b] for b in args.batches)] for n, cells in summary.items()],
    )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
