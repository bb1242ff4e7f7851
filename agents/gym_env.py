"""Go against any agent spec as a Gymnasium environment (``go_env/GoVsAgent-v0``).

:class:`go_env.single_agent.GoVsOpponentEnv` takes an opponent callable, so that ``go_env``
imports no agent code; this module resolves agent specs into such opponents. ``import go_env``
registers the id with this module's :func:`make_env` as its entry point (a string: the module
is imported when the id is made):

    >>> import gymnasium, go_env
    >>> env = gymnasium.make("go_env/GoVsAgent-v0", opponent="random", board_size=5)
    >>> obs, info = env.reset(seed=0)
    >>> obs["action_mask"].shape
    (26,)

or without the registry, ``make_env("mcts:sims=50", board_size=9, colour="black")``. The id
without a namespace, ``GoVsAgent-v0`` (registered by importing this module, also as
``"agents.gym_env:GoVsAgent-v0"``), still works with a ``DeprecationWarning`` and goes in the
next release.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import gymnasium

from agents.base import Agent
from agents.registry import agent_config, make_agent
from go_env.single_agent import AGENT_ENV_ID, GoVsOpponentEnv, Opponent
from go_env.state import GoState

__all__ = ["DEPRECATED_ENV_ID", "ENV_ID", "SpecOpponent", "make_env"]

ENV_ID = AGENT_ENV_ID
"""``go_env/GoVsAgent-v0``: ``gymnasium.make(ENV_ID, opponent=SPEC)`` after ``import go_env``."""
DEPRECATED_ENV_ID = "GoVsAgent-v0"
"""The id of old, without a namespace: warns, then makes the same environment."""


class SpecOpponent:
    """An opponent built from an agent spec, reseeded on ``reset(seed=...)`` of the env.

    Reseeding follows the arena (:mod:`agents.matches`): the agent's own ``reseed(seed)``
    when it has one, else, when its config has a ``seed`` field, a new agent with that seed.
    """

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.config = agent_config(spec)
        self.agent: Agent = make_agent(self.config)
        self.name = self.agent.name

    def reseed(self, seed: int) -> None:
        """Restart the agent's randomness from ``seed``."""
        reseed = getattr(self.agent, "reseed", None)
        if callable(reseed):
            reseed(seed)
        elif "seed" in {f.name for f in dataclasses.fields(self.config)}:
            self.agent.close()
            self.agent = make_agent(dataclasses.replace(self.config, seed=seed))

    def reset(self) -> None:
        """A new game for the agent."""
        self.agent.reset()

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        """The agent's move."""
        return int(self.agent.act(state, observation))

    def close(self) -> None:
        """Release the agent."""
        self.agent.close()

    def __repr__(self) -> str:
        return f"SpecOpponent({self.spec!r})"


def make_env(opponent: str | Opponent = "random", **kwargs: Any) -> GoVsOpponentEnv:
    """A :class:`~go_env.single_agent.GoVsOpponentEnv` against ``opponent``.

    Args:
        opponent: An agent spec (``"random"``, ``"mcts:sims=100"``, ``"gtp:cmd=..."``), an
            agent, or any callable ``(state) -> action``.
        **kwargs: The environment's other arguments (``colour``, ``board_size``, ``komi``...).

    Raises:
        agents.spec.SpecError: For a bad spec (unknown agent, bad parameter).
    """
    resolved = SpecOpponent(opponent) if isinstance(opponent, str) else opponent
    return GoVsOpponentEnv(resolved, **kwargs)


def make_env_deprecated(opponent: str | Opponent = "random", **kwargs: Any) -> GoVsOpponentEnv:
    """:func:`make_env` under the old id ``GoVsAgent-v0``, with a ``DeprecationWarning``."""
    warnings.warn(
        f"the Gymnasium id {DEPRECATED_ENV_ID!r} is deprecated and goes in the next release; "
        f"use {ENV_ID!r} (registered by `import go_env`)",
        DeprecationWarning,
        stacklevel=2,
    )
    return make_env(opponent, **kwargs)


if DEPRECATED_ENV_ID not in gymnasium.registry:
    gymnasium.register(DEPRECATED_ENV_ID, entry_point="agents.gym_env:make_env_deprecated")
