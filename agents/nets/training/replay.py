"""The replay buffer of self-play: the most recent positions with their search targets.

A ring of fixed capacity holding, per position, the input planes, the search's visit
distribution over the ``N*N + 1`` actions (the policy target) and the game's result from the
side of the player to move (the value target), as in AlphaGo Zero (which sampled from the last
500,000 games). It saves to and loads from one ``.npz`` file, so a self-play run resumes with
its data.
"""

from __future__ import annotations

from os import PathLike

import numpy as np

from agents.atomic_file import write_atomically
from agents.nets.symmetry import SYMMETRIES, transform_planes, transform_policy
from go_env.features import PLANE_DTYPE

__all__ = ["ReplayBuffer"]


class ReplayBuffer:
    """Fixed-capacity ring of ``(planes, policy, value)`` examples.

    Args:
        capacity: Most positions kept (the oldest are overwritten first).
        planes_shape: ``(C, N, N)`` of the input planes.
    """

    def __init__(self, capacity: int, planes_shape: tuple[int, int, int]) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        n = planes_shape[1]
        self.capacity = int(capacity)
        self.size_n = n
        self.planes = np.zeros((capacity, *planes_shape), dtype=PLANE_DTYPE)
        self.policies = np.zeros((capacity, n * n + 1), dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.count = 0  # positions stored (at most capacity)
        self.added = 0  # positions ever added

    def __len__(self) -> int:
        return self.count

    def add(self, planes: np.ndarray, policies: np.ndarray, values: np.ndarray) -> None:
        """Append positions ``(B, C, N, N)``, ``(B, N*N + 1)``, ``(B,)``."""
        for i in range(planes.shape[0]):
            at = self.added % self.capacity
            self.planes[at] = planes[i]
            self.policies[at] = policies[i]
            self.values[at] = values[i]
            self.added += 1
        self.count = min(self.added, self.capacity)

    def sample(
        self, batch_size: int, rng: np.random.Generator, *, augment: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A minibatch ``(planes float32, policies, values)`` drawn uniformly with replacement.

        With ``augment``, each example gets a random board symmetry (planes and policy).

        Raises:
            ValueError: When the buffer is empty.
        """
        if self.count == 0:
            raise ValueError("the replay buffer is empty")
        rows = rng.integers(0, self.count, size=batch_size)
        planes = self.planes[rows]
        x = planes.astype(np.float32)
        policies = self.policies[rows].copy()
        if augment:
            syms = rng.integers(0, SYMMETRIES, size=batch_size)
            for k in range(1, SYMMETRIES):
                at = syms == k
                if at.any():
                    x[at] = transform_planes(planes[at], k)
                    policies[at] = transform_policy(policies[at], k, self.size_n)
        return x, policies, self.values[rows].copy()

    def save(self, path: str | PathLike[str]) -> None:
        """Write the buffer to ``path`` (an ``.npz`` file), atomically."""
        meta = np.array([self.capacity, self.added], dtype=np.int64)
        write_atomically(
            path,
            lambda handle: np.savez_compressed(
                handle,
                planes=self.planes[: self.count],
                policies=self.policies[: self.count],
                values=self.values[: self.count],
                meta=meta,
            ),
        )

    @classmethod
    def load(cls, path: str | PathLike[str]) -> ReplayBuffer:
        """The buffer saved at ``path``."""
        with np.load(path) as data:
            capacity, added = (int(v) for v in data["meta"])
            planes = data["planes"]
            buffer = cls(capacity, planes.shape[1:])
            count = planes.shape[0]
            buffer.planes[:count] = planes
            buffer.policies[:count] = data["policies"]
            buffer.values[:count] = data["values"]
        buffer.count, buffer.added = count, added
        return buffer
