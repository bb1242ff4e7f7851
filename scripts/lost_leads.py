r"""Were an arena match's lost games lost from the start, or leads thrown away? A network's view.

    python scripts/lost_leads.py RESULTS --net NETWORK [--threshold 0.8]

Replays every game of a results file (``gomcts arena``) and reads the network's value of each
position where agent A is to move (all 8 symmetries averaged, fp32): A's chance of winning as
the network judges it, ``v`` in ``[-1, 1]``. For each lost game it prints how many of A's
moves the value was at ``threshold`` or more (``0.8``: a win at 90%), the last such move, how
many of A's moves later the value first fell to ``-threshold`` (the fall), and its value at
A's last move; then, for lost and won games, in how many the value ever reached the
threshold, and how many lost games A still valued at 0.5 or more at its last move. Give the
network A searched with to ask what A believed. ``docs/strength.md`` ("Lost leads") reads the
four pooled screens so, each with its own network (packed copies in git, the first shipped as
``strong-9x9``)::

    git show c65f773:docs/results/strength/screen-2046/s8-r5lrgen39/results.jsonl.gz > s8.jsonl.gz
    git show 190e6d82b4b0:docs/results/nets/strong-9x9-r3/best-gen-0039.pt.gz > gen39.pt.gz
    python scripts/lost_leads.py s8.jsonl.gz --net gen39.pt.gz
    # S1: --net strong-9x9; S6: 4e358de1445e:.../best-gen-0028.pt.gz;
    # S7: 2d59d95e1582:.../best-gen-0035.pt.gz (docs/nets.md, "The line's best network in git")
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agents.matches.results import GameOutcome, ResultsError, read_results
from go_env.rules import Rules
from go_env.state import GoState

if TYPE_CHECKING:
    from agents.nets.evaluator import NetEvaluator


@dataclass(frozen=True)
class Lead:
    """A's value along one game, summarised against a threshold ``t``.

    Attributes:
        high_moves: A's moves with value ``>= t``.
        last_high: The last of them (0-based among A's moves; ``None``: none).
        fall: A's moves from ``last_high`` to the first later value ``<= -t`` (``None``: none).
        last_value: The value at A's last move.
    """

    high_moves: int
    last_high: int | None
    fall: int | None
    last_value: float


def summarise(values: np.ndarray, threshold: float) -> Lead:
    """The :class:`Lead` of A's values ``values`` (one per A move, in order)."""
    high = np.flatnonzero(values >= threshold)
    last_high = int(high[-1]) if high.size else None
    fall = None
    if last_high is not None:
        low = np.flatnonzero(values[last_high:] <= -threshold)
        fall = int(low[0]) if low.size else None
    return Lead(int(high.size), last_high, fall, float(values[-1]))


def a_values(evaluator: NetEvaluator, game: GameOutcome, rules: Rules) -> np.ndarray:
    """The network's value for A at every position of ``game`` where A is to move."""
    state, positions = GoState(rules), []
    for number, move in enumerate(game.moves):
        if (number % 2 == 0) == game.a_black:
            positions.append(state.clone())
        state.play(move)
    _, values = evaluator.evaluate_states(positions)
    return np.asarray(values, dtype=np.float64)


def main(argv: list[str] | None = None) -> int:
    """Print each lost game's lead and the counts; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="results file of an arena match")
    parser.add_argument("--net", required=True, help="checkpoint, or a shipped network's name")
    parser.add_argument("--threshold", type=float, default=0.8, help="in (0, 1] (0.8)")
    args = parser.parse_args(argv)
    if not 0 < args.threshold <= 1:
        parser.error(f"--threshold must be in (0, 1], got {args.threshold}")
    from agents.nets.evaluator import NetEvaluator

    try:
        match, games = read_results(args.results)
        evaluator = NetEvaluator(args.net, symmetry="average", cache_size=0)
    except (OSError, ResultsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rules, t = Rules(**match["rules"]), args.threshold
    reached = {0.0: [0, 0], 1.0: [0, 0]}  # score_a: [games, games whose value reached t]
    still_ahead = 0  # lost games whose value at A's last move was >= 0.5
    for index, game in sorted(games.items()):
        lead = summarise(a_values(evaluator, game, rules), t)
        if game.score_a in reached:
            reached[game.score_a][0] += 1
            reached[game.score_a][1] += lead.high_moves > 0
        if game.score_a == 0.0:
            still_ahead += lead.last_value >= 0.5
            print(
                f"lost game {index:3d} {game.result:>7}: value >= {t:g} at {lead.high_moves} "
                f"A moves, last at {lead.last_high}, fall {lead.fall}; "
                f"last value {lead.last_value:+.2f}"
            )
    for score, name in ((0.0, "lost"), (1.0, "won")):
        games_, hit = reached[score]
        print(f"{name}: {games_} games, value reached {t:g} in {hit}")
    print(f"lost games with a value of 0.5 or more at A's last move: {still_ahead}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
