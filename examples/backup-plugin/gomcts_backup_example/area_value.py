"""``area_value``: a leaf evaluator that reads the score off the board, without a playout.

The value of a leaf is ``tanh(margin / scale)``, with ``margin`` the Tromp-Taylor area score of
the position as it stands (stones plus the empty regions that reach only one colour, komi
included), from the side of the player to move. Priors are uniform. It is the static
evaluation that rollouts replace (Bernd Brügmann, *Monte Carlo Go*, 1993, contrasts the two):
cheap and deterministic, and blind to anything not yet settled on the board.

Use it after ``pip install``ing this distribution: ``mcts:evaluator=area_value`` or
``mcts:evaluator="area_value:scale=3"``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agents.mcts.evaluators import LeafBatch
from go_env.kernels import H_TO_PLAY, area

__all__ = ["AreaValue", "AreaValueConfig"]


class AreaValue:
    """The evaluator: uniform priors, ``tanh(area margin / scale)`` values."""

    uniform_priors = True

    def __init__(self, scale: float) -> None:
        self.scale = scale

    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        """Uniform priors and the static area values of the leaves."""
        compiled = batch.compiled
        nbr = compiled.geometry.nbr
        count = len(batch)
        values = np.empty(count, dtype=np.float64)
        for b in range(count):
            vector = batch.vectors[b]
            black, white = area(vector, nbr)
            margin = float(black - white) - compiled.komi
            if vector[H_TO_PLAY] == 2:
                margin = -margin
            values[b] = math.tanh(margin / self.scale)
        size = compiled.geometry.size
        actions = size * size + 1
        return np.full((count, actions), 1.0 / actions), values


@dataclass(frozen=True, kw_only=True)
class AreaValueConfig:
    """Options of the ``area_value`` evaluator.

    Attributes:
        scale: Points of margin for a value of ``tanh(1)``, about 0.76; > 0. Default 5.
    """

    scale: float = 5.0

    def __post_init__(self) -> None:
        ok = isinstance(self.scale, (int, float)) and not isinstance(self.scale, bool)
        if not (ok and math.isfinite(self.scale) and self.scale > 0):
            raise ValueError(
                f"area_value: parameter 'scale' must be a number > 0, got {self.scale!r}"
            )

    def build(self, *, seed: int | None = None, score_scale: float = 0.0) -> AreaValue:
        """The evaluator (deterministic: ``seed`` and ``score_scale`` are not used)."""
        return AreaValue(float(self.scale))
