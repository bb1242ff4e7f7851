"""Search spaces of a tuning study: the knot heights of Monotone or Softmax MCTS, optionally ``c``.

Both backups of Li & Lim (*Bayesian optimization for backpropagation in Monte-Carlo tree
search*, 2020) are parametrised by a function ``g`` of the family ``G_d`` of their Lemma 3.1:
piecewise linear with knot heights ``g_0..g_d`` at ``t_j = j N / d``, ``N`` the simulations per
move (``backups-spec.md`` §4). A search space names the backup and gives ``d`` and the box of
the heights; the defaults are the spec's RECONSTRUCTED ones (``d = 5``; ``[-10, 10]`` for
Monotone, ``[-12, 2]`` for Softmax). With ``tune_c`` the exploration constant ``c`` of the
tree policy is searched jointly, on a log scale.

A space is chosen by name: ``"monotone"``, ``"softmax"``, or either with ``"+c"`` appended
(``"softmax+c"``), which is the same as ``tune_c=True``.

The weight functions themselves are not computed here: :meth:`SearchSpace.profile` calls the
backups' own tables (:mod:`agents.mcts.backups.weights`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import optuna
from optuna.distributions import FloatDistribution

from agents.mcts.backups.weights import log_weight_table, tau_table
from agents.registry import agent_config, agent_spec

__all__ = [
    "DEFAULT_BOUNDS",
    "DEFAULT_C_BOUNDS",
    "DEFAULT_D",
    "SPACE_NAMES",
    "SearchSpace",
    "make_space",
]

DEFAULT_D = 5
"""Default number of segments ``d`` (``d + 1`` knots); RECONSTRUCTED (``backups-spec.md`` §4)."""

DEFAULT_BOUNDS: Mapping[str, tuple[float, float]] = {
    "monotone": (-10.0, 10.0),
    "softmax": (-12.0, 2.0),
}
"""Default box of every knot height, per backup (``backups-spec.md`` §4 and §6)."""

DEFAULT_C_BOUNDS = (0.1, 4.0)
"""Default range of the exploration constant when it is tuned (searched on a log scale)."""

SPACE_NAMES = tuple(DEFAULT_BOUNDS)
"""The backups a study can tune."""


def _check_bounds(what: str, bounds: Sequence[Any], *, positive: bool = False) -> None:
    if len(bounds) != 2:
        raise ValueError(f"{what} must be two numbers (low, high), got {bounds!r}")
    low, high = bounds
    for value in (low, high):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not math.isfinite(value):
            raise ValueError(f"{what} must be finite numbers, got {bounds!r}")
    if not low < high:
        raise ValueError(f"{what} are reversed or empty: low {low:g} must be below high {high:g}")
    if positive and low <= 0:
        raise ValueError(f"{what} must be positive (searched on a log scale), got {bounds!r}")


@dataclass(frozen=True)
class SearchSpace:
    """What a study searches: the knot heights ``g_0..g_d`` of a backup, optionally ``c``.

    Attributes:
        backup: ``"monotone"`` or ``"softmax"`` (an entry point of ``gomcts.backups``).
        d: Number of segments of ``g``; the heights are ``g0 .. g{d}``.
        bounds: Box ``(low, high)`` of every height; ``None``: the backup's default
            (:data:`DEFAULT_BOUNDS`).
        tune_c: Also search the exploration constant ``c`` of the tree policy.
        c_bounds: Range of ``c`` (log scale) when ``tune_c``.

    Raises:
        ValueError: For an unknown backup, ``d < 1``, or bounds that are reversed, empty or
            not finite (and, for ``c``, not positive).
    """

    backup: str
    d: int = DEFAULT_D
    bounds: tuple[float, float] | None = None
    tune_c: bool = False
    c_bounds: tuple[float, float] = DEFAULT_C_BOUNDS

    def __post_init__(self) -> None:
        if self.backup not in DEFAULT_BOUNDS:
            raise ValueError(
                f"unknown search space {self.backup!r}; allowed: "
                f"{', '.join(SPACE_NAMES)} (optionally with '+c')"
            )
        if isinstance(self.d, bool) or not isinstance(self.d, int) or self.d < 1:
            raise ValueError(f"d (segments of g) must be an int >= 1, got {self.d!r}")
        bounds = DEFAULT_BOUNDS[self.backup] if self.bounds is None else tuple(self.bounds)
        _check_bounds("knot-height bounds", bounds)
        _check_bounds("c bounds", tuple(self.c_bounds), positive=True)
        object.__setattr__(self, "bounds", tuple(float(b) for b in bounds))
        object.__setattr__(self, "c_bounds", tuple(float(b) for b in self.c_bounds))

    @property
    def box(self) -> tuple[float, float]:
        """The box ``(low, high)`` of every knot height."""
        assert self.bounds is not None  # resolved in __post_init__
        return self.bounds

    @property
    def name(self) -> str:
        """The space's name: the backup, with ``+c`` when ``c`` is tuned."""
        return self.backup + ("+c" if self.tune_c else "")

    @property
    def knot_names(self) -> list[str]:
        """Parameter names of the heights: ``g0 .. g{d}``."""
        return [f"g{j}" for j in range(self.d + 1)]

    @property
    def param_names(self) -> list[str]:
        """Every searched parameter, heights first."""
        return self.knot_names + (["c"] if self.tune_c else [])

    def distributions(self) -> dict[str, FloatDistribution]:
        """Optuna distributions of the parameters."""
        low, high = self.box
        out = {name: FloatDistribution(low, high) for name in self.knot_names}
        if self.tune_c:
            out["c"] = FloatDistribution(*self.c_bounds, log=True)
        return out

    def suggest(self, trial: optuna.Trial) -> dict[str, float]:
        """Ask ``trial`` for every parameter; return them by name."""
        return {
            name: float(trial.suggest_float(name, dist.low, dist.high, log=dist.log))
            for name, dist in self.distributions().items()
        }

    def identity(self) -> dict[str, Any]:
        """JSON-ready description (part of a study's identity)."""
        return {
            **dataclasses.asdict(self),
            "bounds": list(self.box),
            "c_bounds": list(self.c_bounds),
        }

    # ---------------------------------------------------------------- using a point
    def knots(self, params: Mapping[str, float]) -> tuple[float, ...]:
        """The knot heights ``(g_0, ..., g_d)`` of a point."""
        return tuple(float(params[name]) for name in self.knot_names)

    def backup_params(self, params: Mapping[str, float]) -> dict[str, Any]:
        """The backup's parameters of a point, as a parameter file holds them (``{"g": [...]}``)."""
        return {"g": list(self.knots(params))}

    def backup_spec(self, params: Mapping[str, float]) -> str:
        """The backup spec of a point, e.g. ``"monotone:g=[0.5,-1.25,...]"``."""
        return f"{self.backup}:g=[{','.join(repr(g) for g in self.knots(params))}]"

    def candidate(
        self, agent: str, params: Mapping[str, float], *, backup: str | None = None
    ) -> str:
        """The spec of the agent ``agent`` with this point's backup (and ``c``, if tuned).

        Args:
            agent: Spec of the base agent; its config must have ``backup`` (and ``c``) fields.
            params: The point.
            backup: A backup spec to use instead of the point's knots (e.g. one that loads the
                same values from a parameter file).

        Raises:
            ValueError: When the agent has no ``backup`` field (or no ``c`` while it is tuned).
        """
        config = agent_config(agent)
        names = {f.name for f in dataclasses.fields(config)}
        if "backup" not in names or (self.tune_c and "c" not in names):
            needed = "'backup' and 'c'" if self.tune_c else "'backup'"
            raise ValueError(
                f"agent {agent!r} has no parameters {needed} to tune; use an "
                "agent such as 'mcts:sims=100'"
            )
        changes: dict[str, Any] = {"backup": backup or self.backup_spec(params)}
        if self.tune_c:
            changes["c"] = float(params["c"])
        return agent_spec(dataclasses.replace(config, **changes))

    def profile(self, params: Mapping[str, float], n_simulations: int) -> np.ndarray:
        """The function a point defines over visit counts ``k = 0..N``.

        Monotone: the weight ``f(k) = 1 + ∫_0^k exp(g)``. Softmax: the temperature
        ``τ(k) = ∫_0^k exp(g)``. Both from the backups' own tables.
        """
        knots = self.knots(params)
        if self.backup == "monotone":
            return np.exp(log_weight_table(knots, n_simulations, f0=1.0))
        return tau_table(knots, n_simulations)


def make_space(
    name: str,
    *,
    d: int = DEFAULT_D,
    bounds: tuple[float, float] | None = None,
    tune_c: bool = False,
    c_bounds: tuple[float, float] | None = None,
) -> SearchSpace:
    """The search space called ``name`` (``monotone``, ``softmax``, optionally ``+c``).

    Args:
        name: The space's name.
        d: Segments of ``g`` (``d + 1`` knot heights).
        bounds: Box of the heights; default the backup's (see :data:`DEFAULT_BOUNDS`).
        tune_c: Also search ``c`` (implied by a name ending in ``+c``).
        c_bounds: Range of ``c``; default :data:`DEFAULT_C_BOUNDS`.

    Raises:
        ValueError: For an unknown name or bad bounds (the message lists what is allowed).
    """
    base = name.strip().lower()
    if base.endswith("+c"):
        base, tune_c = base[:-2], True
    if base not in DEFAULT_BOUNDS:
        raise ValueError(
            f"unknown search space {name!r}; allowed: {', '.join(SPACE_NAMES)}, "
            f"each optionally with '+c' (e.g. 'softmax+c')"
        )
    return SearchSpace(
        backup=base,
        d=d,
        bounds=None if bounds is None else (bounds[0], bounds[1]),
        tune_c=tune_c,
        c_bounds=DEFAULT_C_BOUNDS if c_bounds is None else (c_bounds[0], c_bounds[1]),
    )
