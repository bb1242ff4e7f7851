"""Match statistics: score tallies, Wilson intervals, Elo differences and the SPRT.

Conventions: a game scores 1 for a win, 1/2 for a draw and 0 for a loss, from the point of
view of the first agent of a match ("A"). The *score rate* is the mean score.

* **Wilson score interval** (E. B. Wilson, "Probable inference, the law of succession, and
  statistical inference", JASA 22, 1927) of the score rate, treating a draw as half a win:
  ``(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)``. With draws the interval is slightly
  conservative (a draw has less variance than half a win and half a loss).
* **Elo difference** under the logistic model: ``elo = -400·log10(1/s - 1)`` for a score rate
  ``s``. Its interval maps the Wilson bounds of ``s`` through the same (monotone) function, so
  it stays finite for a 100% or 0% score as long as the other bound is finite.
* **SPRT**: the generalized sequential probability ratio test of fishtest (Stockfish's testing
  framework; M. Van den Bergh, "A practical introduction to the GSPRT", 2016-2022). The score
  rates of the two hypotheses are ``s0 = score(elo0)`` and ``s1 = score(elo1)`` (logistic);
  for each hypothesis the distribution of outcomes is the maximum-likelihood one among those
  with that mean (Van den Bergh, "Maximum likelihood estimation of multinomial distributions
  with a given expectation value", Proposition 1.1), and the log-likelihood ratio is
  ``LLR = N · Σ_i p̂_i · log(p1_i / p0_i)``. Outcome counts of zero are replaced by 1e-3, as
  fishtest does, so that the MLE exists. Two outcome models are offered:

  - ``"trinomial"``: each game is one observation with values 0, 1/2, 1 (loss, draw, win);
  - ``"pentanomial"``: each *pair* of games played from the same opening with colours swapped
    is one observation with values 0, 1/4, 1/2, 3/4, 1 (its mean score). This is fishtest's
    default; it accounts for the correlation between the two games of a pair.

  The test accepts H1 (``elo >= elo1``) when ``LLR >= log((1 - beta) / alpha)`` and H0
  (``elo <= elo0``) when ``LLR <= log(beta / (1 - alpha))``. For games without draws and
  plenty of both outcomes the trinomial LLR equals Wald's classical SPRT for a Bernoulli
  variable, ``W·log(s1/s0) + L·log((1-s1)/(1-s0))``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = [
    "Z95",
    "Estimate",
    "SprtConfig",
    "SprtResult",
    "Tally",
    "elo_from_score",
    "estimate",
    "llr",
    "llr_pentanomial",
    "llr_trinomial",
    "mle_with_mean",
    "pentanomial_counts",
    "score_from_elo",
    "sprt",
    "wilson_interval",
]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

_REGULARIZE = 1e-3  # fishtest's replacement for an outcome count of zero
_TRINOMIAL = (0.0, 0.5, 1.0)
_PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)


# ---------------------------------------------------------------------------- tallies


@dataclass(frozen=True)
class Tally:
    """Wins, draws and losses of one side.

    Attributes:
        wins: Games won.
        draws: Games drawn.
        losses: Games lost.
    """

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @classmethod
    def from_scores(cls, scores: Iterable[float]) -> Tally:
        """A tally of game scores (1, 0.5 or 0 each).

        Raises:
            ValueError: For a score other than 0, 0.5 or 1.
        """
        counts = [0, 0, 0]
        for score in scores:
            if score not in _TRINOMIAL:
                raise ValueError(f"a game score must be 0, 0.5 or 1, got {score!r}")
            counts[int(score * 2)] += 1
        return cls(wins=counts[2], draws=counts[1], losses=counts[0])

    @property
    def games(self) -> int:
        """Number of games."""
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """Points scored: wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    @property
    def rate(self) -> float:
        """Score rate (points per game); NaN without games."""
        return self.points / self.games if self.games else math.nan

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def __str__(self) -> str:
        return f"+{self.wins} ={self.draws} -{self.losses}"


# ------------------------------------------------------------------ intervals and Elo


def wilson_interval(points: float, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a rate of ``points`` successes in ``games`` trials.

    Args:
        points: Successes; a draw counts one half.
        games: Trials; with none the interval is ``(0, 1)``.
        z: Normal quantile of the confidence level (1.96 for 95%).

    Raises:
        ValueError: When ``points`` is outside ``[0, games]`` or ``z`` is not positive.
    """
    if games < 0 or not 0 <= points <= games:
        raise ValueError(f"need 0 <= points <= games, got points={points}, games={games}")
    if z <= 0:
        raise ValueError(f"z must be positive, got {z}")
    if games == 0:
        return 0.0, 1.0
    p = points / games
    z2n = z * z / games
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / games + z2n / (4 * games)) / (1 + z2n)
    low = 0.0 if points == 0 else max(0.0, centre - half)
    high = 1.0 if points == games else min(1.0, centre + half)
    return low, high


def elo_from_score(score: float) -> float:
    """Elo difference of a score rate under the logistic model (±inf at 1 and 0).

    Raises:
        ValueError: When ``score`` is outside ``[0, 1]``.
    """
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"a score rate must be in [0, 1], got {score}")
    if score == 1.0:
        return math.inf
    if score == 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score rate of an Elo difference under the logistic model."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class Estimate:
    """Score rate and Elo difference of a tally, with their intervals.

    Attributes:
        games: Number of games.
        rate: Score rate (NaN without games).
        rate_low: Lower Wilson bound of the score rate.
        rate_high: Upper Wilson bound of the score rate.
        elo: Elo difference (±inf for a 100%/0% score, NaN without games).
        elo_low: Elo of ``rate_low``.
        elo_high: Elo of ``rate_high``.
    """

    games: int
    rate: float
    rate_low: float
    rate_high: float
    elo: float
    elo_low: float
    elo_high: float


def estimate(tally: Tally, z: float = Z95) -> Estimate:
    """The score rate and Elo difference of ``tally`` with Wilson intervals (see module doc)."""
    low, high = wilson_interval(tally.points, tally.games, z)
    if tally.games == 0:
        return Estimate(0, math.nan, low, high, math.nan, -math.inf, math.inf)
    rate = tally.rate
    return Estimate(
        games=tally.games,
        rate=rate,
        rate_low=low,
        rate_high=high,
        elo=elo_from_score(rate),
        elo_low=elo_from_score(low),
        elo_high=elo_from_score(high),
    )


# ----------------------------------------------------------------------------- SPRT


def mle_with_mean(
    values: Sequence[float], probs: Sequence[float] | np.ndarray, mean: float
) -> np.ndarray:
    """The distribution nearest to ``probs`` (maximum likelihood) whose mean is ``mean``.

    Among distributions ``p`` on ``values`` with ``Σ p_i·values_i = mean``, the one that
    maximises ``Σ probs_i·log(p_i)`` is ``p_i = probs_i / (1 + θ·(values_i - mean))``, where
    ``θ`` is the unique root of ``Σ probs_i·(values_i - mean) / (1 + θ·(values_i - mean))``
    in the interval where every denominator is positive (Van den Bergh, Proposition 1.1).

    Args:
        values: The outcome values, not all equal.
        probs: Observed probabilities of the values, all positive, summing to 1.
        mean: The required mean, strictly between the smallest and the largest value.

    Returns:
        ``float64 (len(values),)``: the constrained maximum-likelihood distribution.

    Raises:
        ValueError: When ``mean`` is not strictly inside the range of ``values`` or a
            probability is not positive.
    """
    a = np.asarray(values, dtype=np.float64) - mean
    p = np.asarray(probs, dtype=np.float64)
    if a.shape != p.shape or a.ndim != 1:
        raise ValueError("values and probs must be 1-D sequences of the same length")
    if np.any(p <= 0):
        raise ValueError(f"probabilities must be positive, got {p.tolist()}")
    if not a.min() < 0 < a.max():
        raise ValueError(f"mean {mean} must lie strictly between min and max of the values")
    low, high = -1.0 / a.max(), -1.0 / a.min()  # the denominators are positive inside

    def f(theta: float) -> float:
        return float(np.sum(p * a / (1.0 + theta * a)))

    for _ in range(200):  # f decreases from +inf to -inf on (low, high): bisection
        mid = 0.5 * (low + high)
        if f(mid) > 0:
            low = mid
        else:
            high = mid
        if high - low <= 1e-15 * max(1.0, abs(mid)):
            break
    theta = 0.5 * (low + high)
    out = p / (1.0 + theta * a)
    return np.asarray(out / out.sum())


def llr(counts: Sequence[float], values: Sequence[float], s0: float, s1: float) -> float:
    """Generalized log-likelihood ratio of mean ``s1`` against mean ``s0`` for outcome counts.

    Args:
        counts: How often each value was observed (zero counts are replaced by 1e-3).
        values: The outcome values (e.g. 0, 1/2, 1).
        s0: Mean score under H0.
        s1: Mean score under H1.

    Returns:
        ``N · Σ p̂_i·log(p1_i / p0_i)`` (0 when nothing was observed).
    """
    c = np.asarray(counts, dtype=np.float64)
    if c.shape != (len(values),):
        raise ValueError(f"expected {len(values)} counts, got {c.tolist()}")
    if np.any(c < 0):
        raise ValueError(f"counts must be non-negative, got {c.tolist()}")
    if c.sum() == 0:
        return 0.0
    c = np.where(c == 0, _REGULARIZE, c)
    total = float(c.sum())
    phat = c / total
    p0 = mle_with_mean(values, phat, s0)
    p1 = mle_with_mean(values, phat, s1)
    return total * float(np.sum(phat * np.log(p1 / p0)))


def llr_trinomial(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """LLR of ``elo1`` against ``elo0`` from game results (trinomial model)."""
    return llr([losses, draws, wins], _TRINOMIAL, score_from_elo(elo0), score_from_elo(elo1))


def llr_pentanomial(pairs: Sequence[int], elo0: float, elo1: float) -> float:
    """LLR of ``elo1`` against ``elo0`` from game-pair results (pentanomial model).

    Args:
        pairs: Counts of pairs scoring 0, 1/2, 1, 3/2 and 2 points (see
            :func:`pentanomial_counts`).
        elo0: Elo difference of H0.
        elo1: Elo difference of H1.
    """
    return llr(pairs, _PENTANOMIAL, score_from_elo(elo0), score_from_elo(elo1))


def pentanomial_counts(scores: Sequence[float]) -> list[int]:
    """Counts of pair totals 0, 1/2, 1, 3/2, 2 over consecutive pairs of game scores.

    Games ``2k`` and ``2k + 1`` form pair ``k``; an unpaired last game is left out.
    """
    counts = [0] * 5
    for k in range(len(scores) // 2):
        total = scores[2 * k] + scores[2 * k + 1]
        counts[round(total * 2)] += 1
    return counts


@dataclass(frozen=True, kw_only=True)
class SprtConfig:
    """A sequential probability ratio test of H0 ``elo <= elo0`` against H1 ``elo >= elo1``.

    Args:
        elo0: Elo difference of H0 (e.g. 0).
        elo1: Elo difference of H1 (e.g. 10); must exceed ``elo0``.
        alpha: Probability of accepting H1 when H0 holds.
        beta: Probability of accepting H0 when H1 holds.
        model: ``"pentanomial"`` (pairs of games, fishtest's default) or ``"trinomial"``.

    Raises:
        ValueError: For ``elo1 <= elo0``, error rates outside (0, 1) or summing to 1 or more,
            or an unknown model.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Literal["pentanomial", "trinomial"] = "pentanomial"

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 must exceed elo0, got elo0={self.elo0}, elo1={self.elo1}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise ValueError(f"{name} must be in (0, 1), got {value}")
        if self.alpha + self.beta >= 1.0:
            raise ValueError(f"alpha + beta must be below 1, got {self.alpha + self.beta}")
        if self.model not in ("pentanomial", "trinomial"):
            raise ValueError(f"model must be 'pentanomial' or 'trinomial', got {self.model!r}")

    @property
    def lower(self) -> float:
        """LLR at or below which H0 is accepted: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """LLR at or above which H1 is accepted: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)


@dataclass(frozen=True)
class SprtResult:
    """State of an SPRT after some games.

    Attributes:
        llr: The log-likelihood ratio.
        lower: The H0 bound.
        upper: The H1 bound.
        decision: ``"H1"`` (elo >= elo1 accepted), ``"H0"`` (elo <= elo0 accepted) or
            ``None`` while undecided.
        games: Number of games the LLR was computed from.
    """

    llr: float
    lower: float
    upper: float
    decision: Literal["H0", "H1"] | None
    games: int


def sprt(config: SprtConfig, scores: Sequence[float]) -> SprtResult:
    """Run the SPRT of ``config`` on game scores in game order (games 2k, 2k+1 are a pair).

    With the pentanomial model only complete pairs count.
    """
    if config.model == "pentanomial":
        pairs = pentanomial_counts(scores)
        value = llr_pentanomial(pairs, config.elo0, config.elo1)
        used = 2 * sum(pairs)
    else:
        tally = Tally.from_scores(scores)
        value = llr_trinomial(tally.wins, tally.draws, tally.losses, config.elo0, config.elo1)
        used = tally.games
    decision: Literal["H0", "H1"] | None = None
    if value >= config.upper:
        decision = "H1"
    elif value <= config.lower:
        decision = "H0"
    return SprtResult(
        llr=value, lower=config.lower, upper=config.upper, decision=decision, games=used
    )
