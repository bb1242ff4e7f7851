"""Games/s of one match on the local process pool and on Ray, same machine, same seeds.

Plays the same match (same seed, same games) alternately with ``iter_games(workers=N)`` and
``iter_games(ray=ADDRESS)`` and prints the games/s of each run, the ratio Ray/local, and
whether the games are identical (timing fields aside). The clock runs from the call to the
last game, so it includes starting the local pool's processes and, on Ray, the workers'
start-up (the connection to the cluster is made once, before the first Ray run, and not
counted: a driver connects once per process). docs/cluster.md quotes its output.

    nice -n 10 .venv/bin/python benchmarks/ray_overhead.py --ray local --rounds 2
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import time

from agents.matches.arena import MatchConfig, iter_games
from agents.matches.ray_pool import RayPool, connect
from go_env.rules import Rules

TIMING = ("time_black", "time_white", "duration")


def _play(config: MatchConfig, **how) -> tuple[float, list[dict]]:
    start = time.perf_counter()
    games = list(iter_games(config, **how))
    seconds = time.perf_counter() - start
    records = []
    for game in games:
        record = dataclasses.asdict(game)
        for name in TIMING:
            record.pop(name)
        records.append(json.loads(json.dumps(record)))
    return seconds, records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent-a", default="mcts:sims=400")
    parser.add_argument("--agent-b", default="mcts:sims=200")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workers", type=int, default=2, help="local pool processes")
    parser.add_argument("--ray", default="local", help="Ray address (default: a private Ray)")
    parser.add_argument("--rounds", type=int, default=2, help="local/Ray pairs of runs")
    args = parser.parse_args()
    config = MatchConfig(
        agent_a=args.agent_a,
        agent_b=args.agent_b,
        games=args.games,
        seed=args.seed,
        rules=Rules(size=args.size),
    )
    start = time.perf_counter()
    connect(args.ray)
    with RayPool(args.ray) as pool:
        slots = pool.slots
    print(f"connected to Ray ({args.ray}) in {time.perf_counter() - start:.1f} s, {slots} slots")
    rates: dict[str, list[float]] = {"local": [], "ray": []}
    reference = None
    same = True
    for r in range(args.rounds):
        for name, how in (("local", {"workers": args.workers}), ("ray", {"ray": args.ray})):
            seconds, records = _play(config, **how)
            rates[name].append(args.games / seconds)
            reference = reference if reference is not None else records
            same = same and records == reference
            print(
                f"round {r + 1} {name:5}: {args.games} games in {seconds:6.1f} s, "
                f"{args.games / seconds:.3f} games/s",
                flush=True,
            )
    local, ray = statistics.mean(rates["local"]), statistics.mean(rates["ray"])
    print(
        f"mean games/s: local pool ({args.workers} processes) {local:.3f}, Ray ({slots} "
        f"slots) {ray:.3f}; ratio Ray/local {ray / local:.3f}; identical games: {same}"
    )


if __name__ == "__main__":
    main()
