"""AEC environment speed: our ``go_env`` against PettingZoo's ``go_v5``, random legal moves.

Two pairs are compared on each board size, each pair in its own alternating trials: the wrapped
environments, ``go_env.env(board_size=N)`` against ``go_v5.env(board_size=N)``, and the raw ones
without PettingZoo's wrappers, ``go_env.raw_env(board_size=N)`` against
``go_v5.raw_env(board_size=N)``.

One driver serves both environments: ``env.last()``, a uniformly random legal action drawn from
the observation's action mask with the same seeded ``random.Random`` (one ``randrange`` per
move), ``env.step(action)``; at the end of a game each agent takes its ``step(None)`` and the
environment is reset. The rate counts the moves played (``step`` with an action); the end-of-game
``step(None)`` calls and the resets are inside the timed loop but are not counted as moves.

Target (issue 2): ours at least 10x go_v5 on 9x9 and on 19x19, measured in the same run; one
verdict per pair and size.

Usage::

    python benchmarks/env_speed.py              # recorded numbers (5 trials of 3 s per case)
    python benchmarks/env_speed.py --quick      # smoke test
    python benchmarks/env_speed.py --sizes 9 --seconds 1 --json runs/bench/env.json
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from common import (
    SERIES_HEADER,
    Case,
    Report,
    Sample,
    Series,
    Stopwatch,
    Verdict,
    base_parser,
    cpu_ratio_cell,
    finish_args,
    optional_import,
    positive_float,
    positive_int,
    print_table,
    ratio_cell,
    run_trials,
    series_row,
)

__all__ = ["TARGET_RATIO", "drive", "main"]

TARGET_RATIO = 10.0
"""Issue 2: our environment at least this many times as fast as go_v5."""

OURS = "gomcts go_env.env"
PEER = "PettingZoo go_v5.env"
OURS_RAW = "gomcts go_env.raw_env"
PEER_RAW = "PettingZoo go_v5.raw_env"


def drive(env: Any, seconds: float, seed: int) -> Sample:
    """Play random legal moves on an AEC ``env`` for about ``seconds``; count the moves.

    The first ``reset`` is not timed; the resets after finished games are.
    """
    rnd = random.Random(seed)
    flatnonzero = np.flatnonzero
    perf_counter = time.perf_counter
    env.reset(seed=seed)
    moves = games = 0
    clock = Stopwatch()
    with clock:
        end = perf_counter() + seconds
        while True:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                if not env.agents:
                    games += 1
                    env.reset()
                continue
            legal = flatnonzero(observation["action_mask"])
            env.step(int(legal[rnd.randrange(len(legal))]))
            moves += 1
            if perf_counter() >= end:
                break
    return clock.sample(moves, games=games)


def _timed(make: Callable[[], Any], seconds: float, seed: int) -> Sample:
    env = make()  # a fresh env per trial: go_v5 keeps its board size in module globals
    try:
        return drive(env, seconds, seed)
    finally:
        env.close()


def _maker(module: Any, factory: str, size: int) -> Callable[[], Any]:
    """A function building ``module.<factory>(board_size=size)`` (``env`` or ``raw_env``)."""
    build = getattr(module, factory)
    return lambda: build(board_size=size)


def _case(name: str, make: Callable[[], Any], seconds: float, seed: int) -> Case:
    return Case(name, "moves/s", lambda: _timed(make, seconds, seed))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (see the module docstring); returns the exit status."""
    parser = base_parser(__doc__.splitlines()[0], trials=5)
    parser.add_argument(
        "--sizes",
        type=positive_int,
        nargs="+",
        default=None,
        help="board sizes (default 9 19; 9 with --quick)",
    )
    parser.add_argument(
        "--seconds",
        type=positive_float,
        default=None,
        help="timed seconds per case and trial (default 3; 0.2 with --quick)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the move sampler")
    args = finish_args(parser.parse_args(argv))
    sizes = args.sizes or ([9] if args.quick else [9, 19])
    seconds = args.seconds or (0.2 if args.quick else 3.0)

    import go_env

    go_v5 = optional_import("pettingzoo.classic.go_v5")
    report = Report("env_speed: AEC steps with random legal moves", args)
    print(f"{args.trials} trials x {seconds:g} s per case; moves counted, resets timed")
    if go_v5 is None:
        print(f"{PEER}: skipped (pettingzoo.classic.go_v5 needs pygame: pip install -e .[bench])")
    for size in sizes:
        pairs = [(OURS, PEER, "env"), (OURS_RAW, PEER_RAW, "raw_env")]
        series: dict[str, Series] = {}
        ratios = []
        rows = []
        for ours_name, peer_name, factory in pairs:
            makers = {ours_name: _maker(go_env, factory, size)}
            if go_v5 is not None:
                makers[peer_name] = _maker(go_v5, factory, size)
            for make in makers.values():  # warm-up: imports, compiled kernels, caches
                _timed(make, min(seconds, 0.1), args.seed)
            cases = [_case(name, make, seconds, args.seed) for name, make in makers.items()]
            pair = run_trials(cases, args.trials)
            series.update(pair)
            ours = pair[ours_name]
            ours_row = series_row(ours, f"{ours.extra_total('games'):.0f}", "", "")
            rows.append(ours_row)
            if peer_name in pair:
                ratio = ours.ratio_to(pair[peer_name])
                ratios.append(ratio)
                peer_games = f"{pair[peer_name].extra_total('games'):.0f}"
                rows.append(series_row(pair[peer_name], peer_games, "", ""))
                ours_row[-2:] = [ratio_cell(ratio), cpu_ratio_cell(ratio)]
                report.verdict(
                    Verdict(
                        f"env {size}x{size}: {ours_name} / {peer_name}",
                        ratio.median,
                        TARGET_RATIO,
                        detail=f"per CPU-second {ratio.cpu_median:.2f}x",
                    )
                )
        print_table(
            f"AEC moves per second, {size}x{size}",
            [*SERIES_HEADER, "games", "ours / go_v5", "same, per CPU-s"],
            rows,
        )
        report.add_section(
            f"env {size}x{size}", series, ratios, board_size=size, seconds_per_trial=seconds
        )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
