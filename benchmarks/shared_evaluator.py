"""Games/s of K concurrent sequential searches per process against one game per process.

Both arms play arena games (:func:`agents.matches.arena.play_games`) in the **same** worker
processes (one spawned pool, warmed up first), with the same agents and seeds:

* ``K=1``: each process plays its games one at a time, each search asking the network for
  one leaf at a time (``batch=1``), as ``gomcts arena --workers P`` does;
* ``K=k``: each process plays ``k`` games at once; every round, the pending leaf of each of
  its ``k`` sequential searches goes into one network call (``--games-per-worker k``).

Each arm plays ``games`` games per process: ``--lone-games`` for ``K=1``, ``k`` for ``K=k``
(so that all ``k`` run together), from the empty board with a 2-move random opening and a
move cap (``--max-moves``) that keeps games short and alike in length. It prints, per arm,
games/s, simulations/s, the network's share of the processes' wall time, the mean rows per
network call and CPU/wall (well below 1: the processes waited for a core, i.e. the machine
was shared); then the ratio games/s of each ``K`` over ``K=1``, measured in the same round
(rounds rotate the order of the arms), the same per CPU-second (less sensitive to other
processes on a shared machine), and whether a game played by several arms had the same moves
in each (it should: see docs/decisions/019-shared-evaluator.md).

    nice -n 5 .venv/bin/python benchmarks/shared_evaluator.py            # K = 4 8 16 32
    nice -n 5 .venv/bin/python benchmarks/shared_evaluator.py --ks 16 --device cuda
    nice -n 5 .venv/bin/python benchmarks/shared_evaluator.py --only-ties --ties 64

docs/performance.md quotes its output.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from agents.matches.arena import MatchConfig, play_games
from agents.mcts.multi import SharedEvaluation
from go_env.rules import Rules

TARGET = 2.5
AGENT = 'mcts:sims={sims},policy=puct,c=0.5,evaluator="net:device={device}",choice=visits,batch=1'


def _warm(config: MatchConfig) -> int:
    """Load numba, torch and the network in a worker; hold it so each worker gets one."""
    list(play_games(config, [0], 1))
    time.sleep(1.0)
    return os.getpid()


def _share(config: MatchConfig, indices: list[int], width: int) -> dict[str, Any]:
    """Play ``indices`` ``width`` at a time in this worker; timings and the games."""
    shared = SharedEvaluation()
    wall, cpu = time.perf_counter(), time.process_time()
    games = list(play_games(config, indices, width, shared=shared))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "pid": os.getpid(),
        "wall": wall,
        "cpu": cpu,
        "calls": shared.stats.calls,
        "rows": shared.stats.rows,
        "requests": shared.stats.requests,
        "forward": shared.stats.forward_seconds,
        "moves": sum(g.moves_black + g.moves_white for g in games),
        "games": {g.index: list(g.moves) for g in games},
    }


def _arm(pool: ProcessPoolExecutor, config: MatchConfig, workers: int, k: int, games: int):
    """One arm: ``games`` games in each of ``workers`` processes, ``k`` at a time."""
    indices = list(range(workers * games))
    start = time.perf_counter()
    futures = [pool.submit(_share, config, indices[w::workers], k) for w in range(workers)]
    parts = [f.result() for f in futures]
    wall = time.perf_counter() - start
    calls = sum(p["calls"] for p in parts)
    return {
        "k": k,
        "games": len(indices),
        "wall": wall,
        "games_per_s": len(indices) / wall,
        "moves": sum(p["moves"] for p in parts),
        "net_share": sum(p["forward"] for p in parts) / sum(p["wall"] for p in parts),
        "mean_batch": sum(p["rows"] for p in parts) / calls if calls else float("nan"),
        "cpu_per_wall": sum(p["cpu"] for p in parts) / sum(p["wall"] for p in parts),
        "games_per_cpu_s": len(indices) / sum(p["cpu"] for p in parts),
        "processes": len({p["pid"] for p in parts}),
        "moves_of": {i: m for p in parts for i, m in p["games"].items()},
    }


def ties(count: int, sims: int, width: int, device: str, seed: int) -> str:
    """Searches from ``count`` positions alone and ``width`` at a time: do their trees agree?

    The positions are seeded random 9x9 positions of 4-40 moves; each search has its own
    evaluator (its own cache and symmetry draws, seeded), exactly as in a game.
    """
    import numpy as np

    from agents.mcts.agent import choose_move
    from agents.mcts.config import MCTSConfig
    from agents.mcts.multi import LeafRequest, answer_alone, round_robin
    from agents.mcts.search import Search
    from go_env.state import GoState

    config = MCTSConfig(sims=sims, policy="puct", c=0.5, evaluator=f"net:device={device}")
    rng = np.random.default_rng(seed)
    roots = []
    while len(roots) < count:
        state = GoState(Rules(size=9))
        for _ in range(int(rng.integers(4, 41))):
            moves = state.legal_moves()[:-1]
            if state.is_over or not len(moves):
                break
            state.play(int(rng.choice(moves)))
        if not state.is_over:
            roots.append(state)

    def steps(i: int) -> Any:
        mine = dataclasses.replace(config, seed=seed * 100_003 + i)  # seeded symmetry draws
        search = Search(mine.search_params(), mine.make_evaluator(), seed=i)
        search.set_root(roots[i])
        inner = search.steps(sims=sims)
        try:
            batch = next(inner)
            while True:
                batch = inner.send((yield LeafRequest(search.evaluator, batch)))
        except StopIteration as stop:
            return stop.value

    alone = [answer_alone(steps(i)) for i in range(count)]
    together = dict(round_robin(((i, lambda i=i: steps(i)) for i in range(count)), width))
    trees = sum(not np.array_equal(alone[i].visits, together[i].visits) for i in range(count))
    moves = sum(
        choose_move(alone[i], "visits") != choose_move(together[i], "visits") for i in range(count)
    )
    return (
        f"ties: {count} searches of {sims} simulations, alone and {width} at a time: "
        f"{trees} with other visit counts, {moves} with another move"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ks", type=int, nargs="+", default=[4, 8, 16, 32])
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--sims", type=int, default=200, help="simulations per move")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--max-moves", type=int, default=16, help="move cap of the games")
    parser.add_argument("--lone-games", type=int, default=2, help="K=1 games per process")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of all arms")
    parser.add_argument("--device", default="cpu", help="net evaluator device (cpu, cuda, auto)")
    parser.add_argument(
        "--batch",
        type=int,
        default=1,
        help="leaves per search request (virtual loss) in the K>1 arms; K=1 stays batch=1",
    )
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", type=Path, default=None, help="write the runs here")
    parser.add_argument(
        "--ties",
        type=int,
        default=0,
        metavar="N",
        help="also compare N searches alone and 16 at a time (floating-point ties)",
    )
    parser.add_argument("--only-ties", action="store_true", help="only the --ties comparison")
    args = parser.parse_args()
    if args.only_ties:
        print(ties(args.ties or 64, args.sims, 16, args.device, args.seed))
        return 0
    if min(args.ks) < 1 or args.workers < 1 or args.rounds < 1 or args.batch < 1:
        parser.error("--ks, --workers, --rounds and --batch must be >= 1")
    spec = AGENT.format(sims=args.sims, device=args.device)
    config = MatchConfig(
        agent_a=spec,
        agent_b=spec.replace("choice=visits", "choice=visits,backup=softmax"),
        games=1_000_000,
        seed=args.seed,
        rules=Rules(size=args.size, max_moves=args.max_moves),
    )
    batched = dataclasses.replace(
        config,
        agent_a=config.agent_a.replace("batch=1", f"batch={args.batch}"),
        agent_b=config.agent_b.replace("batch=1", f"batch={args.batch}"),
    )
    print(f"A: {config.agent_a}\nB: {config.agent_b}")
    if args.batch > 1:
        print(f"K>1 arms: batch={args.batch} (virtual loss), K=1: batch=1")
    print(
        f"{args.workers} processes, {args.size}x{args.size}, move cap {args.max_moves}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start"
    )
    arms = [1, *[k for k in args.ks if k != 1]]
    runs: list[dict[str, Any]] = []
    context = get_context("spawn")
    with ProcessPoolExecutor(args.workers, mp_context=context) as pool:
        warm = [pool.submit(_warm, config) for _ in range(args.workers)]
        print(f"warmed up {len({w.result() for w in warm})} processes", flush=True)
        for r in range(args.rounds):
            order = arms[r % len(arms) :] + arms[: r % len(arms)]
            for k in order:
                games = args.lone_games if k == 1 else k
                run = _arm(pool, config if k == 1 else batched, args.workers, k, games)
                run["batch"] = 1 if k == 1 else args.batch
                run["round"] = r
                runs.append(run)
                print(
                    f"round {r} K={k:>2}: {run['games']} games in {run['wall']:.1f} s",
                    flush=True,
                )
    print()
    print(
        "| K | games | games/s | simulations/s | network share | mean batch | CPU/wall "
        "| games per CPU-s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for k in arms:
        mine = [x for x in runs if x["k"] == k]
        gps = statistics.median(x["games_per_s"] for x in mine)
        sims = statistics.median(x["moves"] * args.sims / x["wall"] for x in mine)
        print(
            f"| {k} | {mine[0]['games']} | {gps:.3f} | {sims:,.0f} | "
            f"{statistics.median(x['net_share'] for x in mine):.0%} | "
            f"{statistics.median(x['mean_batch'] for x in mine):.1f} | "
            f"{statistics.median(x['cpu_per_wall'] for x in mine):.2f} | "
            f"{statistics.median(x['games_per_cpu_s'] for x in mine):.3f} |"
        )
    print()
    for k in arms[1:]:
        ratios = [
            x["games_per_s"] / lone["games_per_s"]
            for x in runs
            if x["k"] == k
            for lone in runs
            if lone["k"] == 1 and lone["round"] == x["round"]
        ]
        per_cpu = [
            x["games_per_cpu_s"] / lone["games_per_cpu_s"]
            for x in runs
            if x["k"] == k
            for lone in runs
            if lone["k"] == 1 and lone["round"] == x["round"]
        ]
        ratio = statistics.median(ratios)
        verdict = "PASS" if ratio >= TARGET else "FAIL"
        print(
            f"{verdict} games/s K={k} over K=1: {ratio:.2f}x (target >= {TARGET}x); "
            f"per CPU-s {statistics.median(per_cpu):.2f}x"
        )
    same = differ = 0
    played: dict[tuple[int, int], list[list[int]]] = {}
    for x in runs:  # games of the same batch setting only (virtual loss changes the search)
        for i, moves in x["moves_of"].items():
            played.setdefault((x["batch"], i), []).append(moves)
    for moves in played.values():
        if len(moves) > 1:
            if all(m == moves[0] for m in moves):
                same += 1
            else:
                differ += 1
    print(
        f"games played by several arms: {same} with the same moves in every arm, "
        f"{differ} that differ (floating-point ties)"
    )
    if args.ties:
        print(ties(args.ties, args.sims, 16, args.device, args.seed))
    if args.json is not None:
        for x in runs:
            x.pop("moves_of")
        record = {"args": {**vars(args), "json": str(args.json)}, "runs": runs}
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
