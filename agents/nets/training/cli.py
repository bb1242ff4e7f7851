"""The ``gomcts train`` command: supervised learning, self-play, the ladder's backfill.

``sl`` trains from SGF records, ``selfplay`` runs self-play generations, ``ladder`` plays a
self-play run's missing Elo ladder matches for its past generations, ``report`` copies a
self-play run's compact record (manifest, metrics, ladder, plots) and writes its summary,
``fork`` copies a run to go on with other self-play settings, ``lineage`` records that a run
goes on from another run's network (its folder lost), ``pack`` writes a network's
weights as int8 in groups (:mod:`agents.nets.packed`), ``distill`` trains a network of another
shape on a run's recorded games (:mod:`agents.nets.training.distill`), ``teach`` teaches a
network arena games against an engine, its own policy kept (:mod:`agents.nets.training.teach`).

Registered through the entry-point group ``gomcts.commands``. Examples::

    gomcts train sl data/gnugo9 --out runs/sl --preset b4c32 --steps 2000
    gomcts train selfplay --out runs/selfplay/paper --workers 2 --budget-minutes 170
    gomcts train selfplay --out runs/selfplay/paper --ray HEAD:6379 --budget-minutes 170
    gomcts train ladder --out runs/selfplay/paper --ladder-anchors gen-0002,supervised@8
    gomcts train report --out runs/selfplay/paper --to runs/records/paper
    gomcts train lineage runs/selfplay/paper-2 --earlier runs/records/paper --generation 26
    gomcts train pack runs/selfplay/paper/best.pt --out paper.pt.gz
    gomcts train distill runs/selfplay/paper --games 1-13 --held-out 14 --out runs/b6c48
    gomcts train teach strong-9x9-b6 --arena runs/gnugo/a runs/gnugo/b --out runs/taught

Rerunning a command with the same ``--out`` folder resumes it (see ``docs/nets.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["register"]


def _net_arguments(parser: argparse.ArgumentParser, preset: str = "b4c32") -> None:
    parser.add_argument("--preset", default=preset, help=f"network shape (default {preset})")
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
    from agents.nets.net_config import NetConfig

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


_SELFPLAY_OPTIONS: dict[str, str] = {
    "generations": "generations to reach; a rerun may raise it",
    "games": "self-play games per generation",
    "search": "root search of self-play: gumbel (Gumbel AlphaZero) or puct (PUCT + Dirichlet)",
    "sims": "simulations of a full search",
    "fast_sims": "simulations of a fast search (playout cap randomisation)",
    "full_share": "share of moves with a full search, whose targets are recorded (1: cap off)",
    "considered": "Gumbel: actions sampled at the root (m)",
    "c_visit": "Gumbel: c_visit of sigma",
    "c_scale": "Gumbel: c_scale of sigma",
    "c": "PUCT constant (self-play below the root, gate, ladder)",
    "noise_alpha": "PUCT self-play: Dirichlet concentration",
    "noise_weight": "PUCT self-play: Dirichlet weight",
    "temperature_moves": "PUCT self-play: moves sampled by visit counts",
    "fpu": "first-play urgency of the self-play PUCT searches: parent (the parent's value "
    "less --fpu-reduction) or auto (0, the rule of runs made before this option; resume "
    "such a run with --fpu auto)",
    "fpu_reduction": "the reduction of --fpu parent",
    "window": "generations of games in the replay window",
    "train_steps": "optimizer steps per generation",
    "batch_size": "examples per step",
    "lr": "learning rate (AdamW)",
    "weight_decay": "weight decay",
    "ownership_weight": "weight of KataGo's ownership target in the loss (Wu uses 1.5); above "
    "0 the network gets an ownership head, trained only (0: none)",
    "gate_sims": "simulations per move of the gate and ladder agents (fixed N)",
    "gate_games": "most games of a gate match (the SPRT usually stops sooner)",
    "gate_elo0": "gate SPRT: H0 Elo",
    "gate_elo1": "gate SPRT: H1 Elo",
    "gate_alpha": "gate SPRT: false-promotion rate",
    "gate_beta": "gate SPRT: false-rejection rate",
    "book_size": "openings of the gate's balanced book",
    "ladder_games": "games of the best network against each ladder anchor",
    "ladder_every": "also run the ladder every this many generations (0: after promotions only)",
    "ladder_gnugo": "GTP command of a GNU Go ladder anchor (default none)",
    "ladder_anchors": "extra ladder anchors after the built-in ones, comma-separated: gen-NNNN "
    "(the run's nets/gen-NNNN.pt, which must exist), gen-NNNN@SIMS, supervised@SIMS (the "
    "shipped supervised network at SIMS simulations), e.g. gen-0002,supervised@8; a rerun may "
    "change them",
    "evaluator": "net evaluator spec without a model, e.g. net:symmetry=random",
    "workers": "worker processes (default 1); with --ray, the Ray workers of self-play "
    "(default one per CPU of the cluster), the gate and ladder then using at most this "
    "machine's CPUs",
    "games_per_worker": "games each worker plays at once, sharing network calls",
    "komi": "komi",
    "max_moves": "move cap (default 2*N*N)",
}


def _selfplay_arguments(parser: argparse.ArgumentParser) -> None:
    import dataclasses

    from agents.matches.ray_pool import add_ray_option
    from agents.nets.training.selfplay_config import SelfPlayConfig

    fields = {f.name: f for f in dataclasses.fields(SelfPlayConfig)}
    for name, text in _SELFPLAY_OPTIONS.items():
        default = fields[name].default
        kind: Any = type(default) if default is not None else int
        if name in ("search", "fpu"):
            choices = ("gumbel", "puct") if name == "search" else ("parent", "auto")
            parser.add_argument(
                "--" + name, choices=choices, default=default, help=f"{text} (default {default})"
            )
            continue
        if name == "workers":  # the default depends on --ray (see _workers)
            parser.add_argument("--workers", type=int, default=None, help=text)
            continue
        parser.add_argument(
            "--" + name.replace("_", "-"),
            type=kind,
            default=default,
            help=f"{text} (default {default!r})"
            if default == ""
            else f"{text} (default {default})",
        )
    parser.add_argument(
        "--init",
        default=None,
        help="checkpoint to start from, 'default' for the shipped one (default: tabula rasa)",
    )
    add_ray_option(
        parser,
        "play the self-play games",
        "each worker plays --games-per-worker games at once. A choice of this start, not a "
        "setting of the run.",
    )
    parser.add_argument(
        "--budget-minutes",
        type=float,
        default=None,
        help="stop cleanly after this many minutes (rerun the command to resume)",
    )


def _workers(args: argparse.Namespace) -> int:
    """``--workers``, or its default: 1, or with ``--ray`` one per CPU of the cluster now."""
    if args.workers is not None:
        return int(args.workers)
    if args.ray is None:
        return 1
    from agents.matches.ray_pool import connect
    from agents.matches.ray_stream_pool import cluster_workers

    return cluster_workers(connect(args.ray))


def _cmd_selfplay(args: argparse.Namespace) -> int:
    import signal

    from agents.lifetime import interrupt_once
    from agents.matches.ray_pool import ClusterError
    from agents.matches.stream_pool import WorkerError
    from agents.nets.training.selfplay import run_selfplay
    from agents.nets.training.selfplay_config import SelfPlayConfig

    options = {name: getattr(args, name) for name in _SELFPLAY_OPTIONS if name != "workers"}
    try:
        config = SelfPlayConfig(
            net=_net_config(args),
            init=args.init,
            seed=args.seed,
            device=args.device,
            threads=args.threads,
            workers=_workers(args),
            **options,
        )
        # SIGTERM (a scheduler's stop, `timeout`) ends the start as Ctrl-C does: the workers
        # are shut down and the manifest records the start, its cost and its games
        signal.signal(signal.SIGTERM, interrupt_once)
        status = run_selfplay(
            args.out,
            config,
            budget_minutes=args.budget_minutes,
            log=log_line if not args.quiet else None,
            ray=args.ray,
        )
    except KeyboardInterrupt:
        print(
            f"gomcts train selfplay: interrupted; the finished games, networks and matches are "
            f"kept in {args.out}; run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    except ClusterError as exc:  # Ray missing (the message says how to install it), no cluster
        print(f"gomcts train selfplay: error: {exc}", file=sys.stderr)
        return 2
    except WorkerError as exc:
        print(
            f"gomcts train selfplay: error: {exc}\n(the finished games are kept in {args.out}; "
            "run the same command again to resume)",
            file=sys.stderr,
        )
        return 2
    print(json.dumps({"status": status, "out": str(args.out)}))
    return 0


def _cmd_ladder(args: argparse.Namespace) -> int:
    import dataclasses
    from pathlib import Path

    from agents.nets.training.ladder import backfill_ladder, parse_generations
    from agents.nets.training.manifest import Manifest
    from agents.nets.training.selfplay_config import SelfPlayConfig

    try:
        path = Path(args.out) / "manifest.json"
        if not path.exists():
            raise ValueError(f"{args.out} holds no self-play run (no manifest.json)")
        saved = SelfPlayConfig.from_dict(Manifest.load(path).data["config"])
        changes: dict[str, Any] = {}
        if args.ladder_anchors is not None:
            changes["ladder_anchors"] = args.ladder_anchors
        if args.workers is not None:
            changes["workers"] = args.workers
        config = dataclasses.replace(saved, **changes)
        status = backfill_ladder(
            args.out,
            config,
            generations=parse_generations(args.generations),
            budget_minutes=args.budget_minutes,
            log=log_line if not args.quiet else None,
        )
    except ValueError as exc:
        print(f"gomcts train ladder: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"status": status, "out": str(args.out)}))
    return 0


def _answer(command: str, folder: str, action: Callable[[], dict[str, Any]]) -> int:
    """Run ``action`` and print its answer as JSON (0), or its error on standard error (2).

    ``folder``: the output folder an ``OSError`` is most likely about.
    """
    try:
        answer = action()
    except ValueError as exc:
        print(f"gomcts train {command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        from agents.cli import os_error_message

        print(f"gomcts train {command}: error: {os_error_message(exc, folder)}", file=sys.stderr)
        return 2
    print(json.dumps(answer))
    return 0


def _cmd_fork(args: argparse.Namespace) -> int:
    from agents.nets.training.fork import fork_run
    from agents.nets.training.selfplay_config import parse_settings

    def fork() -> dict[str, Any]:
        changes = parse_settings(args.set)
        log = None if args.quiet else log_line
        record = fork_run(args.run, args.out, changes, force=args.force, log=log)
        return {"out": str(args.out), **record}

    return _answer("fork", args.out, fork)


def _cmd_report(args: argparse.Namespace) -> int:
    from agents.nets.training.report import write_report

    def report() -> dict[str, Any]:
        summary = write_report(args.out, args.to, log=None if args.quiet else log_line)
        return {"summary": str(summary), "to": str(args.to)}

    return _answer("report", args.to, report)


def _cmd_lineage(args: argparse.Namespace) -> int:
    from agents.nets.training.lineage import attach_earlier

    def lineage() -> dict[str, Any]:
        log = None if args.quiet else log_line
        return attach_earlier(args.run, args.earlier, args.generation, log=log)

    return _answer("lineage", args.run, lineage)


def _cmd_pack(args: argparse.Namespace) -> int:
    from agents.nets.packed import pack_checkpoint

    def pack() -> dict[str, Any]:
        limits = {"max_tv_mean": args.max_tv_mean, "max_value_p99": args.max_value_p99}
        return pack_checkpoint(
            args.model,
            args.out,
            positions=args.positions,
            seed=args.seed,
            force=args.force,
            note=args.note,
            **{k: v for k, v in limits.items() if v is not None},  # None: the module's
        )

    return _answer("pack", args.out, pack)


def _cmd_distill(args: argparse.Namespace) -> int:
    from agents.nets.training.distill import DistillConfig, distill

    def run() -> dict[str, Any]:
        first, _, last = args.games.partition("-")
        try:
            span = (int(first), int(last or first))
        except ValueError:
            raise ValueError(f"--games {args.games!r}: expected FIRST-LAST, e.g. 1-13") from None
        options = ("blocks", "filters", "steps", "batch_size", "lr", "ownership_weight")
        config = DistillConfig(
            first=span[0],
            last=span[1],
            held_out=args.held_out,
            eval_every=args.eval_every,
            seed=args.seed,
            threads=args.threads,
            init=args.init,
            arena=tuple(args.arena),
            arena_share=args.arena_share,
            arena_held_out=tuple(args.arena_held_out),
            **{k: getattr(args, k) for k in options},
        )
        log = (lambda line: None) if args.quiet else log_line
        summary = distill(args.run, args.out, config, compare=args.compare, log=log)
        keys = ("last", "compare", "arena")
        return {"out": str(args.out), **{k: summary[k] for k in keys if k in summary}}

    return _answer("distill", args.out, run)


def _cmd_teach(args: argparse.Namespace) -> int:
    from agents.nets.training.teach import TeachConfig, teach

    def run() -> dict[str, Any]:
        options = ("steps", "batch_size", "lr", "ownership_weight", "eval_every", "seed")
        config = TeachConfig(
            arena=tuple(args.arena),
            arena_held_out=tuple(args.arena_held_out),
            threads=args.threads,
            **{k: getattr(args, k) for k in options},
        )
        log = (lambda line: None) if args.quiet else log_line
        summary = teach(args.start, args.out, config, log=log)
        keys = ("games", "positions", "held_out_positions", "last", "start_on_held_out")
        return {"out": str(args.out), **{k: summary[k] for k in keys if k in summary}}

    return _answer("teach", args.out, run)


def _fine_tuning_arguments(
    parser: argparse.ArgumentParser, *, steps: int, lr: float, eval_every: int
) -> None:
    """The options of a resumable training folder (``distill``, ``teach``) with their defaults."""
    from agents.cli import output_folder

    parser.add_argument("--out", required=True, type=output_folder, help="output folder")
    parser.add_argument(
        "--steps", type=int, default=steps, help=f"optimizer steps (default {steps})"
    )
    parser.add_argument("--batch-size", type=int, default=256, help="minibatch (default 256)")
    parser.add_argument("--lr", type=float, default=lr, help=f"peak learning rate (default {lr:g})")
    parser.add_argument(
        "--ownership-weight", type=float, default=1.5, help="ownership target (default 1.5)"
    )
    parser.add_argument(
        "--eval-every", type=int, default=eval_every, help=f"(default {eval_every})"
    )
    parser.add_argument("--seed", type=int, default=0, help="(default 0)")
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads (default 2)")
    parser.add_argument("--quiet", action="store_true", help="no metrics lines")


def register(subparsers: Any) -> None:
    """Add ``train`` and its modes (``sl`` ... ``pack``, the module docstring's list)."""
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

    rl = sub.add_parser(
        "selfplay",
        help="self-play reinforcement learning (Gumbel AlphaZero or PUCT), resumable",
        description="Self-play training in generations: games, training, an SPRT gate and an "
        "Elo ladder (docs/nets.md, 'Self-play'). Rerun the same command to resume.",
    )
    rl.add_argument(
        "--out", required=True, type=output_folder, help="run folder, e.g. runs/selfplay/NAME"
    )
    _net_arguments(rl, preset="paper-9x9")
    _selfplay_arguments(rl)
    rl.set_defaults(func=_cmd_selfplay)

    lad = sub.add_parser(
        "ladder",
        help="play a self-play run's missing ladder matches for its past generations",
        description="Backfill the Elo ladder of a self-play run (docs/nets.md, 'Self-play'): "
        "for each past generation whose ladder was measured, its best network plays every "
        "anchor it has no row for; rewrites ladder.jsonl and elo.png. Resumable: rerun the "
        "same command. Takes no lock: never run it beside a live gomcts train selfplay start "
        "on the same folder.",
    )
    lad.add_argument("--out", required=True, help="the self-play run's folder")
    lad.add_argument(
        "--generations",
        default=None,
        metavar="A-B",
        help="generations to fill, inclusive (default: all past ones)",
    )
    lad.add_argument(
        "--ladder-anchors",
        default=None,
        help="extra anchors as in gomcts train selfplay (default: the run's own)",
    )
    lad.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: the run's)"
    )
    lad.add_argument(
        "--budget-minutes",
        type=float,
        default=None,
        help="stop cleanly after this many minutes (rerun the command to resume)",
    )
    lad.add_argument("--quiet", action="store_true", help="no progress lines")
    lad.set_defaults(func=_cmd_ladder)

    fork = sub.add_parser(
        "fork",
        help="copy a self-play run to a new folder that goes on with other self-play settings",
        description="Fork a self-play run (docs/nets.md, 'Forking a run'): copy its folder whole "
        "(games, networks, trainer state, book, results, manifest) to --out and change the "
        "settings given with --set there; then resume the copy with gomcts train selfplay "
        "--out OUT and the run's flags with the changes. The manifest keeps the run's history "
        "and records the fork. Only reads the run; stop a live start before forking it.",
    )
    fork.add_argument("run", help="the self-play run's folder (only read)")
    fork.add_argument(
        "--out", required=True, type=output_folder, help="the fork's folder (new or empty)"
    )
    fork.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a setting of the fork, e.g. --set search=puct (repeatable): the self-play "
        "search and its constants, window, batch_size, seed, evaluator, and the runtime fields",
    )
    fork.add_argument(
        "--force",
        action="store_true",
        help="fork even though the run's last start is recorded as running (killed without "
        "closing its row)",
    )
    fork.add_argument("--quiet", action="store_true", help="no progress lines")
    fork.set_defaults(func=_cmd_fork)

    rep = sub.add_parser(
        "report",
        help="copy a self-play run's compact record and write its summary.md",
        description="Copy a self-play run's manifest.json, metrics.jsonl and ladder.jsonl into "
        "--to, draw its plots (elo.png, gate.png, losses.png) again from them, and write "
        "summary.md: its settings, a table of its starts and one of its generations "
        "(docs/nets.md, 'Self-play'). Never copies the games, networks or trainer state. Only "
        "reads the run, so it may run beside a live start.",
    )
    rep.add_argument("--out", required=True, help="the self-play run's folder (only read)")
    rep.add_argument(
        "--to",
        required=True,
        type=output_folder,
        help="the record's folder, outside the run, e.g. a folder of the project's docs",
    )
    rep.add_argument("--quiet", action="store_true", help="no line per file written")
    rep.set_defaults(func=_cmd_report)

    lin = sub.add_parser(
        "lineage",
        help="record that a self-play run goes on from another run's network (a lost folder)",
        description="Record that RUN, started with --init from an earlier run's network, "
        "continues that run (docs/nets.md, 'A run whose folder was lost'): copies the earlier "
        "run's or record's manifest, metrics and ladder into RUN/earlier/ and writes "
        "RUN/earlier/lineage.json, so that gomcts train report draws the whole line, numbered "
        "on from the earlier generations, with every part's cost. Writes nothing else in RUN, "
        "so it may run beside a live start.",
    )
    lin.add_argument("run", help="the new self-play run's folder (started with --init)")
    lin.add_argument(
        "--earlier", required=True, help="the earlier run's folder or its record (only read)"
    )
    lin.add_argument(
        "--generation",
        required=True,
        type=int,
        help="the generation whose network RUN started from, numbered as the earlier "
        "record's summary numbers it (a line's numbers)",
    )
    lin.add_argument("--quiet", action="store_true", help="no line per file written")
    lin.set_defaults(func=_cmd_lineage)

    pack = sub.add_parser(
        "pack",
        help="write a network's weights as int8 in groups, about a quarter of the file",
        description="Write a packed copy of a network checkpoint (docs/nets.md, 'Packed "
        "networks'): its weights int8 in groups of 32 with one scale each, gzip-compressed "
        "when --out ends in .gz. The copy is first compared with the network on positions of "
        "the network's own games, and written only when it changes the policy and the value "
        "no more than the limits (by default, what the int8 evaluator changed when it passed "
        "its match); the check is kept in the copy's meta and printed.",
    )
    pack.add_argument("model", help="a checkpoint file, or a shipped network's name")
    pack.add_argument("--out", required=True, help="the packed file, e.g. NAME.pt.gz")
    pack.add_argument(
        "--positions", type=int, default=4000, help="positions of the check (default 4000)"
    )
    pack.add_argument("--seed", type=int, default=0, help="seed of their games (default 0)")
    pack.add_argument(
        "--max-tv-mean",
        type=float,
        default=None,
        help="limit on the mean total variation of the policy (default 0.028)",
    )
    pack.add_argument(
        "--max-value-p99",
        type=float,
        default=None,
        help="limit on the 99th percentile of the value's change (default 0.128)",
    )
    pack.add_argument("--force", action="store_true", help="write it even outside the limits")
    pack.add_argument("--note", default="", help="where the network comes from (kept in its meta)")
    pack.set_defaults(func=_cmd_pack)

    dis = sub.add_parser(
        "distill",
        help="train a network of another shape on a self-play run's recorded games",
        description="Train a network from random weights (or --init) on the recorded games of "
        "a self-play run's generations (docs/nets.md, 'Distillation'): the searches' policy "
        "targets, the results, the ownership target; --arena mixes in arena games against an "
        "engine, their results and owners after its dead stones (docs/nets.md, 'Games against "
        "GNU Go'). Rerun the same command to resume.",
    )
    dis.add_argument("run", help="the self-play run folder")
    dis.add_argument("--games", required=True, help="its generations to train on, FIRST-LAST")
    dis.add_argument("--held-out", type=int, default=None, help="a generation to measure on")
    dis.add_argument("--blocks", type=int, default=6, help="residual blocks (default 6)")
    dis.add_argument("--filters", type=int, default=48, help="filters (default 48)")
    _fine_tuning_arguments(dis, steps=8000, lr=1e-3, eval_every=1000)
    dis.add_argument(
        "--compare", nargs="*", default=[], help="networks to measure on the held-out games too"
    )
    dis.add_argument(
        "--init", default=None, help="start from this checkpoint of the shape (default: random)"
    )
    dis.add_argument(
        "--arena",
        nargs="+",
        default=[],
        metavar="FOLDER",
        help="arena output folders whose games (ended by passes) join every minibatch",
    )
    dis.add_argument(
        "--arena-share",
        type=float,
        default=0.25,
        help="share of each minibatch from the --arena games (default 0.25)",
    )
    dis.add_argument(
        "--arena-held-out",
        nargs="+",
        default=[],
        metavar="FOLDER",
        help="arena output folders to measure the value loss on",
    )
    dis.set_defaults(func=_cmd_distill)

    tea = sub.add_parser(
        "teach",
        help="teach a network arena games against an engine, its own policy kept",
        description="Fine-tune a network on arena games alone (docs/nets.md, 'Teaching a "
        "network arena games'): the value learns the results and a fresh ownership head the "
        "owners after the referee's dead stones, while the policy target is the start's own. "
        "Rerun the same command to resume.",
    )
    tea.add_argument("start", help="the network to start from: a checkpoint or a shipped name")
    tea.add_argument(
        "--arena",
        nargs="+",
        required=True,
        metavar="FOLDER",
        help="arena output folders (or results files) whose games ended by passes teach",
    )
    tea.add_argument(
        "--arena-held-out",
        nargs="+",
        default=[],
        metavar="FOLDER",
        help="arena folders to measure the value loss and the policy's drift on",
    )
    _fine_tuning_arguments(tea, steps=3000, lr=3e-4, eval_every=500)
    tea.set_defaults(func=_cmd_teach)
