r"""Pilot: what balanced openings save against random two-move openings, on the same agents.

    python scripts/opening_pilot.py --games 80 --workers 2 --out runs/opening-pilot

Plays the same match twice with the same seed (so the same agent seeds game by game): once
from the balanced book of the reproduction (``agents.matches.balanced``), once from the
arena's random two-move openings. Agent A is the reproduction's agent with more simulations
than agent B, so that A is truly stronger and the two opening sets can be compared on how
clearly they show it (``agents.matches.pair_stats``: pair splits, Black's share, the per-pair
standard deviation and the signal-to-noise ratio per pair). It also prints how the shipped
network rates the openings used, ``|v|`` for the player to move. Both matches resume (arena
results files under ``--out``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from agents.matches.arena import MatchConfig, run_match
from agents.matches.balanced import opening_position
from agents.matches.openings import load_book
from agents.matches.pair_stats import pair_statistics
from agents.matches.results import read_results
from agents.nets.evaluator import net_value_fn
from go_env.rules import Rules

AGENT = "mcts:sims={sims},policy=puct,c=0.5,evaluator=net,choice=visits,batch=1"
BOOK = "docs/results/reproduction/li-lim-9x9/openings-balanced.txt"


def main(argv: list[str] | None = None) -> int:
    """Play both matches, print and write (``pilot.json``) the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=80, help="games per match (default 80)")
    parser.add_argument("--sims-a", type=int, default=64, help="simulations of A (default 64)")
    parser.add_argument("--sims-b", type=int, default=32, help="simulations of B (default 32)")
    parser.add_argument("--seed", type=int, default=7, help="match seed of both (default 7)")
    parser.add_argument("--book", default=BOOK, help=f"the balanced book (default {BOOK})")
    parser.add_argument("--workers", type=int, default=1, help="arena workers (default 1)")
    parser.add_argument("--out", type=Path, default=Path("runs/opening-pilot"))
    args = parser.parse_args(argv)
    rules = Rules(size=9, komi=7.5)
    book = load_book(args.book, rules)
    a = AGENT.format(sims=args.sims_a)
    b = AGENT.format(sims=args.sims_b)
    configs = {
        "balanced": MatchConfig(
            agent_a=a, agent_b=b, games=args.games, rules=rules, seed=args.seed, book=book
        ),
        "random2": MatchConfig(
            agent_a=a, agent_b=b, games=args.games, rules=rules, seed=args.seed, opening_moves=2
        ),
    }
    values = net_value_fn()
    report: dict[str, object] = {"agent_a": a, "agent_b": b, "games": args.games}
    for name, config in configs.items():
        folder = args.out / name
        print(f"{name}: playing {args.games} games into {folder}", file=sys.stderr, flush=True)
        run_match(config, results=folder / "results.jsonl", workers=args.workers)
        _, games = read_results(folder / "results.jsonl")
        stats = pair_statistics(games)
        openings = [config.opening(p) for p in range(stats.pairs)]
        v = np.abs(values([opening_position(rules, o) for o in openings]))
        print(f"{name}: {stats.format()}")
        print(
            f"{name}: network |v| of the openings: mean {v.mean():.3f}, median "
            f"{np.median(v):.3f}, share above 0.5 {np.mean(v > 0.5):.2f}"
        )
        report[name] = {
            "pairs": stats.pairs,
            "a_2_0": stats.a_both,
            "split_1_1": stats.splits,
            "b_2_0": stats.b_both,
            "with_draw": stats.other,
            "rate": stats.rate,
            "standard_error": stats.standard_error,
            "black_share": stats.black_share,
            "pair_sd": stats.pair_sd,
            "game_sd": stats.game_sd,
            "z_per_pair": stats.z_per_pair,
            "pairs_for_two_sigma": stats.pairs_for_two_sigma,
            "opening_abs_v_mean": float(v.mean()),
            "opening_abs_v_median": float(np.median(v)),
        }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pilot.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
