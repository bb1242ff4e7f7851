"""The results table of an experiment plan: paper value, ours, interval, paired tests.

Written by ``gomcts reproduce`` after every row, from the rows' folders alone (so it shows a
plan half-run as it stands): ``<plan out>/results.md`` and ``results.json``. When the plan
names a document (``[plan] docs = "docs/reproduction.md"``), the Markdown table also replaces
the text between the lines ``<!-- results:begin -->`` and ``<!-- results:end -->`` there.

For a match row: the paper's winrate, our score rate of the candidate with its 95% Wilson
interval (Wilson 1927; draws count half), games played of those planned, simulations per move
(ours and the paper's), and, for each row named in ``compare_with``, the exact two-sided sign
test on the games the two candidates scored differently against the same baseline on the same
openings (:mod:`agents.matches.paired`). A finished study row shows its complete trials, its
recommended trial and the parameter file; a running one, given ``study_state`` (the plan
runner's :func:`tuning.reproduction.runner.study_so_far`), its trials so far and the best raw trial.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tuning.paths import relative_inside
from tuning.reproduction.plan import MatchRow, Plan, StudyRow

__all__ = ["BEGIN", "END", "results_table", "write_table"]

BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"


def _match_entry(plan: Plan, row: MatchRow) -> dict[str, Any]:
    from agents.matches.paired import compare_matches
    from agents.matches.results import read_results, stored_results
    from agents.matches.stats import Tally, estimate

    path = plan.folder(row) / "results.jsonl"  # or results.jsonl.gz, as recorded
    entry: dict[str, Any] = {
        "id": row.id,
        "kind": "match",
        "table": row.table,
        "label": row.label,
        "paper": row.paper,
        "games_planned": row.games,
        "games": 0,
        "sims": row.sims,
        "paper_sims": plan.setting.paper_sims,
        "openings": row.openings.text,
        "seed": row.seed,
        "rate": None,
        "ci95": None,
        "wins_draws_losses": None,
        "paired": [],
    }
    if stored_results(path) is None:
        return entry
    _, games = read_results(path)
    scores = [games[i].score_a for i in sorted(games) if i < row.games]
    tally = Tally.from_scores(scores)
    est = estimate(tally)
    entry["games"] = tally.games
    if tally.games:
        entry["rate"] = est.rate
        entry["ci95"] = [est.rate_low, est.rate_high]
        entry["wins_draws_losses"] = [tally.wins, tally.draws, tally.losses]
    for other in row.compare_with:
        other_path = plan.folder(other) / "results.jsonl"
        if stored_results(other_path) is None:
            continue
        try:
            cmp = compare_matches(path, other_path)
        except ValueError as exc:
            entry["paired"].append({"with": other, "error": str(exc)})
            continue
        if not cmp.games:
            continue  # no opening played by both yet (or none by this row)
        entry["paired"].append(
            {
                "with": other,
                "games": cmp.games,
                "this_only": cmp.first_only,
                "other_only": cmp.second_only,
                "p_value": cmp.p_value,
            }
        )
    return entry


#: What the table knows of a running study (``None``: not started); see ``write_table``.
StudyState = Callable[[Plan, StudyRow], "dict[str, Any] | None"]


def _study_entry(plan: Plan, row: StudyRow, study_state: StudyState | None) -> dict[str, Any]:
    record = plan.folder(row) / "study.json"
    entry: dict[str, Any] = {
        "id": row.id,
        "kind": "study",
        "table": row.table,
        "label": row.label,
        "space": row.space,
        "d": row.d,
        "trials_planned": row.trials,
        "games_per_trial": row.games,
        "sims": row.sims,
        "sampler": row.study.sampler,
        "finished": record.exists(),
    }
    if record.exists():
        doc = json.loads(record.read_text(encoding="utf-8"))
        entry.update(
            sampler=doc.get("sampler"),
            trials=doc.get("trials"),
            best=doc.get("best"),
            params_file=doc.get("params_file"),
        )
    elif study_state is not None:
        entry["so_far"] = study_state(plan, row)
    return entry


def results_table(plan: Plan, study_state: StudyState | None = None) -> dict[str, Any]:
    """The table as JSON-ready data (every row, finished or not)."""
    rows = [
        _match_entry(plan, row)
        if isinstance(row, MatchRow)
        else _study_entry(plan, row, study_state)
        for row in plan.rows
    ]
    return {
        "plan": plan.name,
        "plan_file": relative_inside(plan.path, plan.root),  # the same on every machine
        "sims": plan.setting.sims,
        "paper_sims": plan.setting.paper_sims,
        "rows": rows,
    }


def _pct(value: float | None) -> str:
    return "" if value is None or math.isnan(value) else f"{100 * value:.1f}"


def _posterior(best: dict[str, Any]) -> str:
    mean, sd = best.get("posterior_mean"), best.get("posterior_sd")
    if not isinstance(mean, (int, float)) or not isinstance(sd, (int, float)):
        return ""
    estimate = best.get("estimate")
    if isinstance(estimate, (int, float)):  # studies that correct for the choice
        return (
            f"; estimate {100 * estimate:.1f} ± {100 * sd:.1f} (GP posterior {100 * mean:.1f}, "
            "less the selection bias)"
        )
    return f"; GP posterior {100 * mean:.1f} ± {100 * sd:.1f}"


def _trials_so_far(row: dict[str, Any]) -> str:
    so_far = row.get("so_far") or {}
    running = f" ({so_far['running']} running)" if so_far.get("running") else ""
    return (
        f"{so_far.get('complete', 0)}/{row['trials_planned']} x {row['games_per_trial']} "
        f"games{running}"
    )


def _best_so_far(so_far: dict[str, Any] | None) -> str:
    best = (so_far or {}).get("best_raw")
    if not best:
        return "not started" if so_far is None else "started, no trial finished yet"
    ci = best.get("ci95") or [None, None]
    early = ", stopped early" if best.get("stopped_early") else ""
    return (
        f"in progress; best raw so far trial {best['number']}: {_pct(best['winrate'])} "
        f"[{_pct(ci[0])}, {_pct(ci[1])}] over {best.get('games')} games{early}"
    )


def to_markdown(table: dict[str, Any]) -> str:
    """The Markdown of :func:`results_table`'s data."""
    paper_sims = table.get("paper_sims")
    lines = [
        f"Plan `{table['plan']}` ({table['plan_file']}); written by `gomcts reproduce`. "
        f"Winrates in percent for the row's candidate; 95% Wilson intervals; simulations per "
        f"move ours / the paper's{f' ({paper_sims})' if paper_sims else ''}.",
        "",
        "| row | table | match | paper | ours | 95% interval | games | sims | paired test |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    studies = []
    for row in table["rows"]:
        if row["kind"] == "study":
            studies.append(row)
            continue
        interval = (
            f"[{_pct(row['ci95'][0])}, {_pct(row['ci95'][1])}]" if row["ci95"] else "not played"
        )
        paired = "; ".join(
            f"vs `{p['with']}`: {p['this_only']}-{p['other_only']} of {p['games']}, "
            f"p = {p['p_value']:.3g}"
            if "error" not in p
            else f"vs `{p['with']}`: {p['error']}"
            for p in row["paired"]
        )
        games = f"{row['games']}/{row['games_planned']}"
        sims = f"{row['sims']}/{paper_sims}" if paper_sims else str(row["sims"])
        paper = row["paper"]
        paper = "" if paper is None else paper if isinstance(paper, str) else f"{paper:.1f}"
        lines.append(
            f"| `{row['id']}` | {row['table']} | {row['label']} | {paper} | "
            f"{_pct(row['rate'])} | {interval} | {games} | {sims} | {paired} |"
        )
    if studies:
        lines += [
            "",
            "| study | space, d | sampler | trials | recommended trial: its own games "
            "(biased up) | recommended parameters |",
            "|---|---|---|---|---|---|",
        ]
        for row in studies:
            if not row["finished"]:
                lines.append(
                    f"| `{row['id']}` | {row['space']}, {row['d']} | {row['sampler']} | "
                    f"{_trials_so_far(row)} | {_best_so_far(row.get('so_far'))} | |"
                )
                continue
            best = row.get("best") or {}
            ci = best.get("ci95") or [None, None]
            complete = (row.get("trials") or {}).get("complete", "?")
            lines.append(
                f"| `{row['id']}` | {row['space']}, {row['d']} | {row['sampler']} | "
                f"{complete}/{row['trials_planned']} x {row['games_per_trial']} games | "
                f"trial {best.get('number')}: {_pct(best.get('winrate'))} "
                f"[{_pct(ci[0])}, {_pct(ci[1])}]{_posterior(best)} | "
                f"`{row.get('params_file')}` |"
            )
    return "\n".join(lines) + "\n"


def write_table(
    plan: Plan, docs: Path | None = None, *, study_state: StudyState | None = None
) -> dict[str, Any]:
    """Write ``results.md`` and ``results.json`` into the plan's folder (and ``docs``).

    ``study_state(plan, row)`` tells what a study row that has not finished holds so far
    (without it such a row shows only its plan).
    """
    table = results_table(plan, study_state)
    plan.out.mkdir(parents=True, exist_ok=True)
    markdown = to_markdown(table)
    (plan.out / "results.json").write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    (plan.out / "results.md").write_text(markdown, encoding="utf-8")
    target = docs if docs is not None else plan.docs
    if target is not None and target.exists():
        text = target.read_text(encoding="utf-8")
        pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.DOTALL)
        if pattern.search(text):
            replaced = pattern.sub(lambda _: f"{BEGIN}\n{markdown}{END}", text)
            target.write_text(replaced, encoding="utf-8")
    return table
