"""Pair statistics of arena matches (agents/matches/pair_stats.py)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from agents.matches.pair_stats import pair_statistics


class Game:
    """The two fields pair_statistics reads of a GameOutcome."""

    def __init__(self, index: int, score_a: float) -> None:
        self.index = index
        self.a_black = index % 2 == 0
        self.score_a = score_a


def games(scores: list[float]) -> dict[int, Any]:
    return {i: Game(i, s) for i, s in enumerate(scores)}


def test_pairs_splits_black_share_and_signal_to_noise() -> None:
    # pairs: A won both; 1-1 (Black won both); A won both; 1-1 (White won both)
    stats = pair_statistics(games([1, 1, 1, 0, 1, 1, 0, 1, 0.5]))  # last game has no partner
    assert (stats.pairs, stats.a_both, stats.splits, stats.b_both, stats.other) == (4, 2, 2, 0, 0)
    assert stats.rate == pytest.approx(0.75)
    assert stats.black_points == 4  # Black: 1 + 0 + 1 + 1 + 1 + 0 + 0 + 0
    assert stats.black_share == pytest.approx(0.5)
    # s/2 = 1, .5, 1, .5: sd with n-1 = sqrt(4 * 0.0625 / 3)
    assert stats.pair_sd == pytest.approx(math.sqrt(0.25 / 3))
    assert stats.standard_error == pytest.approx(stats.pair_sd / 2)
    assert stats.z_per_pair == pytest.approx(0.25 / stats.pair_sd)
    assert stats.pairs_for_two_sigma == pytest.approx((2 / stats.z_per_pair) ** 2)
    assert "4 pairs: A 2-0 2, 1-1 2, 0-2 0" in stats.format()


def test_draws_and_errors() -> None:
    stats = pair_statistics(games([0.5, 1, 0, 0]))
    assert (stats.other, stats.b_both, stats.rate) == (1, 1, pytest.approx(0.375))
    with pytest.raises(ValueError, match="no complete pair"):
        pair_statistics(games([1]))
