"""The ``gomcts gtp`` command: serve an agent as a GTP v2 engine on stdin and stdout.

Registered through the entry-point group ``gomcts.commands``. Standard output carries only GTP
responses: before the agent is built, file descriptor 1 is duplicated for the responses and
then pointed at stderr, so that anything else printed (by an agent, a library or compiled
code) goes to stderr. Logs go to stderr (``--log-level``).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any

__all__ = ["GUI_HELP", "register"]

#: How GUIs attach the engine (the help's epilog; docs/gtp.md says the same at more length).
GUI_HELP = """\
attaching a GUI (use the full path of gomcts, e.g. .venv/bin/gomcts, if it is not on PATH):
  Sabaki    Engines > Manage Engines > Add: path gomcts, arguments
            gtp --agent mcts:sims=2000  (analysis: lz-analyze or kata-analyze)
  GoGui     gogui -size 9 -program "gomcts gtp --agent mcts:sims=2000"
            (Analyze menu: gogui-analyze_commands)
            gogui-twogtp -size 9 -games 10 -sgffile match -white "gnugo --mode gtp"
                -black "gomcts gtp --agent mcts:sims=800"
  Lizzie    engine command: gomcts gtp --size 19 --agent mcts:sims=100000
            (Lizzie streams lz-analyze; agents without a search stream nothing)
  KaTrain   talks only to KataGo's JSON analysis engine, not to GTP engines: it cannot run
            gomcts; open the SGF files gomcts writes (printsgf, arena games) in it instead
  GNU Go    gnugo --mode gtp is an engine too: gomcts arena ... 'gtp:cmd="gnugo --mode gtp"'
see docs/gtp.md for the commands, errors and analysis formats"""


def _dead_playouts(text: str) -> int:
    """``--dead-playouts``: an integer 1..MAX_DEAD_PLAYOUTS (argparse type)."""
    from agents.gtp.engine import MAX_DEAD_PLAYOUTS

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 1 <= value <= MAX_DEAD_PLAYOUTS:
        raise argparse.ArgumentTypeError(
            f"must be 1..{MAX_DEAD_PLAYOUTS} random playouts, got {value}"
        )
    return value


def register(subparsers: Any) -> None:
    """Add the ``gtp`` subcommand to the ``gomcts`` parser."""
    from agents.cli import add_rules_arguments

    parser = subparsers.add_parser(
        "gtp",
        help="serve an agent as a GTP v2 engine (for GUIs, servers and other programs)",
        description="Serve an agent over the Go Text Protocol v2 on stdin/stdout "
        "(see docs/gtp.md).",
        epilog=GUI_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--agent", default="random", help="agent spec, e.g. 'mcts:sims=800' (default random)"
    )
    add_rules_arguments(parser)
    parser.add_argument("--name", default="gomcts", help="answer to the name command")
    parser.add_argument(
        "--dead-playouts",
        type=_dead_playouts,
        default=64,
        help="random playouts of the dead-stone estimate, 1..100000 (default 64)",
    )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="logging level on stderr (default WARNING)",
    )
    parser.set_defaults(func=_cmd_gtp)


def _cmd_gtp(args: argparse.Namespace) -> int:
    from agents.base import AgentError
    from agents.cli import rules_from_args
    from agents.gtp.engine import GtpEngine
    from agents.gtp.lines import fd_lines
    from agents.gtp.process import GtpError
    from agents.registry import make_agent

    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, args.log_level),
        format="gomcts gtp: %(levelname)s %(name)s: %(message)s",
    )
    if args.handicap:
        print(
            "gomcts gtp: error: --handicap is not used by the engine; the controller sends "
            "fixed_handicap or set_free_handicap",
            file=sys.stderr,
        )
        return 2
    sys.stdout.flush()
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # Commands are read from the descriptor, not through sys.stdin (see agents.gtp.lines): a
    # reader thread blocked in sys.stdin's buffer would abort the interpreter's shutdown when
    # the controller keeps stdin open after quit.
    commands = fd_lines(sys.stdin.fileno())
    try:
        agent = make_agent(args.agent)
    except (AgentError, GtpError) as exc:
        print(f"gomcts gtp: error: {exc}", file=sys.stderr)
        return 2
    try:
        engine = GtpEngine(
            agent, rules=rules_from_args(args), name=args.name, dead_playouts=args.dead_playouts
        )
        engine.serve(commands, replies)
    finally:
        agent.close()
        replies.close()
    return 0
