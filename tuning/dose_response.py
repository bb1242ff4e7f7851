"""The pre-registered analysis of the dose-response in N, and the verdict family's tests.

``experiments/dose-response-n.toml`` fixes the analysis before its first game
(``docs/dose-response.md``); this module is that analysis, from the games on disk:

1. each row against 50% (:func:`against_half`: Wilson interval, exact binomial test);
2. paired sign tests against other rows on the same openings (:func:`paired_test`, the
   sign test of :mod:`agents.matches.paired`; Dixon & Mood, JASA 41, 1946);
3. a logistic fit of the game score on ``log2 N`` (:func:`fit_logistic`), maximum likelihood
   with standard errors clustered by opening (the sandwich estimator; Liang & Zeger,
   *Longitudinal data analysis using generalized linear models*, Biometrika 73, 1986);
4. the score against N of every backup measured at more than one N (:func:`series` and
   :func:`plot_series`).

The reproduction's verdict table tests a family of claims at once; :func:`holm` adjusts their
p-values (Holm, *A simple sequentially rejective multiple test procedure*, Scandinavian
Journal of Statistics 6, 1979), and :func:`family_tests` computes the family from the
recorded rows of ``experiments/li-lim-9x9.toml``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

from agents.figures import save_figure
from agents.matches.paired import compare_games, sign_test
from agents.matches.results import GameOutcome, ResultsError, read_results
from agents.matches.stats import Z95, wilson_interval
from tuning.reproduction.plan import MatchRow, Plan

__all__ = [
    "LogisticFit",
    "RowResult",
    "against_half",
    "family_tests",
    "fit_logistic",
    "holm",
    "load_rows",
    "paired_test",
    "plot_series",
    "series",
    "temperature_at_n",
]

RESULT_NAMES = ("results.jsonl", "results.jsonl.gz")
"""A match row's results file, plain or compressed (read by :func:`read_results`)."""


# ------------------------------------------------------------------------ the rows
@dataclass(frozen=True)
class RowResult:
    """The recorded games of one match row.

    Attributes:
        plan: The plan's name.
        id: The row's id.
        label: The row's label.
        candidate: The candidate backup spec (as written in the plan).
        baseline: The baseline backup spec.
        sims: Simulations per move.
        book: The openings as written in the plan (``book:PATH`` or ``random:K``).
        games: The games by index (empty when the row has not been played).
    """

    plan: str
    id: str
    label: str
    candidate: str
    baseline: str
    sims: int
    book: str
    games: Mapping[int, GameOutcome]

    @property
    def points(self) -> float:
        """The candidate's points."""
        return float(sum(g.score_a for g in self.games.values()))

    @property
    def n(self) -> int:
        """Games played."""
        return len(self.games)


def results_file(folder: str | PathLike[str]) -> Path | None:
    """The results file in a row's folder (``None`` when the row has none)."""
    for name in RESULT_NAMES:
        path = Path(folder) / name
        if path.exists():
            return path
    return None


def load_rows(plan: Plan) -> dict[str, RowResult]:
    """Every match row of ``plan`` with the games recorded in its folder, by id."""
    out: dict[str, RowResult] = {}
    for row in plan.rows:
        if not isinstance(row, MatchRow):
            continue
        path = results_file(plan.folder(row))
        games = read_results(path)[1] if path is not None else {}
        out[row.id] = RowResult(
            plan=plan.name,
            id=row.id,
            label=row.label,
            candidate=row.candidate,
            baseline=row.baseline,
            sims=row.sims,
            book=row.openings.text,
            games=games,
        )
    return out


# ------------------------------------------------------------------ 1. against 50%
@dataclass(frozen=True)
class HalfTest:
    """A row's score against 50%.

    Attributes:
        games: Games played.
        points: The candidate's points.
        rate: Its score rate.
        low: Lower bound of the 95% Wilson interval.
        high: Upper bound.
        p: Two-sided exact binomial test of wins against losses (draws dropped).
    """

    games: int
    points: float
    rate: float
    low: float
    high: float
    p: float


def against_half(games: Mapping[int, GameOutcome]) -> HalfTest:
    """Test the candidate's score against 50% (module docstring, item 1).

    Raises:
        ValueError: Without games.
    """
    if not games:
        raise ValueError("no games: a row that has not been played cannot be tested")
    wins = sum(1 for g in games.values() if g.score_a == 1.0)
    losses = sum(1 for g in games.values() if g.score_a == 0.0)
    points = float(sum(g.score_a for g in games.values()))
    low, high = wilson_interval(points, len(games))
    return HalfTest(len(games), points, points / len(games), low, high, sign_test(wins, losses))


# ---------------------------------------------------------------- 2. paired tests
@dataclass(frozen=True)
class PairedTest:
    """Two rows compared game by game on the games both played.

    Attributes:
        games: Games compared.
        first_only: Games the first row's candidate scored more in.
        second_only: Games the second row's candidate scored more in.
        p: Two-sided exact sign test.
    """

    games: int
    first_only: int
    second_only: int
    p: float


def paired_test(first: RowResult, second: RowResult) -> PairedTest:
    """The sign test of two rows played on the same openings with the same seed.

    Raises:
        ResultsError: When a shared game index had another opening or other colours.
    """
    comparison = compare_games(dict(first.games), dict(second.games))
    return PairedTest(
        comparison.games, comparison.first_only, comparison.second_only, comparison.p_value
    )


# ------------------------------------------------------------- 3. the logistic fit
@dataclass(frozen=True)
class LogisticFit:
    """``logit P(score) = a + b log2(N / reference)``, fitted by maximum likelihood.

    Attributes:
        intercept: ``a``: the log-odds at ``N = reference``.
        slope: ``b``: the change of the log-odds per doubling of N.
        cov: The 2x2 covariance of ``(a, b)``, clustered by opening.
        reference: The N at which the intercept is taken.
        games: Games fitted.
        clusters: Openings (clusters) among them.
        sims: The distinct N fitted.
    """

    intercept: float
    slope: float
    cov: np.ndarray
    reference: float
    games: int
    clusters: int
    sims: tuple[int, ...]

    @property
    def slope_interval(self) -> tuple[float, float]:
        """95% interval of the slope."""
        half = Z95 * math.sqrt(self.cov[1, 1])
        return self.slope - half, self.slope + half

    def score_at(self, sims: float) -> tuple[float, float, float]:
        """The fitted score at ``sims`` simulations with its 95% interval."""
        x = np.array([1.0, math.log2(sims / self.reference)])
        eta = float(x @ np.array([self.intercept, self.slope]))
        half = Z95 * math.sqrt(float(x @ self.cov @ x))
        return _expit(eta), _expit(eta - half), _expit(eta + half)


def _expit(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def fit_logistic(
    rows: Sequence[RowResult], *, reference: float = 800.0, iterations: int = 50
) -> LogisticFit:
    """Fit the game score on ``log2 N`` over ``rows`` (module docstring, item 3).

    A game's score (1, 1/2, 0) enters the Bernoulli likelihood as it is (a draw counts half a
    win, the quasi-likelihood of a fractional outcome). The covariance is the sandwich
    ``H^-1 (sum_c g_c g_c^T) H^-1`` over clusters ``c`` of games with the same opening, with
    the small-sample factor ``C / (C - 1)``.

    Raises:
        ValueError: With fewer than two distinct N among the rows' games, or a fit whose
            scores are all wins or all losses (no finite maximum).
    """
    x_rows, y, cluster = [], [], []
    for row in rows:
        for game in row.games.values():
            x_rows.append(math.log2(row.sims / reference))
            y.append(game.score_a)
            cluster.append(tuple(game.opening))
    sims = tuple(sorted({row.sims for row in rows if row.games}))
    if len(sims) < 2:
        raise ValueError(f"a fit on log N needs games at two N or more, got N in {list(sims)}")
    yv = np.array(y, dtype=float)
    if yv.min() == yv.max():
        raise ValueError("every game has the same score: the logistic fit has no maximum")
    design = np.column_stack([np.ones(len(x_rows)), np.array(x_rows)])
    beta = np.zeros(2)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        hessian = design.T @ (design * (p * (1 - p))[:, None])
        step = np.linalg.solve(hessian, design.T @ (yv - p))
        beta = beta + step
        if np.max(np.abs(step)) < 1e-12:
            break
    p = 1.0 / (1.0 + np.exp(-(design @ beta)))
    hessian = design.T @ (design * (p * (1 - p))[:, None])
    scores = design * (yv - p)[:, None]
    ids: dict[tuple[int, ...], int] = {}
    index = np.array([ids.setdefault(c, len(ids)) for c in cluster])
    per_cluster = np.zeros((len(ids), 2))
    np.add.at(per_cluster, index, scores)
    inverse = np.linalg.inv(hessian)
    count = len(ids)
    meat = per_cluster.T @ per_cluster * (count / (count - 1) if count > 1 else 1.0)
    return LogisticFit(
        intercept=float(beta[0]),
        slope=float(beta[1]),
        cov=inverse @ meat @ inverse,
        reference=reference,
        games=len(yv),
        clusters=count,
        sims=sims,
    )


# ------------------------------------------------------------------ 4. the series
_SOFTMAX_G = re.compile(r"^softmax:g=\[\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*\]$")


def temperature_at_n(row: RowResult) -> float | None:
    """``tau(N) = e^g N`` of a constant-g Softmax row (``None`` for any other backup)."""
    found = _SOFTMAX_G.match(row.candidate.replace(" ", ""))
    if not found or found.group(1) != found.group(2):
        return None
    return math.exp(float(found.group(1))) * row.sims


def _constant_g(row: RowResult) -> float | None:
    found = _SOFTMAX_G.match(row.candidate.replace(" ", ""))
    if not found or found.group(1) != found.group(2):
        return None
    return float(found.group(1))


def series(rows: Sequence[RowResult]) -> dict[str, list[RowResult]]:
    """Rows against standard grouped by backup, keeping the backups measured at two N or more.

    A constant-g Softmax belongs to two series: its ``tau(N)`` rounded to an integer
    (``"softmax tau(N) = 27"``) and its ``g`` (``"softmax g = -2"``); any other backup's
    series is its spec. Rows without games, or against another baseline, are left out.
    """
    groups: dict[str, list[RowResult]] = {}
    for row in rows:
        if not row.games or row.baseline != "mean":
            continue
        tau = temperature_at_n(row)
        keys = (
            [f"softmax tau(N) = {tau:.2g}", f"softmax g = {_constant_g(row):g}"]
            if tau is not None
            else [row.candidate]
        )
        for key in keys:
            groups.setdefault(key, []).append(row)
    return {
        key: sorted(members, key=lambda r: (r.sims, r.book))
        for key, members in groups.items()
        if len({r.sims for r in members}) > 1
    }


def plot_series(
    path: str | PathLike[str],
    groups: Mapping[str, Sequence[RowResult]],
    *,
    fresh_book: str,
    fit: LogisticFit | None = None,
    title: str = "",
) -> Path:
    """Score against N (log axis) with 95% Wilson intervals, one line per series.

    Rows on ``fresh_book`` are drawn filled, others hollow; ``fit`` adds its curve.
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot(1, 1, 1)
    for number, (key, members) in enumerate(groups.items()):
        colour = f"C{number}"
        offset = 1.0 + 0.03 * (number - len(groups) / 2)
        xs = [r.sims * offset for r in members]
        rates = [r.points / r.n for r in members]
        ax.plot(xs, rates, "-", color=colour, alpha=0.5)
        for r, x, rate in zip(members, xs, rates, strict=True):
            low, high = wilson_interval(r.points, r.n)
            fresh = r.book == fresh_book
            ax.errorbar(
                [x],
                [rate],
                yerr=[[rate - low], [high - rate]],
                fmt="o",
                color=colour,
                mfc=colour if fresh else "white",
                capsize=3,
            )
        ax.plot([], [], "o-", color=colour, label=key)
    if fit is not None:
        grid = np.geomspace(min(fit.sims) / 1.5, 5000, 100)
        curve = np.array([fit.score_at(n) for n in grid])
        ax.plot(grid, curve[:, 0], "k--", lw=1, label="logistic fit, tau(N) = 27")
        ax.fill_between(grid, curve[:, 1], curve[:, 2], color="k", alpha=0.08)
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_xscale("log")
    sims = sorted({r.sims for members in groups.values() for r in members})
    ax.set_xticks(sims, [f"{n:,}" for n in sims])
    ax.minorticks_off()
    ax.set_xlabel("simulations per move N (filled: fresh book; hollow: main book)")
    ax.set_ylabel("score against standard (95% interval)")
    ax.legend(fontsize=8, loc="best")
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return save_figure(fig, path, dpi=110)


# --------------------------------------------------------------- the verdict family
def holm(p_values: Mapping[str, float]) -> dict[str, float]:
    """Holm's step-down adjusted p-values (module docstring), in the input's order.

    The k-th smallest of m p-values is multiplied by ``m - k + 1``, made non-decreasing in
    that order and capped at 1; a hypothesis is rejected at level alpha when its adjusted
    p-value is at most alpha, which keeps the family-wise error rate at alpha.

    Raises:
        ValueError: For a p-value outside [0, 1].
    """
    for key, p in p_values.items():
        if not (0.0 <= p <= 1.0):
            raise ValueError(f"p-value of {key!r} must be in [0, 1], got {p!r}")
    order = sorted(p_values, key=lambda k: p_values[k])
    m = len(order)
    adjusted: dict[str, float] = {}
    running = 0.0
    for k, key in enumerate(order):
        running = max(running, min(1.0, (m - k) * p_values[key]))
        adjusted[key] = running
    return {key: adjusted[key] for key in p_values}


FAMILY: tuple[tuple[str, str, str | None], ...] = (
    ("coulom-2-16", "Coulom(2,16) loses to standard (primary)", None),
    ("coulom-4-32", "Coulom(4,32) loses to standard", None),
    ("coulom-8-64", "Coulom(8,64) about even or below", None),
    ("coulom-4-32", "(4,32) against (2,16), paired", "coulom-2-16"),
    ("coulom-8-64", "(8,64) against (2,16), paired", "coulom-2-16"),
    ("erwa-unbiased-a001", "ERWA about even", None),
    ("xie-liu-exp-1", "Xie-Liu about even", None),
    ("confirm-monotone", "tuned Monotone beats standard", None),
    ("confirm-softmax", "tuned Softmax beats standard", None),
    ("confirm-softmax-vs-coulom", "tuned Softmax beats Coulom(2,16)", None),
)
"""The verdict table's tests (``docs/reproduction.md``): a row against 50%, or a row paired
against another row on the same games; the first is the pre-declared primary test."""


def family_tests(rows: Mapping[str, RowResult]) -> list[dict[str, Any]]:
    """The verdict family's p-values, unadjusted and Holm-adjusted, from the recorded rows.

    Returns:
        One record per test of :data:`FAMILY` (``claim``, ``row``, ``against``, ``p``, the
        counts, ``holm``: adjusted over the whole family, and ``holm_secondary``: over the
        tests after the primary, which is tested alone at its level; ``None`` for the
        primary), in that order.

    Raises:
        ResultsError: When a row of the family has no games.
    """
    records: list[dict[str, Any]] = []
    for row_id, claim, other in FAMILY:
        row = rows.get(row_id)
        if row is None or not row.games:
            raise ResultsError(f"row {row_id!r} has no recorded games")
        if other is None:
            test = against_half(row.games)
            records.append(
                {
                    "claim": claim,
                    "row": row_id,
                    "against": "50%",
                    "games": test.games,
                    "points": test.points,
                    "rate": test.rate,
                    "p": test.p,
                }
            )
        else:
            paired = paired_test(row, rows[other])
            records.append(
                {
                    "claim": claim,
                    "row": row_id,
                    "against": other,
                    "games": paired.games,
                    "first_only": paired.first_only,
                    "second_only": paired.second_only,
                    "p": paired.p,
                }
            )
    adjusted = holm({str(k): r["p"] for k, r in enumerate(records)})
    secondary = holm({str(k): r["p"] for k, r in enumerate(records) if k > 0})
    for k, record in enumerate(records):
        record["holm"] = adjusted[str(k)]
        record["holm_secondary"] = secondary.get(str(k))
    return records
