"""MCTS with random rollouts: simulations per second against OpenSpiel's MCTSBot, and per backup.

Every engine searches the same positions: the empty 9x9 board and the positions after the first
moves of a fixed opening line (seeded random legal moves, no passes), one search per position
with a fresh tree (our agent does not reuse trees by default; OpenSpiel's bots build a tree per
``step``). A search's time includes everything the engine does for a move (tree set-up, the
simulations, the move choice).

Engines:

* ours: ``agents.registry.make_agent("mcts:sims=S,c=1.0,backup=B,seed=0")`` (UCT
  ``q + c * sqrt(ln N / n)``, one uniform random rollout per leaf), ``act(state, None)``, for
  every backup of ``agents.mcts.backups.BACKUPS``;
* OpenSpiel C++: ``pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), uct_c=1.0,
  max_simulations=S, max_memory_mb=1000, solve=False, seed, verbose=False)``;
* OpenSpiel Python: ``open_spiel.python.algorithms.mcts.MCTSBot(game, uct_c=1.0,
  max_simulations=S, evaluator=RandomRolloutEvaluator(n_rollouts=1), solve=False)``;

with ``game = pyspiel.load_game("go", {"board_size": 9, "komi": 7.5})``. OpenSpiel's UCT has the
same form (``q + uct_c * sqrt(ln N_parent / n)``, unvisited children first) and values in
``[-1, 1]``, so the same constant explores alike. Solving is off in OpenSpiel as in our
``mean`` backup.

Targets (issue 3): ours (mean backup) faster than OpenSpiel's C++ MCTSBot; no built-in backup
more than 2x slower than mean.

Usage::

    python benchmarks/mcts_speed.py              # recorded numbers: 1,000 sims, 4 positions
    python benchmarks/mcts_speed.py --quick      # smoke test
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from common import (
    SERIES_HEADER,
    Case,
    Report,
    Sample,
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

from go_env import GoState, Rules
from go_env.coords import row_col, to_gtp

__all__ = ["MAX_SLOWDOWN", "main", "opening_line", "openspiel_action"]

MAX_SLOWDOWN = 2.0
"""Issue 3: no built-in backup more than this many times slower than ``mean``."""

CPP = "OpenSpiel C++ MCTSBot"
PYTHON = "OpenSpiel Python MCTSBot"


def ours_name(backup: str) -> str:
    """The case name of our MCTS with ``backup``."""
    return f"gomcts mcts backup={backup}"


def opening_line(rules: Rules, length: int, seed: int) -> list[int]:
    """``length`` random legal moves (no pass) from the empty board, seeded."""
    rnd = random.Random(seed)
    state = GoState(rules)
    line: list[int] = []
    for _ in range(length):
        legal = [int(m) for m in state.legal_moves() if m != state.pass_move]
        move = legal[rnd.randrange(len(legal))]
        state.play(move)
        line.append(move)
    return line


def openspiel_action(move: int, size: int) -> int:
    """OpenSpiel go's action for our move: its rows count from the bottom (a1 is action 0)."""
    if move == size * size:
        return move
    row, col = row_col(move, size)
    return (size - 1 - row) * size + col


def _positions(rules: Rules, line: Sequence[int]) -> list[GoState]:
    states = [GoState(rules)]
    for move in line:
        nxt = states[-1].clone()
        nxt.play(move)
        states.append(nxt)
    return states


def _openspiel_positions(game: Any, line: Sequence[int], size: int) -> list[Any]:
    """OpenSpiel states along ``line``, checking the move encoding against GTP names."""
    states = [game.new_initial_state()]
    for move in line:
        action = openspiel_action(move, size)
        state = states[-1].clone()
        name = state.action_to_string(state.current_player(), action).split()[-1]
        if name.lower() != to_gtp(move, size).lower():
            raise RuntimeError(
                f"move encoding mismatch: our {to_gtp(move, size)} became "
                f"OpenSpiel action {action} ({name})"
            )
        state.apply_action(action)
        states.append(state)
    return states


def _ours_case(
    make_agent: Callable[[str], Any], backup: str, sims: int, c: float, positions: Sequence[GoState]
) -> Case:
    spec = f"mcts:sims={sims},c={c},backup={backup},seed=0"

    def run() -> Sample:
        agent = make_agent(spec)
        clock = Stopwatch()
        done = 0
        for state in positions:
            agent.reset()
            with clock:
                agent.act(state, None)
            stats = getattr(agent, "last_stats", None)
            done += stats.simulations if stats is not None else sims
        agent.close()
        return clock.sample(done, searches=len(positions))

    return Case(ours_name(backup), "sims/s", run)


def _openspiel_case(
    name: str, make_bot: Callable[[], Any], sims: int, positions: Sequence[Any]
) -> Case:
    def run() -> Sample:
        bot = make_bot()
        clock = Stopwatch()
        for state in positions:
            with clock:
                bot.step(state)
        return clock.sample(sims * len(positions), searches=len(positions))

    return Case(name, "sims/s", run)


def _openspiel_cases(
    pyspiel: Any,
    size: float,
    komi: float,
    sims: int,
    c: float,
    line: Sequence[int],
    with_python: bool,
) -> list[Case]:
    game = pyspiel.load_game("go", {"board_size": int(size), "komi": komi})
    positions = _openspiel_positions(game, line, int(size))
    cases = [
        _openspiel_case(
            CPP,
            lambda: pyspiel.MCTSBot(
                game, pyspiel.RandomRolloutEvaluator(1, 0), c, sims, 1000, False, 0, False
            ),
            sims,
            positions,
        )
    ]
    if with_python:
        from open_spiel.python.algorithms import mcts

        cases.append(
            _openspiel_case(
                PYTHON,
                lambda: mcts.MCTSBot(
                    game,
                    c,
                    sims,
                    mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                    solve=False,
                    random_state=np.random.RandomState(0),
                ),
                sims,
                positions,
            )
        )
    return cases


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (see the module docstring); returns the exit status."""
    parser = base_parser(__doc__.splitlines()[0], trials=3)
    parser.add_argument(
        "--sims",
        type=positive_int,
        default=None,
        help="simulations per search (default 1000; 100 with --quick)",
    )
    parser.add_argument(
        "--moves",
        type=positive_int,
        default=None,
        help="positions searched per trial: the empty board and the next "
        "moves of the opening line (default 4; 1 with --quick)",
    )
    parser.add_argument("--size", type=positive_int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument(
        "--c",
        type=positive_float,
        default=1.0,
        help="UCT constant for every engine (default 1.0, our UCT default)",
    )
    parser.add_argument(
        "--backups",
        nargs="+",
        default=None,
        help="backups to measure (default: every name in BACKUPS; mean is always included)",
    )
    parser.add_argument(
        "--no-python-bot", action="store_true", help="leave out OpenSpiel's (slow) Python MCTSBot"
    )
    parser.add_argument(
        "--backup-trials",
        type=positive_int,
        default=None,
        help="trials of the backup comparison (default 7; 1 with --quick)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the opening line")
    args = finish_args(parser.parse_args(argv))
    backup_trials = args.backup_trials or (1 if args.quick else 7)
    sims = args.sims or (100 if args.quick else 1000)
    moves = args.moves or (1 if args.quick else 4)

    from agents.mcts.backups import BACKUPS
    from agents.registry import make_agent

    backups = list(dict.fromkeys(["mean", *(args.backups or BACKUPS.names())]))
    rules = Rules(size=args.size, komi=args.komi)
    line = opening_line(rules, moves - 1, args.seed)
    positions = _positions(rules, line)
    pyspiel = optional_import("pyspiel")

    report = Report(
        f"mcts_speed: MCTS with random rollouts, {args.size}x{args.size}, "
        f"{sims} simulations per search",
        args,
    )
    print(
        f"{moves} searches per case and trial ({args.trials} trials against OpenSpiel, "
        f"{backup_trials} for the backups); opening line: "
        f"{' '.join(to_gtp(m, args.size) for m in line) or '(empty board only)'}; "
        f"uct c = {args.c:g}; komi {args.komi:g}"
    )
    ours = {b: _ours_case(make_agent, b, sims, args.c, positions) for b in backups}
    peer_cases: list[Case] = []
    if pyspiel is None:
        print("OpenSpiel bots: skipped (open_spiel not installed: pip install -e .[bench])")
    else:
        peer_cases = _openspiel_cases(
            pyspiel, args.size, args.komi, sims, args.c, line, not args.no_python_bot
        )
    for backup in backups:  # warm-up: compiled kernels (or their caches)
        _ours_case(make_agent, backup, min(sims, 20), args.c, positions[:1]).run()
    print(f"engines: {args.trials} trials", file=sys.stderr)
    series = run_trials([ours["mean"], *peer_cases], args.trials)
    mean = series[ours_name("mean")]
    peers = [series[name] for name in (CPP, PYTHON) if name in series]
    peer_ratios = [mean.ratio_to(peer) for peer in peers]
    rows = [
        series_row(mean, "", ""),
        *(
            series_row(p, ratio_cell(r), cpu_ratio_cell(r))
            for p, r in zip(peers, peer_ratios, strict=True)
        ),
    ]
    print_table(
        "Simulations per second: ours (mean) and OpenSpiel",
        [*SERIES_HEADER, "ours (mean) / this", "same, per CPU-s"],
        rows,
    )
    report.add_section(
        "engines",
        {s.name: s for s in [mean, *peers]},
        peer_ratios,
        sims=sims,
        positions=moves,
        opening_line=line,
        uct_c=args.c,
    )
    if CPP in series:
        ratio = peer_ratios[0]
        report.verdict(
            Verdict(
                f"mcts {ours_name('mean')} / {CPP}",
                ratio.median,
                1.0,
                strict=True,
                detail=f"per CPU-second {ratio.cpu_median:.2f}x",
            )
        )

    print(f"backups: {backup_trials} trials", file=sys.stderr)
    by_name = run_trials(list(ours.values()), backup_trials)
    backup_series = {b: by_name[ours_name(b)] for b in backups}
    mean = backup_series["mean"]
    backup_ratios = {b: s.ratio_to(mean) for b, s in backup_series.items()}
    print_table(
        "Simulations per second by backup (relative to mean)",
        [*SERIES_HEADER, "this / mean", "same, per CPU-s"],
        [
            series_row(s, ratio_cell(backup_ratios[b]), cpu_ratio_cell(backup_ratios[b]))
            for b, s in backup_series.items()
        ],
    )
    report.add_section(
        "backups",
        {s.name: s for s in backup_series.values()},
        list(backup_ratios.values()),
        sims=sims,
        positions=moves,
    )
    slowest = min(
        (b for b in backups if b != "mean"), key=lambda b: backup_ratios[b].median, default=None
    )
    if slowest is not None:
        report.verdict(
            Verdict(
                f"mcts slowest backup ({slowest}) / mean",
                backup_ratios[slowest].median,
                1.0 / MAX_SLOWDOWN,
                detail=f"i.e. at most {MAX_SLOWDOWN:g}x slower; per CPU-second "
                f"{backup_ratios[slowest].cpu_median:.2f}x",
            )
        )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
