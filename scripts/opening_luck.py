r"""Did the opening decide the games? A's losses by how a network values A's side of the opening.

    python scripts/opening_luck.py RESULTS [RESULTS ...] --net NETWORK [--edges -0.5 -0.2 0 0.2 0.5]

An arena plays every opening twice, colours swapped (``docs/arena.md``), so an opening's luck
cancels between the two games of a pair, but not within a score rate near 100%: a random
opening can give one side a stone on the edge and the other one in the centre, and the game
where agent A gets the bad side is a handicap game. For every game of the results files this
reads the network's value of the position right after the opening (all 8 symmetries averaged,
fp32) from A's side, ``v`` in ``[-1, 1]``, and prints:

* the games and A's losses in each bin of ``v`` between ``--edges`` (``-1`` and ``1`` are
  added), with the loss rate;
* the pairs by A's score in them (2: won both games, 1: one, 0: none);
* how many games are distinct, and by which move each leaves every earlier game of its file
  (from one fixed start, such as the empty board with ``--opening-moves 0``, only the agents'
  own random draws make the games differ);
* every lost game with its value and its opening (GTP vertices), lowest value first.

``docs/strength.md`` ("Where the losses come from") reads four matches of the heavy setting
at 1,600 simulations so (T2, T8 and T13 the recommended spec, T5 with ``lam=0.25``), with the
network they searched with (T2 and T5 played its unpacked source, whose values the packed
copy's differ from by 0.01 on average, ``docs/nets.md``)::

    D=docs/results/strength
    git show 68d31d6:$D/t2-heavy-1600-seed2051/results.jsonl.gz > t2.jsonl.gz
    git show 0b4d107:$D/t5-heavy-lam025-seed2051/results.jsonl.gz > t5.jsonl.gz
    git show e9eb1ad:$D/t8-shipped-b6-heavy-seed2052/results.jsonl.gz > t8.jsonl.gz
    git show b2d3e7f:$D/t13-shipped-b6-heavy-seed2053/results.jsonl.gz > t13.jsonl.gz
    python scripts/opening_luck.py t2.jsonl.gz t5.jsonl.gz t8.jsonl.gz t13.jsonl.gz \
        --net strong-9x9-b6
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

from agents.matches.results import ResultsError, read_results
from go_env.coords import to_gtp
from go_env.rules import Rules
from go_env.state import GoState

if TYPE_CHECKING:
    from agents.nets.evaluator import NetEvaluator


@dataclass(frozen=True)
class OpeningGame:
    """One game: where it came from, A's value of the opening, A's score and the moves."""

    source: str
    index: int
    a_black: bool
    score_a: float
    value: float
    opening: str
    moves: tuple[int, ...] = ()


def opening_games(evaluator: NetEvaluator, path: Path) -> list[OpeningGame]:
    """Every game of the results file ``path`` with A's value of the position after its opening.

    Raises:
        ResultsError: When ``path`` is not an arena results file.
    """
    match, games = read_results(path)
    rules = Rules(**match["rules"])
    played = sorted(games.items())
    states = []
    for _, game in played:
        state = GoState(rules)
        for move in game.opening:
            state.play(move)
        states.append(state)
    values = [float(v) for v in evaluator.evaluate_states(states)[1]] if states else []
    out = []
    for (index, game), state, value in zip(played, states, values, strict=True):
        black_to_move = state.to_play.value == 1
        a_value = value if black_to_move == game.a_black else -value
        vertices = " ".join(to_gtp(move, rules.size) for move in game.opening) or "(empty board)"
        out.append(
            OpeningGame(path.name, index, game.a_black, game.score_a, a_value, vertices, game.moves)
        )
    return out


def loss_table(games: list[OpeningGame], edges: list[float]) -> list[tuple[float, float, int, int]]:
    """``(low, high, games, losses)`` for each bin ``low <= v < high`` of ``[-1, ...edges, 1]``.

    The last bin includes ``v = 1``.
    """
    bounds = [-1.0, *edges, 1.0]
    rows = []
    for k, (low, high) in enumerate(pairwise(bounds)):
        last = k == len(bounds) - 2
        inside = [
            g for g in games if low <= g.value and (g.value < high or (last and g.value <= high))
        ]
        rows.append((low, high, len(inside), sum(g.score_a == 0.0 for g in inside)))
    return rows


def pair_scores(games: list[OpeningGame]) -> Counter:
    """How many pairs (games ``2p`` and ``2p + 1`` of one file) A scored 0, 0.5, ... 2 in."""
    by_pair: dict[tuple[str, int], list[float]] = {}
    for g in games:
        by_pair.setdefault((g.source, g.index // 2), []).append(g.score_a)
    return Counter(sum(scores) for scores in by_pair.values() if len(scores) == 2)


def common_prefix(first: tuple[int, ...], second: tuple[int, ...]) -> int:
    """How many moves ``first`` and ``second`` share from their start."""
    for k, (a, b) in enumerate(zip(first, second, strict=False)):
        if a != b:
            return k
    return min(len(first), len(second))


def departures(games: list[OpeningGame]) -> list[int | None]:
    """For each game, the move (1-based) where it leaves every earlier game of its file.

    ``None`` for a game that repeats an earlier one move for move. Games whose openings are
    random differ by move 1 or 2; from one fixed start (the empty board, say) this says how
    soon the agents' own draws make the games differ, and how many are repeats.
    """
    seen: dict[str, list[tuple[int, ...]]] = {}
    out: list[int | None] = []
    for g in games:
        earlier = seen.setdefault(g.source, [])
        if g.moves in earlier:
            out.append(None)
        else:
            shared = [common_prefix(g.moves, e) for e in earlier]
            out.append(max(shared, default=0) + 1)
        earlier.append(g.moves)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the loss table, the pair scores and the lost games; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+", help="results files of arena matches")
    parser.add_argument("--net", required=True, help="checkpoint, or a shipped network's name")
    parser.add_argument(
        "--edges",
        type=float,
        nargs="+",
        default=[-0.5, -0.2, 0.0, 0.2, 0.5],
        help="inner bin edges of A's value, increasing, in (-1, 1) (-0.5 -0.2 0 0.2 0.5)",
    )
    args = parser.parse_args(argv)
    edges = args.edges
    if any(not -1 < e < 1 for e in edges) or any(b <= a for a, b in pairwise(edges)):
        parser.error(f"--edges must increase strictly and lie in (-1, 1), got {edges}")
    from agents.nets.evaluator import NetEvaluator

    try:
        evaluator = NetEvaluator(args.net, symmetry="average", cache_size=0)
        per_file = [opening_games(evaluator, path) for path in args.results]
    except (OSError, ResultsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    games = [g for file_games in per_file for g in file_games]
    lost = [g for g in games if g.score_a == 0.0]
    print(f"{len(games)} games, {len(lost)} lost by A")
    for low, high, count, losses in loss_table(games, edges):
        rate = f"{losses / count:.3f}" if count else "-"
        where = f"A's value of the opening in [{low:+.1f}, {high:+.1f})"
        print(f"{where}: {count:4d} games, {losses:3d} lost ({rate})")
    # pairs and repeats per file: two results files may share a name (runs/*/results.jsonl)
    scores = sum((pair_scores(file_games) for file_games in per_file), Counter())
    print(
        "pairs by A's score in them: " + ", ".join(f"{s:g}: {n}" for s, n in sorted(scores.items()))
    )
    leave = [k for file_games in per_file for k in departures(file_games)]
    new = sorted(k for k in leave if k is not None)
    if new:
        print(
            f"distinct games: {len(new)} of {len(games)}; each leaves every earlier game of its "
            f"file by move {new[len(new) // 2]} (median), {new[-1]} at the latest"
        )
    for g in sorted(lost, key=lambda g: g.value):
        colour = "Black" if g.a_black else "White"
        print(f"lost {g.source} game {g.index:3d}, A {colour}: {g.value:+.2f} after {g.opening}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
