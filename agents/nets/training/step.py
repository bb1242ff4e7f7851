"""The training step shared by supervised learning and self-play, and reproducible state.

Loss (AlphaGo Zero, Methods: "Optimization"): ``l = value_weight * (z - v)^2 - pi^T log p``
averaged over the minibatch, plus L2 regularisation through the optimizer's weight decay. The
policy target ``pi`` is either a move index (supervised: the move played) or a distribution
over the ``N*N + 1`` actions (self-play: the search's visit counts). Examples can be weighted
out of either term (unknown results, random opening moves).

With an ownership target (a network with ``NetConfig.ownership``), the loss adds KataGo's
ownership term (David J. Wu, *Accelerating self-play learning in Go*, 2019, §4.1): the binary
cross-entropy between each point's predicted and final owner, both mapped from ``[-1, 1]`` to
``[0, 1]``, averaged over the points (Wu's ``1/b^2`` sum), times ``ownership_scale`` (Wu's
weight is 1.5).

Runs are deterministic on the CPU for a seed: the minibatches and augmentations come from a
numpy generator, the network's initialisation from torch's generator, and both generators'
states are saved in every checkpoint, so that a resumed run continues exactly as an
uninterrupted one.

A **fresh ownership head** on a trained tower (a run started from a network that has none) is
first fitted alone, the tower frozen (:func:`fit_fresh_head`): trained jointly from random
weights at Wu's weight of 1.5, its large early gradients pull the tower toward ownership and
away from what it knew, which cost a fine-tuned network more than its new games taught it
(``docs/nets.md``, "A fresh head on a trained tower").
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from agents.nets.model import OWNERSHIP_PREFIX, PolicyValueNet
from agents.nets.training.jsonl import append_row, read_rows, write_rows
from agents.nets.training.replay import Positions, ReplayBuffer

__all__ = [
    "adamw",
    "append_metrics",
    "cosine_lr",
    "evaluate_loss",
    "fit_fresh_head",
    "fitted_head_line",
    "generator_state",
    "head_is_fresh",
    "mixed_replay_step",
    "ownership_loss",
    "replay_step",
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
    # torch's generator is the CPU's, whichever device the checkpoint was loaded onto
    torch.set_rng_state(state["torch"].cpu())
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


def cosine_lr(peak: float, step: int, steps: int) -> float:
    """The learning rate at ``step`` of ``steps``: a cosine decay from ``peak`` to ``peak / 10``."""
    fraction = min(step / max(steps, 1), 1.0)
    return peak * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * fraction)))


def adamw(
    net: PolicyValueNet,
    lr: float,
    weight_decay: float,
    saved: dict[str, Any] | None = None,
) -> torch.optim.AdamW:
    """AdamW over ``net`` with the ownership head, if any, in a second parameter group.

    ``saved``: an optimizer state to continue (``state_dict()`` of an earlier one: its moment
    estimates and step counts); ``lr`` and ``weight_decay`` replace its own. A state saved
    before the network had a head (a run that switched ownership on) gives the head fresh
    moments; one saved with a head the network no longer has loses that group. Keeping the
    head in a group of its own is what lets the rest continue unchanged either way.
    """
    base, head = _tower_and_head(net)
    optimizer = torch.optim.AdamW(base, lr=lr, weight_decay=weight_decay)
    groups = [] if saved is None else saved["param_groups"]
    states = {} if saved is None else saved["state"]
    if groups:
        first = groups[0]
        state = {i: states[i] for i in first["params"] if i in states}
        optimizer.load_state_dict({"state": state, "param_groups": [first]})
    if head:
        optimizer.add_param_group({"params": head})
        if len(groups) > 1:
            for i, p in zip(groups[1]["params"], head, strict=True):
                if i in states:
                    optimizer.state[p] = {
                        k: v if k == "step" else v.to(p.device) for k, v in states[i].items()
                    }
    for group in optimizer.param_groups:
        group["lr"] = lr
        group["weight_decay"] = weight_decay
    return optimizer


HEAD_FIT_STEPS = 300
"""Minibatches :func:`fit_fresh_head` fits a fresh ownership head on (each about 1/3 of a
full step's time: the tower is only run forward)."""

HEAD_FIT_LR = 1e-3
"""The head's learning rate in :func:`fit_fresh_head`: one 1x1 convolution on fixed features
(a linear probe) takes a larger step than the tower's fine-tuning rates."""


def _tower_and_head(
    net: PolicyValueNet,
) -> tuple[list[torch.nn.Parameter], list[torch.nn.Parameter]]:
    """``net``'s parameters: all but the ownership head's, and the ownership head's."""
    named = list(net.named_parameters())
    tower = [p for name, p in named if not name.startswith(OWNERSHIP_PREFIX)]
    head = [p for name, p in named if name.startswith(OWNERSHIP_PREFIX)]
    return tower, head


def ownership_loss(owned: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """KataGo's ownership term of the loss (Wu 2019, §4.1), before its weight.

    The binary cross-entropy of predicted against final owners, both mapped from ``[-1, 1]``
    to ``[0, 1]``, averaged over the points.
    """
    predicted = ((1.0 + owned) / 2.0).clamp(1e-6, 1.0 - 1e-6)
    return F.binary_cross_entropy(predicted, (1.0 + target) / 2.0)


def head_is_fresh(net: PolicyValueNet, optimizer: torch.optim.Optimizer) -> bool:
    """Whether ``net`` has an ownership head that ``optimizer`` has never stepped.

    :func:`adamw` keeps the head's moments across starts and forks, so a head with moments
    was trained before; one without is as it was initialised (or loaded without training).
    """
    _, head = _tower_and_head(net)
    return bool(head) and all(not optimizer.state.get(p) for p in head)


def fit_fresh_head(
    net: PolicyValueNet,
    draws: Sequence[tuple[ReplayBuffer, int]],
    rng: np.random.Generator,
    *,
    steps: int = HEAD_FIT_STEPS,
    lr: float = HEAD_FIT_LR,
    device: torch.device | None = None,
) -> dict[str, float]:
    """Fit ``net``'s ownership head alone, on minibatches drawn as :func:`mixed_replay_step`'s.

    The tower and the other heads are frozen and run in evaluation mode (their weights and
    BatchNorm statistics are unchanged); only the head's 1x1 convolution learns, by AdamW at
    ``lr`` without weight decay, on the ownership term alone. Call it before the first
    joint step of a head that :func:`head_is_fresh` says is untrained, on a tower that is
    trained: a tabula-rasa tower has nothing to keep. Draws from ``rng`` as ``steps``
    minibatches would.

    Returns:
        ``{"head_fit_steps", "head_fit_ownership_first", "head_fit_ownership_last"}``: the
        steps and the mean ownership loss of the first and the last tenth of the minibatches
        (each before its step).

    Raises:
        ValueError: When ``net`` has no ownership head or the buffers hold no ownership.
    """
    if not net.config.ownership:
        raise ValueError("the network has no ownership head to fit")
    if steps < 1:
        raise ValueError(f"steps must be at least 1, not {steps}")
    frozen, head = _tower_and_head(net)
    wanted = [p.requires_grad for p in frozen]
    optimizer = torch.optim.AdamW(head, lr=lr, weight_decay=0.0)
    losses: list[float] = []
    net.eval()
    try:
        for p in frozen:
            p.requires_grad_(False)
        for _ in range(steps):
            batch = _draw(draws, rng)
            if batch.ownership is None:
                raise ValueError("the buffers hold no ownership targets to fit the head on")
            x = torch.from_numpy(batch.planes).to(device)
            target = torch.from_numpy(batch.ownership).to(device)
            _, _, owned = net.forward_with_ownership(x)
            loss = ownership_loss(owned, target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            losses.append(float(loss.detach()))
    finally:
        for p, flag in zip(frozen, wanted, strict=True):
            p.requires_grad_(flag)
    tenth = max(1, steps // 10)
    return {
        "head_fit_steps": steps,
        "head_fit_ownership_first": float(np.mean(losses[:tenth])),
        "head_fit_ownership_last": float(np.mean(losses[-tenth:])),
    }


def fitted_head_line(fitted: dict[str, float]) -> str:
    """A progress line for :func:`fit_fresh_head`'s result."""
    return (
        f"fitted the fresh ownership head alone ({fitted['head_fit_steps']:.0f} steps, "
        f"loss {fitted['head_fit_ownership_first']:.3f} to "
        f"{fitted['head_fit_ownership_last']:.3f})"
    )


def _draw(draws: Sequence[tuple[ReplayBuffer, int]], rng: np.random.Generator) -> Positions:
    """One minibatch of ``count`` positions from each ``(buffer, count)``, concatenated."""
    batches = [buffer.sample(count, rng) for buffer, count in draws if count > 0]
    if len(batches) == 1:
        return batches[0]
    owners = [b.ownership for b in batches if b.ownership is not None]
    return Positions(
        np.concatenate([b.planes for b in batches]),
        np.concatenate([b.policies for b in batches]),
        np.concatenate([b.values for b in batches]),
        np.concatenate(owners) if len(owners) == len(batches) else None,
    )


def _policy_terms(
    logits: torch.Tensor, policy_target: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Each example's policy cross-entropy ``-pi^T log p`` and its target's most likely move.

    ``policy_target``: ``int64 (B,)`` moves or ``float (B, N*N + 1)`` distributions.
    """
    log_p = F.log_softmax(logits, dim=1)
    if policy_target.dim() == 1:
        return -log_p.gather(1, policy_target[:, None]).squeeze(1), policy_target
    return -(policy_target * log_p).sum(dim=1), policy_target.argmax(dim=1)


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
    ownership_target: torch.Tensor | None = None,
    ownership_scale: float = 1.5,
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
        ownership_target: ``float (B, N*N)`` final owners in ``[-1, 1]`` for the player to
            move (the network needs an ownership head); ``None``: no ownership term.
        ownership_scale: Factor of the ownership term.

    Returns:
        ``{"loss", "policy", "value", "accuracy"}``, and ``"ownership"`` with an ownership
        target: weighted means over the batch (accuracy: share of policy targets that are the
        network's top move; for distribution targets, their most likely move).
    """
    net.train()
    owned = None
    if ownership_target is None:
        logits, values = net(x)
    else:
        logits, values, owned = net.forward_with_ownership(x)
    policy_each, best = _policy_terms(logits, policy_target)
    value_each = (values - value_target) ** 2
    pw = torch.ones_like(value_each) if policy_weight is None else policy_weight
    vw = torch.ones_like(value_each) if value_weight is None else value_weight
    policy_loss = (pw * policy_each).sum() / pw.sum().clamp(min=1.0)
    value_loss = (vw * value_each).sum() / vw.sum().clamp(min=1.0)
    loss = policy_loss + value_scale * value_loss
    owner_loss = None
    if owned is not None and ownership_target is not None:
        owner_loss = ownership_loss(owned, ownership_target)
        loss = loss + ownership_scale * owner_loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        hit = (logits.argmax(dim=1) == best).float()
        accuracy = (pw * hit).sum() / pw.sum().clamp(min=1.0)
    losses = {
        "loss": float(loss.detach()),
        "policy": float(policy_loss.detach()),
        "value": float(value_loss.detach()),
        "accuracy": float(accuracy),
    }
    if owner_loss is not None:
        losses["ownership"] = float(owner_loss.detach())
    return losses


def replay_step(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    batch_size: int,
    rng: np.random.Generator,
    ownership_scale: float,
    device: torch.device | None = None,
) -> dict[str, float]:
    """:func:`train_step` on a minibatch drawn from ``buffer`` with ``rng`` (symmetries on).

    The ownership term is on when the buffer holds ownership and ``ownership_scale`` is above
    0 (the network then needs the head).
    """
    return mixed_replay_step(net, optimizer, [(buffer, batch_size)], rng, ownership_scale, device)


def mixed_replay_step(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    draws: Sequence[tuple[ReplayBuffer, int]],
    rng: np.random.Generator,
    ownership_scale: float,
    device: torch.device | None = None,
) -> dict[str, float]:
    """:func:`replay_step` on one minibatch of ``count`` positions from each ``(buffer, count)``.

    Rows whose policy target is all zero (positions with a result but no search, such as
    :mod:`agents.nets.training.arena_games`') weigh 0 in the policy term. The buffers must
    agree on ownership. One draw is :func:`replay_step` exactly (the same generator draws).
    """
    batch = _draw(draws, rng)
    owned = batch.ownership
    tensor = lambda a: torch.from_numpy(a).to(device)  # noqa: E731
    weights = None
    if sum(1 for _, count in draws if count > 0) > 1:
        weights = tensor((batch.policies.sum(axis=1) > 0).astype(np.float32))
    return train_step(
        net,
        optimizer,
        tensor(batch.planes),
        tensor(batch.policies),
        tensor(batch.values),
        policy_weight=weights,
        ownership_target=None if owned is None or not ownership_scale else tensor(owned),
        ownership_scale=ownership_scale,
    )


@torch.no_grad()
def evaluate_loss(
    net: PolicyValueNet,
    x: torch.Tensor,
    policy_target: torch.Tensor,
    value_target: torch.Tensor,
    policy_weight: torch.Tensor | None = None,
    value_weight: torch.Tensor | None = None,
) -> dict[str, float]:
    """Policy and value losses and move accuracy of ``net`` (evaluation mode) on a set.

    The targets and weights are :func:`train_step`'s: moves or distributions, weights 1 by
    default; the losses are the same weighted means, without a step.
    """
    net.eval()
    logits, v = net(x)
    policy_each, best = _policy_terms(logits, policy_target)
    pw = torch.ones_like(v) if policy_weight is None else policy_weight
    vw = torch.ones_like(v) if value_weight is None else value_weight
    return {
        "policy": float((pw * policy_each).sum() / pw.sum().clamp(min=1.0)),
        "value": float((vw * (v - value_target) ** 2).sum() / vw.sum().clamp(min=1.0)),
        "accuracy": float(
            (pw * (logits.argmax(dim=1) == best).float()).sum() / pw.sum().clamp(min=1.0)
        ),
    }
