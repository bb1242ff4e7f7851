"""A pilot that chooses self-play's defaults by measurement: strength at equal compute.

Four arms, each a self-play run (:func:`agents.nets.training.selfplay.run_selfplay`) with the
same settings but for the root search and playout cap randomisation:

==================  ===========================================================
``gumbel-cap``      Gumbel AlphaZero, a full search on ``full_share`` of the moves
``gumbel-full``     Gumbel AlphaZero, a full search on every move
``puct-cap``        PUCT + Dirichlet noise, playout cap randomisation
``puct-full``       PUCT + Dirichlet noise, a full search on every move
==================  ===========================================================

Each arm gets the same wall time (``minutes``) on the same machine with the same workers, one
arm at a time, so the same compute; its manifest records the CPU time it actually used. Then
the arms' final best networks play a **round robin** (every pair, ``eval_games`` paired games
on the run's book at a fixed N), and each arm's Elo against the field follows from its total
score: at equal compute, the arm with the highest Elo gives the most Elo per CPU-hour.
Everything resumes: rerunning the same command continues the arm in progress with what is
left of its time, then the matches with their games. The summary goes to ``summary.json``,
``summary.md`` and ``summary.png`` (each arm's Elo against the field) in the pilot folder.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
from pathlib import Path
from typing import Any

from agents.matches.arena import MatchConfig, run_match
from agents.matches.stats import Tally, estimate
from agents.nets.training.gating import load_or_draw_book
from agents.nets.training.manifest import Manifest
from agents.nets.training.plots import plot_pilot
from agents.nets.training.selfplay import run_selfplay
from agents.nets.training.selfplay_config import SelfPlayConfig, parse_settings

__all__ = ["ARMS", "main", "play_pair", "run_pilot"]

ARMS: dict[str, dict[str, Any]] = {
    "gumbel-cap": {"search": "gumbel"},
    "gumbel-full": {"search": "gumbel", "full_share": 1.0},
    "puct-cap": {"search": "puct"},
    "puct-full": {"search": "puct", "full_share": 1.0},
}


def _spent(folder: Path) -> float:
    path = folder / "manifest.json"
    if not path.exists():
        return 0.0
    return float(Manifest.load(path).data["totals"]["wall_seconds"])


def play_pair(
    out: Path,
    base: SelfPlayConfig,
    a: str,
    b: str,
    *,
    games: int,
    book: tuple[tuple[int, ...], ...],
    sims: int | None = None,
) -> Tally:
    """Arm ``a``'s best network against arm ``b``'s: ``games`` paired games on ``book``.

    Both play the gate's fixed-N PUCT agent (:meth:`SelfPlayConfig.agent_spec`; ``sims``:
    another N than the gate's) with the round robin's seed. The games go to
    ``out/eval/A--B.jsonl``, or ``out/check/A--B-nN.jsonl`` at another N, and resume from
    there. Returns ``a``'s tally.
    """
    match = MatchConfig(
        agent_a=base.agent_spec(str(out / a / "best.pt"), a, sims=sims),
        agent_b=base.agent_spec(str(out / b / "best.pt"), b, sims=sims),
        games=games,
        rules=base.rules,
        seed=base.seed + 77,
        book=book,
        referee="none",
    )
    results = (
        out / "eval" / f"{a}--{b}.jsonl"
        if sims is None
        else out / "check" / f"{a}--{b}-n{sims}.jsonl"
    )
    result = run_match(
        match,
        results=results,
        workers=base.workers,
        games_per_worker=max(1, min(base.games_per_worker, games)),
    )
    return result.tally


def run_pilot(
    out: Path,
    base: SelfPlayConfig,
    *,
    minutes: float,
    eval_games: int,
    arms: tuple[str, ...] = tuple(ARMS),
    log: Any = print,
) -> dict[str, Any]:
    """Run the arms, then the round robin; returns the summary (module docstring)."""
    out.mkdir(parents=True, exist_ok=True)
    configs = {arm: dataclasses.replace(base, **ARMS[arm]) for arm in arms}
    for arm, config in configs.items():
        folder = out / arm
        left = minutes - _spent(folder) / 60
        if left > 0.05 or not (folder / "manifest.json").exists():
            log(f"pilot: arm {arm}, {left:.1f} minutes left")
            run_selfplay(folder, config, budget_minutes=max(left, 0.01), log=log)
    book = load_or_draw_book(out / arms[0], base)
    tallies = {arm: Tally() for arm in arms}
    matches = []
    for a, b in itertools.combinations(arms, 2):
        log(f"pilot: {a} against {b}, {eval_games} games")
        tally = play_pair(out, base, a, b, games=eval_games, book=book)
        tallies[a] = tallies[a] + tally
        tallies[b] = tallies[b] + Tally(tally.losses, tally.draws, tally.wins)
        matches.append(
            {"a": a, "b": b, "wins_a": tally.wins, "draws": tally.draws, "losses_a": tally.losses}
        )
    rows = []
    for arm in arms:
        manifest = Manifest.load(out / arm / "manifest.json").data
        est = estimate(tallies[arm])
        totals = manifest["totals"]
        rows.append(
            {
                "arm": arm,
                "generations": manifest["generation"] - 1,
                "best_generation": manifest["best_generation"],
                "games": totals["games"],
                "positions": totals["positions"],
                "cpu_hours": round(totals["cpu_seconds"] / 3600, 3),
                "wall_hours": round(totals["wall_seconds"] / 3600, 3),
                "score_vs_field": round(est.rate, 4),
                "elo_vs_field": _num(est.elo),
                "elo_low": _num(est.elo_low),
                "elo_high": _num(est.elo_high),
            }
        )
    summary = {
        "minutes_per_arm": minutes,
        "eval_games": eval_games,
        "arms": rows,
        "matches": matches,
        "config": base.to_dict(),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    lines = [
        "| arm | generations | games | positions | CPU-hours | score vs field | Elo vs field |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['arm']} | {r['generations']} | {r['games']} | {r['positions']} | "
            f"{r['cpu_hours']} | {r['score_vs_field']} | {r['elo_vs_field']} "
            f"[{r['elo_low']}, {r['elo_high']}] |"
        )
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    plot_pilot(rows, out / "summary.png")
    return summary


def _num(x: float) -> float | None:
    return round(x, 1) if math.isfinite(x) else None


def main(argv: list[str] | None = None) -> int:
    """``python scripts/selfplay_pilot.py OUT [options]``: run or resume the pilot."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="pilot folder, e.g. runs/pilot-selfplay")
    parser.add_argument("--minutes", type=float, default=60.0, help="wall minutes per arm")
    parser.add_argument("--eval-games", type=int, default=40, help="games per round-robin pair")
    parser.add_argument("--arms", default=",".join(ARMS), help="comma-separated arms")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--tiny", action="store_true", help="a 1-block 8-filter network")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a SelfPlayConfig field for every arm, e.g. --set games=300 (repeatable)",
    )
    args = parser.parse_args(argv)
    from agents.nets.model import NetConfig

    try:
        overrides = parse_settings(args.set)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    net = (
        NetConfig(size=args.size, blocks=1, filters=8, history=2)
        if args.tiny
        else NetConfig.preset("paper-9x9", size=args.size)
    )
    arms = tuple(a for a in args.arms.split(",") if a)
    unknown = [a for a in arms if a not in ARMS]
    if unknown:
        raise SystemExit(f"unknown arms {unknown}; known: {', '.join(ARMS)}")
    summary = run_pilot(
        Path(args.out),
        SelfPlayConfig(net=net, **overrides),
        minutes=args.minutes,
        eval_games=args.eval_games,
        arms=arms,
    )
    print(Path(args.out, "summary.md").read_text())
    return 0 if summary["arms"] else 1
