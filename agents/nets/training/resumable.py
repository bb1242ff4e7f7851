"""The resumable training folder that ``gomcts train distill`` and ``teach`` share.

Both run a fixed number of optimizer steps on replay buffers, measure every ``eval_every``
steps, and keep in their output folder ``checkpoint.pt`` (the network with its training
heads, the optimizer, the step, the seconds so far and the generators' states), ``model.pt``
(the network for play, without the ownership head) and ``metrics.jsonl`` (one row per
measurement). A rerun with the same folder resumes exactly where the last checkpoint left,
provided it is the same run: the same settings (only ``steps`` and ``eval_every`` may change,
the cosine schedule following the new total) and whatever else identifies it (the network it
started from, say).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.nets.checkpoint import load_checkpoint, save_checkpoint
from agents.nets.model import PolicyValueNet
from agents.nets.training.step import (
    adamw,
    append_metrics,
    cosine_lr,
    generator_state,
    restore_generators,
)

__all__ = ["Progress", "measured_row", "resume", "save_progress"]


@dataclasses.dataclass
class Progress:
    """Where a run stands: its optimizer, steps done, seconds spent, and generator."""

    optimizer: torch.optim.Optimizer
    step: int
    seconds: float
    rng: np.random.Generator


def resume(
    out: Path,
    net: PolicyValueNet,
    config: Any,
    start: Progress,
    *,
    identity: dict[str, Any] | None = None,
    defaults: dict[str, Any] | None = None,
) -> Progress | None:
    """Load ``out/checkpoint.pt`` into ``net`` and return its progress (``None``: no checkpoint).

    ``config`` is the run's settings (a dataclass with ``lr``, ``weight_decay``, ``steps`` and
    ``eval_every``), ``start`` the fresh progress a new run would have; ``identity`` holds the
    training state's other entries that must match (the start network's digest, say), and
    ``defaults`` the values of settings added after older checkpoints were written.

    Raises:
        ValueError: When the checkpoint belongs to another run.
    """
    checkpoint = out / "checkpoint.pt"
    if not checkpoint.exists():
        return None
    saved = load_checkpoint(checkpoint)
    state = saved.train or {}
    same = {
        **(defaults or {}),
        **state.get("config", {}),
        "steps": config.steps,
        "eval_every": config.eval_every,
    }
    others = {key: state.get(key) for key in identity or {}}
    if same != dataclasses.asdict(config) or others != (identity or {}):
        raise ValueError(
            f"{checkpoint} belongs to another run ({state.get('config')}"
            + "".join(f", {key} {value}" for key, value in others.items())
            + "); use another folder or the same settings (only steps and eval_every may change)"
        )
    net.load_state_dict(saved.weights)
    optimizer = adamw(net, config.lr, config.weight_decay, state["optimizer"])
    return Progress(
        optimizer,
        int(state["step"]),
        float(state["seconds"]),
        restore_generators(state["generators"]),
    )


def measured_row(
    progress: Progress, steps: int, peak_lr: float, running: Sequence[dict[str, float]]
) -> dict[str, Any]:
    """A metrics row: the step, its learning rate and the mean training losses since the last."""
    row: dict[str, Any] = {
        "step": progress.step,
        "lr": cosine_lr(peak_lr, progress.step - 1, steps),
    }
    row.update({f"train_{k}": float(np.mean([r[k] for r in running])) for k in running[0]})
    return row


def save_progress(
    out: Path,
    net: PolicyValueNet,
    config: Any,
    progress: Progress,
    row: dict[str, Any],
    meta: dict[str, Any],
    *,
    identity: dict[str, Any] | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> None:
    """Append ``row`` to the metrics and write ``checkpoint.pt`` and ``model.pt`` (for play)."""
    append_metrics(out / "metrics.jsonl", row)
    log(json.dumps(row))
    meta = {**meta, "last_metrics": row}
    train_state = {
        "config": dataclasses.asdict(config),
        **(identity or {}),
        "optimizer": progress.optimizer.state_dict(),
        "step": progress.step,
        "seconds": progress.seconds,
        "generators": generator_state(progress.rng),
    }
    save_checkpoint(out / "checkpoint.pt", net, meta=meta, train=train_state)
    save_checkpoint(out / "model.pt", net.without_ownership(), meta=meta)
