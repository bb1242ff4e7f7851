"""Packing a network, checked: what the int8 storage changes, measured before it is written.

A network shipped in the package costs the checkout its bytes, and fp32 weights are four
bytes each. A *packed* checkpoint stores the convolution and linear weights as int8 in groups
of 32 with one scale each (:mod:`agents.nets.packing`); stored so and gzip-compressed, a
4-block, 32-filter network takes about a quarter of its fp32 file. Groups, not one scale a
channel: one scale for a whole channel of the policy head's fully connected layer (162 inputs
from two planes of different scales) moved the policy of a self-play network by a total
variation of 0.042 on average; groups of 32 move it by 0.015, half what the int8 evaluator
(which passed its 400-game match) moves it.

The rounding changes the network's outputs a little. :func:`compare` measures how much on
positions the network reaches by playing itself (:func:`own_positions`), and
:func:`pack_checkpoint` (``gomcts train pack``) writes a packed copy only when the change is
within limits, with the measurement in its meta.
"""

from __future__ import annotations

import hashlib
from os import PathLike
from typing import Any

import numpy as np
import torch

from agents.nets.checkpoint import load_checkpoint, resolve_model_path, save_checkpoint
from agents.nets.evaluator import masked_softmax
from agents.nets.features import stack_planes
from agents.nets.model import PolicyValueNet
from agents.nets.packing import PACKING, pack_weights, unpack_weights
from go_env.rules import Rules
from go_env.state import GoState

__all__ = [
    "MAX_TV_MEAN",
    "MAX_VALUE_P99",
    "PackCheckError",
    "compare",
    "own_positions",
    "pack_checkpoint",
    "packed_copy",
]


def packed_copy(net: PolicyValueNet) -> PolicyValueNet:
    """A copy of ``net`` with the weights a packed checkpoint of it loads (evaluation mode)."""
    copy = PolicyValueNet(net.config)
    copy.load_state_dict(unpack_weights(*pack_weights(net.state_dict())))
    return copy.eval()


def _forward(net: PolicyValueNet, states: list[GoState]) -> tuple[np.ndarray, np.ndarray]:
    """Masked policy probabilities ``(B, N*N+1)`` and values ``(B,)`` of ``states``."""
    c = net.config
    x = torch.from_numpy(stack_planes(states, c.history, c.tactical)).to(torch.float32)
    with torch.no_grad():
        logits, values = net(x)
    masks = np.stack([s.legal_mask() for s in states])
    return masked_softmax(logits.numpy(), masks), values.numpy().astype(np.float64)


def own_positions(
    net: PolicyValueNet, count: int, *, seed: int = 0, games: int = 64, komi: float = 7.5
) -> list[GoState]:
    """``count`` positions of games the network plays against itself from the empty board.

    ``games`` games go on at once, each move drawn from the network's policy (temperature 1,
    legal moves only); a finished game, or one of ``2 N^2`` moves, starts again. Every
    position before a move is kept.

    Raises:
        ValueError: When ``count`` or ``games`` is below 1.
    """
    if count < 1 or games < 1:
        raise ValueError(f"count and games must be >= 1, got {count} and {games}")
    rng = np.random.default_rng(seed)
    rules = Rules(size=net.config.size, komi=komi)
    boards = [GoState(rules) for _ in range(min(games, count))]
    kept: list[GoState] = []
    while len(kept) < count:
        probs, _ = _forward(net, boards)
        for i, state in enumerate(boards):
            kept.append(state.clone())
            move = int(rng.choice(probs.shape[1], p=probs[i]))
            state.play(move)
            if state.is_over or state.move_number >= 2 * rules.size * rules.size:
                boards[i] = GoState(rules)
    return kept[:count]


def compare(
    reference: PolicyValueNet, other: PolicyValueNet, states: list[GoState], batch: int = 256
) -> dict[str, Any]:
    """How far ``other``'s outputs are from ``reference``'s on ``states``.

    Returns:
        ``positions``; ``top_move_agreement``: the share of positions whose most probable
        move is the same; the policy's total variation distance ``TV(p, q) = 1/2 sum |p_a -
        q_a|`` (``tv_mean``, ``tv_p99``, ``tv_max``); and ``|v - v_ref|`` (``value_mean``,
        ``value_p99``, ``value_max``).

    Raises:
        ValueError: When ``states`` is empty.
    """
    if not states:
        raise ValueError("no positions to compare on")
    tv: list[np.ndarray] = []
    dv: list[np.ndarray] = []
    same: list[np.ndarray] = []
    for start in range(0, len(states), batch):
        part = states[start : start + batch]
        p, v = _forward(reference, part)
        q, w = _forward(other, part)
        tv.append(0.5 * np.abs(p - q).sum(axis=1))
        dv.append(np.abs(v - w))
        same.append(p.argmax(axis=1) == q.argmax(axis=1))
    tvs, dvs = np.concatenate(tv), np.concatenate(dv)
    return {
        "positions": len(states),
        "top_move_agreement": round(float(np.concatenate(same).mean()), 4),
        "tv_mean": round(float(tvs.mean()), 5),
        "tv_p99": round(float(np.quantile(tvs, 0.99)), 5),
        "tv_max": round(float(tvs.max()), 5),
        "value_mean": round(float(dvs.mean()), 5),
        "value_p99": round(float(np.quantile(dvs, 0.99)), 5),
        "value_max": round(float(dvs.max()), 5),
    }


MAX_TV_MEAN = 0.028
"""Default limit on a packed copy's mean policy change (total variation): what the int8
evaluator changed on the shipped network when it passed its 400-game match (``docs/nets.md``,
"Precision")."""
MAX_VALUE_P99 = 0.128
"""Default limit on the 99th percentile of a packed copy's ``|v - v_fp32|``, likewise."""


class PackCheckError(ValueError):
    """A packed copy moved the network's outputs more than the limits allow."""


def pack_checkpoint(
    source: str | PathLike[str],
    out: str | PathLike[str],
    *,
    positions: int = 4000,
    seed: int = 0,
    max_tv_mean: float = MAX_TV_MEAN,
    max_value_p99: float = MAX_VALUE_P99,
    force: bool = False,
    note: str = "",
) -> dict[str, Any]:
    """Write a packed copy of the checkpoint ``source`` to ``out``, checked first.

    The copy is compared with the fp32 network on ``positions`` positions of the network's own
    games (:func:`own_positions`, seeded) and written only when its mean policy change and the
    99th percentile of its value change are within the limits (or with ``force``). The copy's
    ``meta`` is the source's with ``packed``: the source file's name, bytes and SHA-256, and
    the check (and ``note``, when given). Training state is not copied, nor an ownership head
    (a training target, :mod:`agents.nets.model`).

    Args:
        source: A checkpoint file, or a shipped network's name.
        out: The packed file (``.gz``: compressed as well).
        positions: Positions of the check.
        seed: Seed of the games the positions come from.
        max_tv_mean: Limit on the mean total variation between the policies.
        max_value_p99: Limit on the 99th percentile of ``|v - v_fp32|``.
        force: Write the copy even when it is outside the limits.
        note: Where the network comes from, kept as the copy's ``meta["note"]``.

    Returns:
        ``{"out", "bytes", "source_bytes", "check", "within_limits"}``.

    Raises:
        PackCheckError: When the check fails and ``force`` is not given (nothing is written).
        CheckpointError, FileNotFoundError: As :func:`load_checkpoint`.
        ValueError: For a limit that is not positive, or ``positions`` below 1.
    """
    for name, value in (("max_tv_mean", max_tv_mean), ("max_value_p99", max_value_p99)):
        if not value > 0:
            raise ValueError(f"{name} must be > 0, got {value!r}")
    path = resolve_model_path(source)
    checkpoint = load_checkpoint(path)
    net = checkpoint.build().without_ownership()
    check = compare(net, packed_copy(net), own_positions(net, positions, seed=seed))
    check["seed"] = seed
    within = check["tv_mean"] <= max_tv_mean and check["value_p99"] <= max_value_p99
    if not within and not force:
        raise PackCheckError(
            f"the packed copy moves the network too much: mean policy change {check['tv_mean']} "
            f"(limit {max_tv_mean}), 99th percentile of the value change {check['value_p99']} "
            f"(limit {max_value_p99}); nothing written (--force writes it anyway)"
        )
    raw = path.read_bytes()
    meta = dict(checkpoint.meta)
    if note:
        meta["note"] = note
    meta["packed"] = {
        "scheme": PACKING,
        "from": path.name,
        "bytes": len(raw),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "check": check,
        "limits": {"tv_mean": max_tv_mean, "value_p99": max_value_p99},
    }
    written = save_checkpoint(out, net, meta=meta, packed=True)
    return {
        "out": str(written),
        "bytes": written.stat().st_size,
        "source_bytes": len(raw),
        "check": check,
        "within_limits": within,
    }
