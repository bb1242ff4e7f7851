"""Train Stable-Baselines3's MaskablePPO (sb3-contrib) at Go against the random agent.

The learner plays ``go_env/GoVsAgent-v0`` (registered by ``import go_env``) on 5x5 with komi
0.5 and a colour drawn at each game. The observation is the environment's default layout,
``"flat"`` (``float32``, the 17 planes channel-first and flattened, which SB3's ``check_env``
takes without a warning), with the action mask beside it; MaskablePPO (Huang & Ontañón, 2022,
"A Closer Look at Invalid Action Masking in Policy Gradient Algorithms", FLAIRS-35) samples
only legal moves through ``ActionMasker``. Every ``--eval-every`` steps the policy (sampling,
masked) plays ``--eval-games`` games against the random agent and the winrate is printed.

Stable-Baselines3 and sb3-contrib are not dependencies of gomcts:

    pip install stable-baselines3 sb3-contrib      # beside gomcts[agents]
    python examples/sb3_maskable_ppo.py            # 20,000 steps and 5 evaluations

A short run (``--steps 1024 --eval-every 512 --eval-games 10``) took 111 s on 2 busy cores
with Stable-Baselines3 2.9.2, most of it the random opponent's and the evaluation games.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import gymnasium

import go_env  # noqa: F401 - registers the go_env/... ids

try:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
except ImportError:
    sys.exit(
        "this example needs Stable-Baselines3 and sb3-contrib: "
        "pip install stable-baselines3 sb3-contrib"
    )


def make(size: int, komi: float, seed: int) -> gymnasium.Env[Any, Any]:
    env = gymnasium.make(
        "go_env/GoVsAgent-v0", opponent=f"random:seed={seed}", board_size=size, komi=komi
    )
    return ActionMasker(env, lambda e: e.unwrapped.action_masks())


def winrate(model: MaskablePPO, env: gymnasium.Env[Any, Any], games: int, seed: int) -> float:
    """Wins (draws half) of the sampling, masked policy in ``games`` seeded games."""
    score = 0.0
    for game in range(games):
        obs, _ = env.reset(seed=seed + game)
        done, reward = False, 0.0
        while not done:
            mask = env.unwrapped.action_masks()
            action, _ = model.predict(obs, action_masks=mask, deterministic=False)
            obs, reward, terminated, truncated, _ = env.step(int(action))
            done = terminated or truncated
        score += 1.0 if reward > 0 else 0.5 if reward == 0 else 0.0
    return score / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5, help="board size (default 5)")
    parser.add_argument("--komi", type=float, default=0.5, help="komi (default 0.5)")
    parser.add_argument("--steps", type=int, default=20_000, help="learner moves to train")
    parser.add_argument("--eval-every", type=int, default=5_000, help="steps between evaluations")
    parser.add_argument("--eval-games", type=int, default=100, help="games per evaluation")
    parser.add_argument("--seed", type=int, default=0, help="seed of everything")
    args = parser.parse_args()

    env = make(args.size, args.komi, args.seed)
    eval_env = make(args.size, args.komi, args.seed + 1)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=512, batch_size=64, seed=args.seed)
    start = time.perf_counter()
    print(f" steps  winrate  (sampling, masked, vs random: {args.eval_games} games, "
          f"{args.size}x{args.size}, komi {args.komi})")  # fmt: skip
    done = 0
    while True:
        rate = winrate(model, eval_env, args.eval_games, seed=10_000)
        print(f"{done:6d}  {rate:7.2f}", flush=True)
        if done >= args.steps:
            break
        chunk = min(args.eval_every, args.steps - done)
        model.learn(chunk, reset_num_timesteps=False)
        done += chunk
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
