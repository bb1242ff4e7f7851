"""The ``gomcts tune`` command: an Optuna study of a backup's tunable parameters by winrate.

Registered through the entry-point group ``gomcts.commands``. It builds a
:class:`tuning.studies.study.StudyConfig` from its options and calls
:func:`tuning.studies.study.run_study`, the same code path as the Python API. Examples::

    gomcts tune monotone --size 7 --komi 9 --agent mcts:sims=150 --trials 25 --games 60
    gomcts tune softmax --storage postgresql://optuna:secret@db:5432/optuna --verify-games 0
    gomcts tune softmax --trials 0            # no more trials: outputs of the study so far
    gomcts tune softmax --objective traps --deceptive --trials 30   # on trap trees (seconds)
"""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.lifetime import interrupt_once
from tuning.search_spaces import DEFAULT_D, MAX_D, make_space
from tuning.studies.options import add_options, bounded_int, option_values

__all__ = ["add_arguments", "config_from_args", "default_out", "main", "register", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``gomcts tune`` to ``parser``.

    The options of the study's settings come from the fields of
    :class:`tuning.studies.config.StudyConfig` (their help, type and choices are in the
    fields' metadata, :mod:`tuning.studies.options`); this function adds the others: the
    search space, the rules, the trap-tree objective and the command's own switches.
    """
    from agents.cli import add_rules_arguments
    from agents.traps import POLICIES
    from agents.traps.cli import add_tree_arguments
    from tuning.studies.config import StudyConfig

    parser.add_argument(
        "space",
        help="search space: a backup that declares tunable parameters (monotone, softmax, or an "
        "installed plugin's that declares them; an unknown name lists them), optionally with "
        "'+c' to tune the exploration constant too (e.g. softmax+c)",
    )
    groups = {title: parser.add_argument_group(title) for title in ("search", "games", "running")}
    study = groups["search"]
    study.add_argument(
        "--d",
        type=bounded_int(1, MAX_D, "segments of g"),
        default=DEFAULT_D,
        help=f"segments of g: d+1 knot heights g0..gd, 1 to {MAX_D} (default {DEFAULT_D})",
    )
    study.add_argument(
        "--bounds",
        type=float,
        nargs=2,
        metavar=("LOW", "HIGH"),
        default=None,
        help="box of every tuned parameter, for backups that let it be set (default the "
        "backup's: [-10, 10] monotone, [-12, 2] softmax)",
    )
    study.add_argument(
        "--tune-c", action="store_true", help="also tune the exploration constant c (log scale)"
    )
    study.add_argument(
        "--c-bounds",
        type=float,
        nargs=2,
        metavar=("LOW", "HIGH"),
        default=None,
        help="range of c when tuned (default 0.1 4)",
    )
    add_rules_arguments(parser)
    groups["games"].add_argument("--no-prune", action="store_true", help="never stop a trial early")
    add_options(parser, StudyConfig, groups)
    traps = parser.add_argument_group(
        "trap-tree objective (--objective traps; the tree options are those of gomcts traps)"
    )
    traps.add_argument(
        "--objective",
        choices=("arena", "traps"),
        default="arena",
        help="arena: winrate of games (default); traps: winning-move rate on trap trees "
        "(docs/traps.md)",
    )
    traps.add_argument(
        "--trap-sims", type=int, default=1000, help="simulations per tree search (default 1000)"
    )
    traps.add_argument("--trap-trees", type=int, default=200, help="trees per trial (default 200)")
    traps.add_argument(
        "--trap-policy",
        choices=POLICIES,
        default="uct",
        help="tree policy of the trap search (default uct)",
    )
    traps.add_argument(
        "--trap-c", type=float, default=None, help="exploration constant (default the policy's)"
    )
    traps.add_argument(
        "--verify-trees",
        type=int,
        default=500,
        help="fresh trees of the paired comparison with mean (default 500; 0: none)",
    )
    add_tree_arguments(traps)
    run = groups["running"]
    run.add_argument(
        "--no-outputs",
        action="store_true",
        help="run trials only: no best file, plots or verification (extra workers)",
    )
    run.add_argument("--quiet", action="store_true", help="no progress lines and no bar")
    run.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar of the trials (the progress lines stay)",
    )


def config_from_args(args: argparse.Namespace) -> Any:
    """The :class:`tuning.studies.config.StudyConfig` the options describe.

    Raises:
        ValueError: For a bad option (unknown space, reversed bounds...).
    """
    from agents.cli import rules_from_args
    from tuning.studies.config import StudyConfig
    from tuning.studies.objective import PRUNE_Z

    values = option_values(args, StudyConfig)
    out = values.pop("out")
    values.update(
        space=make_space(
            args.space, d=args.d, bounds=args.bounds, tune_c=args.tune_c, c_bounds=args.c_bounds
        ),
        rules=rules_from_args(args),
        prune=not args.no_prune,
        prune_z=PRUNE_Z if args.prune_z is None else args.prune_z,
        workers=args.workers if args.workers is not None or args.ray else 1,
        heartbeat_interval=args.heartbeat_interval or None,
    )
    if args.objective == "traps":
        from agents.traps.cli import trees_from_args
        from tuning.studies.trap_objective import TrapObjectiveConfig

        values["traps"] = TrapObjectiveConfig(
            trees=trees_from_args(args),
            sims=args.trap_sims,
            n_trees=args.trap_trees,
            policy=args.trap_policy,
            c=args.trap_c,
            verify_trees=args.verify_trees,
            workers=args.workers if args.workers is not None else 1,
        )
        values["agent"] = f"mcts:sims={args.trap_sims}"
        values["workers"] = 1
        values["verify_games"] = 0
    config = StudyConfig(**values)
    return dataclasses.replace(
        config, out=Path(out) if out else default_out(config.name, values["storage"])
    )


def default_out(name: str, storage: str | None) -> Path:
    """The output folder of study ``name`` without ``--out``: ``runs/tune/<name>``.

    A study started before that default, in ``runs/<name>`` with its ``study.db`` there, is
    continued where it is (the same command keeps continuing it).
    """
    old = Path("runs") / name
    if storage is None and (old / "study.db").is_file():
        return old
    return Path("runs") / "tune" / name


def run(args: argparse.Namespace) -> int:
    """Run ``gomcts tune``; returns the exit status."""
    from tuning.studies.outputs import finish_study
    from tuning.studies.study import run_study

    config = config_from_args(args)
    verification = None
    if config.ray is not None:  # say it now, not in the first trial
        from agents.matches.ray_pool import ClusterError, import_ray

        try:
            import_ray()
        except ClusterError as exc:
            print(f"gomcts tune: error: {exc}", file=sys.stderr)
            return 2
    signal.signal(signal.SIGTERM, interrupt_once)
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)  # the progress lines say it all
    from tuning.studies.resume import load_study
    from tuning.studies.study import quiet_interrupts

    quiet_interrupts()  # an interrupted trial is queued again; no traceback for it
    bar = None
    if not args.quiet and not args.no_progress:
        from tuning.studies.trial_bar import TrialBar

        # The study and its storage exist before the bar's thread polls them: two threads
        # creating one SQLite storage race on its schema (IntegrityError on alembic_version).
        load_study(config)
        bar = TrialBar(config)
    progress = None if args.quiet else (lambda line: print(line, flush=True))
    if bar is not None:
        progress = bar.write
    if progress is not None and config.traps is not None:
        t = config.traps
        progress(
            f"study {config.name}: {config.space.name} (d={config.space.d}, bounds "
            f"{list(config.space.box)}), {config.trials} trials of {t.n_trees} trap trees at "
            f"{t.sims} simulations ({t.trees}); output in {config.out_dir}"
        )
    elif progress is not None:
        progress(
            f"study {config.name}: {config.space.name} (d={config.space.d}, bounds "
            f"{config.space.box}), {config.trials} trials of {config.games} games, "
            f"{config.rules.size}x{config.rules.size}, candidate {config.agent} vs "
            f"{config.baseline_spec}; output in {config.out_dir}"
        )
    try:
        try:
            run_study(config, progress=progress, outputs=False)
        finally:
            if bar is not None:
                bar.close()
                progress = lambda line: print(line, flush=True)  # noqa: E731 (the bar is gone)
        if args.no_outputs:
            return 0
        report = finish_study(config, progress=progress)
        if config.traps is not None and config.traps.verify_trees and report.best is not None:
            verification = _verify_traps(config, report.best["params"], progress)
    except KeyboardInterrupt:
        print("interrupted: run the same command again to continue the study", file=sys.stderr)
        return 130
    except RuntimeError as exc:  # a game failed (ArenaError) or a job process died
        print(f"gomcts tune: error: {exc}", file=sys.stderr)
        return 1
    print(report.format(), flush=True)
    if verification is not None:
        print(verification, flush=True)
    return 0


def _verify_traps(config: Any, params: dict[str, float], progress: Any) -> str:
    """The recommended parameters against mean on fresh trap trees, paired; a text report."""
    from tuning.studies.trap_objective import verify_on_fresh_trees

    traps = config.traps
    out = config.out_dir / "verify-traps"
    if progress is not None:
        progress(
            f"verification: the recommended parameters vs {traps.baseline} on "
            f"{traps.verify_trees} fresh trees at {traps.sims} simulations"
        )
    result = verify_on_fresh_trees(
        config.space, traps, params, config.seed, out=out, progress=sys.stderr.isatty()
    )
    return (
        f"verification on {traps.verify_trees} fresh trap trees (grid seed {result.seed}), "
        f"{result.candidate} vs {result.baseline}:\n{result.table}"
        f"(table in {out / 'table.md'})"
    )


def register(subparsers: Any) -> None:
    """Add the ``tune`` subcommand (entry point of the group ``gomcts.commands``)."""
    parser = subparsers.add_parser(
        "tune",
        help="tune a backup's declared parameters (monotone, softmax, a plugin's) with an Optuna "
        "study (arena winrate)",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Documentation: docs/tuning.md",
    )
    add_arguments(parser)
    parser.set_defaults(func=run)


def main(argv: Sequence[str] | None = None) -> int:
    """``gomcts tune ARGS`` (the CLI's own error handling included)."""
    from agents.cli import main as gomcts_main

    return gomcts_main(["tune", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
