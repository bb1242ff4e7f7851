"""Shared helpers for tests that run a command line: a script from ``scripts/``, or a command
killed part-way through to test that it resumes.

Use them in a test module as::

    from scripts_support import kill_after_lines, run_script

    result = run_script("compare_matches.py", "a.jsonl", "b.jsonl")
    assert result.returncode == 0, result.stderr

    lines = kill_after_lines(cmd, out / "results.jsonl", 6, timeout=60)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = ["ROOT", "kill_after_lines", "run_script"]

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


def kill_after_lines(cmd: Sequence[str], path: Path, lines: int, *, timeout: float) -> int:
    """Start ``cmd`` in the repository root and SIGKILL it once ``path`` has ``lines`` lines.

    Returns the number of lines ``path`` has after the kill (the command may have written more
    before the signal arrived). Fails the test when the command ends by itself first, or when
    the lines are not there within ``timeout`` seconds.
    """
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        if path.exists() and len(path.read_bytes().splitlines()) >= lines:
            os.kill(proc.pid, signal.SIGKILL)
            break
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait(timeout=30)
            raise AssertionError(f"{path} did not reach {lines} lines in {timeout:g} s")
        time.sleep(0.005)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "the command ended before it could be killed"
    return len(path.read_bytes().splitlines())
