r"""The GNU Go anchor of self-play lines' ladders, from matches of networks kept in git.

    python scripts/gnugo_ladder.py MATCHES [--plot elo.png] [--json ladder.json]

A self-play run's ladder (:mod:`agents.nets.training.ladder`) can play GNU Go as an anchor
(``--ladder-gnugo``); for a line whose runs did not, and whose run folders are gone, the
networks that git keeps play the ladder's agent against GNU Go in one ``gomcts arena`` match
each (``docs/nets.md``, "Both lines against GNU Go level 10"). ``MATCHES`` holds one folder a
match, named ``LINE-GGGG`` for generation ``GGGG`` of line ``LINE`` (``paper-0070``) or by any
other name for a reference network (``supervised``); each holds the match's results file
(``results.jsonl`` or ``.jsonl.gz``). The command prints one Markdown table row a match (score,
its 95% Wilson interval, Elo with its interval, A's seconds a move) and draws the lines' Elo
by generation with :func:`agents.nets.training.plots.plot_elo` (a saturated score, every game
lost or won, as a bound; each reference network's Elo a dashed line across). Every match
must have played the same opponent; a folder without a results file is reported and left out.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from agents.matches.match import seconds_per_move
from agents.matches.results import ResultsError, read_results, stored_results
from agents.matches.stats import Tally, estimate

GENERATION = re.compile(r"^(?P<line>.+)-(?P<generation>\d{4})$")


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def match_row(folder: Path) -> dict[str, Any]:
    """One match's row: its name, line and generation (``None`` for a reference), score, Elo."""
    match, games = read_results(folder)
    tally = Tally.from_scores(g.score_a for g in games.values())
    est = estimate(tally)
    named = GENERATION.match(folder.name)
    seconds_a, _ = seconds_per_move(games.values())
    return {
        "name": folder.name,
        "line": named["line"] if named else None,
        "generation": int(named["generation"]) if named else None,
        "opponent": match.get("agent_b"),
        "games": tally.games,
        "wins": tally.wins,
        "score": est.rate,
        "score_low": est.rate_low,
        "score_high": est.rate_high,
        "elo": _finite(est.elo),
        "elo_low": _finite(est.elo_low),
        "elo_high": _finite(est.elo_high),
        "seconds_per_move": _finite(seconds_a),
    }


def _elo_text(row: dict[str, Any]) -> str:
    low, high = row["elo_low"], row["elo_high"]
    if row["elo"] is None:  # saturated: only the finite bound means anything
        return f">= {low:+.0f}" if high is None else f"<= {high:+.0f}"
    return f"{row['elo']:+.0f} [{low:+.0f}, {high:+.0f}]"


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table, lines by generation, then the references."""
    out = [
        "| network | generation | won | score (95%) | Elo vs the opponent (95%) |",
        "|---|---:|---|---|---|",
    ]
    for r in rows:
        generation = "" if r["generation"] is None else str(r["generation"])
        out.append(
            f"| {r['line'] or r['name']} | {generation} | {r['wins']} of {r['games']} | "
            f"{r['score']:.3f} [{r['score_low']:.3f}, {r['score_high']:.3f}] | {_elo_text(r)} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Print the table (and write the plot and rows); returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matches", type=Path, help="folder of one match folder a network")
    parser.add_argument("--plot", type=Path, help="write the lines' Elo by generation here")
    parser.add_argument("--json", type=Path, help="write the rows here (JSON)")
    args = parser.parse_args(argv)
    if not args.matches.is_dir():
        parser.error(f"{args.matches} is not a folder of match folders")
    rows: list[dict[str, Any]] = []
    for folder in sorted(p for p in args.matches.iterdir() if p.is_dir()):
        try:
            if stored_results(folder) is None:
                print(f"{folder.name}: no results file, left out", file=sys.stderr)
                continue
            rows.append(match_row(folder))
        except (OSError, ResultsError) as exc:
            print(f"gnugo_ladder: {exc}", file=sys.stderr)
            return 1
    if not rows:
        parser.error(f"{args.matches} holds no match folder with a results file")
    opponents = {r["opponent"] for r in rows}
    if len(opponents) > 1:
        print(f"gnugo_ladder: the matches had different opponents: {sorted(opponents)}")
        return 1
    rows.sort(key=lambda r: (r["line"] is None, r["line"] or r["name"], r["generation"] or 0))
    print(f"opponent: {opponents.pop()}")
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    if args.plot:
        from agents.nets.training.plots import plot_elo

        curves = [
            {**r, "anchor": f"GNU Go ({r['line']} line)"} for r in rows if r["line"] is not None
        ]
        references = [
            (r["name"], r["elo"]) for r in rows if r["line"] is None and r["elo"] is not None
        ]
        written = plot_elo(curves, args.plot, references=references) if curves else None
        if written:
            print(f"plot: {written}")
        else:
            print("plot: none (" + ("matplotlib missing" if curves else "no line's match") + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
