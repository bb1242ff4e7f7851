"""A generation's self-play games on a Ray cluster (``gomcts train selfplay --ray``).

The games are played by :class:`~agents.matches.ray_stream_pool.RayStreamPool` workers, one
CPU each, every worker playing ``games_per_worker`` games at once with its own evaluator,
exactly as a local worker process does
(:func:`~agents.nets.training.selfplay_worker.selfplay_worker`); the driver appends each game
to the generation's file as it comes back.

The network travels with the workers: the nodes of a cluster do not see the run folder, so
the best network's checkpoint goes to them as bytes (through Ray's object store), and each
node writes it once into its temporary folder under its SHA-256, where the evaluator loads
it (copies unused for a day are removed). See ``docs/cluster.md``, "Self-play on a cluster".
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agents.atomic_file import write_atomically
from agents.nets.training.records import GameRecord
from agents.nets.training.selfplay_worker import selfplay_worker

__all__ = ["STALE_SECONDS", "network_copy", "ray_selfplay_pool", "ray_selfplay_worker"]


STALE_SECONDS = 86400.0
"""A node's copies of networks unused for this long are removed (a run's best changes at
promotions; the copies of a 100-generation run would otherwise pile up)."""


def network_copy(data: bytes, suffix: str, folder: Path | None = None) -> Path:
    """This machine's copy of a checkpoint given as bytes, written once, named by its hash.

    Using a copy refreshes its time; copies unused for :data:`STALE_SECONDS` are removed.

    Args:
        data: The checkpoint file's bytes.
        suffix: Its file suffix (``".pt"``), which tells the loader its format.
        folder: Where the copies are kept (default: ``gomcts-selfplay-nets`` in the
            temporary folder).
    """
    digest = hashlib.sha256(data).hexdigest()
    folder = folder or Path(tempfile.gettempdir()) / "gomcts-selfplay-nets"
    path = folder / f"{digest}{suffix}"
    if path.exists():
        os.utime(path)  # in use: not stale
    else:
        write_atomically(path, data)  # a worker beside this one never reads half a file
    stale = time.time() - STALE_SECONDS
    for other in folder.iterdir():
        try:
            if other != path and other.stat().st_mtime < stale:
                other.unlink()
        except OSError:  # removed by a worker beside this one
            pass
    return path


def ray_selfplay_worker(
    indices: Iterator[int],
    config: dict[str, Any],
    network: bytes,
    suffix: str,
    generation: int,
    width: int,
) -> Iterator[GameRecord]:
    """A Ray worker's games: the network written here, then a local worker's games."""
    model = str(network_copy(network, suffix))
    yield from selfplay_worker(indices, config, model, generation, width)


def ray_selfplay_pool(
    config: dict[str, Any], model: Path, generation: int, width: int, workers: int, address: str
) -> Any:
    """The pool of ``workers`` Ray workers for one generation's games.

    Args:
        config: The run's :meth:`~agents.nets.training.selfplay_config.SelfPlayConfig.to_dict`.
        model: The best network's checkpoint (read here, sent to the workers).
        generation: The generation (seeds the games).
        width: Games each worker plays at once.
        workers: Workers (each holds one CPU of the cluster).
        address: The cluster (see :func:`agents.matches.ray_pool.connect`).

    Returns:
        A :class:`~agents.matches.ray_stream_pool.RayStreamPool`.

    Raises:
        agents.matches.ray_pool.ClusterError: When Ray is missing or the cluster unusable.
    """
    from agents.matches.ray_stream_pool import RayStreamPool

    args = (config, model.read_bytes(), model.suffix, generation, width)
    return RayStreamPool(ray_selfplay_worker, args, workers, address=address)
