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
``packing``     only in a *packed* checkpoint (version 2): the weights are stored int8 in
                groups, and this holds their scales (:mod:`agents.nets.packing`); loading
                gives fp32 weights again
==============  ===========================================================================

A file whose name ends in ``.gz`` is written gzip-compressed, and a gzip-compressed file is
read whatever its name. Packed and compressed, a network takes about a quarter of its fp32
file: that is how the package ships its self-play networks (:data:`SHIPPED_MODELS`).

Writes are atomic (a temporary file renamed over the target), so an interrupted run never
leaves a half-written checkpoint.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import os
import threading
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

import torch

from agents.atomic_file import write_atomically
from agents.nets.model import NetConfig, PolicyValueNet
from agents.shipped_networks import (
    NETWORK_NAMES,
    SHIPPED_MODEL,
    SHIPPED_MODELS,
    shipped_model_path,
    shipped_names,
)

__all__ = [
    "FORMAT",
    "SHIPPED_MODEL",
    "SHIPPED_MODELS",
    "Checkpoint",
    "CheckpointError",
    "NetworkNotFoundError",
    "existing_model_path",
    "load_checkpoint",
    "load_net",
    "model_digest",
    "named_digest",
    "resolve_model_path",
    "save_checkpoint",
    "shipped_model_path",
    "shipped_names",
]

FORMAT = "gomcts-net"
VERSION = 1
PACKED_VERSION = 2
"""The version of a packed checkpoint: code that reads only version 1 refuses it rather than
loading its int8 weights as if they were fp32."""
_GZIP_MAGIC = b"\x1f\x8b"


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
    packed: bool = False,
) -> Path:
    """Write ``net`` (weights and config), ``meta`` and optional ``train`` state to ``path``.

    Args:
        path: The file; a name ending in ``.gz`` is written gzip-compressed (with no time
            stamp, so the same network always gives the same bytes).
        net: The network.
        meta: JSON-ready facts about it.
        train: Training state for a resumed run.
        packed: Store the weights int8 in groups (:mod:`agents.nets.packing`, version 2).

    Returns:
        The path written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    weights = {k: v.detach().to("cpu").clone() for k, v in net.state_dict().items()}
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "net": net.config.to_dict()}
    if packed:
        from agents.nets.packing import pack_weights

        data["version"] = PACKED_VERSION
        data["weights"], data["packing"] = pack_weights(weights)
    else:
        data["weights"] = weights
    data["meta"] = dict(meta or {})
    if train is not None:
        data["train"] = train
    if path.name.endswith(".gz"):
        buffer = io.BytesIO()
        torch.save(data, buffer)
        packed_bytes = gzip.compress(buffer.getvalue(), compresslevel=9, mtime=0)
        write_atomically(path, packed_bytes)
    else:
        write_atomically(path, lambda handle: torch.save(data, handle))
    return path


def _stored_bytes(path: Path) -> bytes:
    """The checkpoint bytes of ``path``, decompressed when the file is gzip."""
    raw = path.read_bytes()
    return gzip.decompress(raw) if raw[:2] == _GZIP_MAGIC else raw


def load_checkpoint(path: str | PathLike[str], map_location: str = "cpu") -> Checkpoint:
    """Read a checkpoint written by :func:`save_checkpoint` (a file, or a shipped network's name).

    Raises:
        FileNotFoundError: When there is no such file.
        CheckpointError: When the file is not a gomcts network checkpoint.
    """
    path = existing_model_path(path)
    try:
        data = torch.load(
            io.BytesIO(_stored_bytes(path)), map_location=map_location, weights_only=True
        )
    except Exception as exc:
        # torch's own message runs to a page of advice about weights_only: its first sentence
        first = str(exc).strip().split(". ", 1)[0].splitlines()[0] if str(exc).strip() else ""
        raise CheckpointError(
            f"{path} is not a readable checkpoint ({first[:100] or type(exc).__name__}); give a "
            "model file written by gomcts train"
        ) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a {FORMAT} checkpoint (no format tag)")
    if data.get("version") not in (VERSION, PACKED_VERSION):
        raise CheckpointError(
            f"{path} has checkpoint version {data.get('version')!r}; this code reads "
            f"{VERSION} and {PACKED_VERSION} (packed)"
        )
    try:
        config = NetConfig.from_dict(data["net"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{path} has an invalid network config: {exc}") from exc
    weights = data["weights"]
    if data["version"] == PACKED_VERSION:
        from agents.nets.packing import unpack_weights

        try:
            weights = unpack_weights(weights, data.get("packing"))
        except ValueError as exc:
            raise CheckpointError(f"{path} has unreadable packed weights: {exc}") from exc
    return Checkpoint(
        config=config, weights=weights, meta=data.get("meta", {}), train=data.get("train")
    )


def resolve_model_path(model: str | PathLike[str]) -> Path:
    """``model`` as a path.

    ``""`` is the default network, a name of :data:`SHIPPED_MODELS` a shipped one (write
    ``./NAME`` for a file of that name), anything else a file.
    """
    text = os.fspath(model)
    if text == "":
        return shipped_model_path()
    if text in SHIPPED_MODELS:
        return shipped_model_path(text)
    return Path(text).expanduser()


class NetworkNotFoundError(FileNotFoundError):
    """No network file where one was named; reads as ``PATH: what to give instead``."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def existing_model_path(model: str | PathLike[str]) -> Path:
    """:func:`resolve_model_path`, checked: the file of a network to read.

    Raises:
        NetworkNotFoundError: When there is no such file; the message names the shipped
            networks, since a mistyped name reads as a file name.
    """
    path = resolve_model_path(model)
    if not path.is_file():
        raise NetworkNotFoundError(
            errno.ENOENT,
            "no network checkpoint there; give a checkpoint file or a shipped network's name "
            f"({', '.join(NETWORK_NAMES)})",
            str(path),
        )
    return path


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
    path = existing_model_path(model).resolve()
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
    """The checkpoint path (``""``: the shipped model) and the SHA-256 of its bytes.

    The bytes of a gzip-compressed file are those it holds, so compressing a checkpoint keeps
    its digest (the shipped supervised network's records name the digest of its plain file).
    """
    path = existing_model_path(model)
    return path, hashlib.sha256(_stored_bytes(path)).hexdigest()


def named_digest(model: str) -> dict[str, str]:
    """``{name: SHA-256}`` of the network ``model`` names (``""``: ``"default"``).

    What the ``net`` agent's and evaluator's ``network_digests()`` give
    (:func:`agents.registry.network_digests`).
    """
    return {model or "default": model_digest(model)[1]}
