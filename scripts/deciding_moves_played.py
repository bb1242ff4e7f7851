r"""Played out: the suspect against the deep search's move at each deciding position.

    python scripts/deciding_moves_played.py SUSPECT/results.jsonl DEEP/results.jsonl

``scripts/blunder_check.py --book PREFIX`` writes two opening books: line ``p`` is a lost
game up to its deciding position, then A's suspect move (``PREFIX-suspect.txt``) or the deep
search's move there (``PREFIX-deep.txt``). Played by the same agents with the same ``--seed``
(``gomcts arena --book``), pair ``p`` plays line ``p`` twice, agent A as Black first. The game
where A has the side that made the line's last move (Black when the line has an odd number of
moves) says whether A, on its own side, does better after the deep move; the other game, A on
the opponent's side, says the same from across the board (a better last move makes A lose
there). Prints both, with the two-sided sign test on the lines scored differently.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.matches.paired import sign_test
from agents.matches.results import GameOutcome, ResultsError, read_results


def own_side(game: GameOutcome) -> bool:
    """Whether A plays the side that made the last move of ``game``'s opening line."""
    return game.a_black == (len(game.opening) % 2 == 1)


def side_games(games: dict[int, GameOutcome], own: bool) -> dict[int, GameOutcome]:
    """The games by pair where A plays its own side of the line (``own``) or the other."""
    return {game.pair: game for game in games.values() if own_side(game) == own}


def compare(suspect: dict[int, GameOutcome], deep: dict[int, GameOutcome]) -> tuple[int, ...]:
    """``(lines, A's points after the suspect, after the deep move, deep only, suspect only)``."""
    lines = sorted(suspect.keys() & deep.keys())
    for pair in lines:
        if suspect[pair].opening[:-1] != deep[pair].opening[:-1]:
            raise ResultsError(f"pair {pair}: the two books' lines differ before their last move")
    deep_only = sum(deep[p].score_a > suspect[p].score_a for p in lines)
    suspect_only = sum(deep[p].score_a < suspect[p].score_a for p in lines)
    points = (sum(suspect[p].score_a for p in lines), sum(deep[p].score_a for p in lines))
    return (len(lines), *points, deep_only, suspect_only)


def main(argv: list[str] | None = None) -> int:
    """Print the two comparisons; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suspect", type=Path, help="results of the match on PREFIX-suspect.txt")
    parser.add_argument("deep", type=Path, help="results of the match on PREFIX-deep.txt")
    args = parser.parse_args(argv)
    try:
        (match_s, suspect), (match_d, deep) = read_results(args.suspect), read_results(args.deep)
        if match_s.get("agent_b") != match_d.get("agent_b"):
            raise ResultsError("the two matches were played against different opponents")
        rows = [
            (own, compare(side_games(suspect, own), side_games(deep, own))) for own in (True, False)
        ]
    except (OSError, ResultsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for own, (lines, after_suspect, after_deep, deep_only, suspect_only) in rows:
        side = "its own side" if own else "the opponent's side"
        print(
            f"A on {side}: {lines} lines, A scored {after_suspect:g} after the suspect and "
            f"{after_deep:g} after the deep move; {deep_only} lines better for A after the deep "
            f"move, {suspect_only} after the suspect, p = {sign_test(deep_only, suspect_only):.3g}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
