"""Re-score recorded match games with dead stones removed: does the count as it stands matter?

The reproduction's games (``experiments/li-lim-9x9.toml``) end by two passes or the move
cap and are counted as the board stands (Tromp-Taylor, ``referee = "auto"``: MCTS players
judge no dead stones). For every game this script replays the moves to the final position
and records: whether a chain is in atari there (one liberty); the Tromp-Taylor score (which
must equal the recorded ``raw_score``); and the score after removing the stones that playout
ownership judges dead (``go_env.dead_stones``, ``docs/decisions/011-end-scoring.md``). It
reports, per row, how often a chain is in atari, how many winners the removal changes and in
whose favour, and the row's score rate both ways.

Resumable: one JSON line per game goes to ``--out`` (default
``runs/rescore-dead/games.jsonl``) as it is scored, and a rerun skips what is there::

    python scripts/rescore_dead.py                       # every match row of the plan
    python scripts/rescore_dead.py --sample 40 --rows coulom-2-16 confirm-softmax
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.matches.results import GameOutcome, read_results
from go_env.dead_stones import chains, estimate_dead, score_without
from go_env.rules import KoRule, Rules
from go_env.state import GoState


def rescore(game: GameOutcome, rules: Rules, playouts: int) -> dict[str, Any]:
    """The final position of ``game`` scored both ways (module docstring)."""
    state = GoState(rules)
    for move in game.moves:
        state.play(move)
    in_atari = [c for c in chains(state) if state.liberties(c[0]) == 1]
    raw = state.score()
    dead = estimate_dead(state, playouts, seed=game.index)
    removed = score_without(state, dead) if dead else raw
    sign = 1.0 if game.a_black else -1.0
    return {
        "index": game.index,
        "ended_by": game.ended_by,
        "score_a": game.score_a,
        "raw": raw,
        "raw_matches_record": raw == game.raw_score,
        "atari_chains": len(in_atari),
        "atari_stones": sum(len(c) for c in in_atari),
        "dead": len(dead),
        "removed": removed,
        "a_wins_removed": (removed * sign > 0) + 0.5 * (removed == 0),
    }


def _rules(match: dict[str, Any]) -> Rules:
    r = dict(match["rules"])
    r["ko"] = KoRule(r["ko"])
    return Rules(**r)


def main(argv: Sequence[str] | None = None) -> int:
    """Re-score, print the table; 0 on success, 2 for an unreadable plan or file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", default="experiments/li-lim-9x9.toml")
    parser.add_argument("--rows", nargs="+", default=None, help="row ids (default: all)")
    parser.add_argument(
        "--sample", type=int, default=None, help="only the first K games of each row"
    )
    parser.add_argument("--playouts", type=int, default=64, help="ownership playouts")
    parser.add_argument("--out", default="runs/rescore-dead/games.jsonl")
    args = parser.parse_args(argv)
    if args.sample is not None and args.sample < 1:
        parser.error(f"--sample must be >= 1, got {args.sample}")
    if args.playouts < 1:
        parser.error(f"--playouts must be >= 1, got {args.playouts}")

    from tuning.dose_response import results_file
    from tuning.reproduction.plan import MatchRow, PlanError, load_plan

    try:
        plan = load_plan(args.plan)
        rows = [r for r in plan.rows if isinstance(r, MatchRow)]
        if args.rows:
            unknown = sorted(set(args.rows) - {r.id for r in rows})
            if unknown:
                raise PlanError(f"no match row {', '.join(unknown)} in {args.plan}")
            rows = [r for r in rows if r.id in args.rows]
    except (PlanError, OSError) as exc:
        print(f"rescore_dead: error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done: dict[tuple[str, int], dict[str, Any]] = {}
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by an interruption: scored again
            if rec.get("playouts") == args.playouts:
                done[(rec["row"], rec["index"])] = rec
    work: list[tuple[str, GameOutcome, Rules]] = []
    for row in rows:
        path = results_file(plan.folder(row))
        if path is None:
            continue
        match, games = read_results(path)
        rules = _rules(match)
        chosen = sorted(games)[: args.sample] if args.sample else sorted(games)
        work += [(row.id, games[i], rules) for i in chosen if (row.id, i) not in done]
    print(f"{len(done)} games scored before, {len(work)} to score", flush=True)
    start = time.monotonic()
    with out.open("a", encoding="utf-8") as handle:
        for k, (row_id, game, rules) in enumerate(work, 1):
            rec = {"row": row_id, "playouts": args.playouts, **rescore(game, rules, args.playouts)}
            handle.write(json.dumps(rec) + "\n")
            handle.flush()
            done[(row_id, game.index)] = rec
            if k % 100 == 0 or k == len(work):
                rate = (time.monotonic() - start) / k
                print(
                    f"[{k}/{len(work)}] {rate:.2f} s a game, about "
                    f"{rate * (len(work) - k) / 60:.0f} min left",
                    flush=True,
                )
    print(
        "| row | games | final board with a chain in atari | winner changed by dead removal "
        "(to A / to B) | A's rate as recorded | A's rate, dead removed | raw score = record | "
        "ended by the move cap (of them with a chain in atari) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    totals = {"games": 0, "atari": 0, "flips": 0, "capped": 0, "swing": 0}
    for row in rows:
        recs = [r for (rid, _), r in done.items() if rid == row.id]
        if args.sample:
            recs = sorted(recs, key=lambda r: r["index"])[: args.sample]
        if not recs:
            continue
        n = len(recs)
        atari = sum(r["atari_chains"] > 0 for r in recs)
        to_a = sum(r["a_wins_removed"] > r["score_a"] for r in recs)
        to_b = sum(r["a_wins_removed"] < r["score_a"] for r in recs)
        same = all(r["raw_matches_record"] for r in recs)
        capped = [r for r in recs if r["ended_by"] == "move cap"]
        capped_atari = sum(r["atari_chains"] > 0 for r in capped)
        totals["games"] += n
        totals["atari"] += atari
        totals["flips"] += to_a + to_b
        totals["capped"] += len(capped)
        totals["swing"] += sum(r["atari_chains"] > 0 for r in recs if r["ended_by"] == "passes")
        print(
            f"| `{row.id}` | {n} | {100 * atari / n:.0f}% | {to_a + to_b} ({to_a} / {to_b}) | "
            f"{100 * sum(r['score_a'] for r in recs) / n:.1f} | "
            f"{100 * sum(r['a_wins_removed'] for r in recs) / n:.1f} | {'yes' if same else 'NO'} | "
            f"{len(capped)} ({capped_atari}) |"
        )
    if totals["games"]:
        g = totals["games"]
        print(
            f"all: {g} games, a chain in atari on {100 * totals['atari'] / g:.1f}% of the final "
            f"boards ({totals['swing']} of them after two passes), winner changed in "
            f"{totals['flips']} ({100 * totals['flips'] / g:.2f}%); {totals['capped']} games "
            "ended by the move cap"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
