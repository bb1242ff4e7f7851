"""The ``gomcts train`` command: supervised learning (``sl``) and self-play (``selfplay``).

Registered through the entry-point group ``gomcts.commands``. Examples::

    gomcts train sl data/gnugo9 --out runs/sl --preset b4c32 --steps 2000
    gomcts train selfplay --out runs/rl --iterations 20 --games 20 --init runs/sl/model.pt

Rerunning a command with the same ``--out`` folder resumes it (see ``docs/nets.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["register"]


def _net_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default="b4c32", help="network shape (default b4c32)")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument(
        "--history", type=int, default=None, help="positions of history (default: the preset's)"
    )
    parser.add_argument(
        "--tactical", action="store_true", help="add the Boke Go liberty/capture planes"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto (default cpu)")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch CPU threads (default 1; 0: torch's)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _net_config(args: argparse.Namespace) -> Any:
    from agents.nets.model import NetConfig

    extra: dict[str, Any] = {"tactical": args.tactical}
    if args.history is not None:
        extra["history"] = args.history
    return NetConfig.preset(args.preset, size=args.size, **extra)


def _cmd_sl(args: argparse.Namespace) -> int:
    from agents.nets.training.supervised import SupervisedConfig, train_supervised

    config = SupervisedConfig(
        net=_net_config(args),
        steps=args.steps,
        batch_size=args.batch_size,
        lr=args.lr,
        weight_decay=args.weight_decay,
        value_scale=args.value_scale,
        augment=not args.no_augment,
        validation=args.validation,
        eval_every=args.eval_every,
        seed=args.seed,
        device=args.device,
        threads=args.threads,
    )
    path = train_supervised(
        args.data,
        args.out,
        config,
        progress=not args.quiet,
        log=log_line,
    )
    print(f"model: {path}")
    return 0


def log_line(line: str, file: Any = None) -> None:
    """Print a training log line on stderr through ``tqdm.write``.

    The live progress bar is on stderr too: ``tqdm.write`` clears it, prints the line and draws
    the bar again below, so a JSON metrics line never lands inside the bar's line.
    """
    from tqdm import tqdm

    tqdm.write(line, file=file if file is not None else sys.stderr)


def _cmd_selfplay(args: argparse.Namespace) -> int:
    from agents.nets.training.gating import arena_gate
    from agents.nets.training.selfplay import SelfPlayConfig, train_selfplay

    config = SelfPlayConfig(
        net=_net_config(args),
        komi=args.komi,
        max_moves=args.max_moves,
        iterations=args.iterations,
        games=args.games,
        sims=args.sims,
        batch=args.batch,
        train_steps=args.train_steps,
        batch_size=args.batch_size,
        lr=args.lr,
        replay_size=args.replay_size,
        eval_games=args.eval_games,
        eval_sims=args.eval_sims,
        promote=args.promote,
        init=args.init,
        seed=args.seed,
        device=args.device,
        threads=args.threads,
    )
    path = train_selfplay(
        args.out,
        config,
        gate=arena_gate,
        progress=not args.quiet,
        log=log_line,
    )
    print(json.dumps({"best": str(path)}))
    return 0


def register(subparsers: Any) -> None:
    """Add the ``train`` subcommand (with ``sl`` and ``selfplay``) to the ``gomcts`` parser."""
    from agents.cli import output_folder

    parser = subparsers.add_parser(
        "train",
        help="train policy/value networks (supervised from SGF, or self-play)",
        description="Train policy/value networks (see docs/nets.md). Needs the nets extra.",
    )
    sub = parser.add_subparsers(dest="mode", required=True)

    sl = sub.add_parser("sl", help="supervised learning from a folder of SGF records")
    sl.add_argument("data", help="folder of SGF files (searched recursively)")
    sl.add_argument(
        "--out", required=True, type=output_folder, help="output folder; rerun to resume"
    )
    _net_arguments(sl)
    sl.add_argument("--steps", type=int, default=2000, help="optimizer steps (default 2000)")
    sl.add_argument("--batch-size", type=int, default=128, help="minibatch (default 128)")
    sl.add_argument("--lr", type=float, default=1e-3, help="peak learning rate (default 1e-3)")
    sl.add_argument("--weight-decay", type=float, default=1e-4, help="(default 1e-4)")
    sl.add_argument(
        "--value-scale", type=float, default=1.0, help="weight of the value loss (default 1)"
    )
    sl.add_argument("--no-augment", action="store_true", help="no random board symmetries")
    sl.add_argument(
        "--validation", type=float, default=0.05, help="share of games held out (default 0.05)"
    )
    sl.add_argument(
        "--eval-every", type=int, default=100, help="steps between evaluations (default 100)"
    )
    sl.set_defaults(func=_cmd_sl)

    rl = sub.add_parser("selfplay", help="AlphaZero-style self-play reinforcement learning")
    rl.add_argument(
        "--out", required=True, type=output_folder, help="output folder; rerun to resume"
    )
    _net_arguments(rl)
    rl.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    rl.add_argument("--max-moves", type=int, default=None, help="move cap (default 2*N*N)")
    rl.add_argument("--iterations", type=int, default=10, help="iterations (default 10)")
    rl.add_argument("--games", type=int, default=20, help="self-play games per iteration")
    rl.add_argument("--sims", type=int, default=100, help="simulations per move (default 100)")
    rl.add_argument("--batch", type=int, default=8, help="leaves per evaluation (default 8)")
    rl.add_argument("--train-steps", type=int, default=200, help="steps per iteration")
    rl.add_argument("--batch-size", type=int, default=64, help="minibatch (default 64)")
    rl.add_argument("--lr", type=float, default=1e-3, help="learning rate (default 1e-3)")
    rl.add_argument("--replay-size", type=int, default=50_000, help="replay buffer positions")
    rl.add_argument("--eval-games", type=int, default=20, help="games against the best")
    rl.add_argument("--eval-sims", type=int, default=50, help="simulations in those games")
    rl.add_argument("--promote", type=float, default=0.55, help="score rate to promote")
    rl.add_argument("--init", default=None, help="checkpoint to start from (e.g. an SL model)")
    rl.set_defaults(func=_cmd_selfplay)
