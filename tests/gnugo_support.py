"""Shared helpers for tests that need the GNU Go program (``gnugo``).

The fixtures ``gnugo_path`` and ``gnugo_engine`` are in ``tests/conftest.py`` (a test asks for
them by name); :func:`gnugo_board` reads GNU Go's position back (``COLOR_NAMES`` are GTP's
color words).

Without GNU Go such tests are skipped with the reason, except under ``CI=true``, where the
missing program fails them: CI must never pass by skipping the evidence.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from agents.gtp import GtpProcess
from go_env.coords import from_gtp
from go_env.state import Color

__all__ = [
    "COLOR_NAMES",
    "find_gnugo",
    "gnugo_board",
    "require_gnugo",
]

COLOR_NAMES = {Color.BLACK: "black", Color.WHITE: "white"}
"""GTP's word for each color."""

# Debian and Ubuntu install GNU Go as /usr/games/gnugo, which is not on every user's PATH.
_KNOWN_LOCATIONS = ("/usr/games/gnugo", "/usr/local/games/gnugo")


def find_gnugo() -> str | None:
    """Path of the ``gnugo`` program: on PATH, else at a known install location, else None."""
    found = shutil.which("gnugo")
    if found:
        return found
    for candidate in _KNOWN_LOCATIONS:
        if Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def require_gnugo() -> str:
    """The path of ``gnugo``; skips the test without it, or fails it when ``CI=true``."""
    path = find_gnugo()
    if path is not None:
        return path
    where = f"PATH or {', '.join(_KNOWN_LOCATIONS)}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"GNU Go (gnugo) is required under CI=true but was not found on {where}")
    pytest.skip(f"GNU Go (gnugo) not found on {where}; install it with `apt-get install gnugo`")


def gnugo_board(engine: GtpProcess, size: int) -> np.ndarray:
    """GNU Go's current position as a ``(size, size)`` int8 board of :class:`Color` values."""
    board = np.zeros(size * size, dtype=np.int8)
    for color in (Color.BLACK, Color.WHITE):
        for vertex in engine.send(f"list_stones {COLOR_NAMES[color]}").split():
            board[from_gtp(vertex, size)] = color
    return board.reshape(size, size)
