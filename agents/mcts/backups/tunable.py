"""What of a backup strategy a tuning study may search, declared by the strategy itself.

A backup class that can be tuned sets a class attribute ``tunable`` to a :class:`Tunable`; then
``gomcts tune NAME`` works for it, whichever distribution registers it. The Tunable says

* which parameters are searched and over which ranges (:meth:`Tunable.parameters`: names,
  bounds, log scale); the study adds the exploration constant ``c`` itself when asked;
* how a point of the search becomes the backup's parameters (:meth:`Tunable.backup_params`,
  what a parameter file holds, :mod:`agents.mcts.backups.params_io`) and its spec
  (:meth:`Tunable.spec`);
* how to draw what a point means (:meth:`Tunable.plot_profile`: the weight profile of the
  best trials, ``profile.png`` of a study); drawing nothing is allowed.

Nothing here imports Optuna: the tuning layer turns :class:`TunableParam` into distributions.
The knot heights of Monotone and Softmax MCTS (Li and Lim, *Bayesian optimization for
backpropagation in Monte-Carlo tree search*, 2020, Lemma 3.1: ``g`` piecewise linear with
``d + 1`` knot heights) are :class:`KnotTunable`; :class:`MonotoneTunable` and
:class:`SoftmaxTunable` draw their weight functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.mcts.backups.weights import log_weight_table, tau_table

__all__ = [
    "Curve",
    "KnotTunable",
    "MonotoneTunable",
    "SoftmaxTunable",
    "Tunable",
    "TunableParam",
    "tunable_of",
]


@dataclass(frozen=True)
class TunableParam:
    """One searched parameter.

    Attributes:
        name: Its name in the study (``g0``, ``window``...).
        low: Lower bound.
        high: Upper bound.
        log: Searched on a log scale (bounds then positive).
        integer: Rounded to the nearest integer when it becomes a backup parameter (the search
            itself stays continuous, which Gaussian-process samplers need).
    """

    name: str
    low: float
    high: float
    log: bool = False
    integer: bool = False


@dataclass(frozen=True)
class Curve:
    """A point to draw in a profile plot and the line style (matplotlib keywords) to draw it."""

    point: Mapping[str, float]
    style: Mapping[str, Any]


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_text(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


class Tunable:
    """What of a backup can be tuned; subclass it and set an instance as ``tunable``.

    Attributes:
        default_bounds: The default box ``(low, high)`` shared by the searched parameters when
            the user may change it (``--bounds``); ``None``: the ranges are fixed by the plugin.
        figure_size: Size in inches of the profile figure.
    """

    default_bounds: tuple[float, float] | None = None
    figure_size: tuple[float, float] = (6.5, 4.2)

    def parameters(self, *, d: int, bounds: tuple[float, float] | None) -> tuple[TunableParam, ...]:
        """The searched parameters.

        Args:
            d: Segments of a piecewise-linear function, for backups parametrised by one
                (``--d``); others ignore it.
            bounds: The box given by the user, else :attr:`default_bounds`.
        """
        raise NotImplementedError(f"{type(self).__name__} must define parameters()")

    def backup_params(self, point: Mapping[str, float], *, d: int) -> dict[str, Any]:
        """The backup's parameters at ``point``, JSON-ready (what a parameter file holds).

        By default every searched parameter under its own name, rounded when ``integer``.
        """
        out: dict[str, Any] = {}
        for param in self.parameters(d=d, bounds=self.default_bounds):
            value = float(point[param.name])
            out[param.name] = round(value) if param.integer else value
        return out

    def spec(self, name: str, point: Mapping[str, float], *, d: int) -> str:
        """The backup spec at ``point``: ``name:key=value,...`` of :meth:`backup_params`."""
        params = self.backup_params(point, d=d)
        return name + ":" + ",".join(f"{k}={_text(v)}" for k, v in params.items())

    def plot_profile(
        self, fig: Any, curves: Sequence[Curve], *, d: int, n_simulations: int
    ) -> list[Any]:
        """Draw the curves (best first) on the matplotlib figure ``fig``; return the axes.

        The default draws nothing and returns no axes (the study then writes no profile).
        """
        return []


class KnotTunable(Tunable):
    """The knot heights ``g_0..g_d`` of ``g`` in [LL20]'s family ``G_d``, in one box.

    Args:
        bounds: Default box of every height.
    """

    def __init__(self, bounds: tuple[float, float]) -> None:
        self.default_bounds = (float(bounds[0]), float(bounds[1]))

    def parameters(self, *, d: int, bounds: tuple[float, float] | None) -> tuple[TunableParam, ...]:
        """``g0 .. g{d}``, each in ``bounds``."""
        low, high = bounds if bounds is not None else self.default_bounds  # type: ignore[misc]
        return tuple(TunableParam(f"g{j}", low, high) for j in range(d + 1))

    def knots(self, point: Mapping[str, float], *, d: int) -> tuple[float, ...]:
        """The heights ``(g_0, ..., g_d)`` of a point."""
        return tuple(float(point[f"g{j}"]) for j in range(d + 1))

    def backup_params(self, point: Mapping[str, float], *, d: int) -> dict[str, Any]:
        """``{"g": [g_0, ..., g_d]}``."""
        return {"g": list(self.knots(point, d=d))}


class MonotoneTunable(KnotTunable):
    """Monotone MCTS: the weight ``f(n) = 1 + ∫_0^n exp(g)`` of the n-th return ([LL20] §3.1).

    Drawn as the weight relative to standard MCTS's uniform weights and the update step
    ``f(n) / F(n)`` against standard MCTS's ``1/n``.
    """

    figure_size = (11.0, 4.2)

    def profile(self, point: Mapping[str, float], n_simulations: int, *, d: int) -> np.ndarray:
        """The weight ``f(k) = 1 + ∫_0^k exp(g)`` for ``k = 0..N`` (the backup's own table)."""
        return np.exp(log_weight_table(self.knots(point, d=d), n_simulations, f0=1.0))

    def plot_profile(
        self, fig: Any, curves: Sequence[Curve], *, d: int, n_simulations: int
    ) -> list[Any]:
        """Two panels: relative weights and step sizes."""
        n = np.arange(1, n_simulations + 1)
        ax_w, ax_s = fig.subplots(1, 2)
        for curve in reversed(curves):
            f = self.profile(curve.point, n_simulations, d=d)[1:]
            ax_w.plot(n, f / f.mean(), **curve.style)  # standard MCTS: every return weighs 1
            ax_s.plot(n, f / np.cumsum(f), **curve.style)
        ax_w.axhline(1.0, color="black", linestyle="--", linewidth=1, label="standard MCTS")
        ax_s.plot(
            n, 1.0 / n, color="black", linestyle="--", linewidth=1, label="standard MCTS (1/n)"
        )
        ax_w.set(
            yscale="log",
            xlabel="visit index n of the return",
            ylabel="relative weight w(n) = f(n) / mean f",
            title="Monotone MCTS: weight of the n-th return",
        )
        ax_s.set(
            yscale="log",
            xlabel="visit count n",
            ylabel="step size f(n) / F(n)",
            title="Monotone MCTS: update step",
        )
        return [ax_w, ax_s]


class SoftmaxTunable(KnotTunable):
    """Softmax MCTS: the temperature ``τ(n) = ∫_0^n exp(g)`` over a node's visits ([LL20] §3.2)."""

    def profile(self, point: Mapping[str, float], n_simulations: int, *, d: int) -> np.ndarray:
        """The temperature ``τ(k) = ∫_0^k exp(g)`` for ``k = 0..N`` (the backup's own table)."""
        return tau_table(self.knots(point, d=d), n_simulations)

    def plot_profile(
        self, fig: Any, curves: Sequence[Curve], *, d: int, n_simulations: int
    ) -> list[Any]:
        """One panel: ``τ(n)`` on a log scale."""
        n = np.arange(1, n_simulations + 1)
        ax = fig.subplots()
        for curve in reversed(curves):
            tau = self.profile(curve.point, n_simulations, d=d)[1:]
            ax.plot(n, np.maximum(tau, 1e-12), **curve.style)
        ax.set(
            yscale="log",
            xlabel="visit count n of the node",
            ylabel="temperature τ(n)",
            title="Softmax MCTS: τ(n) (τ → 0: mean, τ → ∞: max)",
        )
        return [ax]


def tunable_of(backup_class: type) -> Tunable | None:
    """The :class:`Tunable` a backup class declares, ``None`` when it declares none."""
    tunable = getattr(backup_class, "tunable", None)
    return tunable if isinstance(tunable, Tunable) else None
