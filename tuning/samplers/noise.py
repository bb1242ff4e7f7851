"""The noise of a winrate: what every trial of a study records for the noise-aware GP.

A trial's value is a winrate ``p̂ = points / n`` over ``n`` games, a draw counting one half.
Its sampling variance is ``p(1 - p) / n`` for win/loss games (the binomial variance of a
proportion; draws only lower it, so the formula is a slight over-estimate with draws). The
true ``p`` is unknown and the plug-in ``p̂`` gives variance 0 at ``p̂ ∈ {0, 1}``, which would
tell the GP that a trial lost or won every game is exact. The variance is therefore taken at
the shrunk rate

    p̃ = (points + 1/2) / (n + 1),     Var(p̂) ≈ p̃ (1 - p̃) / n,

the posterior mean of ``p`` under Jeffreys' Beta(1/2, 1/2) prior (Brown, Cai & DasGupta,
*Interval estimation for a binomial proportion*, Statistical Science 16, 2001, discuss this
prior's interval). It is positive for every outcome and differs from ``p̂(1 - p̂)/n`` by
``O(1/n²)`` away from the edges.

Every objective of :mod:`tuning` records ``games``, ``points`` and :data:`VARIANCE_ATTR` as
user attributes of its trial (:func:`record_noise`); :func:`trial_variance` reads them back.
"""

from __future__ import annotations

import math
from typing import Any

from go_env.validation import check_int

__all__ = ["VARIANCE_ATTR", "record_noise", "trial_variance", "winrate_variance"]

VARIANCE_ATTR = "variance"
"""User attribute holding the sampling variance of a trial's value."""


def winrate_variance(points: float, games: int) -> float:
    """Sampling variance of the winrate ``points / games`` (see the module docstring).

    Args:
        points: Points scored: wins plus half the draws, ``0 <= points <= games``.
        games: Games played, at least 1.

    Raises:
        ValueError: For ``games < 1`` or points outside ``[0, games]``.
    """
    check_int("games", games, min=1)
    if not (isinstance(points, (int, float)) and 0.0 <= points <= games):
        raise ValueError(f"points must be a number in [0, games={games}], got {points!r}")
    shrunk = (points + 0.5) / (games + 1)
    return shrunk * (1.0 - shrunk) / games


def record_noise(trial: Any, points: float, games: int) -> float:
    """Store ``games``, ``points`` and their variance as user attributes of ``trial``.

    Args:
        trial: An :class:`optuna.Trial` (anything with ``set_user_attr``).
        points: Points scored (wins plus half the draws).
        games: Games played.

    Returns:
        The variance stored.
    """
    variance = winrate_variance(points, games)
    trial.set_user_attr("games", games)
    trial.set_user_attr("points", points)
    trial.set_user_attr(VARIANCE_ATTR, variance)
    return variance


def trial_variance(trial: Any) -> float:
    """The sampling variance of a finished trial's value.

    Read from :data:`VARIANCE_ATTR`, or computed from ``games`` and ``points`` for a trial
    that recorded only those (studies written before the attribute existed).

    Raises:
        ValueError: When the trial recorded neither; the message names the attributes.
    """
    attrs = trial.user_attrs
    value = attrs.get(VARIANCE_ATTR)
    if value is not None:
        variance = float(value)
        if not (math.isfinite(variance) and variance > 0):
            raise ValueError(
                f"trial {trial.number}: user attribute {VARIANCE_ATTR!r} must be a positive "
                f"number, got {value!r}"
            )
        return variance
    if attrs.get("games") is not None and attrs.get("points") is not None:
        return winrate_variance(float(attrs["points"]), int(attrs["games"]))
    raise ValueError(
        f"trial {trial.number} has no noise: the noise-aware GP needs the user attribute "
        f"{VARIANCE_ATTR!r} (or 'games' and 'points') on every finished trial; record it "
        "with tuning.samplers.noise.record_noise(trial, points, games), or choose another sampler"
    )
