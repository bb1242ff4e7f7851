r"""How often do agents' searches play marked moves at a book's positions?

    python scripts/book_choices.py --agent SPEC [--agent SPEC ...] [--seeds 4] \
        --mark NAME=BOOK --mark NAME=BOOK [...]

Every ``--mark`` book (``gomcts arena --book``: one line of GTP moves) has one line a
position: the moves to it, then the marked move there. The books must agree on the moves to
each position (a book cannot hold the empty board, so the positions are the lines without
their last move). Each agent (an ``mcts`` spec) searches every position ``--seeds``
times (a fresh agent each, seeds 0, 1, ...: its own tree, evaluator and cache), and the
script prints how often it played each marked move, and how many positions it played one
of them at in most of its searches. ``docs/strength.md`` ("Flatter priors") marks the
deciding positions of the heavy setting's lost games with the move played there and the move
of a search 8 times as deep (``scripts/blunder_check.py --book``), to choose a policy
temperature before any game is played.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from go_env.rules import Rules
from go_env.state import GoState

sys.path.insert(0, str(Path(__file__).resolve().parent))
from blunder_check import seeded_moves


def read_marks(
    marks: dict[str, list[tuple[int, ...]]],
) -> tuple[list[tuple[int, ...]], list[dict[str, int]]]:
    """The positions (moves to each) and, per position, the marked move of every book.

    Raises:
        ValueError: When the books differ in length, or in the moves to a position.
    """
    first = next(iter(marks.values()))
    positions = [line[:-1] for line in first]
    marked: list[dict[str, int]] = [{} for _ in positions]
    for name, lines in marks.items():
        if len(lines) != len(positions):
            raise ValueError(
                f"--mark {name}: {len(lines)} lines where the first book has "
                f"{len(positions)}; every book has one line a position"
            )
        for index, (line, position) in enumerate(zip(lines, positions, strict=True)):
            if len(line) != len(position) + 1 or line[:-1] != position:
                raise ValueError(
                    f"--mark {name}: line {index + 1} does not play the first book's moves "
                    f"to position {index + 1} before its marked move"
                )
            marked[index][name] = line[-1]
    return positions, marked


def main(argv: list[str] | None = None) -> int:
    """Search every position with every agent; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", action="append", required=True, help="an mcts spec")
    parser.add_argument("--seeds", type=int, default=4, help="searches a position (4)")
    parser.add_argument(
        "--mark",
        action="append",
        required=True,
        metavar="NAME=BOOK",
        help="a book: the moves to each position, then its marked move (two or more books)",
    )
    parser.add_argument("--size", type=int, default=9, help="board size (9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (7.5)")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds must be >= 1, got {args.seeds}")
    if len(args.mark) < 2:
        parser.error("give two or more --mark books (the marked moves to compare)")
    from agents.matches.openings import load_book
    from agents.mcts.config import MCTSConfig
    from agents.registry import agent_config

    rules = Rules(size=args.size, komi=args.komi)
    try:
        marks = {}
        for item in args.mark:
            name, sep, path = item.partition("=")
            if not sep or not name or not path:
                raise ValueError(f"--mark must be NAME=BOOK, got {item!r}")
            if name in marks:
                raise ValueError(f"--mark {name} is given twice")
            marks[name] = list(load_book(path, rules))
        positions, marked = read_marks(marks)
        configs = [agent_config(spec) for spec in args.agent]
        for spec, config in zip(args.agent, configs, strict=True):
            if not isinstance(config, MCTSConfig):
                raise ValueError(f"--agent must be an mcts spec, got {spec!r}")
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    states = []
    for line in positions:
        state = GoState(rules)
        for move in line:
            state.play(move)
        states.append(state)
    for spec, config in zip(args.agent, configs, strict=True):
        played = dict.fromkeys(marks, 0)
        mostly = dict.fromkeys(marks, 0)
        for index, state in enumerate(states):
            moves = seeded_moves(state, config, args.seeds)
            counts = {name: moves.count(marked[index][name]) for name in marks}
            for name, count in counts.items():
                played[name] += count
                mostly[name] += 2 * count > args.seeds
            counted = ", ".join(f"{name} {count}/{args.seeds}" for name, count in counts.items())
            print(f"position {index + 1:3d}: {counted}", flush=True)
        total = len(positions) * args.seeds
        print(f"{spec}")
        for name in marks:
            print(
                f"  {name}: {played[name]} of {total} searches ({played[name] / total:.1%}), "
                f"most of the searches at {mostly[name]} of {len(positions)} positions"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
