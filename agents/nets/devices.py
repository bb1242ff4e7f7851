"""The device a network runs on, as the ``device`` options name it (no torch import here).

``cpu``; ``cuda`` (the current GPU) or ``cuda:N`` (the N-th); ``auto``: CUDA when torch sees a
GPU, else the CPU. :func:`check_device` refuses any other name with one sentence, when a spec
is read, before a network is loaded.
"""

from __future__ import annotations

import re

__all__ = ["DEVICES", "check_device"]

DEVICES = ("cpu", "cuda", "cuda:N", "auto")
"""The device names a ``device`` option takes (``cuda:N``: the N-th GPU)."""

_NAME = re.compile(r"cpu|cuda|cuda:[0-9]{1,4}|auto")


def check_device(device: object) -> str:
    """``device`` when it names a device of :data:`DEVICES`.

    Raises:
        ValueError: Naming what was given and the allowed names.
    """
    if not isinstance(device, str) or not _NAME.fullmatch(device):
        raise ValueError(f"device must be one of {', '.join(DEVICES)}; got {device!r}")
    return device
