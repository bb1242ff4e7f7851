"""Generate 9x9 training games locally: GNU Go self-play at chosen levels, one SGF per game.

Example (the shipped model's data, see docs/nets.md)::

    python scripts/generate_gnugo_games.py data/gnugo9 --games 400 --levels 1-8 --workers 2

Rerunning the same command resumes (games already in the folder are kept).
"""

from __future__ import annotations

import argparse
import json
import sys

from agents.nets.training.gnugo_games import GnuGoGames, generate_games
from go_env.rules import Rules


def _levels(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        out.extend(range(int(low), int(high or low) + 1))
    return tuple(out)


def main(argv: list[str] | None = None) -> int:
    """Run the generator with command-line arguments; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="folder for the SGF files")
    parser.add_argument("--games", type=int, default=200, help="number of games (default 200)")
    parser.add_argument(
        "--levels",
        type=_levels,
        default=(1, 2, 3, 4, 5, 6, 7, 8),
        help="GNU Go levels to draw from, e.g. 1-8 or 1,3,5 (default 1-8)",
    )
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument(
        "--random-moves", type=int, default=0, help="random opening moves per game (default 0)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the set (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument(
        "--max-minutes", type=float, default=None, help="start no game after this many minutes"
    )
    parser.add_argument("--program", default="gnugo", help="the GNU Go program (default gnugo)")
    args = parser.parse_args(argv)
    config = GnuGoGames(
        games=args.games,
        levels=args.levels,
        rules=Rules(size=args.size, komi=args.komi),
        random_moves=args.random_moves,
        seed=args.seed,
        program=args.program,
    )
    summary = generate_games(
        config,
        args.out,
        workers=args.workers,
        max_seconds=None if args.max_minutes is None else args.max_minutes * 60,
        progress=True,
    )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
