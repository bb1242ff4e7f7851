"""The ``gomcts arena`` command (registered through the entry-point group ``gomcts.commands``).

It runs :func:`agents.matches.arena.run_match`, the same code as the Python API, and writes into the
output folder: ``results.jsonl`` (the resumable results file), ``sgf/game-NNNNN.sgf``,
``summary.json`` and ``winrate.png``. Rerunning the same command resumes the match.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import Any

__all__ = ["games_per_worker", "register"]


def register(subparsers: Any) -> None:
    """Add the ``arena`` subcommand to the ``gomcts`` parser."""
    from agents.cli import add_rules_arguments, output_folder
    from agents.matches.ray_pool import add_ray_option

    parser = subparsers.add_parser(
        "arena",
        help="play a match between two agents (paired openings, resumable, SPRT)",
        description="Play a match between agent A and agent B (see docs/arena.md).",
    )
    parser.add_argument("agent_a", help="spec of agent A, e.g. 'mcts:sims=400'")
    parser.add_argument("agent_b", help="spec of agent B, e.g. 'gtp:cmd=\"gnugo --mode gtp\"'")
    parser.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes (default: all cores; 1: in this process)",
    )
    parser.add_argument(
        "--games-per-worker",
        type=games_per_worker,
        default=1,
        metavar="K",
        help="games each worker process plays at once, their searches' leaf evaluations "
        "batched into one network call per round; the same games as K=1 (docs/arena.md). "
        "Local processes only (default 1)",
    )
    add_ray_option(
        parser,
        "play the games as tasks",
        "--workers then caps the games in flight (default: the cluster's CPUs).",
    )
    parser.add_argument("--seed", type=int, default=0, help="match seed (default 0)")
    parser.add_argument(
        "--out",
        type=output_folder,
        default="runs/arena",
        help="output folder; rerun with the same folder to resume (default runs/arena)",
    )
    add_rules_arguments(parser)
    parser.add_argument(
        "--opening-moves", type=int, default=2, help="moves of the random openings (default 2)"
    )
    parser.add_argument(
        "--book",
        default=None,
        help=(
            "opening book: a text file of GTP move lines, a folder of SGF files, or a recorded "
            "match's results.jsonl[.gz] (the book it played)"
        ),
    )
    parser.add_argument(
        "--referee",
        default="auto",
        help="who removes dead stones after two passes: auto (a GTP player), "
        "none, or a GTP engine command line (default auto)",
    )
    parser.add_argument(
        "--sprt",
        nargs=2,
        type=float,
        metavar=("ELO0", "ELO1"),
        default=None,
        help="stop when the SPRT of elo <= ELO0 against elo >= ELO1 decides",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="SPRT alpha (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="SPRT beta (default 0.05)")
    parser.add_argument(
        "--sprt-model",
        choices=["pentanomial", "trinomial"],
        default="pentanomial",
        help="SPRT outcome model (default pentanomial)",
    )
    parser.add_argument("--no-sgf", action="store_true", help="do not save the games as SGF")
    parser.add_argument("--no-plot", action="store_true", help="do not draw winrate.png")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=_cmd_arena)


def games_per_worker(text: str) -> int:
    """The ``--games-per-worker`` value: an int >= 1 (``argparse`` reports the error)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"must be an int >= 1 (games each worker process plays at once), got {text!r}"
        )
    return value


def _cmd_arena(args: argparse.Namespace) -> int:
    from agents.base import AgentError
    from agents.cli import rules_from_args
    from agents.gtp.process import GtpError
    from agents.lifetime import interrupt_once
    from agents.matches.arena import ArenaError, MatchConfig, run_match
    from agents.matches.openings import load_book
    from agents.matches.plots import plot_running_score
    from agents.matches.ray_pool import ClusterError
    from agents.matches.stats import SprtConfig

    if args.ray is not None and args.games_per_worker > 1:
        print(
            "gomcts arena: error: --games-per-worker plays in local worker processes; "
            "leave it at 1 with --ray",
            file=sys.stderr,
        )
        return 2
    rules = rules_from_args(args)
    book = load_book(args.book, rules) if args.book else ()
    config = MatchConfig(
        agent_a=args.agent_a,
        agent_b=args.agent_b,
        games=args.games,
        rules=rules,
        seed=args.seed,
        opening_moves=args.opening_moves,
        book=book,
        referee=args.referee,
    )
    sprt = None
    if args.sprt is not None:
        sprt = SprtConfig(
            elo0=args.sprt[0],
            elo1=args.sprt[1],
            alpha=args.alpha,
            beta=args.beta,
            model=args.sprt_model,
        )
    out = Path(args.out)
    results = out / "results.jsonl"
    # SIGTERM stops the match as Ctrl-C does: the pool is shut down, finished games are kept
    signal.signal(signal.SIGTERM, interrupt_once)
    try:
        result = run_match(
            config,
            results=results,
            workers=args.workers,
            sgf_dir=None if args.no_sgf else out / "sgf",
            sprt=sprt,
            progress=not args.no_progress,
            ray=args.ray,
            games_per_worker=args.games_per_worker,
        )
    except KeyboardInterrupt:
        print(
            f"gomcts arena: interrupted; finished games are in {results}; run the same "
            "command again to resume",
            file=sys.stderr,
        )
        return 130
    except ClusterError as exc:
        print(f"gomcts arena: error: {exc}", file=sys.stderr)
        return 2
    except (ArenaError, AgentError, GtpError) as exc:
        print(
            f"gomcts arena: error: {exc}\n(finished games are kept in {results})", file=sys.stderr
        )
        return 2
    (out / "summary.json").write_text(
        json.dumps(result.summary(), indent=2) + "\n", encoding="utf-8"
    )
    if not args.no_plot:
        plot_running_score(
            result.scores,
            out / "winrate.png",
            label="A",
            title=f"A: {config.agent_a}  vs  B: {config.agent_b}",
        )
    print(result.format())
    print(
        f"results: {results}; summary: {out / 'summary.json'}"
        + ("" if args.no_plot else f"; plot: {out / 'winrate.png'}")
    )
    return 0
