"""The ``gomcts sgf export``, ``gomcts plot`` and ``gomcts record`` commands (``gomcts.commands``).

``gomcts sgf export RUN [--out DIR]`` writes the SGF file of every game of a run's results file
(plain or compressed); ``gomcts plot RUN [--out FILE]`` draws a match's running score from it;
``gomcts record RUN DEST`` copies a run folder into the record (``docs/results/...``) with its
results file compressed, without SGF files and without the running-score plot;
``gomcts record --games-to-git RECORD`` takes a committed record's games out of the tree, with a
note naming the commit that keeps them. See :mod:`agents.matches.records`,
:mod:`agents.matches.games_in_git` and ``docs/records.md``.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register_plot", "register_record", "register_sgf"]


def register_sgf(subparsers: Any) -> None:
    """Add the ``sgf`` subcommand (``gomcts sgf export``) to the ``gomcts`` parser."""
    parser = subparsers.add_parser(
        "sgf",
        help="SGF files of recorded games (gomcts sgf export RUN)",
        description="SGF files of a run's games, written from its results file.",
    )
    actions = parser.add_subparsers(dest="sgf_action", required=True)
    export = actions.add_parser(
        "export",
        help="write one SGF file per game of a run",
        description="Write one SGF file per game of a run's results file (results.jsonl or "
        "results.jsonl.gz): the files the arena saved while it played, byte for byte.",
    )
    _add_run(export, "docs/results/reproduction/li-lim-9x9/aa-mean")
    export.add_argument(
        "--out", default=None, metavar="DIR", help="folder of the SGF files (default RUN/sgf)"
    )
    export.set_defaults(func=_cmd_export)


def register_plot(subparsers: Any) -> None:
    """Add the ``plot`` subcommand to the ``gomcts`` parser."""
    parser = subparsers.add_parser(
        "plot",
        help="draw a match's running score (winrate.png) from its results file",
        description="Draw a match's running score (agent A's score rate with its 95%% Wilson "
        "band, the plot gomcts arena draws when a match ends) from its results file "
        "(results.jsonl or results.jsonl.gz): the record keeps the games, not this plot.",
    )
    _add_run(parser, "docs/results/nets/paper-9x9-target-n200-gen49")
    parser.add_argument(
        "--out", default=None, metavar="FILE", help="the PNG (default: RUN/winrate.png)"
    )
    parser.set_defaults(func=_cmd_plot)


def _add_run(parser: argparse.ArgumentParser, example: str) -> None:
    """The positional ``run``: a run folder or its results file, under either name."""
    parser.add_argument("run", help=f"the run folder (e.g. {example}) or its results file")


def register_record(subparsers: Any) -> None:
    """Add the ``record`` subcommand to the ``gomcts`` parser."""
    parser = subparsers.add_parser(
        "record",
        help="copy a finished run into the record (docs/results), results compressed",
        description="Copy a run folder into the record: results files stored as "
        "results.jsonl.gz with each game's times to the millisecond, SGF folders left out "
        "(gomcts sgf export writes them again), a match's running-score plot winrate.png "
        "left out (gomcts plot draws it again), other plots as palette PNGs (a palette plot "
        "as it is, any other with 256 colours), every other file as it is.",
    )
    parser.add_argument(
        "run", help="the run folder, e.g. runs/arena/my-match (with --games-to-git: the record)"
    )
    parser.add_argument(
        "dest",
        nargs="?",
        default=None,
        help="the record's folder, docs/results/<topic>/<run> (default: record RUN in place)",
    )
    parser.add_argument(
        "--keep-plot",
        action="store_true",
        help="keep the matches' running-score plots (winrate.png), for a plot a page shows",
    )
    to_git = parser.add_argument_group(
        "games kept in git only",
        "gomcts record --games-to-git RECORD: git rm a committed record's games and write "
        "its games-in-git.json note naming the commit that keeps them (both staged; commit "
        "them), for a checkout that must stay small (docs/records.md)",
    )
    to_git.add_argument(
        "--games-to-git",
        action="store_true",
        help="RUN is a committed record: take its games out of the tree (no DEST)",
    )
    to_git.add_argument(
        "--leave",
        nargs="+",
        default=None,
        metavar="PATH",
        help="what leaves, files or folders relative to the record (default: every "
        "results.jsonl.gz under it)",
    )
    to_git.add_argument(
        "--commit",
        default="HEAD",
        metavar="REV",
        help="the commit that holds the files as the tree has them (default HEAD)",
    )
    to_git.add_argument(
        "--why",
        default=None,
        metavar="TEXT",
        help="the note's reason (default: the checkout's 8 MB, docs/records.md)",
    )
    parser.set_defaults(func=_cmd_record)


def _cmd_export(args: argparse.Namespace) -> int:
    from agents.matches.records import export_sgf

    export_sgf(args.run, args.out, say=print)
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from agents.matches.records import draw_running_score

    print(f"[plot] {draw_running_score(args.run, args.out)}")
    return 0


def _cmd_record(args: argparse.Namespace) -> int:
    from agents.matches.records import record_run

    only_to_git = {"--leave": args.leave, "--why": args.why, "--commit": args.commit != "HEAD"}
    if args.games_to_git:
        if args.dest is not None or args.keep_plot:
            raise ValueError(
                "--games-to-git RECORD takes the record's folder alone "
                f"(got {'DEST ' + repr(args.dest) if args.dest else '--keep-plot'})"
            )
        return _games_to_git(args)
    given = [flag for flag, value in only_to_git.items() if value]
    if given:
        raise ValueError(f"{', '.join(given)}: only with --games-to-git")
    record_run(args.run, args.dest, say=print, keep_plot=args.keep_plot)
    return 0


def _games_to_git(args: argparse.Namespace) -> int:
    from agents.matches.games_in_git import WHY, leave_in_git

    left = leave_in_git(args.run, leave=args.leave, commit=args.commit, why=args.why or WHY)
    print(
        f"[record] {len(left.paths)} file(s), {left.size:,} bytes, left the tree for "
        f"{left.commit[:12]}; wrote {left.note.name} (staged with the removals: commit them)"
    )
    print("[record] cite them in docs/records.md as:")
    for citation in left.citations():
        print(f"  `{citation}`")
    return 0
