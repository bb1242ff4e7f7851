"""Compiled random playouts from the empty board, on one core, against OpenSpiel's go.

Cases (one process, one thread each):

* ``GoState.random_playout``: the Python API, one call (one playout, fresh seed) per playout.
* ``kernels.random_playout in a numba loop``: the raw kernel of :mod:`go_env.kernels` called
  from a compiled loop that copies the empty-board vector before each playout; it also counts
  the moves of each playout (passes included), giving the average playout length.
* ``kernels.heavy_playout in a numba loop``: the same loop with the heavy playout (the last
  move's captures and escapes first, no self-atari; :mod:`go_env._core.heavy_playout`), and
  its ratio to the light kernel's playouts/s (no target: what ``playout=heavy`` costs).
* ``kernels.heavy_playout with patterns``: the heavy loop with MoGo's 3x3 shapes and captures
  anywhere (``patterns=True``; :mod:`go_env._core.patterns`), and its ratio to the heavy
  kernel's playouts/s (no target: what ``playout=patterns`` costs over ``heavy``).
* ``OpenSpiel go, Python API``: random games with ``state.legal_actions()`` and
  ``state.apply_action`` driven from Python by a seeded ``random.Random``; a peer for moves/s.

The policies differ: ours is the light playout (uniform over legal points that do not fill an
own eye, pass only when nothing else is left), OpenSpiel's random game is uniform over all legal
actions including pass and eye-filling moves. Both stop at two passes or at ``2 * N * N`` moves.

Target (issue 2): at least 20,000 playouts/s on 9x9 (both of our cases are judged).

Usage::

    python benchmarks/playout_speed.py             # recorded numbers (5 trials of 3 s per case)
    python benchmarks/playout_speed.py --quick     # smoke test
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from typing import Any

from common import (
    SERIES_HEADER,
    Case,
    Ratio,
    Report,
    Sample,
    Stopwatch,
    Verdict,
    base_parser,
    cpu_ratio_cell,
    finish_args,
    format_rate,
    optional_import,
    positive_float,
    positive_int,
    print_table,
    ratio_cell,
    run_trials,
    series_row,
)
from numba import njit

from go_env import GoState, Rules
from go_env.kernels import H_MOVES, heavy_playout, random_playout, seed_rng

__all__ = ["TARGET_PLAYOUTS", "main"]

TARGET_PLAYOUTS = 20_000.0
"""Issue 2: compiled random playouts per second from the empty 9x9 board, one core."""

API = "GoState.random_playout"
KERNEL = "kernels.random_playout in a numba loop"
HEAVY = "kernels.heavy_playout in a numba loop"
PATTERNS = "kernels.heavy_playout with patterns"
PEER = "OpenSpiel go, Python API"


@njit(cache=True)
def _playout_batch(start, nbr, diag, zob, max_moves, rng, count, policy):  # pragma: no cover
    """Run ``count`` playouts from a copy of ``start``; return their moves.

    ``policy``: 0 light, 1 heavy, 2 heavy with patterns.
    """
    work = start.copy()
    moves = 0
    for _ in range(count):
        work[:] = start
        if policy > 0:
            heavy_playout(work, nbr, diag, zob, max_moves, rng, False, policy == 2)
        else:
            random_playout(work, nbr, diag, zob, max_moves, rng)
        moves += work[H_MOVES] - start[H_MOVES]
    return moves


def _api_case(rules: Rules, seconds: float) -> Sample:
    state = GoState(rules)
    play = state.random_playout
    perf_counter = time.perf_counter
    playouts = 0
    clock = Stopwatch()
    with clock:
        end = perf_counter() + seconds
        while perf_counter() < end:
            play(playouts)
            playouts += 1
    return clock.sample(playouts)


def _kernel_case(rules: Rules, seconds: float, seed: int, batch: int, policy: int) -> Sample:
    compiled = GoState(rules).compiled()
    geo = compiled.geometry
    rng = seed_rng(seed)
    playouts = moves = 0
    clock = Stopwatch()
    with clock:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            moves += int(
                _playout_batch(
                    compiled.vector,
                    geo.nbr,
                    geo.diag,
                    geo.zobrist,
                    compiled.move_limit,
                    rng,
                    batch,
                    policy,
                )
            )
            playouts += batch
    return clock.sample(playouts, moves=moves)


def _openspiel_case(pyspiel: Any, size: float, komi: float, seconds: float, seed: int) -> Sample:
    game = pyspiel.load_game("go", {"board_size": int(size), "komi": komi})
    rnd = random.Random(seed)
    randrange = rnd.randrange
    perf_counter = time.perf_counter
    games = moves = 0
    clock = Stopwatch()
    with clock:
        end = perf_counter() + seconds
        while perf_counter() < end:
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[randrange(len(legal))])
                moves += 1
            games += 1
    return clock.sample(games, moves=moves)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (see the module docstring); returns the exit status."""
    parser = base_parser(__doc__.splitlines()[0], trials=5)
    parser.add_argument("--size", type=positive_int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument(
        "--seconds",
        type=positive_float,
        default=None,
        help="timed seconds per case and trial (default 3; 0.2 with --quick)",
    )
    parser.add_argument(
        "--batch",
        type=positive_int,
        default=200,
        help="playouts per call of the compiled loop (default 200)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the generators")
    args = finish_args(parser.parse_args(argv))
    seconds = args.seconds or (0.2 if args.quick else 3.0)
    rules = Rules(size=args.size, komi=args.komi)
    pyspiel = optional_import("pyspiel")

    report = Report(
        f"playout_speed: random playouts from the empty {args.size}x{args.size} board, one core",
        args,
    )
    print(f"{args.trials} trials x {seconds:g} s per case; move cap {rules.move_limit}")
    if pyspiel is None:
        print(f"{PEER}: skipped (open_spiel not installed: pip install -e .[bench])")

    def make_cases(secs: float) -> list[Case]:
        cases = [
            Case(API, "playouts/s", lambda: _api_case(rules, secs)),
            Case(
                KERNEL,
                "playouts/s",
                lambda: _kernel_case(rules, secs, args.seed, args.batch, 0),
            ),
            Case(
                HEAVY,
                "playouts/s",
                lambda: _kernel_case(rules, secs, args.seed, args.batch, 1),
            ),
            Case(
                PATTERNS,
                "playouts/s",
                lambda: _kernel_case(rules, secs, args.seed, args.batch, 2),
            ),
        ]
        if pyspiel is not None:
            cases.append(
                Case(
                    PEER,
                    "games/s",
                    lambda: _openspiel_case(pyspiel, args.size, args.komi, secs, args.seed),
                )
            )
        return cases

    for case in make_cases(0.05):  # warm-up: compilation (or loading the cache), imports
        case.run()
    cases = make_cases(seconds)
    series = run_trials(cases, args.trials)

    kernel = series[KERNEL]
    length = kernel.extra_total("moves") / kernel.units_total()
    heavy = series[HEAVY]
    patterns = series[PATTERNS]
    rows = [
        series_row(series[API], "not counted", "not counted"),
        series_row(
            kernel, f"{length:.1f}", format_rate(statistics.median(kernel.extra_rates("moves")))
        ),
        series_row(
            heavy,
            f"{heavy.extra_total('moves') / heavy.units_total():.1f}",
            format_rate(statistics.median(heavy.extra_rates("moves"))),
        ),
        series_row(
            patterns,
            f"{patterns.extra_total('moves') / patterns.units_total():.1f}",
            format_rate(statistics.median(patterns.extra_rates("moves"))),
        ),
    ]
    heavy_ratio = Ratio(
        f"{HEAVY} playouts/s",
        f"{KERNEL} playouts/s",
        [a / b for a, b in zip(heavy.rates, kernel.rates, strict=True)],
        [a / b for a, b in zip(heavy.cpu_rates, kernel.cpu_rates, strict=True)],
    )
    patterns_ratio = Ratio(
        f"{PATTERNS} playouts/s",
        f"{HEAVY} playouts/s",
        [a / b for a, b in zip(patterns.rates, heavy.rates, strict=True)],
        [a / b for a, b in zip(patterns.cpu_rates, heavy.cpu_rates, strict=True)],
    )
    ratios = [heavy_ratio, patterns_ratio]
    if PEER in series:
        peer = series[PEER]
        rows.append(
            series_row(
                peer,
                f"{peer.extra_total('moves') / peer.units_total():.1f}",
                format_rate(statistics.median(peer.extra_rates("moves"))),
            )
        )
        wall = zip(kernel.extra_rates("moves"), peer.extra_rates("moves"), strict=True)
        cpu = zip(kernel.extra_cpu_rates("moves"), peer.extra_cpu_rates("moves"), strict=True)
        ratios.append(
            Ratio(
                f"{KERNEL} moves/s",
                f"{PEER} moves/s",
                [a / b for a, b in wall],
                [a / b for a, b in cpu],
            )
        )
    print_table(
        f"Random playouts per second, {args.size}x{args.size} (OpenSpiel: games/s)",
        [*SERIES_HEADER, "avg length", "moves/s"],
        rows,
    )
    print(
        f"playouts/s, heavy / light kernel (no target): {ratio_cell(heavy_ratio)}; "
        f"per CPU-second {cpu_ratio_cell(heavy_ratio)}"
    )
    print(
        f"playouts/s, patterns / heavy kernel (no target): {ratio_cell(patterns_ratio)}; "
        f"per CPU-second {cpu_ratio_cell(patterns_ratio)}"
    )
    if len(ratios) > 2:
        print(
            f"moves/s, kernel / OpenSpiel (no target): {ratio_cell(ratios[2])}; "
            f"per CPU-second {cpu_ratio_cell(ratios[2])}"
        )
    report.add_section(
        "playouts",
        series,
        ratios,
        board_size=args.size,
        komi=args.komi,
        move_cap=rules.move_limit,
        kernel_average_length=length,
    )
    for name in (API, KERNEL):
        one = series[name]
        report.verdict(
            Verdict(
                f"playouts {args.size}x{args.size} {name}",
                one.median,
                TARGET_PLAYOUTS,
                unit="playouts/s",
                detail=f"{format_rate(one.cpu_median)} per CPU-second, "
                f"cpu/wall {one.cpu_share:.2f}",
            )
        )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
