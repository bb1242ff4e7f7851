"""The replay buffer of self-play: the most recent positions with their search targets.

A ring of fixed capacity holding, per position, the input planes, the search's visit
distribution over the ``N*N + 1`` actions (the policy target) and the game's result from the
side of the player to move (the value target), as in AlphaGo Zero (which sampled from the last
500,000 games), and optionally the final owner of every point from the same side (the
ownership target, :class:`~agents.nets.model.NetConfig`'s ``ownership``). It saves to and
loads from one ``.npz`` file.
"""

from __future__ import annotations

from os import PathLike
from typing import NamedTuple

import numpy as np

from agents.atomic_file import write_atomically
from agents.nets.symmetry import SYMMETRIES, transform_planes, transform_policy
from go_env.features import PLANE_DTYPE

__all__ = ["Positions", "ReplayBuffer"]


class Positions(NamedTuple):
    """Training positions, as a game gives them and as a minibatch holds them.

    :func:`~agents.nets.training.window.game_examples` makes them, :meth:`ReplayBuffer.sample`
    draws them.

    Args:
        planes: ``(B, C, N, N)`` input planes (``int8`` stored, ``float32`` sampled).
        policies: ``float32 (B, N*N + 1)`` policy targets.
        values: ``float32 (B,)`` results for the player to move.
        ownership: ``(B, N*N)`` final owners for the player to move (+1 theirs, -1 the
            opponent's, 0 neither; ``int8`` stored, ``float32`` sampled), or ``None``.
    """

    planes: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    ownership: np.ndarray | None = None


class ReplayBuffer:
    """Fixed-capacity ring of training positions (:class:`Positions`).

    Args:
        capacity: Most positions kept (the oldest are overwritten first).
        planes_shape: ``(C, N, N)`` of the input planes.
        ownership: Keep an ownership target per position (every :meth:`add` then gives one).
    """

    def __init__(
        self, capacity: int, planes_shape: tuple[int, int, int], *, ownership: bool = False
    ) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        n = planes_shape[1]
        self.capacity = int(capacity)
        self.size_n = n
        self.planes = np.zeros((capacity, *planes_shape), dtype=PLANE_DTYPE)
        self.policies = np.zeros((capacity, n * n + 1), dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.ownership = np.zeros((capacity, n * n), dtype=np.int8) if ownership else None
        self.count = 0  # positions stored (at most capacity)
        self.added = 0  # positions ever added

    def __len__(self) -> int:
        return self.count

    def add(
        self,
        planes: np.ndarray,
        policies: np.ndarray,
        values: np.ndarray,
        ownership: np.ndarray | None = None,
    ) -> None:
        """Append positions ``(B, C, N, N)``, ``(B, N*N + 1)``, ``(B,)`` and ``(B, N*N)``.

        Raises:
            ValueError: When ``ownership`` is given to a buffer without ownership targets, or
                missing for one with them.
        """
        if (ownership is None) != (self.ownership is None):
            raise ValueError(
                "this buffer keeps ownership targets: give them"
                if ownership is None
                else "this buffer keeps no ownership targets (ReplayBuffer(..., ownership=True))"
            )
        for i in range(planes.shape[0]):
            at = self.added % self.capacity
            self.planes[at] = planes[i]
            self.policies[at] = policies[i]
            self.values[at] = values[i]
            if self.ownership is not None and ownership is not None:
                self.ownership[at] = ownership[i]
            self.added += 1
        self.count = min(self.added, self.capacity)

    def sample(
        self, batch_size: int, rng: np.random.Generator, *, augment: bool = True
    ) -> Positions:
        """A minibatch drawn uniformly with replacement (planes and ownership as ``float32``).

        With ``augment``, each example gets a random board symmetry (planes, policy and
        ownership alike).

        Raises:
            ValueError: When the buffer is empty.
        """
        if self.count == 0:
            raise ValueError("the replay buffer is empty")
        rows = rng.integers(0, self.count, size=batch_size)
        planes = self.planes[rows]
        x = planes.astype(np.float32)
        policies = self.policies[rows].copy()
        n = self.size_n
        owners = None if self.ownership is None else self.ownership[rows].reshape(-1, 1, n, n)
        owned = None if owners is None else owners.astype(np.float32)
        if augment:
            syms = rng.integers(0, SYMMETRIES, size=batch_size)
            for k in range(1, SYMMETRIES):
                at = syms == k
                if at.any():
                    x[at] = transform_planes(planes[at], k)
                    policies[at] = transform_policy(policies[at], k, n)
                    if owners is not None and owned is not None:
                        owned[at] = transform_planes(owners[at], k)
        return Positions(
            x,
            policies,
            self.values[rows].copy(),
            None if owned is None else owned.reshape(batch_size, n * n),
        )

    def save(self, path: str | PathLike[str]) -> None:
        """Write the buffer to ``path`` (an ``.npz`` file), atomically."""
        meta = np.array([self.capacity, self.added], dtype=np.int64)
        arrays: dict[str, np.ndarray] = {
            "planes": self.planes[: self.count],
            "policies": self.policies[: self.count],
            "values": self.values[: self.count],
            "meta": meta,
        }
        if self.ownership is not None:
            arrays["ownership"] = self.ownership[: self.count]
        # numpy's stubs read ** as possibly allow_pickle: the names here are array names
        write_atomically(path, lambda handle: np.savez_compressed(handle, **arrays))  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: str | PathLike[str]) -> ReplayBuffer:
        """The buffer saved at ``path``."""
        with np.load(path) as data:
            capacity, added = (int(v) for v in data["meta"])
            planes = data["planes"]
            buffer = cls(capacity, planes.shape[1:], ownership="ownership" in data.files)
            count = planes.shape[0]
            buffer.planes[:count] = planes
            buffer.policies[:count] = data["policies"]
            buffer.values[:count] = data["values"]
            if buffer.ownership is not None:
                buffer.ownership[:count] = data["ownership"]
        buffer.count, buffer.added = count, added
        return buffer
