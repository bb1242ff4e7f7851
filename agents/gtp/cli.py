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

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``gtp`` subcommand to the ``gomcts`` parser."""
    from agents.cli import add_rules_arguments

    parser = subparsers.add_parser(
        "gtp",
        help="serve an agent as a GTP v2 engine (for GUIs, servers and other programs)",
        description="Serve an agent over the Go Text Protocol v2 on stdin/stdout "
        "(see docs/gtp.md).",
    )
    parser.add_argument(
        "--agent", default="random", help="agent spec, e.g. 'mcts:sims=800' (default random)"
    )
    add_rules_arguments(parser)
    parser.add_argument("--name", default="gomcts", help="answer to the name command")
    parser.add_argument(
        "--dead-playouts",
        type=int,
        default=64,
        help="random playouts of the dead-stone estimate (default 64)",
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
