r"""The analysis fixed in experiments/paper-net-9x9.toml: does the network change the verdicts?

Reads the match rows of the plan (``--plan``, by default the rows played with the self-play
network ``paper-9x9``) and of a plan they pair with (``--base``, by default the reproduction:
the same rows with the supervised network), and for every match row of the plan:

1. its score against 50% (95% Wilson interval, two-sided exact binomial test, draws dropped);
2. the sign test against the ``--base`` row of the same id on the games both played (same
   index: same opening, colours and seeds), with the difference of the two score rates;
3. both rows' verdicts, ``below`` / ``even`` / ``above`` 50% by the 95% interval, and
   whether it changed; the family of the plan's tests against 50%, Holm-adjusted;
4. for each study row, its recommended point's report (``summary.json``).

Rows not yet played are reported as such; the analysis may run at any time and is final
only when every row is complete. Writes ``network-effect.json`` into the plan's output
folder (or ``--out``) and prints a table::

    python scripts/network_effect.py
    python scripts/network_effect.py --plan experiments/paper-net-g70-9x9.toml \
        --base experiments/paper-net-9x9.toml --primary recheck-n800-tau27
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PRIMARY = "coulom-2-16"
"""The primary test declared in experiments/paper-net-9x9.toml before its first game; another
plan names its own with ``--primary`` (experiments/paper-net-g70-9x9.toml)."""

REPORT_KEYS = ("number", "winrate", "estimate", "posterior_mean", "posterior_sd", "selection_bias")
"""The keys of a study's recommended point that the analysis reports."""


def verdict(low: float, high: float) -> str:
    """``below``, ``even`` or ``above`` 50% by a 95% interval ``[low, high]``."""
    if high < 0.5:
        return "below"
    if low > 0.5:
        return "above"
    return "even"


def _half(row: Any) -> dict[str, Any]:
    from tuning.dose_response import against_half

    test = against_half(row.games)
    return {
        "games": test.games,
        "points": test.points,
        "rate": test.rate,
        "interval": [test.low, test.high],
        "p": test.p,
        "verdict": verdict(test.low, test.high),
    }


def analyse_row(row: Any, base: Any | None) -> dict[str, Any]:
    """Items 1-3 for one match row (``base``: its counterpart, or ``None``)."""
    out: dict[str, Any] = {"id": row.id, "label": row.label, "sims": row.sims}
    if not row.games:
        return {**out, "status": "not played"}
    out.update(_half(row))
    return {**out, "base": against_base(row, out, base)}


def against_base(row: Any, mine: Mapping[str, Any], base: Any | None) -> dict[str, Any] | None:
    """Item 2 and the verdicts of item 3 for a played row against one counterpart."""
    from tuning.dose_response import paired_test

    if base is None or not base.games:
        return None
    theirs = _half(base)
    paired = paired_test(row, base)
    return {
        **theirs,
        "paired": {
            "games": paired.games,
            "this_only": paired.first_only,
            "base_only": paired.second_only,
            "p": paired.p,
        },
        "difference": mine["rate"] - theirs["rate"],
        "verdict_changed": mine["verdict"] != theirs["verdict"],
    }


def study_report(folder: Path) -> dict[str, Any] | None:
    """The recommended point of the study in ``folder`` (``None`` before it has one)."""
    path = folder / "summary.json"
    if not path.exists():
        return None
    best = json.loads(path.read_text()).get("best") or {}
    return {key: best[key] for key in REPORT_KEYS if key in best} | {"params": best.get("params")}


def analyse(
    plan: Any, base_plan: Any, primary: str = PRIMARY, others: Sequence[Any] = ()
) -> dict[str, Any]:
    """The whole analysis (module docstring) as a JSON-ready dict.

    ``primary`` is the id of the match row whose test the plan declared primary. ``others``
    are more plans to pair with, after ``base_plan``: each played row's ``bases`` holds
    items 2 and 3 against every one of them by plan name (``base`` is the first's).
    """
    from tuning.dose_response import holm, load_rows
    from tuning.reproduction.plan import PlanError, StudyRow

    rows = load_rows(plan)
    if primary not in rows:
        raise PlanError(
            f"the primary row {primary!r} is not a match row of {plan.name}: "
            f"its match rows are {', '.join(rows)}"
        )
    base = load_rows(base_plan)
    matches = [analyse_row(row, base.get(row.id)) for row in rows.values()]
    if others:
        more = [(o.name, load_rows(o)) for o in others]
        for m, row in zip(matches, rows.values(), strict=True):
            if "p" in m:  # the first base's comparison is the row's own ``base``
                m["bases"] = {base_plan.name: m["base"]} | {
                    name: against_base(row, m, b.get(row.id)) for name, b in more
                }
    played = {m["id"]: m["p"] for m in matches if "p" in m}
    adjusted = holm(played) if played else {}
    for m in matches:
        if m["id"] in adjusted:
            m["p_holm"] = adjusted[m["id"]]
    studies = {
        row.id: study_report(plan.folder(row)) for row in plan.rows if isinstance(row, StudyRow)
    }
    complete = all("p" in m and m["games"] == plan_games(plan, m["id"]) for m in matches)
    return {
        "plan": plan.name,
        "base": base_plan.name,
        "bases": [base_plan.name, *(o.name for o in others)],
        "primary": primary,
        "complete": complete and all(v is not None for v in studies.values()),
        "rows": matches,
        "studies": studies,
    }


def plan_games(plan: Any, row_id: str) -> int:
    """The games the plan fixes for a row."""
    return int(next(r.games for r in plan.rows if r.id == row_id))


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def comparison(result: Mapping[str, Any], row: Mapping[str, Any], name: str) -> Any:
    """Played row ``row``'s comparison with base plan ``name`` (``None`` where it has none)."""
    return (row.get("bases") or {result["base"]: row.get("base")}).get(name)


def render(result: Mapping[str, Any]) -> str:
    """The analysis as a Markdown table a base plan, and lines."""
    lines: list[str] = []
    for k, name in enumerate(result["bases"]):
        lines += [""] if k else []
        lines += _table(result, name)
    for name, report in result["studies"].items():
        shown = "not finished" if report is None else json.dumps(report)
        lines.append(f"\nstudy `{name}`: {shown}")
    lines.append(f"\ncomplete: {result['complete']}")
    return "\n".join(lines)


def _table(result: Mapping[str, Any], name: str) -> list[str]:
    """The rows against base plan ``name``."""
    lines = [
        f"| row | N | this plan: score [95%] | verdict | {name} | verdict | "
        "paired: this only / base only, p | Holm p |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in result["rows"]:
        if "p" not in m:
            lines.append(f"| `{m['id']}` | {m['sims']} | not played | | | | | |")
            continue
        low, high = m["interval"]
        mine = f"{_pct(m['rate'])} [{_pct(low)}, {_pct(high)}], {m['games']} games"
        base = comparison(result, m, name)
        if base is None:
            theirs, their_verdict, paired = "-", "-", "-"
        else:
            b_low, b_high = base["interval"]
            theirs = f"{_pct(base['rate'])} [{_pct(b_low)}, {_pct(b_high)}]"
            changed = " (changed)" if base["verdict_changed"] else ""
            their_verdict = base["verdict"] + changed
            pair = base["paired"]
            paired = f"{pair['this_only']} / {pair['base_only']}, p = {pair['p']:.3g}"
        primary = " (primary)" if m["id"] == result["primary"] else ""
        lines.append(
            f"| `{m['id']}`{primary} | {m['sims']} | {mine} | {m['verdict']} | {theirs} | "
            f"{their_verdict} | {paired} | {m.get('p_holm', float('nan')):.3g} |"
        )
    return lines


def plot(result: Mapping[str, Any], path: Path) -> Path | None:
    """Each played row's score with its 95% interval: this plan's, then each base plan's."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    from agents.figures import save_figure

    rows = [m for m in result["rows"] if "p" in m]
    if not rows:
        return None
    series: list[tuple[str, list[Any]]] = [(result["plan"], list(rows))]
    series += [(name, [comparison(result, m, name) for m in rows]) for name in result["bases"]]
    fig, ax = plt.subplots(figsize=(7.0, 1.4 + 0.45 * len(rows)))
    height = 0.7 / len(series)
    for s, (label, points) in enumerate(series):
        xs: list[float] = []
        ys: list[float] = []
        errs: list[list[float]] = [[], []]
        for i, point in enumerate(points):
            if point is None:
                continue
            low, high = point["interval"]
            ys.append(i - 0.35 + height * (s + 0.5))
            xs.append(100 * point["rate"])
            errs[0].append(100 * (point["rate"] - low))
            errs[1].append(100 * (high - point["rate"]))
        ax.errorbar(xs, ys, xerr=errs, fmt="o", capsize=3, label=label)
    ax.axvline(50.0, color="grey", lw=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{m['id']} (N = {m['sims']})" for m in rows], fontsize="small")
    ax.invert_yaxis()  # the plan's order, top down
    ax.set_xlabel("candidate's score against the mean (%, 95% interval)")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    out = save_figure(fig, path, dpi=80)
    plt.close(fig)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print (and write) the analysis; 0 on success, 2 on an unreadable plan or file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", default=str(ROOT / "experiments/paper-net-9x9.toml"))
    parser.add_argument(
        "--base",
        nargs="+",
        default=[str(ROOT / "experiments/li-lim-9x9.toml")],
        help="the plan (or plans) whose rows of the same ids pair with the plan's; the first "
        "is the JSON's base",
    )
    parser.add_argument("--out", default=None, help="output folder (default: the plan's out)")
    parser.add_argument(
        "--primary",
        default=PRIMARY,
        help=f"the id of the row the plan declares primary (default: {PRIMARY})",
    )
    parser.add_argument("--plot", type=Path, help="draw each row's score beside the bases' here")
    args = parser.parse_args(argv)

    from agents.matches.results import ResultsError
    from tuning.reproduction.plan import PlanError, load_plan

    try:
        plan = load_plan(args.plan)
        bases = [load_plan(b) for b in args.base]
        result = analyse(plan, bases[0], args.primary, bases[1:])
    except (OSError, PlanError, ResultsError) as exc:
        print(f"network_effect: error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else plan.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "network-effect.json").write_text(json.dumps(result, indent=1) + "\n")
    print(render(result))
    if args.plot:
        written = plot(result, args.plot)
        print(f"plot: {written}" if written else "plot: none (no row played, or no matplotlib)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
