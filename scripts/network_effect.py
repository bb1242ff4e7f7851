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
    from tuning.dose_response import paired_test

    out: dict[str, Any] = {"id": row.id, "label": row.label, "sims": row.sims}
    if not row.games:
        return {**out, "status": "not played"}
    out.update(_half(row))
    if base is None or not base.games:
        return {**out, "base": None}
    theirs = _half(base)
    paired = paired_test(row, base)
    out["base"] = {
        **theirs,
        "paired": {
            "games": paired.games,
            "this_only": paired.first_only,
            "base_only": paired.second_only,
            "p": paired.p,
        },
        "difference": out["rate"] - theirs["rate"],
        "verdict_changed": out["verdict"] != theirs["verdict"],
    }
    return out


def study_report(folder: Path) -> dict[str, Any] | None:
    """The recommended point of the study in ``folder`` (``None`` before it has one)."""
    path = folder / "summary.json"
    if not path.exists():
        return None
    best = json.loads(path.read_text()).get("best") or {}
    return {key: best[key] for key in REPORT_KEYS if key in best} | {"params": best.get("params")}


def analyse(plan: Any, base_plan: Any, primary: str = PRIMARY) -> dict[str, Any]:
    """The whole analysis (module docstring) as a JSON-ready dict.

    ``primary`` is the id of the match row whose test the plan declared primary.
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


def render(result: Mapping[str, Any]) -> str:
    """The analysis as a Markdown table and lines."""
    lines = [
        f"| row | N | this plan: score [95%] | verdict | {result['base']} | verdict | "
        "paired: this only / base only, p | Holm p |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in result["rows"]:
        if "p" not in m:
            lines.append(f"| `{m['id']}` | {m['sims']} | not played | | | | | |")
            continue
        low, high = m["interval"]
        mine = f"{_pct(m['rate'])} [{_pct(low)}, {_pct(high)}], {m['games']} games"
        base = m.get("base")
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
    for name, report in result["studies"].items():
        shown = "not finished" if report is None else json.dumps(report)
        lines.append(f"\nstudy `{name}`: {shown}")
    lines.append(f"\ncomplete: {result['complete']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print (and write) the analysis; 0 on success, 2 on an unreadable plan or file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", default=str(ROOT / "experiments/paper-net-9x9.toml"))
    parser.add_argument("--base", default=str(ROOT / "experiments/li-lim-9x9.toml"))
    parser.add_argument("--out", default=None, help="output folder (default: the plan's out)")
    parser.add_argument(
        "--primary",
        default=PRIMARY,
        help=f"the id of the row the plan declares primary (default: {PRIMARY})",
    )
    args = parser.parse_args(argv)

    from agents.matches.results import ResultsError
    from tuning.reproduction.plan import PlanError, load_plan

    try:
        plan = load_plan(args.plan)
        result = analyse(plan, load_plan(args.base), args.primary)
    except (OSError, PlanError, ResultsError) as exc:
        print(f"network_effect: error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else plan.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "network-effect.json").write_text(json.dumps(result, indent=1) + "\n")
    print(render(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
