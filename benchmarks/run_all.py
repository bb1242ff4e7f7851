"""Run every speed benchmark in turn and print a summary of their verdicts (``make bench``).

Each benchmark runs in this process, one after the other (never in parallel: they would compete
for the cores). A benchmark that crashes is reported and the others still run.

Usage::

    python benchmarks/run_all.py                        # recorded numbers (several minutes)
    python benchmarks/run_all.py --quick                # smoke test of every script
    python benchmarks/run_all.py --json-dir runs/bench  # also one JSON file per benchmark
    python benchmarks/run_all.py --only mcts_speed --strict
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import env_speed
import mcts_speed
import net_forward
import playout_speed

__all__ = ["BENCHMARKS", "main"]

BENCHMARKS: dict[str, Callable[[list[str] | None], int]] = {
    "env_speed": env_speed.main,
    "playout_speed": playout_speed.main,
    "mcts_speed": mcts_speed.main,
    "net_forward": net_forward.main,
}
"""The benchmarks by name, in the order they run."""


class _Tee(io.StringIO):
    """Keeps what is written (to collect the verdict lines) and passes it on to ``out``."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self.out = out

    def write(self, text: str) -> int:
        self.out.write(text)
        return super().write(text)

    def flush(self) -> None:
        self.out.flush()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks; exit status 1 if one crashed (or, with ``--strict``, failed)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke-test mode of every script")
    parser.add_argument(
        "--json-dir",
        metavar="DIR",
        default=None,
        help="write DIR/<benchmark>.json for each benchmark",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        choices=list(BENCHMARKS),
        default=None,
        help="run only these benchmarks",
    )
    parser.add_argument(
        "--strict", action="store_true", help="exit with status 1 when a verdict is FAIL"
    )
    args = parser.parse_args(argv)

    verdicts: dict[str, list[str]] = {}
    crashed: list[str] = []
    for name in args.only or list(BENCHMARKS):
        script_args = ["--quick"] if args.quick else []
        if args.json_dir:
            script_args += ["--json", str(Path(args.json_dir) / f"{name}.json")]
        print(f"\n{'=' * 30} {name} {' '.join(script_args)}", flush=True)
        tee = _Tee(sys.stdout)
        try:
            with contextlib.redirect_stdout(tee):
                status = BENCHMARKS[name](script_args)
        except Exception:
            traceback.print_exc()
            status = 1
        if status != 0:
            crashed.append(name)
        verdicts[name] = [
            line for line in tee.getvalue().splitlines() if line.startswith(("PASS ", "FAIL "))
        ]

    print(f"\n{'=' * 30} summary{' (quick mode: not meaningful)' if args.quick else ''}")
    for name, lines in verdicts.items():
        for line in lines:
            print(f"{name}: {line}")
    for name in crashed:
        print(f"{name}: CRASHED (see the traceback above)")
    failed = any(line.startswith("FAIL") for lines in verdicts.values() for line in lines)
    return 1 if crashed or (args.strict and failed) else 0


if __name__ == "__main__":
    sys.exit(main())
