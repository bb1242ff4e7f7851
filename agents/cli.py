"""The ``gomcts`` command line: one entry point, one subcommand per task.

Built-in subcommands live here (``play``, ``list``); other packages add theirs through the
entry-point group ``gomcts.commands`` (an entry is a function ``register(subparsers)``), so
that ``agents`` never imports ``tuning``.

Optional dependencies come in extras (``pyproject.toml``). A command whose package is missing
(``gomcts tune`` without ``optuna``, ``gomcts arena`` without ``tqdm``) says which extra to
install, ``pip install 'gomcts[EXTRA]'``, instead of a traceback or argparse's "invalid
choice".
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import time
from collections.abc import Sequence
from importlib.metadata import entry_points
from pathlib import Path

from agents.base import AgentError
from agents.game import play_game
from agents.plugins import PluginError, Registry
from agents.registry import AGENTS, make_agent
from agents.spec import SpecError, parse_spec
from go_env.coords import to_gtp
from go_env.errors import GoError
from go_env.rules import KoRule, Rules
from go_env.state import GoState

__all__ = [
    "EXTRA_OF_MODULE",
    "add_rules_arguments",
    "main",
    "missing_extra",
    "os_error_message",
    "output_folder",
    "rules_from_args",
]

#: The extra of ``pyproject.toml`` that installs each optional top-level module.
EXTRA_OF_MODULE = {
    "tqdm": "agents",
    "matplotlib": "agents",
    "torch": "nets",
    "optuna": "tuning",
    "scipy": "tuning",
    "tomli": "tuning",
    "sqlalchemy": "tuning",
    "greenlet": "tuning",
    "botorch": "botorch",
    "gpytorch": "botorch",
    "linear_operator": "botorch",
    "psycopg2": "postgres",
    "ray": "cluster",
    "onnxruntime": "onnx",
    "onnx": "onnx",
    "optuna_dashboard": "dashboard",
    "pyspiel": "bench",
    "pygame": "bench",
}
#: Commands that could not be registered for a missing module: name -> the sentence to print.
_UNAVAILABLE: dict[str, str] = {}


def missing_extra(exc: ImportError) -> str | None:
    """A sentence naming the extra to install for ``exc``, or ``None`` when it is no such case.

    An ``ImportError`` whose message already says what to ``pip install`` (as the samplers'
    do) is its own sentence; a ``ModuleNotFoundError`` of an optional module gets one built
    from :data:`EXTRA_OF_MODULE`.
    """
    if "pip install" in str(exc):
        return str(exc)
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        root = exc.name.split(".")[0]
        extra = EXTRA_OF_MODULE.get(root)
        if extra is not None:
            return (
                f"this needs the Python package {root!r}, which is not installed; it comes with "
                f"the extra {extra!r}: pip install 'gomcts[{extra}]' (from a clone: "
                f"pip install -e '.[{extra}]')"
            )
    return None


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--size --komi --ko --suicide --max-moves --handicap`` to a parser."""
    parser.add_argument("--size", type=int, default=9, help="board size, 2..25 (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument(
        "--ko",
        choices=[k.value for k in KoRule],
        default="positional",
        help="ko rule (default positional superko)",
    )
    parser.add_argument("--suicide", action="store_true", help="allow suicide")
    parser.add_argument("--max-moves", type=int, default=None, help="move cap (default 2*N*N)")
    parser.add_argument("--handicap", type=int, default=0, help="fixed handicap stones")


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The :class:`~go_env.rules.Rules` named by :func:`add_rules_arguments`' options."""
    return Rules(
        size=args.size,
        komi=args.komi,
        ko=KoRule(args.ko),
        suicide=args.suicide,
        max_moves=args.max_moves,
        handicap=args.handicap,
    )


def output_folder(text: str) -> str:
    """An ``argparse`` type for an output folder: refuse a path that is, or lies under, a file.

    The folder itself may be new (it is created) or an existing folder (a run resumes there).
    """
    path = Path(text)
    for place in (path, *path.parents):
        if place.is_dir():
            break
        if place.exists() or place.is_symlink():
            what = "is a file" if place == path else f"lies under the file {place}"
            raise argparse.ArgumentTypeError(f"{text!r} {what}; give a folder, new or existing")
    return text


def os_error_message(exc: OSError, folder: object = None) -> str:
    """One sentence for a failed read or write: the path, the system's reason, what to do.

    Args:
        exc: The error.
        folder: The command's output folder, named when ``exc`` names no file (a ``write``
            to an open file that fails on a full disk carries no file name).
    """
    reason = exc.strerror or str(exc)
    if exc.filename:
        where = f"{exc.filename}: "
    elif folder:
        where = f"writing in {folder}: "
    else:
        where = ""
    if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EEXIST):
        return f"{where}{reason}"
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        advice = "make room"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        advice = "give a folder this user can write, or fix its permissions"
    else:
        advice = "fix the cause"
    return (
        f"{where}{reason}. What was written before is kept: {advice} and run the same command again"
    )


def _cmd_play(args: argparse.Namespace) -> int:
    from go_env.sgf import record_from_state, save_sgf

    rules = rules_from_args(args)
    black_spec = args.black if args.seed is None else _seeded(args.black, args.seed)
    white_spec = args.white if args.seed is None else _seeded(args.white, args.seed + 1)
    black = make_agent(black_spec)
    try:
        white = make_agent(white_spec)
    except BaseException:
        black.close()
        raise

    def show(state: GoState, move: int) -> None:
        if args.quiet:
            return
        colour = "Black" if state.to_play.name == "WHITE" else "White"
        print(f"\nmove {state.move_number}: {colour} {to_gtp(move, state.size)}")
        print(state.to_ascii(), flush=True)
        if args.delay:
            time.sleep(args.delay)

    try:
        result = play_game(black, white, rules, on_move=show)
    finally:
        black.close()
        white.close()
    how = "move cap" if result.truncated else "two passes"
    print(f"\nresult {result.result} after {result.state.move_number} moves ({how})")
    if args.sgf:
        path = Path(args.sgf)
        path.parent.mkdir(parents=True, exist_ok=True)
        # The full specs, as the arena records them: PB[mcts] would not say which settings.
        record = record_from_state(
            result.state, black=black_spec, white=white_spec, result=result.result
        )
        save_sgf(record, path)
        print(f"saved {path}")
    return 0


def _seeded(spec: str, seed: int) -> str:
    """Add ``seed=...`` to a spec whose agent has a seed parameter and none given."""
    name, params = parse_spec(spec)
    config = AGENTS.get(name)
    if "seed" in params or "seed" not in getattr(config, "__dataclass_fields__", {}):
        return spec
    return f"{spec}{',' if ':' in spec else ':'}seed={seed}"


def _cmd_list(args: argparse.Namespace) -> int:
    registries: list[tuple[str, Registry]] = [("agents", AGENTS)]
    try:
        from agents.mcts.backups import BACKUPS
        from agents.mcts.evaluator_plugins import EVALUATORS
    except ImportError:  # pragma: no cover - the MCTS package is part of this distribution
        pass
    else:
        registries += [("backups", BACKUPS), ("leaf evaluators", EVALUATORS)]
    for title, registry in registries:
        print(f"{title} (entry-point group {registry.group}):")
        for info in registry.infos():
            print(f"  {info.name:<16} {info.distribution:<28} {info.value}")
    from agents.shipped_networks import NETWORK_NAMES, shipped_model_path  # no torch

    print("shipped networks (evaluator=net:NAME; docs/nets.md says how each was made):")
    for name in NETWORK_NAMES:
        path = shipped_model_path(name)
        size = f"{path.stat().st_size:,} bytes" if path.is_file() else "missing: reinstall"
        print(f"  {name:<16} {path.name:<28} {size}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The full ``gomcts`` parser, with subcommands from ``gomcts.commands`` entry points."""
    parser = argparse.ArgumentParser(prog="gomcts", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play one game between two agents, shown in the terminal")
    play.add_argument("--black", default="random", help="agent spec for Black (default random)")
    play.add_argument("--white", default="random", help="agent spec for White (default random)")
    add_rules_arguments(play)
    play.add_argument("--seed", type=int, default=None, help="seed for agents that take one")
    play.add_argument("--sgf", default=None, help="save the game as SGF to this path")
    play.add_argument("--quiet", action="store_true", help="do not print the board each move")
    play.add_argument("--delay", type=float, default=0.0, help="seconds to wait after each move")
    play.set_defaults(func=_cmd_play)

    listing = sub.add_parser(
        "list", help="list installed agents, backup strategies, leaf evaluators and networks"
    )
    listing.set_defaults(func=_cmd_list)

    for ep in entry_points(group="gomcts.commands"):
        try:
            ep.load()(sub)
        except ImportError as exc:
            reason = missing_extra(exc)
            if reason is None:
                print(
                    f"warning: command plugin {ep.name!r} ({ep.value}) failed: {exc}",
                    file=sys.stderr,
                )
                continue
            _UNAVAILABLE[ep.name] = reason
            extra = reason.split("pip install ", 1)[1].split(" ")[0]
            sub.add_parser(ep.name, help=f"(not installed: pip install {extra})", add_help=False)
        except Exception as exc:  # a broken extension must not break the CLI
            print(
                f"warning: command plugin {ep.name!r} ({ep.value}) failed: {exc}", file=sys.stderr
            )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gomcts`` command line; returns the exit status."""
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    command = next((word for word in words if not word.startswith("-")), None)
    if command in _UNAVAILABLE:
        print(f"gomcts {command}: error: {_UNAVAILABLE[command]}", file=sys.stderr)
        return 2
    args = parser.parse_args(words)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # here, where a closed pipe can still be caught
        return code
    except BrokenPipeError:
        return _reader_gone()
    except (SpecError, PluginError, GoError, AgentError, ValueError) as exc:
        print(f"gomcts {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a read-only folder, a full disk, a file where a folder should be
        message = os_error_message(exc, getattr(args, "out", None))
        print(f"gomcts {args.command}: error: {message}", file=sys.stderr)
        return 2
    except ImportError as exc:
        reason = missing_extra(exc)
        if reason is None:
            raise
        print(f"gomcts {args.command}: error: {reason}", file=sys.stderr)
        return 2


def _reader_gone() -> int:
    """The reader of stdout went away (``gomcts list | head -3``): stop quietly.

    Python's documented recipe (the ``signal`` module, "Note on SIGPIPE"): point stdout at
    ``/dev/null`` so that the flush at exit cannot fail again. The status is the shell's for a
    process ended by ``SIGPIPE``, 128 + 13.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + 13


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
