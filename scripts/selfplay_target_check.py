r"""Per generation of a self-play run: who wins, and how many policy targets are flat, by side.

A PUCT search whose unvisited children are worth 0 (``fpu=auto``) turns breadth-first for a
side its network thinks is losing: every untried move scores above the tried ones, so 64
simulations try about 60 moves once each and the visit-count target says nothing. The
network then learns a flat policy for that side, the side loses more, its value drops
further: a loop (``docs/nets.md``, "First-play urgency"). This script shows whether a run is
in it, from its games alone.

A target is **flat** when it spreads over at least ``--min-moves`` moves and its largest
probability is at most ``--ratio`` times its smallest (with visit counts: each move tried
once or a few times). Usage::

    python scripts/selfplay_target_check.py /work/selfplay-runs/strong-9x9
    python scripts/selfplay_target_check.py RUN --generations 5-11 --json

Prints one row per generation: games, Black's share of the wins, and the share of Black's
and White's recorded targets that are flat.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.nets.training.ladder import parse_generations  # noqa: E402
from agents.nets.training.records import GameFile, GameRecord, PolicyTarget  # noqa: E402


def is_flat(target: PolicyTarget, *, min_moves: int = 20, ratio: float = 3.0) -> bool:
    """Whether ``target`` is flat (see the module docstring).

    It is when it spreads over ``min_moves`` moves or more and its largest probability is at
    most ``ratio`` times its smallest.
    """
    if len(target.probs) < min_moves:
        return False
    return max(target.probs) <= ratio * min(target.probs) + 1e-9


def generation_row(
    generation: int, games: Iterable[GameRecord], *, min_moves: int = 20, ratio: float = 3.0
) -> dict[str, Any]:
    """Black's wins and each side's flat targets over one generation's ``games``."""
    count = black_wins = 0
    flat = {"black": 0, "white": 0}
    total = {"black": 0, "white": 0}
    for game in games:
        count += 1
        black_wins += game.winner == 1
        for target in game.targets:
            side = "black" if target.move_number % 2 == 0 else "white"
            total[side] += 1
            flat[side] += is_flat(target, min_moves=min_moves, ratio=ratio)
    return {
        "generation": generation,
        "games": count,
        "black_win_share": black_wins / count if count else None,
        **{f"{side}_targets": total[side] for side in ("black", "white")},
        **{
            f"{side}_flat_share": flat[side] / total[side] if total[side] else None
            for side in ("black", "white")
        },
    }


def check_run(
    run: Path,
    generations: tuple[int, int] = (1, 2**31),
    *,
    min_moves: int = 20,
    ratio: float = 3.0,
) -> list[dict[str, Any]]:
    """One :func:`generation_row` per game file of ``run`` in the inclusive ``generations``."""
    files = sorted((run / "games").glob("gen-*.jsonl"))
    if not files:
        raise ValueError(f"{run} holds no self-play games (no games/gen-NNNN.jsonl)")
    rows = []
    for path in files:
        generation = int(path.stem.split("-")[1])
        if not generations[0] <= generation <= generations[1]:
            continue
        games = GameFile(path).read().values()
        rows.append(generation_row(generation, games, min_moves=min_moves, ratio=ratio))
    return rows


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def main(argv: list[str] | None = None) -> int:
    """The command line: 0, or 2 with the error on standard error."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a self-play run folder")
    parser.add_argument("--generations", default=None, help="A-B or A, e.g. 5-11 (default: all)")
    parser.add_argument("--min-moves", type=int, default=20, help="default 20")
    parser.add_argument("--ratio", type=float, default=3.0, help="default 3")
    parser.add_argument("--json", action="store_true", help="one JSON row per generation")
    args = parser.parse_args(argv)
    try:
        wanted = parse_generations(args.generations)
        rows = check_run(args.run, wanted, min_moves=args.min_moves, ratio=args.ratio)
    except ValueError as exc:
        print(f"selfplay_target_check: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    print("| generation | games | Black wins | Black's targets flat | White's targets flat |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['generation']} | {row['games']:,} | {_share(row['black_win_share'])} | "
            f"{_share(row['black_flat_share'])} | {_share(row['white_flat_share'])} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
