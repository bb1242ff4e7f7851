"""The training step shared by supervised learning and self-play, and reproducible state.

Loss (AlphaGo Zero, Methods: "Optimization"): ``l = value_weight * (z - v)^2 - pi^T log p``
averaged over the minibatch, plus L2 regularisation through the optimizer's weight decay. The
policy target ``pi`` is either a move index (supervised: the move played) or a distribution
over the ``N*N + 1`` actions (self-play: the search's visit counts). Examples can be weighted
out of either term (unknown results, random opening moves).

Runs are deterministic on the CPU for a seed: the minibatches and augmentations come from a
numpy generator, the network's initialisation from torch's generator, and both generators'
states are saved in every checkpoint, so that a resumed run continues exactly as an
uninterrupted one.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from agents.nets.model import PolicyValueNet
from agents.nets.training.jsonl import append_row, read_rows, write_rows

__all__ = [
    "append_metrics",
    "generator_state",
    "restart_metrics",
    "restore_generators",
    "seed_everything",
    "train_step",
]


def seed_everything(seed: int) -> np.random.Generator:
    """Seed torch's and Python's generators; return the numpy generator of the run."""
    torch.manual_seed(seed)
    random.seed(seed)
    return np.random.default_rng(seed)


def generator_state(rng: np.random.Generator) -> dict[str, Any]:
    """The states of the run's generators (for a checkpoint)."""
    return {"numpy": rng.bit_generator.state, "torch": torch.get_rng_state()}


def restore_generators(state: dict[str, Any]) -> np.random.Generator:
    """Restore :func:`generator_state`'s generators; return the numpy generator."""
    rng = np.random.default_rng()
    rng.bit_generator.state = state["numpy"]
    torch.set_rng_state(state["torch"])
    return rng


def restart_metrics(path: Path, key: str, upto: int) -> list[dict[str, Any]]:
    """The metric rows (JSON lines in ``path``) a run resumed at ``upto`` keeps.

    Rows whose ``key`` (``"step"``, ``"iteration"``) is at most ``upto`` are kept and the file
    is rewritten to them, so rows logged after the checkpoint are not repeated; a new run
    passes 0 and starts an empty file.
    """
    rows = [r for r in read_rows(path) if r[key] <= upto]
    write_rows(path, rows)
    return rows


append_metrics = append_row
"""Append one metric row to a run's ``metrics.jsonl`` (:func:`jsonl.append_row`)."""


def train_step(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    x: torch.Tensor,
    policy_target: torch.Tensor,
    value_target: torch.Tensor,
    *,
    policy_weight: torch.Tensor | None = None,
    value_weight: torch.Tensor | None = None,
    value_scale: float = 1.0,
) -> dict[str, float]:
    """One optimizer step on a minibatch; returns its losses (before the step).

    Args:
        net: The network (put in training mode).
        optimizer: Its optimizer.
        x: ``float (B, C, N, N)`` input planes.
        policy_target: ``int64 (B,)`` moves, or ``float (B, N*N + 1)`` distributions.
        value_target: ``float (B,)`` results in ``[-1, 1]`` for the player to move.
        policy_weight: ``float (B,)`` weights of the policy term (default 1).
        value_weight: ``float (B,)`` weights of the value term (default 1).
        value_scale: Factor of the value term in the total loss.

    Returns:
        ``{"loss", "policy", "value", "accuracy"}``: weighted means over the batch (accuracy:
        share of policy targets that are the network's top move; for distribution targets,
        their most likely move).
    """
    net.train()
    logits, values = net(x)
    log_p = F.log_softmax(logits, dim=1)
    if policy_target.dim() == 1:
        policy_each = -log_p.gather(1, policy_target[:, None]).squeeze(1)
        best = policy_target
    else:
        policy_each = -(policy_target * log_p).sum(dim=1)
        best = policy_target.argmax(dim=1)
    value_each = (values - value_target) ** 2
    pw = torch.ones_like(value_each) if policy_weight is None else policy_weight
    vw = torch.ones_like(value_each) if value_weight is None else value_weight
    policy_loss = (pw * policy_each).sum() / pw.sum().clamp(min=1.0)
    value_loss = (vw * value_each).sum() / vw.sum().clamp(min=1.0)
    loss = policy_loss + value_scale * value_loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        hit = (logits.argmax(dim=1) == best).float()
        accuracy = (pw * hit).sum() / pw.sum().clamp(min=1.0)
    return {
        "loss": float(loss.detach()),
        "policy": float(policy_loss.detach()),
        "value": float(value_loss.detach()),
        "accuracy": float(accuracy),
    }


@torch.no_grad()
def evaluate_loss(
    net: PolicyValueNet,
    x: torch.Tensor,
    moves: torch.Tensor,
    values: torch.Tensor,
    policy_weight: torch.Tensor,
    value_weight: torch.Tensor,
) -> dict[str, float]:
    """Policy and value losses and move accuracy of ``net`` (evaluation mode) on a set."""
    net.eval()
    logits, v = net(x)
    log_p = F.log_softmax(logits, dim=1)
    policy_each = -log_p.gather(1, moves[:, None]).squeeze(1)
    pw, vw = policy_weight, value_weight
    return {
        "policy": float((pw * policy_each).sum() / pw.sum().clamp(min=1.0)),
        "value": float((vw * (v - values) ** 2).sum() / vw.sum().clamp(min=1.0)),
        "accuracy": float(
            (pw * (logits.argmax(dim=1) == moves).float()).sum() / pw.sum().clamp(min=1.0)
        ),
    }
