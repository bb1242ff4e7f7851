"""Search spaces of a tuning study: what a backup declares tunable, optionally with ``c``.

A backup strategy that can be tuned says so itself: its class's ``tunable`` attribute
(:class:`agents.mcts.backups.tunable.Tunable`) gives the searched parameters and their ranges,
how a point becomes the backup's parameters and spec, and how to draw it. So any registered
backup that declares one can be tuned, a ``pip install``ed plugin's as well as ours; this
module knows no backup by name. Monotone and Softmax MCTS (Li & Lim, *Bayesian optimization for
backpropagation in Monte-Carlo tree search*, 2020) declare their knot heights ``g_0..g_d``
(``d`` segments, default 5; boxes ``[-10, 10]`` and ``[-12, 2]``,
``docs/backups.md#weight-family``).
With ``tune_c`` the exploration constant ``c`` of the tree policy is searched jointly, on a
log scale.

A space is chosen by the backup's name, optionally with ``"+c"`` appended (``"softmax+c"``),
which is the same as ``tune_c=True``.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import optuna
from optuna.distributions import FloatDistribution

from agents.mcts.backups import BACKUPS
from agents.mcts.backups.tunable import Tunable, TunableParam, tunable_of
from agents.plugins import PluginError, PluginNotFoundError
from agents.registry import agent_config, agent_spec
from go_env.validation import check_int

__all__ = [
    "DEFAULT_C_BOUNDS",
    "DEFAULT_D",
    "MAX_D",
    "SearchSpace",
    "make_space",
    "tunable_backups",
]

DEFAULT_D = 5
"""Default number of segments ``d`` (``d + 1`` knots); RECONSTRUCTED
(``docs/backups.md#weight-family``)."""
MAX_D = 64
"""Largest ``d``: a GP over more than 65 knot heights learns nothing from a study's trials."""

DEFAULT_C_BOUNDS = (0.1, 4.0)
"""Default range of the exploration constant when it is tuned (searched on a log scale)."""


def tunable_backups() -> list[str]:
    """Names of the installed backups that declare a tunable space (imports each backup)."""
    names = []
    for name in BACKUPS.names():
        try:
            cls = BACKUPS.get(name)
        except PluginError:  # a broken plugin is not tunable, and breaks nothing else
            continue
        if tunable_of(cls) is not None:
            names.append(name)
    return names


def _tunable(name: str) -> Tunable:
    try:
        cls = BACKUPS.get(name)
    except PluginError as exc:
        tunables = tunable_backups()
        close = difflib.get_close_matches(name, tunables, n=2, cutoff=0.5)
        hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        broken = "" if isinstance(exc, PluginNotFoundError) else f" ({exc})"
        raise ValueError(
            f"unknown search space {name!r}; allowed: {', '.join(tunables)}, "
            f"each optionally with '+c' (e.g. 'softmax+c').{hint}{broken}"
        ) from None
    tunable = tunable_of(cls)
    if tunable is None:
        raise ValueError(
            f"backup {name!r} declares nothing to tune (no 'tunable' class attribute); "
            f"tunable: {', '.join(tunable_backups())}"
        )
    return tunable


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
    """What a study searches: the parameters a backup declares tunable, optionally ``c``.

    Attributes:
        backup: A backup registered in ``gomcts.backups`` that declares a ``tunable``.
        d: Number of segments of a piecewise-linear ``g`` (``g0 .. g{d}``), for backups
            parametrised by one; ignored by the others.
        bounds: Box ``(low, high)`` of the parameters when the backup lets the user set it;
            ``None``: the backup's default.
        tune_c: Also search the exploration constant ``c`` of the tree policy.
        c_bounds: Range of ``c`` (log scale) when ``tune_c``.

    Raises:
        ValueError: For an unknown or untunable backup, ``d`` outside ``1..MAX_D``, or bounds
            that are reversed, empty, not finite (and, for ``c``, not positive), or given to a
            backup whose ranges are fixed.
    """

    backup: str
    d: int = DEFAULT_D
    bounds: tuple[float, float] | None = None
    tune_c: bool = False
    c_bounds: tuple[float, float] = DEFAULT_C_BOUNDS

    def __post_init__(self) -> None:
        tunable = _tunable(self.backup)
        check_int("d (segments of g)", self.d, min=1)
        if self.d > MAX_D:
            raise ValueError(f"d (segments of g) must be at most {MAX_D}, got {self.d}")
        bounds = tunable.default_bounds if self.bounds is None else tuple(self.bounds)
        if bounds is not None:
            if tunable.default_bounds is None:
                raise ValueError(
                    f"backup {self.backup!r} fixes the ranges of its parameters; it takes no bounds"
                )
            _check_bounds("knot-height bounds", bounds)
            bounds = tuple(float(b) for b in bounds)
        _check_bounds("c bounds", tuple(self.c_bounds), positive=True)
        object.__setattr__(self, "bounds", bounds)
        object.__setattr__(self, "c_bounds", tuple(float(b) for b in self.c_bounds))
        for param in self.parameters:
            _check_bounds(f"range of {param.name}", (param.low, param.high), positive=param.log)

    @property
    def tunable(self) -> Tunable:
        """What the backup declares tunable."""
        return _tunable(self.backup)

    @property
    def box(self) -> tuple[float, float] | None:
        """The box ``(low, high)`` of the parameters; ``None`` when the backup fixes them."""
        return self.bounds

    @property
    def name(self) -> str:
        """The space's name: the backup, with ``+c`` when ``c`` is tuned."""
        return self.backup + ("+c" if self.tune_c else "")

    @property
    def parameters(self) -> tuple[TunableParam, ...]:
        """The backup's searched parameters."""
        return self.tunable.parameters(d=self.d, bounds=self.bounds)

    @property
    def param_names(self) -> list[str]:
        """Every searched parameter, the backup's first."""
        return [p.name for p in self.parameters] + (["c"] if self.tune_c else [])

    def distributions(self) -> dict[str, FloatDistribution]:
        """Optuna distributions of the parameters."""
        out = {p.name: FloatDistribution(p.low, p.high, log=p.log) for p in self.parameters}
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
            "bounds": None if self.bounds is None else list(self.bounds),
            "c_bounds": list(self.c_bounds),
        }

    # ---------------------------------------------------------------- using a point
    def backup_params(self, params: Mapping[str, float]) -> dict[str, Any]:
        """The backup's parameters of a point, as a parameter file holds them (``{"g": [...]}``)."""
        return self.tunable.backup_params(params, d=self.d)

    def backup_spec(self, params: Mapping[str, float]) -> str:
        """The backup spec of a point, e.g. ``"monotone:g=[0.5,-1.25,...]"``."""
        return self.tunable.spec(self.backup, params, d=self.d)

    @property
    def reads_params_file(self) -> bool:
        """Whether the backup loads a parameter file (``NAME:FILE``, a ``file`` field)."""
        cls = BACKUPS.get(self.backup)
        return any(f.name == "file" for f in dataclasses.fields(cls))

    def candidate(
        self, agent: str, params: Mapping[str, float], *, backup: str | None = None
    ) -> str:
        """The spec of the agent ``agent`` with this point's backup (and ``c``, if tuned).

        Args:
            agent: Spec of the base agent; its config must have ``backup`` (and ``c``) fields.
            params: The point.
            backup: A backup spec to use instead of the point's (e.g. one that loads the
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


def make_space(
    name: str,
    *,
    d: int = DEFAULT_D,
    bounds: tuple[float, float] | None = None,
    tune_c: bool = False,
    c_bounds: tuple[float, float] | None = None,
) -> SearchSpace:
    """The search space of the backup ``name`` (optionally ending in ``+c``).

    Args:
        name: A tunable backup's name (:func:`tunable_backups`), optionally with ``+c``.
        d: Segments of ``g`` (``d + 1`` knot heights), for knot-parametrised backups.
        bounds: Box of the parameters; default the backup's.
        tune_c: Also search ``c`` (implied by a name ending in ``+c``).
        c_bounds: Range of ``c``; default :data:`DEFAULT_C_BOUNDS`.

    Raises:
        ValueError: For an unknown or untunable name or bad bounds (the message lists what is
            allowed).
    """
    base = name.strip()
    if base.endswith("+c"):
        base, tune_c = base[:-2], True
    if base not in BACKUPS.names() and base.lower() in BACKUPS.names():
        base = base.lower()
    return SearchSpace(
        backup=base,
        d=d,
        bounds=None if bounds is None else (bounds[0], bounds[1]),
        tune_c=tune_c,
        c_bounds=DEFAULT_C_BOUNDS if c_bounds is None else (c_bounds[0], c_bounds[1]),
    )
