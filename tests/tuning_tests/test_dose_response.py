"""The dose-response analysis and the verdict family: synthetic games and the recorded rows."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from game_support import game_outcome

from agents.matches.results import GameOutcome, ResultsError
from tuning.dose_response import (
    RowResult,
    against_half,
    family_tests,
    fit_logistic,
    holm,
    load_rows,
    paired_test,
    plot_series,
    series,
    temperature_at_n,
)
from tuning.reproduction.plan import MatchRow, load_plan

ROOT = Path(__file__).resolve().parents[2]


def _game(index: int, score: float, opening: tuple[int, ...] = (0,)) -> GameOutcome:
    return game_outcome(index, black="a", white="b", opening=opening, moves=opening, score_a=score)


def _row(row_id: str, scores: list[float], sims: int = 200, candidate: str = "mean") -> RowResult:
    games = {i: _game(i, s, (i // 2,)) for i, s in enumerate(scores)}
    return RowResult("p", row_id, row_id, candidate, "mean", sims, "book:x", games)


def test_holm_matches_the_step_down_rule() -> None:
    # sorted 0.01, 0.02, 0.03, 0.2 times 4, 3, 2, 1 -> 0.04, 0.06, 0.06 (made monotone), 0.2
    adjusted = holm({"a": 0.03, "b": 0.01, "c": 0.2, "d": 0.02})
    assert adjusted == pytest.approx({"a": 0.06, "b": 0.04, "c": 0.2, "d": 0.06})
    assert list(adjusted) == ["a", "b", "c", "d"]  # the input's order
    assert holm({"x": 0.6, "y": 0.9}) == {"x": 1.0, "y": 1.0}  # capped at 1
    assert holm({}) == {}
    with pytest.raises(ValueError, match=r"p-value of 'x' must be in \[0, 1\]"):
        holm({"x": 1.5})


def test_a_row_against_half_uses_wilson_and_the_exact_binomial() -> None:
    test = against_half(_row("r", [1.0] * 30 + [0.0] * 10 + [0.5] * 2).games)
    assert (test.games, test.points) == (42, 31.0)
    assert test.low < 31 / 42 < test.high
    # two-sided exact binomial of 30 wins against 10 losses
    tail = sum(math.comb(40, k) for k in range(11)) / 2**40
    assert test.p == pytest.approx(2 * tail)
    with pytest.raises(ValueError, match="no games"):
        against_half({})


def test_paired_tests_compare_game_by_game_and_refuse_other_openings() -> None:
    first = _row("a", [1, 1, 0, 0, 1, 0])
    second = _row("b", [1, 0, 0, 1, 0, 0, 1, 1])  # two more games: not compared
    p = paired_test(first, second)
    assert (p.games, p.first_only, p.second_only) == (6, 2, 1)
    assert p.p == pytest.approx(1.0)
    other = RowResult("p", "c", "c", "mean", "mean", 200, "x", {0: _game(0, 1.0, (9,))})
    with pytest.raises(ResultsError, match="same opening"):
        paired_test(first, other)


def test_the_logistic_fit_recovers_a_known_slope() -> None:
    rng = np.random.default_rng(1)
    rows = []
    for sims, true in ((200, 0.25), (800, 0.425), (3200, 0.62)):
        rows.append(_row(f"n{sims}", list(rng.binomial(1, true, 4000).astype(float)), sims))
    fit = fit_logistic(rows)
    # true log-odds rise about 0.8 and 0.8 per two doublings: slope near 0.4 per doubling
    logit = [math.log(p / (1 - p)) for p in (0.25, 0.425, 0.62)]
    true_slope = (logit[2] - logit[0]) / 4
    low, high = fit.slope_interval
    assert low < true_slope < high
    assert high - low < 0.1
    score, lo, hi = fit.score_at(800)
    assert lo < score < hi and abs(score - 0.425) < 0.03
    assert fit.sims == (200, 800, 3200) and fit.games == 12000
    with pytest.raises(ValueError, match="two N or more"):
        fit_logistic(rows[:1])


def test_clustering_by_opening_widens_the_interval_when_openings_decide() -> None:
    # each opening decides both of its games (a 2-0 or 0-2 pair): half the information
    decided = [s for k in range(400) for s in ([1.0, 1.0] if k % 2 else [0.0, 0.0])]
    independent = [float(k % 2) for k in range(800)]
    rows_d = [_row("a", decided, 200), _row("b", decided[::-1], 800)]
    rows_i = [_row("a", independent, 200), _row("b", independent, 800)]
    wide = fit_logistic(rows_d).slope_interval
    narrow = fit_logistic(rows_i).slope_interval
    assert (wide[1] - wide[0]) > 1.3 * (narrow[1] - narrow[0])


def test_series_keep_backups_measured_at_two_n(tmp_path: Path) -> None:
    rows = [
        _row("g2-200", [0, 1], 200, "softmax:g=[-2,-2]"),
        _row("g2-800", [0, 0], 800, "softmax:g=[-2,-2]"),
        _row("tau27-800", [1, 0], 800, "softmax:g=[-3.386,-3.386]"),
        _row("coulom-200", [1, 0], 200, "coulom:a=2,b=16"),
        _row("unplayed", [], 3200, "coulom:a=2,b=16"),
    ]
    assert temperature_at_n(rows[2]) == pytest.approx(27.08, abs=0.01)
    assert temperature_at_n(rows[3]) is None
    groups = series(rows)
    assert {k: [r.id for r in v] for k, v in groups.items()} == {
        "softmax tau(N) = 27": ["g2-200", "tau27-800"],
        "softmax g = -2": ["g2-200", "g2-800"],
    }
    png = plot_series(tmp_path / "p.png", groups, fresh_book="book:x")
    assert png.stat().st_size > 1000


def test_the_recorded_rows_7_and_8_and_the_verdict_family() -> None:
    plan = load_plan(ROOT / "experiments" / "li-lim-9x9.toml")
    rows = load_rows(plan)
    row7, row8 = rows["recheck-n800"], rows["recheck-n800-tau27"]
    t8 = against_half(row8.games)
    assert (t8.points, t8.games) == (85, 200)
    assert (100 * t8.low, 100 * t8.high) == pytest.approx((35.9, 49.4), abs=0.05)
    p = paired_test(row8, row7)  # docs/reproduction.md: 79 against 7, p = 1.5e-16
    assert (p.games, p.first_only, p.second_only) == (200, 79, 7)
    assert p.p == pytest.approx(1.52e-16, rel=0.01)
    family = family_tests(rows)
    primary = family[0]
    assert primary["row"] == "coulom-2-16" and primary["holm_secondary"] is None
    assert (primary["points"], primary["games"]) == (366, 800)
    assert all(r["holm"] >= r["p"] for r in family)
    assert max(r["holm"] for r in family) <= 1.0


def test_the_dose_response_plan_is_what_was_registered() -> None:
    plan = load_plan(ROOT / "experiments" / "dose-response-n.toml")
    base = load_plan(ROOT / "experiments" / "li-lim-9x9.toml")
    row7 = base.row("recheck-n800")
    assert isinstance(row7, MatchRow)
    rows = {r.id: r for r in plan.rows}
    assert list(rows) == [
        "softmax-tau27-n3200",
        "softmax-tau10-n3200",
        "softmax-g-2-fresh",
        "coulom-2-16-n3200",
    ]
    expected = {
        "softmax-tau27-n3200": (3200, 400, 27.0),
        "softmax-tau10-n3200": (3200, 400, 10.0),
        "softmax-g-2-fresh": (200, 200, 27.0),
        "coulom-2-16-n3200": (3200, 400, None),
    }
    for row_id, (sims, games, tau) in expected.items():
        row = rows[row_id]
        assert isinstance(row, MatchRow)
        assert (row.sims, row.games, row.seed) == (sims, games, 1019)
        assert row.openings == row7.openings and row.rules == row7.rules
        # row 7's agent but for the network's precision (changed before the first game)
        assert row.agent == row7.agent.replace("evaluator=net,", 'evaluator="net:precision=int8",')
        assert row.agent != row7.agent and row.baseline == "mean"
        fake = RowResult("p", row_id, "", row.candidate, "mean", sims, "", {})
        t = temperature_at_n(fake)
        assert (t is None) if tau is None else t == pytest.approx(tau, rel=0.01)
    coulom = rows["coulom-2-16-n3200"]
    assert isinstance(coulom, MatchRow) and coulom.candidate == "coulom:a=2,b=16"
