"""Packed network weights: int8 in groups of 32, one fp32 scale a group.

The storage format of a *packed* checkpoint (:func:`agents.nets.checkpoint.save_checkpoint`
with ``packed=True``): every floating tensor of two or more dimensions (the convolution and
linear weights, almost all of the parameters) as int8 in groups of 32 consecutive weights of
an output channel, each group with one fp32 scale, ``w ~= s * q`` with ``s = max |w| / 127``
over the group (symmetric quantisation, Jacob et al., *Quantization and Training of Neural
Networks for Efficient Integer-Arithmetic-Only Inference*, CVPR 2018, Sec. 2, with the
scale shared by a group rather than a whole channel, as in Dettmers et al., *LLM.int8()*,
NeurIPS 2022, Sec. 3); the batch-norm statistics and biases stay fp32. Loading dequantises
to fp32 (:func:`unpack_weights`). Why groups, and what the rounding changes, is
:mod:`agents.nets.packed`'s and ``docs/nets.md``'s ("Packed networks").
"""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["GROUP", "PACKING", "pack_weights", "unpack_weights"]

PACKING = "int8-groups-of-32"
"""The name of the packing a packed checkpoint records."""

GROUP = 32
"""Weights that share one scale: consecutive values along a row (an output channel)."""


def _packs(tensor: torch.Tensor) -> bool:
    return tensor.is_floating_point() and tensor.dim() >= 2


def pack_weights(
    weights: dict[str, torch.Tensor],
) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """The weights with each multi-dimensional float tensor as int8 in groups, and their scales.

    Each such tensor is read as rows (its output channels), each row cut into groups of
    :data:`GROUP` consecutive values (the last one padded with zeros), and each group stored
    as ``round(w / s)`` in int8 with ``s = max |w| / 127`` over the group.

    Returns:
        ``(packed, packing)``: ``packed`` holds every tensor of ``weights``, the packed ones as
        int8 of shape ``(rows, groups, GROUP)`` and the rest unchanged; ``packing`` is
        ``{"scheme": PACKING, "scales": {name: fp32 (rows, groups, 1)}, "shapes": {name:
        [dims]}}``, what :func:`unpack_weights` needs besides.
    """
    packed: dict[str, torch.Tensor] = {}
    scales: dict[str, torch.Tensor] = {}
    shapes: dict[str, list[int]] = {}
    for name, tensor in weights.items():
        if not _packs(tensor):
            packed[name] = tensor.detach().to("cpu").clone()
            continue
        w = tensor.detach().to("cpu", torch.float32)
        rows = w.reshape(w.shape[0], -1)
        pad = -rows.shape[1] % GROUP
        groups = torch.nn.functional.pad(rows, (0, pad)).reshape(w.shape[0], -1, GROUP)
        scale = groups.abs().amax(dim=2, keepdim=True) / 127.0
        scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # an all-zero group
        packed[name] = torch.round(groups / scale).clamp(-127, 127).to(torch.int8)
        scales[name] = scale
        shapes[name] = list(w.shape)
    return packed, {"scheme": PACKING, "scales": scales, "shapes": shapes}


def unpack_weights(
    packed: dict[str, torch.Tensor], packing: dict[str, Any] | None
) -> dict[str, torch.Tensor]:
    """The fp32 weights that :func:`pack_weights` stored.

    Raises:
        ValueError: When the packing is another scheme, or a scale or shape does not fit its
            int8 tensor, or an int8 tensor has no scale.
    """
    if not isinstance(packing, dict) or packing.get("scheme") != PACKING:
        scheme = packing.get("scheme") if isinstance(packing, dict) else packing
        raise ValueError(f"packing {scheme!r} is not one this code reads ({PACKING})")
    scales, shapes = packing.get("scales", {}), packing.get("shapes", {})
    weights = dict(packed)
    for name, scale in scales.items():
        q, shape = packed.get(name), shapes.get(name)
        if q is None or q.dtype != torch.int8 or q.dim() != 3 or shape is None:
            raise ValueError(f"the scale of {name!r} belongs to no packed tensor")
        if tuple(scale.shape) != (q.shape[0], q.shape[1], 1):
            raise ValueError(f"the scales of {name!r} do not fit its {tuple(q.shape)} groups")
        rows = (q.to(torch.float32) * scale.to(torch.float32)).reshape(q.shape[0], -1)
        size = int(torch.Size(shape).numel()) // max(int(shape[0]), 1)
        if int(shape[0]) != q.shape[0] or not size <= rows.shape[1] < size + GROUP:
            raise ValueError(f"{name!r} packed as {tuple(q.shape)} cannot have shape {shape}")
        weights[name] = rows[:, :size].reshape(shape)
    stray = [n for n, t in weights.items() if t.dtype == torch.int8]
    if stray:
        raise ValueError(f"int8 tensors without a scale: {', '.join(stray)}")
    return weights
