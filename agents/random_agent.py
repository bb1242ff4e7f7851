"""The uniform random agent: a baseline and a smoke-test partner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from go_env.state import GoState

__all__ = ["RandomAgent", "RandomConfig"]


@dataclass(frozen=True, kw_only=True)
class RandomConfig:
    """Configuration of :class:`RandomAgent`.

    Args:
        seed: Seed of the agent's generator (``None``: fresh entropy).
        pass_prob: Probability of passing even when other moves are available.
        avoid_eyes: Never fill one of its own single-point eyes (as random playouts do), so
            games end with a sensible position instead of self-capture.
    """

    seed: int | None = None
    pass_prob: float = 0.0
    avoid_eyes: bool = True

    def __post_init__(self) -> None:
        if self.seed is not None and (
            isinstance(self.seed, bool)
            or not isinstance(self.seed, int)
            or not 0 <= self.seed <= 2**63 - 1
        ):
            raise ValueError(f"seed must be an int in [0, {2**63 - 1}] or None, got {self.seed!r}")
        if not 0.0 <= self.pass_prob <= 1.0:
            raise ValueError(f"pass_prob must be in [0, 1], got {self.pass_prob}")

    def build(self) -> RandomAgent:
        """The agent this config describes."""
        return RandomAgent(self)


class RandomAgent:
    """Plays uniformly at random among the legal moves (optionally sparing its own eyes)."""

    def __init__(self, config: RandomConfig | None = None, *, name: str = "random") -> None:
        self.config = config or RandomConfig()
        self.name = name
        self._rng = np.random.default_rng(self.config.seed)

    def reset(self) -> None:
        """Nothing to forget between games (the generator keeps running)."""

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        """A uniformly random legal move; pass when nothing else is sensible."""
        moves = state.legal_moves()
        points = moves[moves != state.pass_move]
        if self.config.avoid_eyes and points.size:
            points = points[~state.own_eye_mask()[points]]
        if points.size == 0 or self._rng.random() < self.config.pass_prob:
            return state.pass_move
        return int(points[self._rng.integers(points.size)])

    def close(self) -> None:
        """No resources to release."""
