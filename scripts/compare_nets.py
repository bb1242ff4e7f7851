"""Compare networks on the games a supervised run held out.

    python scripts/compare_nets.py DATA CHECKPOINT [CHECKPOINT ...] [--seed S] [--validation F]

With the ``--seed`` and ``--validation`` of a ``gomcts train sl DATA`` run, the held-out games
are exactly those of that run's ``val_*`` metrics, so a network trained on other data (an older
shipped model, say) is measured on games neither has seen. Prints one line per checkpoint:
policy cross-entropy, value mean squared error and move accuracy.
"""

from __future__ import annotations

import argparse

from agents.nets.threads import use_threads
from agents.nets.training.supervised import held_out_losses


def main(argv: list[str] | None = None) -> None:
    """Print the held-out losses of the checkpoints named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="folder of SGF files (searched recursively)")
    parser.add_argument("checkpoints", nargs="+", help="model or checkpoint files")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    parser.add_argument(
        "--validation", type=float, default=0.05, help="share of games held out (default 0.05)"
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="torch CPU threads (default 1; 0: torch's)"
    )
    args = parser.parse_args(argv)
    try:
        use_threads(args.threads)
    except ValueError as error:
        parser.error(f"--{error}")
    losses = held_out_losses(args.checkpoints, args.data, share=args.validation, seed=args.seed)
    width = max(len(path) for path in args.checkpoints)
    print(f"{'checkpoint':<{width}}  policy  value  accuracy")
    for path, row in zip(args.checkpoints, losses, strict=True):
        print(f"{path:<{width}}  {row['policy']:6.3f}  {row['value']:5.3f}  {row['accuracy']:8.1%}")


if __name__ == "__main__":
    main()
