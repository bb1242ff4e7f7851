"""The ``gomcts reproduce`` command: run an experiment plan (:mod:`tuning.reproduction.runner`).

``gomcts reproduce PLAN`` runs every row of the plan in order, resumably; ``--only ID ...``
runs some rows; ``--table`` only writes the results table; ``--commands`` prints the
``gomcts arena`` command of each match row (run from the plan's root, the runner adopts what
it plays). Paths in the plan are relative to its root, and the command runs from there.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from agents.matches.cli import games_per_worker

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``reproduce`` subcommand to the ``gomcts`` parser."""
    parser = subparsers.add_parser(
        "reproduce",
        help="run an experiment plan (matches and studies) resumably and write its table",
        description="Run the rows of a plan file resumably and write the results table "
        "(see docs/reproduction.md).",
    )
    parser.add_argument("plan", help="the plan file (TOML), e.g. experiments/li-lim-9x9.toml")
    parser.add_argument(
        "--only", nargs="+", default=(), metavar="ID", help="run only these rows (plan order)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="arena worker processes of a match, parallel trials of a study (default: all "
        "cores for matches, 1 for studies)",
    )
    parser.add_argument(
        "--games-per-worker",
        type=games_per_worker,
        default=None,
        metavar="K",
        help="games each arena process plays at once, their leaf evaluations batched into one "
        "network call per round (default: the plan's [setting] games_per_worker, else 1)",
    )
    parser.add_argument(
        "--ray", default=None, metavar="ADDR", help="play on a Ray cluster (where supported)"
    )
    parser.add_argument(
        "--keep-going",
        action="store_true",
        help="skip rows that wait for an unfinished study instead of stopping",
    )
    parser.add_argument("--table", action="store_true", help="only write the results table")
    parser.add_argument(
        "--commands", action="store_true", help="print the gomcts arena command of each match row"
    )
    parser.set_defaults(func=_cmd_reproduce)


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from agents.base import AgentError
    from agents.gtp.process import GtpError
    from agents.matches.arena import ArenaError
    from agents.matches.results import ResultsError
    from tuning.reproduction.plan import MatchRow, PlanError, load_plan
    from tuning.reproduction.runner import (
        RowWaitingError,
        arena_command,
        run_plan,
        select_rows,
        study_so_far,
    )
    from tuning.reproduction.table import write_table

    try:
        plan = load_plan(args.plan)
        os.chdir(plan.root)
        if args.workers is not None and args.workers < 1:
            raise PlanError(f"--workers must be >= 1, got {args.workers}")
        k = args.games_per_worker or plan.setting.games_per_worker
        if args.ray is not None and k > 1:
            raise PlanError("--games-per-worker plays in local processes; keep it 1 with --ray")
        if args.commands:
            for row in select_rows(plan, args.only):
                if isinstance(row, MatchRow):
                    print(f"# {row.id}: {row.label}")
                    try:
                        print(
                            arena_command(
                                plan,
                                row,
                                workers=args.workers,
                                games_per_worker=args.games_per_worker,
                            )
                        )
                    except RowWaitingError as exc:
                        print(f"# not yet: {exc}")
            return 0
        if args.table:
            write_table(plan, study_state=study_so_far)
            print(f"table: {plan.out / 'results.md'}")
            return 0
        waiting = run_plan(
            plan,
            only=args.only,
            workers=args.workers,
            ray=args.ray,
            say=lambda line: print(line, flush=True),
            keep_going=args.keep_going,
            games_per_worker=args.games_per_worker,
        )
    except KeyboardInterrupt:
        print(
            "gomcts reproduce: interrupted; finished games are kept, run the same command "
            "again to resume",
            file=sys.stderr,
        )
        return 130
    except (PlanError, ResultsError, ArenaError, AgentError, GtpError) as exc:
        print(
            f"gomcts reproduce: error: {exc}\n(finished games and trials are kept)",
            file=sys.stderr,
        )
        return 2
    except OSError as exc:  # a read-only folder or a full disk: the path and the reason
        from agents.cli import os_error_message

        folder = plan.out if "plan" in locals() else None
        print(f"gomcts reproduce: error: {os_error_message(exc, folder)}", file=sys.stderr)
        return 2
    print(f"table: {plan.out / 'results.md'}")
    if waiting:
        print(f"rows waiting for a study: {', '.join(waiting)}")
        return 1
    return 0
