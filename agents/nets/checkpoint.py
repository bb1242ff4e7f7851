"""Checkpoints: a network's weights with the config that built it, and training state.

A checkpoint is one file written by :func:`torch.save` and read with ``weights_only=True``
(no arbitrary pickled code), holding a dict:

==============  ===========================================================================
key             content
==============  ===========================================================================
``format``      ``"gomcts-net"``; ``version``: 1
``net``         :meth:`NetConfig.to_dict` of the network
``weights``     the network's ``state_dict``
``meta``        JSON-ready facts: how it was trained (data, steps, time, machine...)
``train``       optional: what a resumed training run needs (optimizer, step, generators,
                its own config); shipped models leave it out
==============  ===========================================================================

Writes are atomic (a temporary file renamed over the target), so an interrupted run never
leaves a half-written checkpoint.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass, field
from importlib import resources
from os import PathLike
from pathlib import Path
from typing import Any

import torch

from agents.atomic_file import write_atomically
from agents.nets.model import NetConfig, PolicyValueNet

__all__ = [
    "FORMAT",
    "SHIPPED_MODEL",
    "Checkpoint",
    "CheckpointError",
    "load_checkpoint",
    "load_net",
    "model_digest",
    "resolve_model_path",
    "save_checkpoint",
    "shipped_model_path",
]

FORMAT = "gomcts-net"
VERSION = 1
SHIPPED_MODEL = "b4c32-9x9.pt"
"""File name of the model shipped in ``agents/nets/models/`` (see ``docs/nets.md``)."""


class CheckpointError(ValueError):
    """A file is not a readable gomcts network checkpoint."""


@dataclass
class Checkpoint:
    """The contents of a checkpoint file.

    Attributes:
        config: The network's shape.
        weights: Its ``state_dict``.
        meta: JSON-ready facts about the network.
        train: Training state for a resumed run, or ``None``.
    """

    config: NetConfig
    weights: dict[str, torch.Tensor]
    meta: dict[str, Any] = field(default_factory=dict)
    train: dict[str, Any] | None = None

    def build(self, device: str | torch.device = "cpu") -> PolicyValueNet:
        """The network with these weights, in evaluation mode, on ``device``."""
        net = PolicyValueNet(self.config)
        net.load_state_dict(self.weights)
        return net.to(device).eval()


def save_checkpoint(
    path: str | PathLike[str],
    net: PolicyValueNet,
    *,
    meta: dict[str, Any] | None = None,
    train: dict[str, Any] | None = None,
) -> Path:
    """Write ``net`` (weights and config), ``meta`` and optional ``train`` state to ``path``.

    Returns:
        The path written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    weights = {k: v.detach().to("cpu").clone() for k, v in net.state_dict().items()}
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "net": net.config.to_dict(),
        "weights": weights,
        "meta": dict(meta or {}),
    }
    if train is not None:
        data["train"] = train
    write_atomically(path, lambda handle: torch.save(data, handle))
    return path


def load_checkpoint(path: str | PathLike[str], map_location: str = "cpu") -> Checkpoint:
    """Read a checkpoint written by :func:`save_checkpoint`.

    Raises:
        FileNotFoundError: When there is no such file.
        CheckpointError: When the file is not a gomcts network checkpoint.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no network checkpoint at {path}")
    try:
        data = torch.load(path, map_location=map_location, weights_only=True)
    except Exception as exc:
        # torch's own message runs to a page of advice about weights_only: its first sentence
        first = str(exc).strip().split(". ", 1)[0].splitlines()[0] if str(exc).strip() else ""
        raise CheckpointError(
            f"{path} is not a readable checkpoint ({first[:100] or type(exc).__name__}); give a "
            "model file written by gomcts train"
        ) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a {FORMAT} checkpoint (no format tag)")
    if data.get("version") != VERSION:
        raise CheckpointError(
            f"{path} has checkpoint version {data.get('version')!r}; this code reads {VERSION}"
        )
    try:
        config = NetConfig.from_dict(data["net"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{path} has an invalid network config: {exc}") from exc
    return Checkpoint(
        config=config, weights=data["weights"], meta=data.get("meta", {}), train=data.get("train")
    )


def shipped_model_path() -> Path:
    """Path of the model shipped with the package (``agents/nets/models/``)."""
    return Path(str(resources.files("agents.nets") / "models" / SHIPPED_MODEL))


def resolve_model_path(model: str | PathLike[str]) -> Path:
    """``model`` as a path; ``""`` or ``"default"`` names the shipped model."""
    text = os.fspath(model)
    if text in ("", "default"):
        return shipped_model_path()
    return Path(text).expanduser()


_NETS: dict[tuple[str, int, int, str], PolicyValueNet] = {}
_LOCK = threading.Lock()


def load_net(model: str | PathLike[str], device: str | torch.device = "cpu") -> PolicyValueNet:
    """The network of a checkpoint (or ``""`` for the shipped one), ready for inference.

    Networks are cached per process by file (path, size, modification time) and device, so
    agents rebuilt before every game of a match share one copy; treat it as read-only.

    Raises:
        FileNotFoundError: When there is no such file.
        CheckpointError: When the file is not a gomcts network checkpoint.
    """
    path = resolve_model_path(model).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no network checkpoint at {path}")
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns, str(device))
    with _LOCK:
        net = _NETS.get(key)
        if net is None:
            net = load_checkpoint(path).build(device)
            net.requires_grad_(False)
            _NETS[key] = net
    return net


def model_digest(model: str | PathLike[str] = "") -> tuple[Path, str]:
    """The checkpoint path (``""``: the shipped model) and the SHA-256 of its bytes."""
    path = resolve_model_path(model)
    return path, hashlib.sha256(path.read_bytes()).hexdigest()
