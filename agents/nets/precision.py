"""The numeric precision of a network evaluation: the choices, what this machine runs, ``auto``.

A :class:`~agents.nets.evaluator.NetEvaluator` runs its network in one of :data:`PRECISIONS`:

* ``fp32``: torch in float32, the reference (the golden-move tests are written against it);
* ``bf16``: torch under ``torch.autocast`` in bfloat16 (float16 on a CUDA device without
  bfloat16); on the CPU only where the CPU computes bfloat16 natively (the ``avx512_bf16`` or
  ``amx_bf16`` flag): elsewhere torch emulates it, slower than float32;
* ``int8``: ONNX Runtime with the network quantised to int8 (:mod:`agents.nets.onnx_int8`), on
  the CPU only, where the CPU has int8 dot-product instructions (``avx512_vnni``, ``avx_vnni``
  or ``amx_int8``) or, without them, AVX2 (ONNX Runtime's multiply-add kernels), and the
  optional ``onnx`` extra is installed.

``auto`` is the fastest precision (:data:`AUTO_ORDER`, fastest first as measured in
``docs/performance.md``, "Raw forward by precision") that this machine supports and that
passed the accuracy check of ``scripts/precision_accuracy.py``, whose verdicts are recorded in
:data:`RECORD` (``precision_checks.json`` beside this module); ``fp32`` when none did. The
check was made on the shipped network (the record names its digest).

Features are detected, never assumed (the project's machines are Intel Xeon or AMD EPYC):
the CPU's flags from ``/proc/cpuinfo`` and, for the runtimes, whether torch's oneDNN backend
and ONNX Runtime are there. An explicit precision this machine cannot run is an error
(:class:`PrecisionError`) naming the reason; nothing falls back silently.

This module imports neither torch nor ONNX Runtime at import time (spec parsing uses it).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import platform
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "AUTO_ORDER",
    "CHOICES",
    "PRECISIONS",
    "RECORD",
    "PrecisionError",
    "check_precision",
    "cpu_flags",
    "passed_precisions",
    "read_record",
    "resolve_precision",
    "supported_precisions",
    "unsupported_reason",
]

PRECISIONS: tuple[str, ...] = ("fp32", "bf16", "int8")
"""The precisions a network evaluation can run in."""

CHOICES: tuple[str, ...] = ("auto", *PRECISIONS)
"""The values of a ``precision`` option."""

AUTO_ORDER: tuple[str, ...] = ("int8", "bf16")
"""The reduced precisions ``auto`` considers, fastest first (measured on the CPU by
``benchmarks/net_forward.py``: int8 under ONNX Runtime about 4x fp32 at batch 32, torch bf16
about 1.5x; ``docs/performance.md``)."""

RECORD = "precision_checks.json"
"""File name, in this package, of the accuracy check's verdicts (written by
``scripts/precision_accuracy.py``)."""

BF16_FLAGS = ("avx512_bf16", "amx_bf16")
"""CPU flags of native bfloat16 arithmetic (x86)."""

INT8_DOT_FLAGS = ("avx512_vnni", "avx_vnni", "amx_int8")
"""CPU flags of int8 dot products (x86): ONNX Runtime's fastest int8 kernels."""

INT8_FLAGS = (*INT8_DOT_FLAGS, "avx2")
"""CPU flags (x86) with which ONNX Runtime's int8 kernels beat fp32: the int8 dot products
(:data:`INT8_DOT_FLAGS`) and, on CPUs without them, AVX2 (measured on an AVX2-only AMD EPYC:
7x fp32 at batch 1 and 2.6x at batch 32, as accurate as with VNNI; ``docs/performance.md``,
"int8 on a CPU without VNNI")."""


class PrecisionError(ValueError):
    """A precision that is not one of :data:`CHOICES`, or that this machine cannot run."""


def check_precision(precision: object) -> str:
    """``precision`` when it is one of :data:`CHOICES`.

    Raises:
        PrecisionError: Naming the allowed values.
    """
    if not isinstance(precision, str) or precision not in CHOICES:
        raise PrecisionError(f"precision must be one of {', '.join(CHOICES)}; got {precision!r}")
    return precision


@functools.cache
def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags (``/proc/cpuinfo``; empty where that file is not there)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith(("flags", "Features")):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def _has_onnxruntime() -> bool:
    return (
        importlib.util.find_spec("onnxruntime") is not None
        and importlib.util.find_spec("onnx") is not None
    )


def unsupported_reason(precision: str, device: str = "cpu") -> str | None:
    """Why this machine cannot run ``precision`` on ``device`` (``None``: it can).

    Args:
        precision: One of :data:`PRECISIONS`.
        device: A torch device name (``"cpu"``, ``"cuda"``, ``"cuda:1"``), already resolved
            (not ``"auto"``).

    Raises:
        PrecisionError: For a name outside :data:`PRECISIONS`.
    """
    if precision not in PRECISIONS:
        raise PrecisionError(f"precision must be one of {', '.join(PRECISIONS)}; got {precision!r}")
    cuda = str(device).startswith("cuda")
    if precision == "fp32":
        return None
    if precision == "bf16":
        if cuda:
            return None  # bfloat16, or float16 where the GPU lacks bfloat16
        import torch

        if not torch.backends.mkldnn.is_available():
            return "torch was built without oneDNN (mkldnn), which runs bfloat16 on the CPU"
        if not cpu_flags() & set(BF16_FLAGS):
            return (
                f"this CPU ({platform.machine()}) has no native bfloat16 "
                f"({' or '.join(BF16_FLAGS)} flag): torch would emulate it, slower than fp32"
            )
        return None
    if cuda:
        return "int8 runs on the CPU only (ONNX Runtime's CPU provider); use bf16 on a GPU"
    if not _has_onnxruntime():
        return (
            "int8 needs ONNX Runtime and onnx, which are not installed: pip install 'gomcts[onnx]'"
        )
    if not cpu_flags() & set(INT8_FLAGS):
        return (
            f"this CPU ({platform.machine()}) has neither int8 dot-product instructions nor "
            f"AVX2 (one of the flags {', '.join(INT8_FLAGS)})"
        )
    return None


def supported_precisions(device: str = "cpu") -> list[str]:
    """The precisions of :data:`PRECISIONS` this machine runs on ``device``."""
    return [p for p in PRECISIONS if unsupported_reason(p, device) is None]


def read_record(path: str | Path | None = None) -> dict[str, Any]:
    """The accuracy check's record (``{}`` when the file does not exist).

    Args:
        path: The record file (``None``: :data:`RECORD` in this package).

    Raises:
        PrecisionError: When the file exists but is not a record.
    """
    if path is None:
        source = resources.files("agents.nets").joinpath(RECORD)
        if not source.is_file():
            return {}
        text = source.read_text(encoding="utf-8")
        where = f"agents/nets/{RECORD}"
    else:
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PrecisionError(f"{where} is not JSON: {exc}") from None
    if not isinstance(record, dict) or not isinstance(record.get("precisions", {}), dict):
        raise PrecisionError(f"{where} is not a precision record (no 'precisions' object)")
    return record


@functools.cache
def _package_record() -> dict[str, Any]:
    """The package's record, read once per process (agents are rebuilt every game)."""
    return read_record()


def passed_precisions(record: dict[str, Any]) -> set[str]:
    """The precisions whose accuracy check passed in ``record`` (:func:`read_record`)."""
    return {
        name
        for name, entry in record.get("precisions", {}).items()
        if isinstance(entry, dict) and entry.get("passed") is True
    }


def resolve_precision(
    precision: str, device: str = "cpu", *, record: dict[str, Any] | None = None
) -> str:
    """The precision to run: ``precision`` itself, or ``auto``'s choice.

    Args:
        precision: One of :data:`CHOICES`.
        device: The resolved torch device name.
        record: The accuracy record (``None``: the package's, :func:`read_record`).

    Raises:
        PrecisionError: For a value outside :data:`CHOICES`, or an explicit precision this
            machine cannot run (the message says why).
    """
    check_precision(precision)
    if precision != "auto":
        reason = unsupported_reason(precision, device)
        if reason is not None:
            raise PrecisionError(f"precision {precision} cannot run on {device}: {reason}")
        return precision
    passed = passed_precisions(_package_record() if record is None else record)
    for name in AUTO_ORDER:
        if name in passed and unsupported_reason(name, device) is None:
            return name
    return "fp32"
