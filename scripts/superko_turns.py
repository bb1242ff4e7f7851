"""Turns of an arena match where agent B could play a move that only our superko forbids.

    python scripts/superko_turns.py RESULTS.jsonl [RESULTS.jsonl ...]

GNU Go enforces simple ko only; the arena's rules default to positional superko. At a turn of
agent B where some move is legal under simple ko but a superko repetition under the match's
rules, GNU Go's ``genmove`` may answer that move, and the ``gtp`` agent then replaces it with
``restricted_genmove`` (``agents.gtp.client_agent``). Replaying every game, this lists those
turns: the only places where that replacement can have happened. ``docs/strength.md`` uses it
to bound the games that a fault of that replacement (fixed in ``dfcc466``) could have touched.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from agents.matches.results import GameOutcome, ResultsError, read_results
from go_env.coords import to_gtp
from go_env.rules import Rules
from go_env.state import GoState


def superko_turns(rules: Rules, games: dict[int, GameOutcome]) -> list[tuple[int, int, list[int]]]:
    """``(game index, move number, moves only our superko forbids)`` for each such turn of B."""
    simple = dataclasses.replace(rules, ko="simple")
    turns = []
    for index in sorted(games):
        game = games[index]
        ours, simple_ko = GoState(rules), GoState(simple)
        b_moves_first = not game.a_black  # B is Black when A is White
        for number, move in enumerate(game.moves):
            if number >= len(game.opening) and (number % 2 == 0) == b_moves_first:
                only_superko = set(map(int, simple_ko.legal_moves())) - set(
                    map(int, ours.legal_moves())
                )
                if only_superko:
                    turns.append((index, number, sorted(only_superko)))
            ours.play(move)
            simple_ko.play(move)
    return turns


def main(argv: list[str] | None = None) -> int:
    """Print the turns of each results file; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+", help="arena results.jsonl files")
    args = parser.parse_args(argv)
    for path in args.results:
        try:
            match, games = read_results(path)
        except (OSError, ResultsError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        rules = Rules(**match["rules"])
        turns = superko_turns(rules, games)
        touched = sorted({index for index, _, _ in turns})
        print(f"{path}: {len(turns)} turns in games {touched}")
        for index, number, moves in turns:
            names = " ".join(to_gtp(m, rules.size) for m in moves)
            print(f"  game {index}, move {number}: forbidden only by superko: {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
