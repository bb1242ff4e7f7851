r"""Were an arena match's lost games lost from the start, or leads thrown away? A network's view.

    python scripts/lost_leads.py RESULTS ... --net NETWORK [--threshold 0.8] [--priors]

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

With ``--priors`` it also asks whether the opponent's moves that took the lead were moves the
network did not expect: the prior it gave each of the opponent's moves (passes aside), and
their share below 1% and outside its top 5, apart for the moves of lost games between A's last
value of ``threshold`` or more and the fall (the end, without one), the other moves of lost
games, and the moves of won games. A killing move with a tiny prior is one the search barely
looks at; a killing move it expected was looked at and misjudged. ``docs/strength.md`` reads
the heavy setting's matches so (T8, T13 to T18, several files at once).
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
    return _evaluated(evaluator, game, rules, a_to_move=True)[2]


def positions_to_move(
    game: GameOutcome, rules: Rules, *, a_to_move: bool = True
) -> tuple[list[int], list[GoState]]:
    """The plies of ``game`` where A (or its opponent) is to move, and those positions."""
    state, plies, positions = GoState(rules), [], []
    for number, move in enumerate(game.moves):
        if ((number % 2 == 0) == game.a_black) == a_to_move:
            plies.append(number)
            positions.append(state.clone())
        state.play(move)
    return plies, positions


def _evaluated(
    evaluator: NetEvaluator, game: GameOutcome, rules: Rules, *, a_to_move: bool
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The plies where A (or its opponent) is to move, and the network's priors and values."""
    plies, positions = positions_to_move(game, rules, a_to_move=a_to_move)
    priors, values = evaluator.evaluate_states(positions)
    return plies, np.asarray(priors), np.asarray(values, dtype=np.float64)


PRIOR_GROUPS = ("lost, before the fall", "lost, other moves", "won")


def opponent_priors(
    evaluator: NetEvaluator, game: GameOutcome, rules: Rules, lead: Lead
) -> dict[str, list[tuple[float, int]]]:
    """``(prior, rank)`` of each of the opponent's moves (passes aside), by :data:`PRIOR_GROUPS`.

    ``lead`` is the game's :func:`summarise` of A's values, which places a lost game's window
    (from A's last high value to the fall, or the end). The rank is 1 for the network's most
    likely move. A drawn game counts as neither.
    """
    groups: dict[str, list[tuple[float, int]]] = {name: [] for name in PRIOR_GROUPS}
    if game.score_a not in (0.0, 1.0):
        return groups
    window = range(0)
    if game.score_a == 0.0 and lead.last_high is not None:
        first = 0 if game.a_black else 1  # A's moves are plies first, first + 2, ...
        end = len(game.moves)
        if lead.fall is not None:
            end = first + 2 * (lead.last_high + lead.fall)
        window = range(first + 2 * lead.last_high, end)
    plies, priors, _ = _evaluated(evaluator, game, rules, a_to_move=False)
    for ply, prior in zip(plies, priors, strict=True):
        move = game.moves[ply]
        if move == rules.size * rules.size:
            continue
        rank = int((prior > prior[move]).sum()) + 1
        name = "won" if game.score_a == 1.0 else PRIOR_GROUPS[0 if ply in window else 1]
        groups[name].append((float(prior[move]), rank))
    return groups


def print_priors(groups: dict[str, list[tuple[float, int]]]) -> None:
    """One line a group: moves, median prior, shares below 1% and outside the top 5."""
    for name in PRIOR_GROUPS:
        rows = np.array(groups[name], dtype=np.float64).reshape(-1, 2)
        if not len(rows):
            print(f"opponent's moves, {name}: none")
            continue
        print(
            f"opponent's moves, {name}: {len(rows)}, median prior {np.median(rows[:, 0]):.3f}, "
            f"below 1% {np.mean(rows[:, 0] < 0.01):.1%}, outside the top 5 "
            f"{np.mean(rows[:, 1] > 5):.1%}"
        )


def main(argv: list[str] | None = None) -> int:
    """Print each lost game's lead and the counts; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+", help="results files of arena matches")
    parser.add_argument("--net", required=True, help="checkpoint, or a shipped network's name")
    parser.add_argument("--threshold", type=float, default=0.8, help="in (0, 1] (0.8)")
    parser.add_argument(
        "--priors", action="store_true", help="also the network's priors of the opponent's moves"
    )
    args = parser.parse_args(argv)
    if not 0 < args.threshold <= 1:
        parser.error(f"--threshold must be in (0, 1], got {args.threshold}")
    from agents.nets.evaluator import NetEvaluator

    try:
        matches = [read_results(path) for path in args.results]
        evaluator = NetEvaluator(args.net, symmetry="average", cache_size=0)
    except (OSError, ResultsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    t = args.threshold
    reached = {0.0: [0, 0], 1.0: [0, 0]}  # score_a: [games, games whose value reached t]
    still_ahead = 0  # lost games whose value at A's last move was >= 0.5
    priors: dict[str, list[tuple[float, int]]] = {name: [] for name in PRIOR_GROUPS}
    for path, (match, games) in zip(args.results, matches, strict=True):
        rules = Rules(**match["rules"])
        for index, game in sorted(games.items()):
            lead = summarise(a_values(evaluator, game, rules), t)
            if game.score_a in reached:
                reached[game.score_a][0] += 1
                reached[game.score_a][1] += lead.high_moves > 0
            if game.score_a == 0.0:
                still_ahead += lead.last_value >= 0.5
                where = f"{path} " if len(args.results) > 1 else ""
                print(
                    f"{where}lost game {index:3d} {game.result:>7}: value >= {t:g} at "
                    f"{lead.high_moves} A moves, last at {lead.last_high}, fall {lead.fall}; "
                    f"last value {lead.last_value:+.2f}"
                )
            if args.priors:
                for name, rows in opponent_priors(evaluator, game, rules, lead).items():
                    priors[name].extend(rows)
    for score, name in ((0.0, "lost"), (1.0, "won")):
        games_, hit = reached[score]
        print(f"{name}: {games_} games, value reached {t:g} in {hit}")
    print(f"lost games with a value of 0.5 or more at A's last move: {still_ahead}")
    if args.priors:
        print_priors(priors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
