"""The ``gomcts tune`` command: an Optuna study of a backup's tunable parameters by winrate.

Registered through the entry-point group ``gomcts.commands``. It builds a
:class:`tuning.study.StudyConfig` from its options and calls :func:`tuning.study.run_study`,
the same code path as the Python API. Examples::

    gomcts tune monotone --size 7 --komi 9 --agent mcts:sims=150 --trials 25 --games 60
    gomcts tune softmax --storage postgresql://optuna:secret@db:5432/optuna --verify-games 0
    gomcts tune softmax --trials 0            # no more trials: outputs of the study so far
    gomcts tune softmax --objective traps --deceptive --trials 30   # on trap trees (seconds)
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.lifetime import interrupt_once
from agents.matches.cli import games_per_worker
from tuning.samplers import DEFAULT_SAMPLER, SAMPLERS
from tuning.search_spaces import DEFAULT_D, MAX_D, make_space

__all__ = ["add_arguments", "bounded_int", "config_from_args", "main", "register", "run"]


def bounded_int(low: int, high: int, what: str) -> Any:
    """An ``argparse`` type: an int from ``low`` to ``high``; the error says what is allowed."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"must be an int from {low} to {high} ({what}), got {text!r}"
            )
        return value

    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``gomcts tune`` to ``parser``."""
    from agents.cli import add_rules_arguments, output_folder
    from agents.traps import POLICIES
    from agents.traps.cli import add_tree_arguments
    from tuning.study import MAX_JOBS, MAX_SECONDS

    parser.add_argument(
        "--games-per-worker",
        type=games_per_worker,
        default=1,
        metavar="K",
        help="games each arena process plays at once, their searches' leaf evaluations "
        "batched into one network call per round (docs/arena.md; default 1)",
    )
    parser.add_argument(
        "space",
        help="search space: a backup that declares tunable parameters (monotone, softmax, or an "
        "installed plugin's that declares them; an unknown name lists them), optionally with "
        "'+c' to tune the exploration constant too (e.g. softmax+c)",
    )
    study = parser.add_argument_group("search")
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
    study.add_argument(
        "--trials",
        type=int,
        default=20,
        help="COMPLETE trials the study should reach, over all workers "
        "(default 20; 0: only write the outputs)",
    )
    study.add_argument(
        "--sampler",
        choices=SAMPLERS,
        default=DEFAULT_SAMPLER,
        help="botorch: a GP told each trial's binomial noise, noisy EI (default); gp: "
        "Optuna's GPSampler; tpe; random",
    )
    study.add_argument(
        "--startup-trials",
        type=int,
        default=10,
        help="uniform random trials before the GP takes over (default 10)",
    )
    study.add_argument("--seed", type=int, default=0, help="study seed (default 0)")
    match = parser.add_argument_group("games")
    match.add_argument(
        "--agent",
        default="mcts:sims=100",
        help="base agent spec; the candidate is it with the tuned backup (default mcts:sims=100)",
    )
    match.add_argument(
        "--baseline",
        default=None,
        help="opponent spec (default: the base agent with the mean backup)",
    )
    add_rules_arguments(parser)
    match.add_argument(
        "--games",
        type=int,
        default=60,
        help="games per trial, even: pairs with colours swapped (default 60)",
    )
    match.add_argument(
        "--batch",
        type=int,
        default=10,
        help="games between two reports to the pruner, even (default 10)",
    )
    match.add_argument("--no-prune", action="store_true", help="never stop a trial early")
    match.add_argument(
        "--prune-z",
        type=float,
        default=None,
        help="quantile of the pruner's upper Wilson bound (default 2.576: 99%%)",
    )
    match.add_argument(
        "--prune-min-games",
        type=int,
        default=None,
        help="no pruning before this many games (default games/4, whole batches)",
    )
    match.add_argument(
        "--opening-moves",
        type=int,
        default=2,
        help="random opening moves shared by a pair of games (default 2)",
    )
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
    run = parser.add_argument_group("running")
    run.add_argument(
        "--out",
        type=output_folder,
        default=None,
        help="output folder (default runs/tune/<study name>)",
    )
    run.add_argument(
        "--storage",
        default=None,
        help="study storage: a *.db / *.log file, sqlite:///PATH, journal:PATH or "
        "postgresql://USER:PASSWORD@HOST:PORT/DB (default <out>/study.db)",
    )
    run.add_argument(
        "--study-name",
        default=None,
        help="study name in the storage (default <space>-<size>x<size>-n<sims>)",
    )
    run.add_argument(
        "--jobs",
        type=bounded_int(1, MAX_JOBS, "worker processes"),
        default=1,
        help=f"worker processes running trials in parallel here, 1 to {MAX_JOBS} (default 1)",
    )
    run.add_argument(
        "--workers",
        type=int,
        default=None,
        help="arena processes per trial (default 1: games run in the job itself); with "
        "--ray, games of a trial in flight on the cluster (default: all its CPUs)",
    )
    run.add_argument(
        "--ray",
        nargs="?",
        const="auto",
        default=None,
        metavar="ADDRESS",
        help="play the games of trials and of the verification on a Ray cluster: the one "
        "this machine belongs to (no ADDRESS, or auto), HOST:PORT of its head, "
        'ray://HOST:10001, or local. Needs pip install "gomcts[cluster]"; see docs/cluster.md',
    )
    run.add_argument(
        "--heartbeat",
        type=bounded_int(0, MAX_SECONDS, "seconds; 0: no heartbeat"),
        default=30,
        help=f"seconds between heartbeats of a running trial, 0 (none) to {MAX_SECONDS} "
        "(default 30)",
    )
    run.add_argument(
        "--grace",
        type=bounded_int(1, MAX_SECONDS, "seconds"),
        default=None,
        help="seconds without heartbeat before a trial is retried, at most "
        f"{MAX_SECONDS} (default 2x the heartbeat)",
    )
    run.add_argument(
        "--max-retry", type=int, default=3, help="retries of one interrupted trial (default 3)"
    )
    run.add_argument(
        "--verify-games",
        type=int,
        default=400,
        help="games of the verification match of the best parameters (default 400; 0: none)",
    )
    run.add_argument(
        "--verify-workers",
        type=int,
        default=None,
        help="processes of the verification match (default: all cores)",
    )
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
    """The :class:`tuning.study.StudyConfig` the options describe.

    Raises:
        ValueError: For a bad option (unknown space, reversed bounds...).
    """
    from agents.cli import rules_from_args
    from tuning.objective import PRUNE_Z
    from tuning.study import StudyConfig

    space = make_space(
        args.space, d=args.d, bounds=args.bounds, tune_c=args.tune_c, c_bounds=args.c_bounds
    )
    fields: dict[str, Any] = {
        "space": space,
        "agent": args.agent,
        "baseline": args.baseline,
        "rules": rules_from_args(args),
        "games": args.games,
        "batch": args.batch,
        "prune": not args.no_prune,
        "prune_z": PRUNE_Z if args.prune_z is None else args.prune_z,
        "prune_min_games": args.prune_min_games,
        "trials": args.trials,
        "sampler": args.sampler,
        "startup_trials": args.startup_trials,
        "seed": args.seed,
        "opening_moves": args.opening_moves,
        "study_name": args.study_name,
        "storage": args.storage,
        "workers": args.workers if args.workers is not None or args.ray else 1,
        "jobs": args.jobs,
        "heartbeat_interval": args.heartbeat or None,
        "grace_period": args.grace,
        "max_retry": args.max_retry,
        "verify_games": args.verify_games,
        "verify_workers": args.verify_workers,
        "ray": args.ray,
        "games_per_worker": args.games_per_worker,
    }
    if args.objective == "traps":
        from agents.traps.cli import trees_from_args
        from tuning.trap_objective import TrapObjectiveConfig

        fields["traps"] = TrapObjectiveConfig(
            trees=trees_from_args(args),
            sims=args.trap_sims,
            n_trees=args.trap_trees,
            policy=args.trap_policy,
            c=args.trap_c,
            verify_trees=args.verify_trees,
            workers=args.workers if args.workers is not None else 1,
        )
        fields["agent"] = f"mcts:sims={args.trap_sims}"
        fields["workers"] = 1
        fields["verify_games"] = 0
    config = StudyConfig(**fields)
    out = Path(args.out) if args.out else default_out(config.name, args.storage)
    return StudyConfig(**fields, out=out)


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
    from tuning.study import run_study
    from tuning.study_outputs import finish_study

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
    from tuning.study import quiet_interrupts

    quiet_interrupts()  # an interrupted trial is queued again; no traceback for it
    bar = None
    if not args.quiet and not args.no_progress:
        from tuning.trial_bar import TrialBar

        # The study and its storage exist before the bar's thread polls them: two threads
        # creating one SQLite storage race on its schema (IntegrityError on alembic_version).
        config.load_study()
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
    from tuning.trap_objective import verify_on_fresh_trees

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
