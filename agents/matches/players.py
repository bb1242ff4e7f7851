"""The players of one process: agents built once and reused across games, and their clocks.

Building an agent can be dear (a network loaded, a GTP engine started), so a process keeps
the agents of the last game it played (:class:`Players`, one per game it plays at once) and,
before each game, reseeds them: through the agent's ``reseed(seed)`` method when it has one
(e.g. the ``gtp`` agent), else, when its config has a ``seed`` field, by building it again
with that seed (a seed in the spec is replaced), else it is reused as it is. A GTP referee
engine is kept the same way.

:class:`TimedAgent` counts an agent's moves and the seconds it spends on them, including its
share of the network calls shared with other games (:mod:`agents.mcts.multi`).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from agents.base import Agent
from agents.game import move_steps
from agents.mcts.multi import Steps
from agents.registry import agent_config, make_agent
from go_env.state import GoState

__all__ = ["Players", "TimedAgent"]


class TimedAgent:
    """An agent wrapper that counts the moves and the time the agent spends on them."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.seconds = 0.0
        self.moves = 0

    def reset(self) -> None:
        """Reset the wrapped agent for a new game (its clock runs on)."""
        self.agent.reset()

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        """The agent's move, timed."""
        start = time.perf_counter()
        move = self.agent.act(state, observation)
        self.seconds += time.perf_counter() - start
        self.moves += 1
        return move

    def act_steps(self, state: GoState, observation: dict[str, Any] | None = None) -> Steps[int]:
        """The agent's move as a coroutine, timed.

        Its time is its own work plus its share of the shared evaluations that answered it
        (:attr:`~agents.mcts.multi.LeafRequest.seconds`).
        """
        steps = move_steps(self.agent, state, observation)
        seconds = 0.0
        start = time.perf_counter()
        try:
            request = next(steps)
            while True:
                seconds += time.perf_counter() - start
                answer = yield request
                seconds += request.seconds
                start = time.perf_counter()
                request = steps.send(answer)
        except StopIteration as stop:
            move: int = stop.value
        self.seconds += seconds + time.perf_counter() - start
        self.moves += 1
        return move

    def close(self) -> None:
        """The wrapped agent is closed by its owner."""


class Players:
    """The agents (and referee) of one process, built once and reused across games."""

    def __init__(self) -> None:
        self._agents: dict[str, tuple[str, Agent]] = {}
        self._referee: tuple[str, Any] | None = None

    def agent(self, side: str, spec: str, seed: int) -> Agent:
        """The agent of ``side`` ("a" or "b") for ``spec``, seeded with ``seed``."""
        config = agent_config(spec)
        cached = self._agents.pop(side, None)
        agent = cached[1] if cached is not None and cached[0] == spec else None
        if cached is not None and agent is None:  # another spec on this side: retire it
            cached[1].close()
        reseed = getattr(agent, "reseed", None)
        seeded = "seed" in {f.name for f in dataclasses.fields(config)}
        if agent is not None and (callable(reseed) or not seeded):
            if callable(reseed):
                reseed(seed)
            self._agents[side] = (spec, agent)
            return agent
        if agent is not None:
            agent.close()
        agent = make_agent(dataclasses.replace(config, seed=seed) if seeded else config)
        reseed = getattr(agent, "reseed", None)
        if callable(reseed):
            reseed(seed)
        self._agents[side] = (spec, agent)
        return agent

    def referee(self, command: str) -> Any:
        """The referee engine for a GTP command line (a ``gtp`` agent)."""
        if self._referee is None or self._referee[0] != command:
            from agents.gtp.client_agent import GtpConfig

            if self._referee is not None:
                self._referee[1].close()
            self._referee = (command, GtpConfig(cmd=command).build())
        return self._referee[1]

    def close(self) -> None:
        """Close every agent and the referee."""
        for _, agent in self._agents.values():
            agent.close()
        self._agents.clear()
        if self._referee is not None:
            self._referee[1].close()
            self._referee = None
