"""Leaf-evaluator plugins: the entry-point group ``gomcts.evaluators``.

``mcts:evaluator=NAME[:key=value,...]`` names a plugin of this group. A plugin is a frozen,
keyword-only dataclass (its options, set by the spec) with a method

    ``build(*, seed: int | None = None, score_scale: float = 0.0) -> Evaluator``

returning the :class:`~agents.mcts.evaluators.Evaluator` the search calls on its leaves:
``seed`` seeds whatever the evaluator draws (``None``: fresh entropy), ``score_scale`` is the
agent's rollout value scale (:class:`~agents.mcts.config.MCTSConfig`), for evaluators that play
rollouts. Built-ins, declared in our ``pyproject.toml`` exactly as a third-party distribution
declares its own:

* ``rollout`` (:class:`RolloutEvaluatorConfig`): random rollouts, uniform priors
  (``rollout:playout=heavy`` for the heavy playout policy, ``rollouts=4`` for the mean of four
  playouts per leaf);
* ``net`` (:class:`agents.nets.evaluator_spec.NetEvaluatorConfig`): a policy/value network
  (the ``nets`` extra), found through its entry point so that ``agents.mcts`` never imports
  ``agents.nets``;
* ``mix`` (:class:`MixEvaluatorConfig`): AlphaGo's lambda mix of another evaluator's value
  with a rollout, ``v = (1 - lam) v_value + lam z`` (Silver et al., Nature 2016).

Conformance tests for a plugin: :class:`agents.mcts.testing.EvaluatorContract`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from agents.mcts.evaluators import (
    Evaluator,
    MixedEvaluator,
    RolloutEvaluator,
    check_playout,
    check_rollouts,
)
from agents.plugins import Registry, plugin_field, resolve_plugin_fields

__all__ = [
    "EVALUATORS",
    "EvaluatorPlugin",
    "MixEvaluatorConfig",
    "RolloutEvaluatorConfig",
    "check_evaluator_class",
    "make_evaluator",
]


@runtime_checkable
class EvaluatorPlugin(Protocol):
    """What the ``mcts`` agent needs from an evaluator plugin (see the module docstring)."""

    def build(self, *, seed: int | None = None, score_scale: float = 0.0) -> Evaluator:
        """A new evaluator seeded from ``seed``."""
        ...


def check_evaluator_class(obj: object) -> type:
    """Validate an evaluator plugin's class; raise ``TypeError`` saying what is missing."""
    if not (isinstance(obj, type) and dataclasses.is_dataclass(obj)):
        raise TypeError(f"expected a dataclass class, got {obj!r}")
    if not callable(getattr(obj, "build", None)):
        raise TypeError(f"{obj.__name__} lacks build(*, seed, score_scale) returning an Evaluator")
    return obj


EVALUATORS: Registry[type] = Registry(
    "gomcts.evaluators", "leaf evaluator", check_evaluator_class, label="evaluator"
)
"""The leaf evaluators installed (``rollout``, ``net``, ``mix`` and any plugin's)."""


def make_evaluator(spec: str | Any) -> Any:
    """The evaluator plugin (its options, not yet built) a spec names; an instance passes through.

    Raises:
        agents.spec.SpecError: A malformed spec or a bad option.
        agents.plugins.PluginError: An unknown or broken evaluator plugin.
    """
    return EVALUATORS.build(spec)


@dataclass(frozen=True, kw_only=True)
class RolloutEvaluatorConfig:
    """``rollout``: compiled playouts from each leaf (one by default), uniform priors.

    The value scale is the agent's ``score_scale``. With one light playout the ``mcts`` agent
    lets its search seed this evaluator (:class:`~agents.mcts.search.Search`), as before plugins
    existed, so that seeded games stay the same.

    Args:
        playout: ``"light"`` (default), ``"heavy"``, ``"nakade"``,
            ``"patterns"`` or ``"lowlib"``
            (:class:`~agents.mcts.evaluators.RolloutEvaluator`).
        rollouts: Playouts from each leaf, their values averaged (default 1).
    """

    playout: Literal["light", "heavy", "nakade", "patterns", "lowlib"] = "light"
    rollouts: int = 1

    def __post_init__(self) -> None:
        check_playout(self.playout)
        check_rollouts(self.rollouts)

    def build(self, *, seed: int | None = None, score_scale: float = 0.0) -> RolloutEvaluator:
        """A :class:`~agents.mcts.evaluators.RolloutEvaluator`."""
        return RolloutEvaluator(
            seed=seed, score_scale=score_scale, playout=self.playout, rollouts=self.rollouts
        )


@dataclass(frozen=True, kw_only=True)
class MixEvaluatorConfig:
    """``mix``: the value of another evaluator mixed with a random rollout (AlphaGo, Boke Go).

    ``v = (1 - lam) * v_value + lam * z_rollout``; the priors are those of ``value``
    (David Silver et al., *Mastering the game of Go with deep neural networks and tree search*,
    Nature 2016: ``lam = 0.5``; Boke Go uses the same mix at 1/2, ``docs/protocol.md#boke-go``).

    Args:
        value: The evaluator whose priors and values are mixed, a nested evaluator spec
            (``mcts:evaluator="mix:value=net,lam=0.5"``); default ``net``, the shipped network.
        lam: Weight of the rollout, in ``[0, 1]``.
        playout: The rollout's policy, ``"light"`` (default), ``"heavy"``, ``"nakade"``,
            ``"patterns"`` or ``"lowlib"``
            (:class:`~agents.mcts.evaluators.RolloutEvaluator`).
        rollouts: Rollouts from each leaf, their values averaged into ``z_rollout`` (default 1).
    """

    value: EvaluatorPlugin = plugin_field(EVALUATORS, "net")
    lam: float = 0.5
    playout: Literal["light", "heavy", "nakade", "patterns", "lowlib"] = "light"
    rollouts: int = 1

    def __post_init__(self) -> None:
        resolve_plugin_fields(self)
        check_playout(self.playout)
        check_rollouts(self.rollouts)
        lam = self.lam
        if not (
            isinstance(lam, (int, float))
            and not isinstance(lam, bool)
            and math.isfinite(lam)
            and 0.0 <= lam <= 1.0
        ):
            raise ValueError(f"lam must be a number in [0, 1], got {lam!r}")

    def build(self, *, seed: int | None = None, score_scale: float = 0.0) -> MixedEvaluator:
        """The mixed evaluator; ``value`` and the rollout get independent seeds from ``seed``."""
        seeds = np.random.SeedSequence(seed).generate_state(2)
        value = self.value.build(seed=int(seeds[0]), score_scale=score_scale)
        rollout = RolloutEvaluator(
            seed=int(seeds[1]),
            score_scale=score_scale,
            playout=self.playout,
            rollouts=self.rollouts,
        )
        return MixedEvaluator(value, rollout, lam=self.lam)
