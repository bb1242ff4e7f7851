"""Paired comparison of two arena matches played on the same openings against one opponent.

Two agents that each played a match against the same opponent with the same match seed
(``gomcts arena ... --seed S``) met the same openings with the same colours, game by game. Their
results are paired: a game that both won or both lost says nothing about which agent is
stronger; only the games where their scores differ do. The sign test on those games (exact
binomial, two-sided, ties dropped) is the standard test for such matched pairs (Dixon & Mood,
"The statistical sign test", JASA 41, 1946), and it is much more sensitive than comparing the
two score rates, whose shared games carry the same luck of the openings.

Only games present in both files are compared, so a match still running can be compared with
a finished one.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from os import PathLike
from pathlib import Path

from agents.matches.results import GameOutcome, ResultsError, read_results

__all__ = ["PairedComparison", "compare_games", "compare_matches", "sign_test"]


def sign_test(better: int, worse: int) -> float:
    """Two-sided exact sign test: the chance of a split at least this uneven under p = 1/2.

    Args:
        better: Pairs where the first agent did better.
        worse: Pairs where it did worse (ties are not counted).

    Returns:
        The p-value in ``[0, 1]`` (1 when no pair differs).

    Raises:
        ValueError: When a count is negative.
    """
    if better < 0 or worse < 0:
        raise ValueError(f"counts must be >= 0, got {better} and {worse}")
    n = better + worse
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(better, worse) + 1)) / 2**n
    return min(1.0, 2.0 * tail)


@dataclass(frozen=True)
class PairedComparison:
    """Games of two matches on the same openings, compared one by one.

    Attributes:
        first: Agent A of the first match.
        second: Agent A of the second match.
        opponent: The opponent (agent B) of both.
        both_won: Games both agents won.
        first_only: Games the first agent scored more in (won, or drew while the second lost).
        second_only: Games the second agent scored more in.
        both_lost: Games both lost.
        both_drew: Games both drew.
        first_points: The first agent's points in the compared games.
        second_points: The second agent's points in the compared games.
        unpaired: Games present in only one of the files (not compared).
    """

    first: str
    second: str
    opponent: str
    both_won: int
    first_only: int
    second_only: int
    both_lost: int
    both_drew: int
    first_points: float
    second_points: float
    unpaired: int

    @property
    def games(self) -> int:
        """Games compared."""
        return self.both_won + self.first_only + self.second_only + self.both_lost + self.both_drew

    @property
    def p_value(self) -> float:
        """Two-sided sign test on the games where the two scores differ."""
        return sign_test(self.first_only, self.second_only)

    def format(self) -> str:
        """A few lines for people."""
        n = self.games
        return "\n".join(
            [
                f"first:    {self.first}",
                f"second:   {self.second}",
                f"opponent: {self.opponent}",
                f"{n} games on the same openings"
                + (f" ({self.unpaired} in one file only, not compared)" if self.unpaired else ""),
                f"  first {self.first_points:g} of {n}, second {self.second_points:g} of {n}",
                f"  won by both {self.both_won}, first only {self.first_only}, "
                f"second only {self.second_only}, lost by both {self.both_lost}"
                + (f", drawn by both {self.both_drew}" if self.both_drew else ""),
                f"  sign test on the {self.first_only + self.second_only} games that differ: "
                f"p = {self.p_value:.3g} (two-sided)",
            ]
        )


def compare_matches(first: str | PathLike[str], second: str | PathLike[str]) -> PairedComparison:
    """Compare the games of two results files (``results.jsonl`` of ``gomcts arena``).

    Raises:
        ResultsError: When a file is not a results file, or the matches were not played on the
            same openings against the same opponent (the message says what differs).
        OSError: When a file cannot be read.
    """
    match_1, games_1 = read_results(first)
    match_2, games_2 = read_results(second)
    for key, what in (("agent_b", "opponent (agent B)"), ("rules", "rules")):
        if match_1.get(key) != match_2.get(key):
            raise ResultsError(
                f"{Path(first)} and {Path(second)} have different {what}: "
                f"{match_1.get(key)!r} against {match_2.get(key)!r}; a paired comparison "
                "needs the same opponent and rules"
            )
    return compare_games(
        games_1,
        games_2,
        first=str(match_1.get("agent_a")),
        second=str(match_2.get("agent_a")),
        opponent=str(match_1.get("agent_b")),
    )


def compare_games(
    first_games: dict[int, GameOutcome],
    second_games: dict[int, GameOutcome],
    *,
    first: str = "first",
    second: str = "second",
    opponent: str = "opponent",
) -> PairedComparison:
    """Compare two sets of games by index (see :func:`compare_matches`).

    Raises:
        ResultsError: When a game index present in both has another opening or other colours.
    """
    shared = sorted(first_games.keys() & second_games.keys())
    counts = {"both_won": 0, "first_only": 0, "second_only": 0, "both_lost": 0, "both_drew": 0}
    points = [0.0, 0.0]
    for index in shared:
        one, two = first_games[index], second_games[index]
        if one.opening != two.opening or one.a_black != two.a_black:
            raise ResultsError(
                f"game {index} was not played on the same opening with the same colours "
                f"(opening {list(one.opening)} against {list(two.opening)}, agent A Black "
                f"{one.a_black} against {two.a_black}); compare matches of the same seed"
            )
        points[0] += one.score_a
        points[1] += two.score_a
        if one.score_a > two.score_a:
            counts["first_only"] += 1
        elif one.score_a < two.score_a:
            counts["second_only"] += 1
        else:
            key = {1.0: "both_won", 0.0: "both_lost"}.get(one.score_a, "both_drew")
            counts[key] += 1
    unpaired = len(first_games.keys() ^ second_games.keys())
    return PairedComparison(
        first=first,
        second=second,
        opponent=opponent,
        first_points=points[0],
        second_points=points[1],
        unpaired=unpaired,
        **counts,
    )
