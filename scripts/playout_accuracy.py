r"""How well do light and heavy playouts, alone and mixed with a network, predict game results?

    python scripts/playout_accuracy.py RESULTS [RESULTS ...] --net NETWORK [--playouts 32]
        [--policies light heavy nakade patterns]

Replays every game of the results files (``gomcts arena``) and takes the positions whose move
number is a multiple of ``--every`` (8), from ``--first`` (16) on, but not the last two. At
each it plays ``--playouts`` playouts of each of ``--policies`` (light and heavy by default;
``nakade``, the heavy playout with its nakade rule, and ``patterns``, with MoGo's 3x3
shapes and captures anywhere, on demand; :mod:`go_env._core.playout`,
:mod:`go_env._core.heavy_playout`), drawn in turn from one generator, and reads the
network's value (all 8 symmetries averaged, fp32), each from the side to move, and scores them
against the game's result from that side (+1 won, -1 lost):

* the squared error of the playouts' mean, of the network's value, and of the expected leaf
  value of the strong setting's mix, ``(1 - lam) v_net + lam * mean`` (``--lam``, 0.5; give
  several to compare them);
* the same in the games agent A lost, where A's network misjudged the position;
* the microseconds a playout took.

``docs/strength.md`` (S17) reads T1's games so (kept in git only, ``docs/records.md``), with
the network T1 searched with::

    git show 1dcc79e:docs/results/strength/t1-gnugo-taught-1600-seed2050/results.jsonl.gz > t1.gz
    python scripts/playout_accuracy.py t1.gz --net /work/distill/b6c48-gnugo/model.pt
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from agents.matches.results import ResultsError, read_results
from agents.mcts.evaluators import PLAYOUTS, policy_playout
from go_env.kernels import seed_rng
from go_env.rules import Rules
from go_env.state import GoState


def playout_mean(state: GoState, policy: str, count: int, rng: np.ndarray) -> float:
    """The mean result (+1 win, -1 loss, 0 draw) of ``count`` playouts, for the side to move."""
    compiled = state.compiled()
    geo = compiled.geometry
    args = (geo.nbr, geo.diag, geo.zobrist, compiled.move_limit, rng)
    code = PLAYOUTS.index(policy)
    total = 0.0
    for _ in range(count):
        black, white = policy_playout(compiled.vector.copy(), *args, code)
        total += float(np.sign(black - white - compiled.komi))
    mean = total / count
    return mean if state.to_play.value == 1 else -mean


def main(argv: list[str] | None = None) -> int:
    """Print the squared errors of each predictor; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+", help="results files of arena matches")
    parser.add_argument("--net", required=True, help="checkpoint, or a shipped network's name")
    parser.add_argument("--playouts", type=int, default=32, help="playouts a position (32)")
    parser.add_argument("--first", type=int, default=16, help="first move sampled (16)")
    parser.add_argument("--every", type=int, default=8, help="moves between samples (8)")
    parser.add_argument(
        "--lam", type=float, nargs="+", default=[0.5], help="the mix's playout weights (0.5)"
    )
    parser.add_argument("--seed", type=int, default=7, help="seed of the playouts (7)")
    parser.add_argument(
        "--policies",
        nargs="+",
        choices=PLAYOUTS,
        default=["light", "heavy"],
        help="playout policies to score, in this order (light heavy)",
    )
    args = parser.parse_args(argv)
    if args.playouts < 1 or args.every < 1 or args.first < 0:
        parser.error("--playouts and --every must be >= 1 and --first >= 0")
    if not all(0 <= lam <= 1 for lam in args.lam):
        parser.error(f"--lam must be in [0, 1], got {args.lam}")
    from agents.nets.evaluator import NetEvaluator

    try:
        evaluator = NetEvaluator(args.net, symmetry="average", cache_size=0)
        matches = [read_results(path) for path in args.results]
    except (OSError, ResultsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rng = seed_rng(args.seed)
    policies = list(dict.fromkeys(args.policies))
    for policy in policies:  # compile before timing
        playout_mean(GoState(Rules(size=9)), policy, 1, seed_rng(0))
    states, labels, lost = [], [], []
    means: dict[str, list[float]] = {policy: [] for policy in policies}
    seconds = dict.fromkeys(policies, 0.0)
    for match, games in matches:
        rules = Rules(**match["rules"])
        for _, game in sorted(games.items()):
            black_won = (game.score_a > 0.5) == game.a_black
            state = GoState(rules)
            for number, move in enumerate(game.moves):
                sampled = number >= args.first and number % args.every == 0
                if sampled and number < len(game.moves) - 2 and game.score_a != 0.5:
                    states.append(state.clone())
                    labels.append(1.0 if (state.to_play.value == 1) == black_won else -1.0)
                    lost.append(game.score_a == 0.0)
                    for policy in policies:
                        start = time.perf_counter()
                        means[policy].append(playout_mean(state, policy, args.playouts, rng))
                        seconds[policy] += time.perf_counter() - start
                state.play(move)
    if not states:
        print("error: no position to sample", file=sys.stderr)
        return 2
    y, in_lost = np.array(labels), np.array(lost)
    _, values = evaluator.evaluate_states(states)
    net = np.asarray(values, dtype=np.float64)

    def errors(v: np.ndarray) -> str:
        lost_part = f"{np.mean((v[in_lost] - y[in_lost]) ** 2):.3f}" if in_lost.any() else "-"
        return f"{np.mean((v - y) ** 2):.3f} (in A's lost games {lost_part})"

    print(f"{len(y)} positions, {int(in_lost.sum())} of them in games A lost")
    print(f"network alone: squared error {errors(net)}")
    for policy, values_of in means.items():
        mean = np.array(values_of)
        micro = 1e6 * seconds[policy] / (args.playouts * len(y))
        print(f"{policy} playouts: squared error {errors(mean)}, {micro:.0f} us a playout")
        for lam in args.lam:
            mixed = (1 - lam) * net + lam * mean
            print(f"  mixed with the network at lam={lam:g}: {errors(mixed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
