r"""Pool several arena matches of one opponent and seed, and test whether their losses cluster.

    python scripts/pool_screens.py S1.jsonl.gz S6.jsonl.gz S7.jsonl.gz S8.jsonl.gz

The matches must have been played with the same ``--seed`` and rules against the same agent B,
so that game ``i`` of each is the same opening with the same colours (``agents.matches.paired``).
Prints each match's score, the pooled score with its Wilson interval, how many games were lost
by 1, 2, ... of the matches, and a permutation test of loss clustering: if each match's losses
fell on games drawn at random (each match keeping its number of losses), how many games would
be lost by two or more matches, and how often as many as observed. A small p-value says the
losses sit on particular openings; a large one, that a loss is mostly the chance of one game.
The four screens of ``docs/strength.md`` ("Toward 97%", the S screens)::

    git show a643546:docs/results/strength/screen-2046/s1-own18/results.jsonl.gz > s1.jsonl.gz
    for s in s6-r4gen28 s7-r5gen35 s8-r5lrgen39; do
      git show c65f773:docs/results/strength/screen-2046/$s/results.jsonl.gz > $s.jsonl.gz
    done
    python scripts/pool_screens.py s1.jsonl.gz s6-r4gen28.jsonl.gz s7-r5gen35.jsonl.gz \
        s8-r5lrgen39.jsonl.gz
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from agents.matches.paired import compare_games
from agents.matches.results import GameOutcome, ResultsError, read_results
from agents.matches.stats import wilson_interval


def read_screens(paths: list[Path]) -> tuple[list[str], list[dict[int, GameOutcome]]]:
    """Each file's agent A and games, checked to be paired (same opponent, rules, openings).

    Raises:
        ResultsError: When the matches are not paired; the message says what differs.
    """
    agents, screens, first = [], [], None
    for path in paths:
        match, games = read_results(path)
        key = (match.get("agent_b"), match.get("rules"), match.get("seed"))
        if first is None:
            first = (path, key)
        elif key != first[1]:
            raise ResultsError(
                f"{path} and {first[0]} differ in opponent, rules or seed: {key!r} against "
                f"{first[1]!r}; pooling needs matches of one opponent, rules and seed"
            )
        agents.append(str(match.get("agent_a")))
        screens.append(games)
    for games in screens[1:]:
        compare_games(screens[0], games)  # raises where a game's opening or colours differ
    shared = set.intersection(*(set(games) for games in screens))
    return agents, [{i: g[i] for i in sorted(shared)} for g in screens]


def clustering_test(
    lost: list[set[int]], games: list[int], draws: int, seed: int
) -> tuple[int, float, float]:
    """Games lost by two or more matches: observed, mean and P(>= observed) under random losses.

    Under the null hypothesis each match's losses are a uniformly random subset of ``games`` of
    its own size, independently of the other matches.
    """
    observed = sum(count >= 2 for count in Counter(i for s in lost for i in s).values())
    rng = np.random.default_rng(seed)
    times_lost = np.zeros((draws, len(games)), dtype=np.int32)
    for losses in lost:
        order = rng.random((draws, len(games))).argsort(axis=1)[:, : len(losses)]
        np.put_along_axis(times_lost, order, 1 + np.take_along_axis(times_lost, order, 1), 1)
    simulated = (times_lost >= 2).sum(axis=1)
    return observed, float(simulated.mean()), float((simulated >= observed).mean())


def main(argv: list[str] | None = None) -> int:
    """Print the pooled score and the clustering test; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+", help="results files (2 or more)")
    parser.add_argument("--draws", type=int, default=100_000, help="random draws (100000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the draws (1)")
    args = parser.parse_args(argv)
    if len(args.results) < 2 or args.draws < 1:
        parser.error("give two or more results files and --draws >= 1")
    try:
        agents, screens = read_screens(args.results)
    except (OSError, ResultsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    games = sorted(screens[0])
    if not games:
        print("error: the files share no game index", file=sys.stderr)
        return 2
    points = 0.0
    for path, agent, screen in zip(args.results, agents, screens, strict=True):
        won = sum(g.score_a for g in screen.values())
        points += won
        print(f"{path}: {won:g} of {len(games)}  ({agent})")
    total = len(games) * len(screens)
    low, high = wilson_interval(points, total)
    print(f"pooled: {points:g} of {total}, {points / total:.3f} [{low:.3f}, {high:.3f}]")
    lost = [{i for i, g in s.items() if g.score_a == 0} for s in screens]
    by = Counter(Counter(i for s in lost for i in s).values())
    print("games lost by k matches: " + ", ".join(f"k={k}: {by[k]}" for k in sorted(by)))
    observed, mean, p = clustering_test(lost, games, args.draws, args.seed)
    print(
        f"lost by 2 or more: {observed}; random losses ({args.draws} draws, seed {args.seed}): "
        f"mean {mean:.2f}, P(>= {observed}) = {p:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
