"""Where were an arena match's games decided? The position when agent B first passed.

For every game of a results file (``agents.matches.arena``), the moves are replayed up to the first
pass of agent B (the opponent, e.g. GNU Go, which passes once it considers the game over). At
that point the script counts A's margin twice: as the board stands (Tromp-Taylor) and after
removing the stones that playout ownership judges dead (``go_env.dead_stones``). The table
crosses both with the game's result, which shows whether A lost games it was winning when B
passed, or games that were already lost by then.

Example (the matches of ``docs/strength.md``)::

    python scripts/pass_analysis.py docs/results/strength/net1-800/results.jsonl

``--book FILE`` also writes the position at B's first pass of every game A lost, as an opening
book of GTP move lines (``gomcts arena --book``): a match from there shows what A does with
the moves B leaves it (``docs/strength.md``, "Filling one's own eyes"). A book pair plays
each line twice, A as Black in its first game.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from agents.matches.results import GameOutcome, read_results
from go_env.coords import to_gtp
from go_env.dead_stones import estimate_dead, score_without
from go_env.rules import Rules
from go_env.state import GoState

Positions = list[tuple[GameOutcome, GoState | None]]
"""Each game with its position right after B's first pass (``None``: B never passed)."""


def positions_at_first_pass(path: Path) -> Positions:
    """Each game record with the position right after B's first pass (``None``: B never passed).

    Raises:
        ValueError: When the file is not an arena results file.
    """
    match, games = read_results(path)
    rules = Rules(**match["rules"])
    out: Positions = []
    for game in games.values():
        state = GoState(rules)
        b_colour_moves_first = not game.a_black  # B is Black when A is White
        found = None
        for number, move in enumerate(game.moves):
            state.play(move)
            b_moved = (number % 2 == 0) == b_colour_moves_first
            if b_moved and move == state.pass_move:
                found = state
                break
        out.append((game, found))
    return out


def classify(positions: Positions, playouts: int = 64) -> Counter:
    """Counts of ``(A's game score, A ahead after dead removal, A ahead as it stands)``."""
    counts: Counter = Counter()
    for game, state in positions:
        if state is None:
            counts[(game.score_a, None, None)] += 1
            continue
        sign = 1.0 if game.a_black else -1.0
        removed = score_without(state, estimate_dead(state, playouts, seed=0)) * sign
        raw = state.score() * sign
        counts[(game.score_a, removed > 0, raw > 0)] += 1
    return counts


def write_lost_book(positions: Positions, book: Path) -> None:
    """Write the moves to B's first pass of each game A lost, one GTP line each."""
    lines = [
        " ".join(to_gtp(move, state.size) for _, move in state.history) + "\n"
        for game, state in positions
        if state is not None and game.score_a == 0.0
    ]
    book.write_text("".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Print the table for a results file; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="an arena results.jsonl")
    parser.add_argument("--playouts", type=int, default=64, help="ownership playouts")
    parser.add_argument("--book", type=Path, help="write A's lost games to B's first pass here")
    args = parser.parse_args(argv)
    try:
        positions = positions_at_first_pass(args.results)
        counts = classify(positions, args.playouts)
        if args.book is not None:
            write_lost_book(positions, args.book)
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    word = {1.0: "A won", 0.5: "draw", 0.0: "A lost"}
    yes = {True: "ahead", False: "behind", None: "-"}
    print("result   | A after dead removal | A as the board stands | games")
    for (score, removed, raw), n in sorted(counts.items(), key=lambda kv: str(kv[0])):
        note = " (B never passed)" if removed is None else ""
        print(f"{word[score]:8} | {yes[removed]:20} | {yes[raw]:21} | {n}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
