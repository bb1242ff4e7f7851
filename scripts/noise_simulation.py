"""Samplers compared on a simulated tuning study with known truth (no games are played).

A known smooth function of the knot heights gives every point a true winrate in
[0.35, 0.65]; a trial's value is a binomial draw over ``--games`` games. Each sampler runs
``--trials`` trials per seed, and the true winrate of its recommended point is recorded
(``tuning.samplers.simulation``; ``docs/tuning.md`` shows the table). Resumable: run the same
command again to continue::

    nice -n 10 python scripts/noise_simulation.py --seeds 20 --games 60 200
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the simulation, write its outputs, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--space", default="softmax", help="search space (default softmax)")
    parser.add_argument("--d", type=int, default=5, help="segments of g (default 5)")
    parser.add_argument(
        "--coupled",
        action="store_true",
        help="rotate the true bump so that no knot can be tuned alone (default: separable)",
    )
    parser.add_argument(
        "--methods",
        nargs="+",
        default=["botorch", "gp", "tpe", "random"],
        help="samplers (default: botorch gp tpe random)",
    )
    parser.add_argument(
        "--games", type=int, nargs="+", default=[60, 200], help="games per trial (default 60 200)"
    )
    parser.add_argument("--seeds", type=int, default=20, help="seeds per setting (default 20)")
    parser.add_argument("--trials", type=int, default=30, help="trials per run (default 30)")
    parser.add_argument(
        "--startup-trials", type=int, default=10, help="uniform start-up trials (default 10)"
    )
    parser.add_argument(
        "--out",
        default="docs/results/tuning/noise-simulation",
        help="output folder (default docs/results/tuning/noise-simulation)",
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    args = parser.parse_args(argv)

    import optuna
    import torch

    from tuning.samplers.simulation import (
        SimulationConfig,
        format_table,
        run_simulation,
        write_outputs,
    )

    torch.set_num_threads(args.threads)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        config = SimulationConfig(
            space=args.space,
            d=args.d,
            coupled=args.coupled,
            methods=tuple(args.methods),
            games=tuple(args.games),
            seeds=args.seeds,
            trials=args.trials,
            startup_trials=args.startup_trials,
            out=args.out,
        )
        records = run_simulation(config, progress=lambda line: print(line, flush=True))
    except ValueError as exc:
        print(f"noise_simulation: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: run the same command again to continue", file=sys.stderr)
        return 130
    paths = write_outputs(config, records)
    print(format_table(json.loads(paths["summary"].read_text())["rows"]))
    print("\n".join(f"{k}: {v}" for k, v in paths.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
