"""Layouts of the observation planes, for learning libraries that expect one.

The planes of :mod:`go_env.features` are ``int8`` in ``(N, N, C)`` order (height, width,
channels), as PettingZoo's classic board games give theirs. Learning libraries expect other
layouts:

* ``"hwc"``: ``int8 (N, N, C)``, values 0 and 1: the planes as computed (the default of the
  PettingZoo environment).
* ``"chw"``: ``float32 (C, N, N)``, values 0.0 and 1.0: channel-first, the order of PyTorch's
  convolutions (CleanRL, a custom features extractor of Stable-Baselines3).
* ``"flat"``: ``float32 (C * N * N,)``, the ``"chw"`` array flattened (the default of the
  Gymnasium environment). Stable-Baselines3's ``check_env`` takes any 3-D ``Box`` for an image
  and warns when it is not ``uint8`` in ``[0, 255]`` of at least 36x36 points, which no Go
  board is: a 1-D ``Box`` is what its MLP policies (and ``MultiInputPolicy`` on the dict with
  the action mask) take without a warning. ``reshape(C, N, N)`` gives the planes back.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from gymnasium import spaces

from go_env.features import PLANE_DTYPE

__all__ = ["OBSERVATION_FORMATS", "ObservationFormat", "check_format", "convert", "planes_space"]

ObservationFormat = Literal["hwc", "chw", "flat"]
OBSERVATION_FORMATS: tuple[str, ...] = ("hwc", "chw", "flat")


def check_format(name: object) -> ObservationFormat:
    """``name`` when it is one of :data:`OBSERVATION_FORMATS`.

    Raises:
        ValueError: Otherwise, naming the allowed formats.
    """
    if not isinstance(name, str) or name not in OBSERVATION_FORMATS:
        raise ValueError(
            f"observation_format must be one of {', '.join(OBSERVATION_FORMATS)}; got {name!r}"
        )
    return name  # type: ignore[return-value]


def planes_space(size: int, planes: int, fmt: ObservationFormat) -> spaces.Box:
    """The ``Box`` of ``planes`` planes of an ``size x size`` board in layout ``fmt``."""
    if fmt == "hwc":
        return spaces.Box(0, 1, (size, size, planes), dtype=PLANE_DTYPE)
    shape = (planes, size, size) if fmt == "chw" else (planes * size * size,)
    return spaces.Box(0.0, 1.0, shape, dtype=np.float32)


def convert(planes_hwc: np.ndarray, fmt: ObservationFormat) -> np.ndarray:
    """``(N, N, C)`` planes in layout ``fmt`` (a new array unless ``fmt`` is ``"hwc"``)."""
    if fmt == "hwc":
        return planes_hwc
    chw = np.ascontiguousarray(planes_hwc.transpose(2, 0, 1), dtype=np.float32)
    return chw if fmt == "chw" else chw.ravel()
