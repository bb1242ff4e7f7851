r"""Does more training per generation make a stronger network from the same games? A probe.

A self-play run trains each candidate ``train_steps`` steps on the window of its last
generations (``docs/nets.md``, "Self-play"); self-play costs far more than training (a
generation of 2,500 games takes about 15 minutes on 2 cores, 1,000 steps under a minute),
so more steps a generation are cheap if they pay. This probe measures it on a run's own
data: from the run's candidate of generation ``G - 1`` (``nets/gen-(G-1).pt``), with a
fresh optimizer and the run's learning rate, batch and seed, it trains one network per
``--steps`` value on the window that generation ``G`` trained on, then plays each network
against the first one in paired games on the run's book, with the run's gate agent (its
fixed N). Checkpoints and results files are kept in ``--out``, so a rerun resumes::

    python scripts/train_steps_probe.py --run RUN --generation 10 --steps 1000 4000 \
        --games 100 --out runs/train-steps-probe

Prints each arm's training losses and its score against the first arm with the 95% Wilson
interval and Elo, and writes ``summary.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.nets.checkpoint import load_checkpoint, save_checkpoint
from agents.nets.model import PolicyValueNet
from agents.nets.threads import use_threads
from agents.nets.training.gating import load_or_draw_book, play_run_match
from agents.nets.training.records import GameFile, GameRecord
from agents.nets.training.selfplay_config import SelfPlayConfig
from agents.nets.training.step import seed_everything, train_step
from agents.nets.training.window import window_buffer


def train_arm(
    config: SelfPlayConfig, start: Path, buffer: Any, steps: int, path: Path
) -> dict[str, Any]:
    """Train ``steps`` steps from ``start`` on the window ``buffer``; save to ``path``."""
    rng = seed_everything(config.seed)
    net = PolicyValueNet(config.net)
    net.load_state_dict(load_checkpoint(start).weights)
    optimizer = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    began = time.monotonic()
    losses = []
    for k in range(1, steps + 1):
        x, p, v, _ = buffer.sample(config.batch_size, rng)
        losses.append(
            train_step(
                net, optimizer, torch.from_numpy(x), torch.from_numpy(p), torch.from_numpy(v)
            )
        )
        if k % 500 == 0 or k == steps:
            print(f"  {steps} steps: {k}/{steps}", flush=True)
    net.eval()
    tail = losses[-min(len(losses), 500) :]
    row = {
        "steps": steps,
        "positions": len(buffer),
        "train_policy_last500": float(np.mean([x["policy"] for x in tail])),
        "train_value_last500": float(np.mean([x["value"] for x in tail])),
        "train_seconds": round(time.monotonic() - began, 1),
    }
    save_checkpoint(path, net, meta={"probe": row, "start": str(start)})
    return row


def main(argv: Sequence[str] | None = None) -> int:
    """Train the arms (resumable), play the matches, print and write the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True, help="the self-play run folder")
    parser.add_argument("--generation", type=int, required=True, help="the generation G")
    parser.add_argument("--steps", type=int, nargs="+", required=True, help="steps of each arm")
    parser.add_argument("--games", type=int, default=100, help="games of each match")
    parser.add_argument("--workers", type=int, default=None, help="match workers (the run's)")
    parser.add_argument("--out", required=True, help="folder of checkpoints and results")
    args = parser.parse_args(argv)
    run, out = Path(args.run), Path(args.out)
    manifest = run / "manifest.json"
    if not manifest.is_file():
        parser.error(f"--run {run}: not a self-play run folder (no manifest.json)")
    config = SelfPlayConfig.from_dict(json.loads(manifest.read_text())["config"])
    if args.workers is not None:
        config = dataclasses.replace(config, workers=args.workers)
    done = {json.loads(line)["generation"] for line in (run / "metrics.jsonl").open()}
    if args.generation < 1 or args.generation not in done:
        parser.error(
            f"--generation must be a finished generation of the run, one of {sorted(done)}"
        )
    if len(set(args.steps)) != len(args.steps) or min(args.steps) < 1:
        parser.error(f"--steps must be distinct counts >= 1, got {args.steps}")
    if args.games < 2:
        parser.error(f"--games must be >= 2, got {args.games}")
    use_threads(1)
    start = run / "nets" / f"gen-{args.generation - 1:04d}.pt"
    first = max(1, args.generation - config.window + 1)
    games: list[GameRecord] = []
    for g in range(first, args.generation + 1):
        games.extend(GameFile(run / "games" / f"gen-{g:04d}.jsonl").read().values())
    print(f"window: generations {first}-{args.generation}, {len(games)} games", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    arms: dict[int, dict[str, Any]] = {}
    buffer = None
    for steps in args.steps:
        path = out / f"steps-{steps}.pt"
        if path.exists():
            arms[steps] = load_checkpoint(path).meta["probe"]
        else:
            if buffer is None:  # built once, for the arms not yet trained
                buffer = window_buffer(games, config.net, config.rules)
            arms[steps] = train_arm(config, start, buffer, steps, path)
        print(f"{steps} steps: {json.dumps(arms[steps])}", flush=True)
    book = load_or_draw_book(run, config)
    reference = args.steps[0]
    for steps in args.steps[1:]:
        result, _ = play_run_match(
            config,
            book,
            agent_a=config.agent_spec(str(out / f"steps-{steps}.pt"), f"steps{steps}"),
            agent_b=config.agent_spec(str(out / f"steps-{reference}.pt"), f"steps{reference}"),
            games=args.games,
            seed=config.seed * 1000 + args.generation + 700_000,
            results=out / f"match-{steps}-vs-{reference}.jsonl",
            deadline=float("inf"),
        )
        est = result.estimate
        arms[steps]["vs_first"] = {
            "games": len(result.games),
            "score": est.rate,
            "low": est.rate_low,
            "high": est.rate_high,
            "elo": est.elo,
        }
        print(
            f"{steps} steps against {reference}: {est.rate:.3f} "
            f"[{est.rate_low:.3f}, {est.rate_high:.3f}] over {len(result.games)} games, "
            f"Elo {est.elo:+.0f}",
            flush=True,
        )
    summary = {"run": str(run), "generation": args.generation, "arms": list(arms.values())}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
