"""Self-play throughput: games and positions per CPU-hour, and the share of time in the network.

Plays self-play games in one process exactly as a worker of ``gomcts train selfplay`` does
(:func:`agents.nets.training.generation.play_selfplay_games`: ``--games-per-worker`` games at
once, their leaves in one network call per round) and reports, per CPU-hour of that process:
games, moves, recorded positions (the training examples: moves with a full search), and
simulations; and the share of the wall time spent inside the network's forward calls
(``SharedEvaluation.stats.forward_seconds``) and in the whole evaluation (forward plus
features, cache and priors). A worker is one process on one core, so a machine with ``W``
free cores makes about ``W`` times the per-process numbers.

The network is ``--model`` (a checkpoint) or a fresh ``paper-9x9`` network with random
weights (``--model random``): a random network plays longer games (to the move cap), so use a
trained one for the numbers of a running run.

Usage::

    python benchmarks/selfplay_speed.py --quick
    python benchmarks/selfplay_speed.py --json runs/bench/selfplay.json   # the run's defaults
    python benchmarks/selfplay_speed.py --search puct --full-share 1 --model runs/x/best.pt
    python benchmarks/selfplay_speed.py --model RUN/best.pt --precision int8 --games 64 \
        --games-per-worker 32     # a running run's best network, as its workers play
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.mcts.multi import SharedEvaluation
from agents.nets.evaluator import NetEvaluator
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.threads import use_threads
from agents.nets.training.generation import GameSettings, play_selfplay_games
from agents.nets.training.selfplay_config import SelfPlayConfig
from go_env.rules import Rules


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Play the games and return the measurements."""
    use_threads(1)
    torch.manual_seed(args.seed)
    if args.model == "random":
        net: PolicyValueNet | str = PolicyValueNet(NetConfig.preset("paper-9x9", size=args.size))
    else:
        net = args.model
    evaluator = NetEvaluator(net, symmetry="random", seed=args.seed, precision=args.precision)
    rules = Rules(size=evaluator.config.size, komi=args.komi, max_moves=args.max_moves)
    settings = GameSettings(
        rules=rules,
        search=args.search,
        sims=args.sims,
        fast_sims=args.fast_sims,
        full_share=args.full_share,
        considered=args.considered,
    )
    shared = SharedEvaluation()
    seeds = np.random.SeedSequence(args.seed).generate_state(args.games)
    tasks = [(i, int(s)) for i, s in enumerate(seeds)]
    wall0, cpu0 = time.perf_counter(), time.process_time()
    games = list(
        play_selfplay_games(evaluator, settings, tasks, args.games_per_worker, shared=shared)
    )
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    moves = sum(len(g.moves) for g in games)
    positions = sum(g.positions for g in games)
    sims = sum(g.simulations for g in games)
    per_hour = 3600.0 / cpu
    return {
        "settings": {k: v for k, v in vars(args).items() if k not in ("json", "quick")},
        "games": len(games),
        "moves": moves,
        "positions": positions,
        "simulations": sims,
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(cpu, 2),
        "games_per_cpu_hour": round(len(games) * per_hour, 1),
        "moves_per_cpu_hour": round(moves * per_hour),
        "positions_per_cpu_hour": round(positions * per_hour),
        "simulations_per_cpu_second": round(sims / cpu, 1),
        "precision": evaluator.precision,
        "network_share": round(shared.stats.forward_seconds / wall, 3),
        "evaluation_share": round(shared.stats.evaluate_seconds / wall, 3),
        "mean_batch": round(shared.stats.mean_batch, 1),
        "mean_moves_per_game": round(moves / len(games), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 small games (a smoke test)")
    parser.add_argument("--model", default="random", help="checkpoint, or 'random' (default)")
    parser.add_argument("--size", type=int, default=9, help="board size of a random network")
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--max-moves", type=int, default=None, help="move cap (default 2*N*N)")
    run = SelfPlayConfig()  # the defaults of gomcts train selfplay
    parser.add_argument("--search", choices=("gumbel", "puct"), default=run.search)
    parser.add_argument("--sims", type=int, default=run.sims)
    parser.add_argument("--fast-sims", type=int, default=run.fast_sims)
    parser.add_argument("--full-share", type=float, default=run.full_share)
    parser.add_argument("--considered", type=int, default=run.considered)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--games-per-worker", type=int, default=run.games_per_worker)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--precision",
        choices=("fp32", "bf16", "int8", "auto"),
        default="fp32",
        help="the network's precision (docs/nets.md, 'Precision'); the paper-9x9 run's is int8",
    )
    parser.add_argument("--json", default=None, help="also write the result to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.games_per_worker, args.max_moves = 2, 2, args.max_moves or 30
        args.sims, args.fast_sims, args.considered = 8, 4, 4
    result = measure(args)
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
