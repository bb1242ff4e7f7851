"""Shared helper for tests that run a command-line script from ``scripts/``.

Use it in a test module as::

    from scripts_support import run_script

    result = run_script("compare_matches.py", "a.jsonl", "b.jsonl")
    assert result.returncode == 0, result.stderr
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

__all__ = ["ROOT", "run_script"]

ROOT = Path(__file__).resolve().parents[1]
"""The repository root (scripts run with it as their working directory)."""


def run_script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``scripts/<name>`` with ``args`` in this interpreter; output captured as text."""
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / name), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
