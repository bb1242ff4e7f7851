"""A new network trained on a self-play run's recorded games (``gomcts train distill``).

A self-play run trains one network of one shape, a pass or so over a window of its last
generations (:mod:`agents.nets.training.selfplay`). To try another shape (a larger tower, say)
without paying for the games again, train it from random weights on the games the run already
has, as KataGo's runs start each larger network on the data of the run so far (Wu 2019,
*Accelerating Self-Play Learning in Go*). The examples are the run's own
(:func:`~agents.nets.training.window.window_buffer`): the search's policy targets, the games'
results and, with ``ownership_weight`` above 0, KataGo's ownership target; minibatches get
random board symmetries. AdamW, learning rate decayed by a cosine to a tenth over the run (as
``gomcts train sl``). The games of a later generation, which no step trains on, measure the
held-out losses, those of any ``compare`` network (the run's best, say) beside them.

The same command fine-tunes: ``init`` starts from a network of the shape instead of random
weights, and ``arena`` mixes into every minibatch the positions of arena games against an
engine (:mod:`agents.nets.training.arena_games`: results and final owners after the
referee's dead stones, no policy target), whose held-out share (``arena_held_out``) measures
the value loss where self-play's held-out games cannot: against that engine.

The output folder holds ``model.pt`` (for play: no ownership head), ``checkpoint.pt`` (also
the optimizer, the step and the generators: a rerun with the same folder resumes exactly; it
may raise ``steps``, and the schedule follows the new total), ``metrics.jsonl``,
``losses.png`` and ``summary.json``.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.nets.checkpoint import Checkpoint, load_checkpoint
from agents.nets.model import OWNERSHIP_PREFIX, NetConfig, PolicyValueNet
from agents.nets.threads import use_threads
from agents.nets.training.arena_games import arena_buffer, read_arena_games
from agents.nets.training.plots import plot_losses
from agents.nets.training.records import GameRecord, generation_games
from agents.nets.training.replay import ReplayBuffer
from agents.nets.training.resumable import Progress, measured_row, resume, save_progress
from agents.nets.training.selfplay_config import SelfPlayConfig
from agents.nets.training.step import (
    adamw,
    cosine_lr,
    evaluate_loss,
    fit_fresh_head,
    fitted_head_line,
    mixed_replay_step,
    restart_metrics,
    seed_everything,
)
from agents.nets.training.window import window_buffer
from go_env.validation import check_int

__all__ = ["DistillConfig", "buffer_losses", "distill", "start_from"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class DistillConfig:
    """What to train on and how (``first``..``last``: the run's generations of games).

    ``init``: a checkpoint of this shape to start from instead of random weights (its
    ownership head, if it has none, starts fresh). ``arena``: arena output folders whose games
    (:mod:`agents.nets.training.arena_games`) make ``arena_share`` of every minibatch, with a
    result and final owners but no policy target; ``arena_held_out``: arena folders whose
    positions measure the value loss only.
    """

    first: int
    last: int
    held_out: int | None = None
    blocks: int = 6
    filters: int = 48
    steps: int = 8000
    batch_size: int = 256
    lr: float = 1e-3
    weight_decay: float = 1e-4
    ownership_weight: float = 1.5
    eval_every: int = 1000
    seed: int = 0
    threads: int = 2
    init: str | None = None
    arena: tuple[str, ...] = ()
    arena_share: float = 0.25
    arena_held_out: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("first", "blocks", "filters", "steps", "batch_size", "eval_every"):
            check_int(name, getattr(self, name), min=1)
        check_int("last", self.last, min=self.first)
        if self.held_out is not None and self.first <= self.held_out <= self.last:
            raise ValueError(
                f"held_out {self.held_out} is one of the training generations "
                f"{self.first}-{self.last}; hold out a generation outside them"
            )
        if not (self.lr > 0 and self.weight_decay >= 0 and self.ownership_weight >= 0):
            raise ValueError("lr must be > 0, weight_decay and ownership_weight >= 0")
        for name in ("arena", "arena_held_out"):
            object.__setattr__(self, name, tuple(str(p) for p in getattr(self, name)))
        if not 0.0 < self.arena_share < 1.0:
            raise ValueError(
                f"arena_share must be above 0 and below 1 (the rest of each minibatch is the "
                f"run's games), got {self.arena_share}"
            )
        if self.arena and not 1 <= round(self.batch_size * self.arena_share) < self.batch_size:
            raise ValueError(
                f"arena_share {self.arena_share} of a minibatch of {self.batch_size} leaves "
                "no position to the arena games or none to the run's; choose a share that "
                "gives each at least one"
            )
        if self.arena and set(self.arena) & set(self.arena_held_out):
            raise ValueError(
                "arena and arena_held_out share a folder; hold out games no step trains on"
            )

    @property
    def arena_rows(self) -> int:
        """Positions of each minibatch drawn from the arena games (0 without them)."""
        return round(self.batch_size * self.arena_share) if self.arena else 0

    def net(self, run: NetConfig) -> NetConfig:
        """The run's network inputs in this shape (the ownership head if trained)."""
        return dataclasses.replace(
            run, blocks=self.blocks, filters=self.filters, ownership=self.ownership_weight > 0
        )


_ADDED_DEFAULTS = {"init": None, "arena": (), "arena_share": 0.25, "arena_held_out": ()}
"""Settings added after the first distillations, at the values those ran with."""


def start_from(
    net: PolicyValueNet, config: NetConfig, path: str, loaded: Checkpoint | None = None
) -> bool:
    """Load ``path``'s weights into ``net`` (same shape; a missing ownership head starts fresh).

    ``loaded`` is ``path``'s checkpoint where the caller has read it already. Returns whether
    ``net``'s ownership head started fresh (to be fitted alone first: ``fit_fresh_head``).

    Raises:
        ValueError: When the checkpoint is a network of another shape or other inputs.
    """
    start = load_checkpoint(path) if loaded is None else loaded
    if dataclasses.replace(start.config, ownership=config.ownership) != config:
        raise ValueError(
            f"--init {path} is a {start.config.blocks}-block, {start.config.filters}-filter "
            f"network of {start.config.in_planes} input planes; this run trains "
            f"{config.blocks} blocks, {config.filters} filters, {config.in_planes} planes"
        )
    missing, _ = net.load_state_dict(start.weights, strict=False)
    if any(not name.startswith(OWNERSHIP_PREFIX) for name in missing):
        raise ValueError(f"--init {path} lacks weights of this network: {sorted(missing)}")
    return bool(missing)


def _games(run: Path, generations: range) -> list[GameRecord]:
    games: list[GameRecord] = []
    for g in generations:
        store = generation_games(run, g)
        if not store.path.is_file():
            raise FileNotFoundError(f"{store.path}: the run holds no games of generation {g}")
        games.extend(store.read().values())
    return games


@torch.no_grad()
def buffer_losses(net: PolicyValueNet, buffer: ReplayBuffer, chunk: int = 1024) -> dict[str, float]:
    """``net``'s policy cross-entropy, value squared error and accuracy over every position.

    As recorded (no symmetries), in chunks of ``chunk``, weighted by their sizes.
    """
    sums = {"policy": 0.0, "value": 0.0, "accuracy": 0.0}
    for at in range(0, len(buffer), chunk):
        rows = slice(at, min(at + chunk, len(buffer)))
        losses = evaluate_loss(
            net,
            torch.from_numpy(buffer.planes[rows].astype(np.float32)),
            torch.from_numpy(buffer.policies[rows]),
            torch.from_numpy(buffer.values[rows]),
        )
        for key in sums:
            sums[key] += losses[key] * (rows.stop - rows.start)
    return {key: total / len(buffer) for key, total in sums.items()}


def distill(
    run: str | Path,
    out: str | Path,
    config: DistillConfig,
    *,
    compare: Sequence[str | Path] = (),
    log: Callable[[str], None] = lambda line: None,
) -> dict[str, Any]:
    """Train ``config``'s network on ``run``'s games into ``out`` (resuming); its summary.

    Raises:
        ValueError: When ``run`` is not a self-play run, ``out`` holds another run's
            checkpoint, or a ``compare`` network reads other inputs.
        FileNotFoundError: When the run lacks a generation's games.
    """
    run, out = Path(run), Path(out)
    manifest = run / "manifest.json"
    if not manifest.is_file():
        raise ValueError(f"{run}: not a self-play run folder (no manifest.json)")
    selfplay = SelfPlayConfig.from_dict(json.loads(manifest.read_text())["config"])
    net_config = config.net(selfplay.net)
    if compare and config.held_out is None:
        raise ValueError("compare needs held-out games: name a held_out generation")
    compared = {str(path): load_checkpoint(path) for path in compare}
    for path, other in compared.items():
        if other.config.in_planes != net_config.in_planes:
            raise ValueError(
                f"{path} reads other input planes than the run's games give "
                f"({net_config.in_planes}); compare networks of the run's inputs"
            )
    use_threads(config.threads)
    out.mkdir(parents=True, exist_ok=True)
    rng = seed_everything(config.seed)  # before the network: its random weights
    net = PolicyValueNet(net_config)
    fresh = Progress(adamw(net, config.lr, config.weight_decay), 0, 0.0, rng)
    progress = resume(out, net, config, fresh, defaults=_ADDED_DEFAULTS)
    fresh_head = False
    if progress is not None:
        log(f"resumed at step {progress.step}")
    else:
        progress = fresh
        if config.init is not None:
            fresh_head = start_from(net, net_config, config.init)
            log(f"started from {config.init}")
    rows = restart_metrics(out / "metrics.jsonl", "step", progress.step)
    train = window_buffer(
        _games(run, range(config.first, config.last + 1)), net_config, selfplay.rules
    )
    plain = dataclasses.replace(net_config, ownership=False)  # held-out positions: no owners
    held = None
    if config.held_out is not None:
        held = window_buffer(
            _games(run, range(config.held_out, config.held_out + 1)), plain, selfplay.rules
        )
    arena_games = read_arena_games(config.arena)
    arena = arena_buffer(arena_games, net_config) if config.arena else None
    arena_held = None
    if config.arena_held_out:
        arena_held = arena_buffer(read_arena_games(config.arena_held_out), plain)
    log(f"positions: {len(train)} to train on, {0 if held is None else len(held)} held out")
    if arena is not None or arena_held is not None:
        log(
            f"arena positions: {0 if arena is None else len(arena)} to train on "
            f"({config.arena_rows} of each minibatch), "
            f"{0 if arena_held is None else len(arena_held)} held out"
        )
    draws = [(train, config.batch_size - config.arena_rows)]
    if arena is not None:
        draws.append((arena, config.arena_rows))
    if fresh_head:
        log(fitted_head_line(fit_fresh_head(net, draws, progress.rng)))
    began, running = time.perf_counter() - progress.seconds, []
    while progress.step < config.steps:
        for group in progress.optimizer.param_groups:
            group["lr"] = cosine_lr(config.lr, progress.step, config.steps)
        running.append(
            mixed_replay_step(net, progress.optimizer, draws, progress.rng, config.ownership_weight)
        )
        progress.step += 1
        if progress.step % config.eval_every and progress.step != config.steps:
            continue
        row = measured_row(progress, config.steps, config.lr, running)
        if held is not None:
            row.update({f"val_{k}": v for k, v in buffer_losses(net, held).items()})
        if arena_held is not None:
            row["val_arena_value"] = buffer_losses(net, arena_held)["value"]
        progress.seconds = time.perf_counter() - began
        row["seconds"], running = round(progress.seconds, 1), []
        rows.append(row)
        meta = {"trained_by": "gomcts train distill", "run": str(run)}
        save_progress(out, net, config, progress, row, meta, log=log)
    plot_losses(rows, out / "losses.png")
    summary: dict[str, Any] = {
        "run": str(run),
        "config": dataclasses.asdict(config),
        "positions": len(train),
        "held_out_positions": 0 if held is None else len(held),
        "net": net_config.to_dict(),
        "parameters": sum(p.numel() for p in net.without_ownership().parameters()),
        "last": rows[-1] if rows else None,
        "compare": {},
    }
    if arena is not None or arena_held is not None:
        summary["arena"] = {
            "games": len(arena_games.games),
            "left_out": arena_games.left_out,
            "positions": 0 if arena is None else len(arena),
            "held_out_positions": 0 if arena_held is None else len(arena_held),
        }
    for path, other in compared.items():
        assert held is not None  # checked above
        built = other.build()
        summary["compare"][path] = buffer_losses(built, held)
        if arena_held is not None:
            summary["compare"][path]["arena_value"] = buffer_losses(built, arena_held)["value"]
        log(f"{path} on the held-out games: {json.dumps(summary['compare'][path])}")
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary
