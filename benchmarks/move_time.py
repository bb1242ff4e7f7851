"""Seconds a move of one or more agents, on the same positions, in one process.

The positions are those after 10, 20, ... random legal moves (no passes) from the empty
board, drawn with ``--seed``; each agent makes one warm-up move (compilation, quantisation)
and then one move in each position. Wall and CPU seconds a move are printed per agent, and
the ratio of each agent's CPU time to the first agent's; for an agent that reports its
search's statistics (``last_stats``, the ``mcts`` agent), also the simulations a move, which
``mcts:extend`` makes vary::

    python benchmarks/move_time.py \\
        "mcts:sims=3200,policy=puct,c=0.5,evaluator=net,choice=visits,batch=1,seed=1" \\
        "mcts:sims=3200,policy=puct,c=0.5,evaluator=\\"net:precision=int8\\",choice=visits,batch=1,seed=1"
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np

from agents.registry import make_agent
from go_env.rules import Rules
from go_env.state import GoState


def positions(count: int, size: int, seed: int) -> list[GoState]:
    """``count`` positions after 10, 20, ... random legal moves other than a pass."""
    rng = np.random.default_rng(seed)
    found = []
    for k in range(1, count + 1):
        state = GoState(Rules(size=size, komi=7.5))
        for _ in range(10 * k):
            moves = [m for m in state.legal_moves() if m != size * size]
            state.play(int(rng.choice(moves)))
        found.append(state)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agents", nargs="+", help="agent specs (the first is the reference)")
    parser.add_argument("--positions", type=int, default=4, help="positions (default 4)")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions")
    args = parser.parse_args(argv)
    if args.positions < 1:
        parser.error(f"--positions must be >= 1, got {args.positions}")
    states = positions(args.positions, args.size, args.seed)
    reference = None
    for spec in args.agents:
        agent = make_agent(spec)
        agent.act(states[0].clone())  # warm-up
        wall, cpu, sims = time.perf_counter(), time.process_time(), []
        for state in states:
            agent.act(state.clone())
            stats = getattr(agent, "last_stats", None)
            if stats is not None:
                sims.append(stats.simulations)
        wall = (time.perf_counter() - wall) / len(states)
        cpu = (time.process_time() - cpu) / len(states)
        reference = cpu if reference is None else reference
        ratio = f"x{cpu / reference:.2f}" if reference > 0 else "x-"
        searched = f", {np.mean(sims):,.0f} simulations" if sims else ""
        print(f"{wall:.2f} s a move (CPU {cpu:.2f} s, {ratio}{searched}): {spec}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
