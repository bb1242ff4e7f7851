"""Statistics of a trap-tree grid: rates with intervals, paired tests, a table and plots.

Per cell ``(backup, budget)`` over its trees:

* **winning-move rate**: the share of trees where the decision is a winning move, with its
  95% Wilson score interval (Edwin B. Wilson, *Probable inference, the law of succession, and
  statistical inference*, JASA 22, 1927);
* **trap-avoidance rate**: the share of trees with a trap at the root where the decision is
  not a trap, with its Wilson interval;
* **root-value error** ``|V(root) - V*(root)|``: its mean with a 95% Student-t interval.

Paired against the reference backup (``mean``) on the same trees: for each rate, McNemar's
test in its exact form (Quinn McNemar, *Note on the sampling error of the difference between
correlated proportions or percentages*, Psychometrika 12, 1947), i.e. the exact two-sided sign
test on the discordant trees (right for one and wrong for the other); for the error, the exact
sign test on the trees where the two errors differ.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from statistics import NormalDist

from agents.figures import save_figure
from agents.matches.paired import sign_test
from agents.matches.stats import wilson_interval
from agents.traps.grid import GridResults, TreeResult

__all__ = [
    "CellSummary",
    "Paired",
    "legend_label",
    "markdown_table",
    "plot_grid",
    "summarise",
    "t_interval",
    "t_quantile",
]


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t distribution with ``df`` degrees of freedom.

    Exact for ``df`` 1 and 2; above, the Cornish-Fisher expansion in the normal quantile
    (Milton Abramowitz and Irene Stegun, *Handbook of Mathematical Functions*, 1964, 26.7.5),
    within 0.2% at ``df = 3`` and 1e-5 from ``df = 5`` at ``p = 0.975``.
    """
    if not 0.0 < p < 1.0 or df < 1:
        raise ValueError(f"need 0 < p < 1 and df >= 1, got p={p}, df={df}")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2.0 * p - 1.0) / math.sqrt(2.0 * p * (1.0 - p))
    z = NormalDist().inv_cdf(p)
    v = float(df)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4)
    )


def t_interval(values: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean of ``values`` with its Student-t interval: ``(mean, low, high)``.

    With fewer than two values the interval is ``(-inf, inf)`` around the mean (NaN if none).
    """
    n = len(values)
    if n == 0:
        return math.nan, -math.inf, math.inf
    mean = sum(values) / n
    if n < 2:
        return mean, -math.inf, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(0.5 + level / 2, n - 1) * math.sqrt(var / n)
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class Paired:
    """One paired comparison with the reference on the same trees.

    Attributes:
        better: Trees where this backup did better.
        worse: Trees where it did worse.
        p: Two-sided exact sign-test (McNemar) p-value.
    """

    better: int
    worse: int
    p: float

    def __str__(self) -> str:
        return f"+{self.better}/-{self.worse} p={self.p:.2g}"


@dataclass(frozen=True)
class CellSummary:
    """The statistics of one cell (see the module docstring)."""

    backup: str
    budget: int
    trees: int
    winning: float
    winning_ci: tuple[float, float]
    trap_trees: int
    avoid: float
    avoid_ci: tuple[float, float]
    error: float
    error_ci: tuple[float, float]
    vs_winning: Paired | None
    vs_avoid: Paired | None
    vs_error: Paired | None


def _paired(mine: list[bool], theirs: list[bool]) -> Paired:
    better = sum(a and not b for a, b in zip(mine, theirs, strict=True))
    worse = sum(b and not a for a, b in zip(mine, theirs, strict=True))
    return Paired(better, worse, sign_test(better, worse))


def _summary(
    backup: str, budget: int, trees: list[TreeResult], ref: list[TreeResult] | None
) -> CellSummary:
    n = len(trees)
    wins = sum(t.winning for t in trees)
    trapped = [t for t in trees if t.root_traps > 0]
    avoided = sum(not t.trap for t in trapped)
    error, low, high = t_interval([t.error for t in trees])
    vs: list[Paired | None] = [None, None, None]
    if ref is not None:
        theirs = {t.tree: t for t in ref}
        common = [t for t in trees if t.tree in theirs]
        other = [theirs[t.tree] for t in common]
        vs[0] = _paired([t.winning for t in common], [t.winning for t in other])
        pairs = [(a, b) for a, b in zip(common, other, strict=True) if a.root_traps > 0]
        vs[1] = _paired([not a.trap for a, _ in pairs], [not b.trap for _, b in pairs])
        vs[2] = _paired(
            [a.error < b.error for a, b in zip(common, other, strict=True)],
            [b.error < a.error for a, b in zip(common, other, strict=True)],
        )
    return CellSummary(
        backup=backup,
        budget=budget,
        trees=n,
        winning=wins / n if n else math.nan,
        winning_ci=wilson_interval(wins, n),
        trap_trees=len(trapped),
        avoid=avoided / len(trapped) if trapped else math.nan,
        avoid_ci=wilson_interval(avoided, len(trapped)),
        error=error,
        error_ci=(low, high),
        vs_winning=vs[0],
        vs_avoid=vs[1],
        vs_error=vs[2],
    )


def summarise(results: GridResults) -> list[CellSummary]:
    """One summary per cell with trees, by budget then in the grid's backup order."""
    config = results.config
    out = []
    for budget in sorted(config.budgets):
        ref = results.cell(config.reference, budget) or None
        for backup in config.backups:
            trees = results.cell(backup, budget)
            if trees:
                other = ref if backup != config.reference else None
                out.append(_summary(backup, budget, trees, other))
    return out


def _rate(value: float, ci: tuple[float, float]) -> str:
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def markdown_table(summaries: list[CellSummary], reference: str = "mean") -> str:
    """A Markdown table of the summaries (paired columns: ``+better/-worse p``)."""
    lines = [
        f"| backup | sims | trees | winning move | trap avoided | root-value error | "
        f"vs {reference}: winning | vs {reference}: trap | vs {reference}: error |",
        "|---|---:|---:|---|---|---|---|---|---|",
    ]
    for s in summaries:
        lines.append(
            f"| {s.backup} | {s.budget} | {s.trees} | {_rate(s.winning, s.winning_ci)} | "
            f"{_rate(s.avoid, s.avoid_ci)} | {_rate(s.error, s.error_ci)} | "
            f"{s.vs_winning or ''} | {s.vs_avoid or ''} | {s.vs_error or ''} |"
        )
    return "\n".join(lines) + "\n"


_NUMBER = re.compile(r"-?\d+\.\d+(?:[eE][-+]?\d+)?")


def legend_label(spec: str, width: int = 60) -> str:
    """A backup spec short enough for a legend: numbers to 3 significant digits, then cut.

    >>> legend_label("softmax:g=[2.0,-12.0,-3.9621012712657517]")
    'softmax:g=[2,-12,-3.96]'
    """
    short = _NUMBER.sub(lambda m: f"{float(m.group()):.3g}", spec)
    return short if len(short) <= width else short[: width - 3] + "..."


def plot_grid(
    summaries: list[CellSummary], folder: str | PathLike[str], title: str = ""
) -> list[Path]:
    """Plot each measure against the budget, one line per backup with 95% intervals.

    Returns:
        The PNG files written: ``winning.png``, ``trap-avoidance.png``, ``error.png``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    backups = list(dict.fromkeys(s.backup for s in summaries))
    measures = (
        ("winning.png", "winning-move rate", lambda s: (s.winning, s.winning_ci)),
        ("trap-avoidance.png", "trap-avoidance rate", lambda s: (s.avoid, s.avoid_ci)),
        ("error.png", "root-value error |V - V*|", lambda s: (s.error, s.error_ci)),
    )
    written = []
    for name, label, get in measures:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for i, backup in enumerate(backups):
            rows = [s for s in summaries if s.backup == backup]
            x = [s.budget * (1.0 + 0.03 * (i - len(backups) / 2)) for s in rows]
            y = [get(s)[0] for s in rows]
            low = [get(s)[0] - get(s)[1][0] for s in rows]
            high = [get(s)[1][1] - get(s)[0] for s in rows]
            ax.errorbar(x, y, yerr=[low, high], marker="o", capsize=3, label=legend_label(backup))
        ax.set_xscale("log")
        ax.set_xlabel("simulations per search")
        ax.set_ylabel(label)
        if title:
            ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = folder / name
        save_figure(fig, path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written
