"""The dose-response analysis fixed in experiments/dose-response-n.toml, from the games on disk.

Reads the match rows of both plans (``--plan`` and ``--base``), and writes, into the
dose-response plan's output folder, ``analysis.json`` and ``score-vs-n.png``; prints the
same as text. Rows not yet played are reported as such; the analysis can be run at any time
and is only final when every row is complete. ``--family`` prints the verdict family of
``docs/reproduction.md`` with Holm-adjusted p-values instead::

    python scripts/dose_response.py
    python scripts/dose_response.py --family
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

TAU27_FIT_ROWS = ("softmax-g-2-fresh", "recheck-n800-tau27", "softmax-tau27-n3200")
"""The fresh-book rows at tau(N) = 27 that the pre-registered logistic fit uses."""

PAIRED_WITH = ("recheck-n800", "recheck-n800-tau27")
"""Rows 7 and 8 of li-lim-9x9: every dose-response row is paired with both."""


def main(argv: Sequence[str] | None = None) -> int:
    """Print (and write) the analysis; 0 on success, 2 on an unreadable plan or file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", default="experiments/dose-response-n.toml")
    parser.add_argument("--base", default="experiments/li-lim-9x9.toml")
    parser.add_argument("--out", default=None, help="output folder (default: the plan's out)")
    parser.add_argument(
        "--family", action="store_true", help="the verdict family with Holm-adjusted p-values"
    )
    args = parser.parse_args(argv)

    from agents.matches.results import ResultsError
    from tuning.dose_response import (
        against_half,
        family_tests,
        fit_logistic,
        load_rows,
        paired_test,
        plot_series,
        series,
    )
    from tuning.reproduction.plan import PlanError, load_plan

    try:
        base = load_plan(args.base)
        base_rows = load_rows(base)
        if args.family:
            print("| claim | row | against | games | p | Holm, whole family | Holm, secondary |")
            print("|---|---|---|---|---|---|---|")
            for r in family_tests(base_rows):
                second = "primary" if r["holm_secondary"] is None else f"{r['holm_secondary']:.3g}"
                print(
                    f"| {r['claim']} | `{r['row']}` | {r['against']} | {r['games']} | "
                    f"{r['p']:.3g} | {r['holm']:.3g} | {second} |"
                )
            return 0
        plan = load_plan(args.plan)
        rows = load_rows(plan)
    except (PlanError, ResultsError, OSError) as exc:
        print(f"dose_response: error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else plan.out
    report: dict[str, object] = {"plan": str(args.plan), "rows": {}, "paired": {}}
    print("1. each row against 50%")
    for row in rows.values():
        if not row.games:
            print(f"  {row.id}: not played yet")
            continue
        t = against_half(row.games)
        report["rows"][row.id] = t.__dict__  # type: ignore[index]
        print(
            f"  {row.id}: {t.points:g} of {t.games}, {100 * t.rate:.1f}% "
            f"[{100 * t.low:.1f}, {100 * t.high:.1f}], p = {t.p:.3g}"
        )
    print("2. paired sign tests against rows 7 and 8 of li-lim-9x9")
    for row in rows.values():
        for other_id in PAIRED_WITH:
            other = base_rows[other_id]
            if not row.games or not other.games:
                continue
            p = paired_test(row, other)
            report["paired"][f"{row.id} vs {other_id}"] = p.__dict__  # type: ignore[index]
            print(
                f"  {row.id} vs {other_id}: {p.games} games, {p.first_only} won by "
                f"{row.id} alone, {p.second_only} by {other_id} alone, p = {p.p:.3g}"
            )
    print("3. logistic fit of score on log2 N at tau(N) = 27 (fresh book)")
    everything = {**base_rows, **rows}
    fit = None
    try:
        fit = fit_logistic([everything[i] for i in TAU27_FIT_ROWS])
    except ValueError as exc:
        print(f"  not yet: {exc}")
    else:
        low, high = fit.slope_interval
        at, at_low, at_high = fit.score_at(5000)
        report["fit"] = {
            "slope_per_doubling": fit.slope,
            "slope_interval": [low, high],
            "intercept_at_800": fit.intercept,
            "score_at_5000": [at, at_low, at_high],
            "games": fit.games,
            "openings": fit.clusters,
            "sims": list(fit.sims),
        }
        print(
            f"  N in {list(fit.sims)}, {fit.games} games, {fit.clusters} openings: log-odds "
            f"{fit.slope:+.3f} per doubling of N [{low:+.3f}, {high:+.3f}]; fitted score at "
            f"N = 5,000: {100 * at:.1f}% [{100 * at_low:.1f}, {100 * at_high:.1f}]"
        )
    print("4. score against N, every backup measured at more than one N")
    groups = series(list(everything.values()))
    for key, members in groups.items():
        points = ", ".join(f"N = {r.sims}: {100 * r.points / r.n:.1f}% ({r.id})" for r in members)
        print(f"  {key}: {points}")
    report["series"] = {k: [r.id for r in v] for k, v in groups.items()}
    out.mkdir(parents=True, exist_ok=True)
    if groups:
        fresh = plan.setting.openings
        plot = plot_series(
            out / "score-vs-n.png",
            groups,
            fresh_book=fresh,
            fit=fit,
            title="Score against standard as N grows (docs/dose-response.md)",
        )
        print(f"plot: {plot}")
    (out / "analysis.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"analysis: {out / 'analysis.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
