"""Train a tiny masked policy against the random agent with the Gymnasium environment.

A linear softmax policy over the learner's observation planes, restricted to legal moves by
the action mask, trained by REINFORCE (Williams, 1992, "Simple statistical gradient-following
algorithms for connectionist reinforcement learning", Machine Learning 8) with a running-mean
baseline: for an episode with return ``G``, each chosen action ``a`` in state ``s`` moves the
parameters by ``lr * (G - b) * grad log pi(a | s)``, where for a masked softmax
``grad_logits log pi(a | s) = onehot(a) - pi(. | s)`` (zero on illegal moves).

Every ``--eval-every`` environment steps the policy (sampling its moves) plays
``--eval-games`` games against the random agent (colours drawn at random) and the winrate is
printed; it starts near the rate of a uniform policy against an eye-sparing random player and
rises as the policy learns. numpy only, CPU, well under a minute (8,000 learner moves):

    python examples/masked_policy_vs_random.py

The recorded output of that command is ``examples/masked_policy_vs_random.txt``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.gym_env import make_env


class MaskedLinearPolicy:
    """``pi(a | s) = softmax over legal a of (W x + b)``, ``x`` = the current stone planes."""

    def __init__(self, size: int, history: int, rng: np.random.Generator) -> None:
        self.size, self.history = size, history
        n_in, n_out = 2 * size * size + 1, size * size + 1
        self.w = rng.normal(0.0, 0.01, (n_out, n_in))
        self.b = np.zeros(n_out)

    def features(self, planes: np.ndarray) -> np.ndarray:
        own = planes[:, :, 0].ravel()
        other = planes[:, :, self.history].ravel()
        return np.concatenate([own, other, [1.0]]).astype(np.float64)

    def probabilities(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self.w @ x + self.b
        logits = np.where(mask, logits, -np.inf)
        logits -= logits.max()
        p = np.exp(logits)
        return p / p.sum()


def play_episode(env, policy, rng, *, greedy, seed=None):  # type: ignore[no-untyped-def]
    """One game; returns (return, [(features, mask, action)], steps)."""
    obs, _ = env.reset(seed=seed)
    trajectory, reward, done, steps = [], 0.0, False, 0
    while not done:
        mask = env.action_masks()
        x = policy.features(obs["observation"])
        p = policy.probabilities(x, mask)
        action = int(np.argmax(p)) if greedy else int(rng.choice(len(p), p=p))
        trajectory.append((x, mask, action, p))
        obs, reward, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
        steps += 1
    return reward, trajectory, steps


def evaluate(env, policy, rng, games: int, seed: int) -> float:  # type: ignore[no-untyped-def]
    wins = 0.0
    for i in range(games):
        reward, _, _ = play_episode(env, policy, rng, greedy=False, seed=seed + i)
        wins += 1.0 if reward > 0 else (0.5 if reward == 0 else 0.0)
    return wins / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5, help="board size (default 5)")
    parser.add_argument("--komi", type=float, default=0.5, help="komi (default 0.5)")
    parser.add_argument("--steps", type=int, default=8000, help="learner moves to train")
    parser.add_argument("--lr", type=float, default=0.02, help="learning rate (default 0.02)")
    parser.add_argument("--eval-every", type=int, default=1000, help="steps between evaluations")
    parser.add_argument("--eval-games", type=int, default=100, help="games per evaluation")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    history = 1
    env = make_env(
        "random", board_size=args.size, komi=args.komi, history=history, observation_format="hwc"
    )
    eval_env = make_env(
        "random", board_size=args.size, komi=args.komi, history=history, observation_format="hwc"
    )
    policy = MaskedLinearPolicy(args.size, history, rng)
    baseline, steps, games, next_eval = 0.0, 0, 0, 0
    started = time.perf_counter()
    print(
        f"{'steps':>6} {'games':>6} {'winrate':>8}  (the policy, sampling, vs random: "
        f"{args.eval_games} games, {args.size}x{args.size}, komi {args.komi})"
    )
    while True:
        if steps >= next_eval:
            rate = evaluate(eval_env, policy, rng, args.eval_games, seed=10**6)
            print(f"{steps:>6} {games:>6} {rate:>8.2f}", flush=True)
            next_eval += args.eval_every
        if steps >= args.steps:
            break
        reward, trajectory, n = play_episode(env, policy, rng, greedy=False, seed=args.seed + games)
        steps += n
        games += 1
        advantage = reward - baseline
        baseline += 0.05 * (reward - baseline)
        for x, mask, action, p in trajectory:
            grad = -p
            grad[action] += 1.0
            grad[~mask] = 0.0
            policy.w += args.lr * advantage * np.outer(grad, x)
            policy.b += args.lr * advantage * grad
    print(f"trained {steps} steps ({games} games) in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
