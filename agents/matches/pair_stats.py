"""How much a match's pairs of games tell: splits, colour balance and the paired variance.

An arena pair plays one opening twice with colours swapped (:mod:`agents.matches.openings`). Its
score for agent A is ``s in {0, 0.5, 1, 1.5, 2}``; the score rate of a match is the mean of
``s / 2`` over its pairs, and its standard error is ``sd(s / 2) / sqrt(pairs)``: the pairs,
not the games, are the independent observations (the pentanomial view of fishtest, which the
arena's SPRT uses).

An opening that decides the game, or a colour that does, turns pairs into 1-1 splits whatever
the agents do: they pull the score rate towards 50% and carry no information. What decides
how many games a comparison needs is therefore the **signal-to-noise ratio**

    z_1 = (rate - 1/2) / sd(s / 2)

per pair: a difference is seen at two standard errors after ``(2 / z_1)^2`` pairs. This module
computes these quantities from the games of a results file (:func:`pair_statistics`) so that
two ways of choosing openings can be compared on the same agents (``docs/reproduction.md``,
"Balanced openings").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from agents.matches.results import GameOutcome

__all__ = ["PairStats", "pair_statistics"]


@dataclass(frozen=True)
class PairStats:
    """The pairs of a match (see the module docstring).

    Attributes:
        pairs: Complete pairs (both games finished).
        a_both: Pairs agent A won twice (score 2).
        splits: Pairs split 1-1 (score 1, draws included).
        b_both: Pairs agent B won twice (score 0).
        other: Pairs with a draw and a decision (score 0.5 or 1.5).
        black_points: Points of Black over the pairs' games (a draw counts half).
        rate: Agent A's score rate over the pairs' games.
        pair_sd: Standard deviation of ``s / 2`` over the pairs (``n - 1`` in the divisor).
        game_sd: ``sqrt(rate (1 - rate))``: the standard deviation one game would have alone.
    """

    pairs: int
    a_both: int
    splits: int
    b_both: int
    other: int
    black_points: float
    rate: float
    pair_sd: float
    game_sd: float

    @property
    def games(self) -> int:
        """Games of the complete pairs."""
        return 2 * self.pairs

    @property
    def black_share(self) -> float:
        """Share of the points that went to Black."""
        return self.black_points / self.games if self.games else math.nan

    @property
    def split_share(self) -> float:
        """Share of the pairs split 1-1."""
        return self.splits / self.pairs if self.pairs else math.nan

    @property
    def standard_error(self) -> float:
        """Standard error of the score rate from the pairs."""
        return self.pair_sd / math.sqrt(self.pairs) if self.pairs else math.nan

    @property
    def z_per_pair(self) -> float:
        """``(rate - 1/2) / sd(s / 2)``: the signal-to-noise ratio of one pair."""
        if not self.pair_sd:
            return math.nan
        return (self.rate - 0.5) / self.pair_sd

    @property
    def pairs_for_two_sigma(self) -> float:
        """Pairs after which the difference would lie two standard errors from 50%."""
        z = self.z_per_pair
        return (2.0 / z) ** 2 if z and math.isfinite(z) else math.inf

    def format(self) -> str:
        """One line for people."""
        return (
            f"{self.pairs} pairs: A 2-0 {self.a_both}, 1-1 {self.splits}, 0-2 {self.b_both}"
            + (f", with a draw {self.other}" if self.other else "")
            + f"; A {100 * self.rate:.1f}% +- {100 * self.standard_error:.1f} (pair s.e.); "
            f"Black {100 * self.black_share:.1f}%; sd per pair {self.pair_sd:.3f} "
            f"(one game alone {self.game_sd:.3f}); z per pair {self.z_per_pair:+.3f}"
        )


def pair_statistics(games: Mapping[int, GameOutcome]) -> PairStats:
    """The statistics of the complete pairs among ``games`` (index ``2p`` and ``2p + 1``).

    Raises:
        ValueError: When there is no complete pair.
    """
    scores: list[float] = []
    black = 0.0
    counts = {2.0: 0, 1.0: 0, 0.0: 0}
    other = 0
    for pair in sorted({index // 2 for index in games}):
        first, second = games.get(2 * pair), games.get(2 * pair + 1)
        if first is None or second is None:
            continue
        score = first.score_a + second.score_a
        scores.append(score / 2)
        if score in counts:
            counts[score] += 1
        else:
            other += 1
        for game in (first, second):
            black += game.score_a if game.a_black else 1.0 - game.score_a
    n = len(scores)
    if n == 0:
        raise ValueError("no complete pair of games (indices 2p and 2p+1) to analyse")
    rate = sum(scores) / n
    variance = sum((s - rate) ** 2 for s in scores) / (n - 1) if n > 1 else math.nan
    return PairStats(
        pairs=n,
        a_both=counts[2.0],
        splits=counts[1.0],
        b_both=counts[0.0],
        other=other,
        black_points=black,
        rate=rate,
        pair_sd=math.sqrt(variance),
        game_sd=math.sqrt(rate * (1.0 - rate)),
    )
