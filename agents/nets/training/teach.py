"""A network taught by arena games alone, its own policy kept (``gomcts train teach``).

:mod:`agents.nets.training.distill` mixes arena games against an engine into minibatches of a
self-play run's positions, which carry the policy targets. Without a run (its folder lost, or
none ever made) the arena games alone hold no policy target, and a tower trained on their
results and owners alone lets its policy drift. Here the starting network is its own teacher
for the policy (Li & Hoiem, *Learning without Forgetting*, 2017; Hinton, Vinyals & Dean,
*Distilling the Knowledge in a Neural Network*, 2015): every position's policy target is the
start's own move distribution there, computed once before the first step, while

* the value learns the game's result after the referee's dead stones, and
* the ownership head (fresh when the start has none) learns the final owner of every point
  (KataGo's auxiliary target, Wu 2019, §4.1, with the referee's judgement instead of a
  played-out end; :mod:`agents.nets.training.arena_games`).

Minibatches get random board symmetries (the teacher's policy turned with the planes). AdamW,
the learning rate decayed by a cosine to a tenth. ``arena_held_out`` games, which no step
trains on, measure the value loss and how far the policy moved from the teacher's
(``val_policy_kl``, the mean KL divergence from the teacher's policy); the summary gives the
value loss of the start and of the taught network on each held-out folder, on all its games
and apart on those agent A won and lost (the lost ones being where a network misread).

The output folder is a resumable training folder (:mod:`agents.nets.training.resumable`:
``model.pt`` for play, ``checkpoint.pt``, ``metrics.jsonl``; a rerun with the same folder and
start resumes exactly) with ``losses.png`` and ``summary.json``.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from agents.nets.checkpoint import load_checkpoint, model_digest
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.threads import use_threads
from agents.nets.training.arena_games import ArenaGames, arena_buffer, read_arena_games
from agents.nets.training.distill import buffer_losses, start_from
from agents.nets.training.plots import plot_losses
from agents.nets.training.replay import ReplayBuffer
from agents.nets.training.resumable import Progress, measured_row, resume, save_progress
from agents.nets.training.step import (
    adamw,
    cosine_lr,
    fit_fresh_head,
    fitted_head_line,
    replay_step,
    restart_metrics,
    seed_everything,
)
from go_env.validation import check_int

__all__ = ["TeachConfig", "held_out_by_result", "teach", "teacher_policies"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class TeachConfig:
    """What to teach on and how.

    ``arena``: arena output folders (or results files) whose games ended by passes are the
    training positions; ``arena_held_out``: folders whose positions only measure.
    """

    arena: tuple[str, ...]
    arena_held_out: tuple[str, ...] = ()
    steps: int = 3000
    batch_size: int = 256
    lr: float = 3e-4
    weight_decay: float = 1e-4
    ownership_weight: float = 1.5
    eval_every: int = 500
    seed: int = 0
    threads: int = 2

    def __post_init__(self) -> None:
        for name in ("steps", "batch_size", "eval_every", "threads"):
            check_int(name, getattr(self, name), min=1)
        if not (self.lr > 0 and self.weight_decay >= 0 and self.ownership_weight >= 0):
            raise ValueError("lr must be > 0, weight_decay and ownership_weight >= 0")
        for name in ("arena", "arena_held_out"):
            object.__setattr__(self, name, tuple(str(p) for p in getattr(self, name)))
        if not self.arena:
            raise ValueError("arena names no folder; give the arena games to teach on")
        shared = set(self.arena) & set(self.arena_held_out)
        if shared:
            raise ValueError(
                f"arena and arena_held_out share {sorted(shared)}; hold out games no step trains on"
            )


@torch.no_grad()
def teacher_policies(teacher: PolicyValueNet, buffer: ReplayBuffer, chunk: int = 1024) -> None:
    """Set every position's policy target of ``buffer`` to ``teacher``'s move distribution.

    The planes as stored (no symmetry), in evaluation mode and fp32, in chunks of ``chunk``.
    """
    teacher.eval()
    for at in range(0, len(buffer), chunk):
        rows = slice(at, min(at + chunk, len(buffer)))
        logits, _ = teacher(torch.from_numpy(buffer.planes[rows].astype(np.float32)))
        buffer.policies[rows] = F.softmax(logits.float(), dim=1).numpy()


def held_out_by_result(
    folders: Mapping[str, ArenaGames], config: NetConfig, nets: dict[str, PolicyValueNet]
) -> dict[str, dict[str, dict[str, float]]]:
    """Each net's value loss on each folder's games: all, those agent A won, those it lost.

    ``folders`` maps each folder to its games (:func:`read_arena_games`). Returns
    ``{folder: {"all" | "a_won" | "a_lost": {"games", "positions", NAME: loss, ...}}}``; a
    part without a game ended by passes is left out.
    """
    table: dict[str, dict[str, dict[str, float]]] = {}
    for folder, games in folders.items():
        parts = {
            "all": games.games,
            "a_won": [game for game in games.games if game[1].score_a == 1],
            "a_lost": [game for game in games.games if game[1].score_a == 0],
        }
        table[folder] = {}
        for part, chosen in parts.items():
            if not chosen:
                continue
            buffer = arena_buffer(ArenaGames(chosen), config)
            row = {"games": float(len(chosen)), "positions": float(len(buffer))}
            row.update({name: buffer_losses(net, buffer)["value"] for name, net in nets.items()})
            table[folder][part] = row
    return table


def _entropy(buffer: ReplayBuffer) -> float:
    """Mean entropy of the buffer's policy targets (the teacher's), in nats."""
    p = buffer.policies[: len(buffer)].astype(np.float64)
    return float(-(p * np.log(np.where(p > 0, p, 1.0))).sum(axis=1).mean())


def teach(
    start: str,
    out: str | Path,
    config: TeachConfig,
    *,
    log: Callable[[str], None] = lambda line: None,
) -> dict[str, Any]:
    """Teach ``start`` (a checkpoint or a shipped network's name) ``config``'s arena games.

    Returns the summary also written to ``out/summary.json``.

    Raises:
        FileNotFoundError: When ``start`` or an arena folder's results do not exist.
        ValueError: When ``out`` holds a run of other settings or another start, or the arena
            games are of another board size than the network's.
    """
    out = Path(out)
    begun = load_checkpoint(start)
    path, digest = model_digest(start)
    net_config = dataclasses.replace(begun.config, ownership=config.ownership_weight > 0)
    games = read_arena_games(config.arena)  # before anything is written: a missing folder
    held_folders = {folder: read_arena_games([folder]) for folder in config.arena_held_out}
    held_games = None
    if held_folders:
        held_games = ArenaGames([game for part in held_folders.values() for game in part.games])
    use_threads(config.threads)
    out.mkdir(parents=True, exist_ok=True)
    rng = seed_everything(config.seed)
    net = PolicyValueNet(net_config)
    fresh = Progress(adamw(net, config.lr, config.weight_decay), 0, 0.0, rng)
    identity = {"start_sha256": digest}  # the same network, whatever name it is given by
    progress = resume(out, net, config, fresh, identity=identity)
    fresh_head = False
    if progress is not None:
        log(f"resumed at step {progress.step}")
    else:
        progress = fresh
        fresh_head = start_from(net, net_config, str(path), begun)
        log(f"started from {start}")
    rows = restart_metrics(out / "metrics.jsonl", "step", progress.step)
    teacher = begun.build()
    train = arena_buffer(games, net_config)
    teacher_policies(teacher, train)
    plain = dataclasses.replace(net_config, ownership=False)
    held, held_entropy = None, 0.0
    if held_games is not None:
        held = arena_buffer(held_games, plain)
        teacher_policies(teacher, held)
        held_entropy = _entropy(held)
    log(
        f"arena positions: {len(train)} to teach on ({len(games.games)} games), "
        f"{0 if held is None else len(held)} held out"
    )
    if fresh_head:
        log(fitted_head_line(fit_fresh_head(net, [(train, config.batch_size)], progress.rng)))
    began, running = time.perf_counter() - progress.seconds, []
    while progress.step < config.steps:
        for group in progress.optimizer.param_groups:
            group["lr"] = cosine_lr(config.lr, progress.step, config.steps)
        running.append(
            replay_step(
                net,
                progress.optimizer,
                train,
                config.batch_size,
                progress.rng,
                config.ownership_weight,
            )
        )
        progress.step += 1
        if progress.step % config.eval_every and progress.step != config.steps:
            continue
        row = measured_row(progress, config.steps, config.lr, running)
        if held is not None:
            measured = buffer_losses(net, held)
            row["val_arena_value"] = measured["value"]
            row["val_policy_kl"] = measured["policy"] - held_entropy
        progress.seconds = time.perf_counter() - began
        row["seconds"], running = round(progress.seconds, 1), []
        rows.append(row)
        meta = {"trained_by": "gomcts train teach", "start": start}
        save_progress(out, net, config, progress, row, meta, identity=identity, log=log)
    plot_losses(rows, out / "losses.png")
    summary: dict[str, Any] = {
        "start": start,
        "start_sha256": digest,
        "config": dataclasses.asdict(config),
        "net": net_config.to_dict(),
        "games": len(games.games),
        "left_out": games.left_out,
        "positions": len(train),
        "held_out_games": 0 if held_games is None else len(held_games.games),
        "held_out_positions": 0 if held is None else len(held),
        "last": rows[-1] if rows else None,
    }
    if held is not None:
        summary["start_on_held_out"] = {"val_arena_value": buffer_losses(teacher, held)["value"]}
        summary["held_out_by_result"] = held_out_by_result(
            held_folders, plain, {"start": teacher, "taught": net}
        )
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary
