"""The README's main job: a small Optuna study of a backup, end to end, on an embedded file.

It runs ``gomcts tune`` (the same code path) with settings sized for a few minutes on two
cores: Softmax MCTS on 7x7 (komi 9) at 32 simulations per move, 12 trials of 20 games with
two worker processes, sampled by the GP that knows each trial's noise, then a 200-game
verification match of the recommended parameters (the best GP posterior mean). It prints
them with their posterior sd beside the raw winrate, the verification winrate with its
Wilson interval and where the plots are. The study lives in
``runs/main-study/<space>/study.db``: running the command again continues it (or, when it is
complete, only prints the results again).

Every default can be changed; options after the script's name are ``gomcts tune`` options
and override the defaults (``--space`` picks the search space)::

    python scripts/main_study.py
    python scripts/main_study.py --space monotone --size 9 --trials 30 --games 40
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from agents.cli import main as gomcts

DEFAULTS = [
    "--size", "7", "--komi", "9", "--agent", "mcts:sims=32",
    "--trials", "12", "--startup-trials", "6", "--games", "20", "--batch", "4",
    "--jobs", "2", "--verify-games", "200", "--verify-workers", "2", "--seed", "1",
]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Run the small study; returns the exit status of ``gomcts tune``."""
    parser = argparse.ArgumentParser(
        usage="%(prog)s [-h] [--space SPACE] [gomcts tune options ...]",
        description=__doc__.splitlines()[0],
        epilog=(
            "Every other option is a `gomcts tune` option (see `gomcts tune --help`) and "
            "overrides the defaults: " + " ".join(DEFAULTS) + ". Example: python "
            "scripts/main_study.py --space monotone --trials 30 --games 40"
        ),
    )
    parser.add_argument(
        "--space",
        default="softmax",
        help="search space, the positional argument of `gomcts tune` (default softmax)",
    )
    args, rest = parser.parse_known_args(argv)
    out = ["--out", f"runs/main-study/{args.space}"]
    start = time.monotonic()
    code = gomcts(["tune", args.space, *DEFAULTS, *out, *rest])
    print(f"main study finished in {time.monotonic() - start:.0f} s (exit status {code})")
    return code


if __name__ == "__main__":  # worker processes start with the spawn method
    sys.exit(main())
