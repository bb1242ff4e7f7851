from __future__ import annotations

import math

import numpy as np
import pytest

from agents.matches.stats import (
    Z95,
    SprtConfig,
    Tally,
    elo_from_score,
    estimate,
    llr,
    llr_pentanomial,
    llr_trinomial,
    mle_with_mean,
    pentanomial_counts,
    score_from_elo,
    sprt,
    wilson_interval,
)


def test_wilson_interval_known_values() -> None:
    # 50 of 100: the textbook interval [0.4038, 0.5962].
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.403832, abs=1e-6)
    assert high == pytest.approx(0.596168, abs=1e-6)
    # No successes in n trials: the upper bound is z^2 / (n + z^2); all successes: n / (n + z^2).
    assert wilson_interval(0, 10) == (0.0, pytest.approx(Z95**2 / (10 + Z95**2)))
    assert wilson_interval(10, 10) == (pytest.approx(10 / (10 + Z95**2)), 1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_shrinks_and_contains_the_rate() -> None:
    widths = []
    for n in (10, 100, 1000):
        low, high = wilson_interval(0.3 * n, n)
        assert low < 0.3 < high
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2]


@pytest.mark.parametrize(("points", "games"), [(-1, 10), (11, 10), (1, -1)])
def test_wilson_interval_rejects_impossible_counts(points: float, games: int) -> None:
    with pytest.raises(ValueError, match="points <= games"):
        wilson_interval(points, games)


def test_elo_from_score_known_values() -> None:
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))  # 190.85
    assert elo_from_score(0.25) == pytest.approx(-400 * math.log10(3))
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf
    for elo in (-300.0, -10.0, 0.0, 55.5, 700.0):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        elo_from_score(1.5)


def test_tally_and_estimate() -> None:
    tally = Tally.from_scores([1, 1, 0.5, 0, 1])
    assert (tally.wins, tally.draws, tally.losses) == (3, 1, 1)
    assert tally.points == 3.5 and tally.rate == 0.7
    assert str(tally) == "+3 =1 -1"
    assert tally + Tally(1, 0, 0) == Tally(4, 1, 1)
    est = estimate(tally)
    assert (est.rate_low, est.rate_high) == wilson_interval(3.5, 5)
    assert est.elo == pytest.approx(elo_from_score(0.7))
    assert est.elo_low == pytest.approx(elo_from_score(est.rate_low))
    assert est.elo_low < est.elo < est.elo_high
    with pytest.raises(ValueError, match=r"0, 0\.5 or 1"):
        Tally.from_scores([0.25])


def test_estimate_of_a_clean_sweep_has_a_finite_lower_elo_bound() -> None:
    est = estimate(Tally(wins=20))
    assert est.elo == math.inf and est.elo_high == math.inf
    assert math.isfinite(est.elo_low) and est.elo_low > 200


def test_mle_with_mean_has_the_required_mean_and_maximises_likelihood() -> None:
    values = [0.0, 0.5, 1.0]
    phat = np.array([0.3, 0.2, 0.5])
    p = mle_with_mean(values, phat, 0.55)
    assert p.sum() == pytest.approx(1.0)
    assert float(np.dot(p, values)) == pytest.approx(0.55, abs=1e-12)
    best = float(np.dot(phat, np.log(p)))
    # Any other distribution with the same mean has a lower likelihood: move mass along the
    # direction (1, -2, 1), which keeps both the total and the mean.
    for eps in (-0.02, -0.005, 0.005, 0.02):
        q = p + eps * np.array([1.0, -2.0, 1.0])
        assert float(np.dot(phat, np.log(q))) < best
    # The empirical mean itself gives back the empirical distribution.
    assert np.allclose(mle_with_mean(values, phat, float(np.dot(phat, values))), phat)
    with pytest.raises(ValueError, match="strictly between"):
        mle_with_mean(values, phat, 1.0)


def test_trinomial_llr_without_draws_is_walds_bernoulli_sprt() -> None:
    s0, s1 = score_from_elo(0), score_from_elo(10)
    wins, losses = 600, 400
    wald = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    # The zero draw count is regularized to 1e-3, so agreement is to about 1e-5.
    assert llr_trinomial(wins, 0, losses, 0, 10) == pytest.approx(wald, rel=1e-5)


def test_llr_of_a_lopsided_start_grows_like_the_bernoulli_sprt() -> None:
    # Ten straight wins: the variance estimate is near zero, but the MLE-based GSPRT does not
    # explode (the normal approximation would); it behaves like Wald's test.
    s0, s1 = score_from_elo(0), score_from_elo(10)
    assert llr_trinomial(10, 0, 0, 0, 10) == pytest.approx(10 * math.log(s1 / s0), rel=1e-4)
    assert llr_trinomial(0, 0, 10, 0, 10) == pytest.approx(
        10 * math.log((1 - s1) / (1 - s0)), rel=1e-4
    )


def test_llr_agrees_with_the_normal_approximation_on_large_samples() -> None:
    wins, draws, losses = 520, 200, 480
    n = wins + draws + losses
    s0, s1 = score_from_elo(0), score_from_elo(10)
    mu = (wins + draws / 2) / n
    var = (wins + draws / 4) / n - mu * mu
    normal = (s1 - s0) * (2 * mu - s0 - s1) / (2 * var / n)
    assert llr_trinomial(wins, draws, losses, 0, 10) == pytest.approx(normal, rel=0.01)
    assert llr([0, 0, 0], [0.0, 0.5, 1.0], s0, s1) == 0.0


def test_pentanomial_counts_and_llr() -> None:
    scores = [1, 0, 1, 1, 0.5, 0.5, 0, 0, 1]  # the last game has no partner
    assert pentanomial_counts(scores) == [1, 0, 2, 0, 1]
    # Pairs that split 1-1 carry no evidence either way; a win-win pair is evidence for H1.
    assert llr_pentanomial([0, 0, 50, 0, 0], 0, 10) < 0  # exactly 50%: favours elo0 = 0
    assert llr_pentanomial([0, 0, 10, 0, 10], 0, 10) > 0


def test_sprt_config_bounds_and_validation() -> None:
    config = SprtConfig(elo0=0, elo1=10)
    assert config.upper == pytest.approx(math.log(0.95 / 0.05))  # 2.944
    assert config.lower == pytest.approx(-math.log(0.95 / 0.05))
    with pytest.raises(ValueError, match="elo1 must exceed elo0"):
        SprtConfig(elo0=5, elo1=5)
    with pytest.raises(ValueError, match="alpha"):
        SprtConfig(elo0=0, elo1=5, alpha=0)
    with pytest.raises(ValueError, match="below 1"):
        SprtConfig(elo0=0, elo1=5, alpha=0.6, beta=0.5)
    with pytest.raises(ValueError, match="model"):
        SprtConfig(elo0=0, elo1=5, model="binomial")  # type: ignore[arg-type]


def test_sprt_decides_clear_cases_and_waits_on_unclear_ones() -> None:
    config = SprtConfig(elo0=0, elo1=200, model="trinomial")
    # Each win adds log(s1/s0) = 0.418 (7 wins: 2.928): the eighth straight win crosses 2.944.
    assert sprt(config, [1] * 7).decision is None
    decided = sprt(config, [1] * 8)
    assert decided.decision == "H1" and decided.games == 8 and decided.llr >= decided.upper
    assert sprt(config, [0] * 8).decision == "H0"
    assert sprt(config, [1, 0] * 3).decision is None
    pairs = SprtConfig(elo0=0, elo1=200)  # pentanomial: only complete pairs count
    assert sprt(pairs, [1, 1, 1]).games == 2
    assert sprt(pairs, [0] * 20).decision == "H0"
