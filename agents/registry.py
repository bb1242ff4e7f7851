"""The agent registry: agent configs discovered through the entry-point group ``gomcts.agents``.

An agent plugin is a frozen dataclass (its config) with a ``build()`` method returning an
:class:`~agents.base.Agent`. Our built-ins (``random``, ``mcts``, ...) are registered in our own
``pyproject.toml`` exactly as a third-party distribution would register its own.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from agents.base import Agent
from agents.plugins import Registry
from agents.spec import format_spec

__all__ = ["AGENTS", "agent_config", "agent_spec", "make_agent", "network_digests"]


def _check_agent_config(obj: Any) -> type:
    if not (isinstance(obj, type) and dataclasses.is_dataclass(obj)):
        raise TypeError(f"expected a dataclass config class, got {obj!r}")
    if not callable(getattr(obj, "build", None)):
        raise TypeError(f"{obj.__name__} has no build() method returning an agent")
    return obj


AGENTS: Registry[type] = Registry("gomcts.agents", "agent", _check_agent_config)
"""The agents installed; ``AGENTS.build(spec)`` and ``AGENTS.spec_of(config)`` go both ways."""


def agent_config(spec: str | Any) -> Any:
    """The config dataclass instance for a spec string (a config passes through unchanged).

    Raises:
        agents.spec.SpecError: For a malformed spec or a bad parameter (naming the key and
            listing what is allowed).
        agents.plugins.PluginError: For an unknown or broken agent plugin.
    """
    return AGENTS.build(spec)


def agent_spec(config: Any) -> str:
    """The spec string of an agent config (its registered name plus non-default fields).

    An agent class that is not registered is named by its class name.
    """
    name = AGENTS.name_of(type(config))
    return format_spec(type(config).__name__ if name is None else name, config)


def network_digests(spec: str | Any) -> dict[str, str]:
    """The networks an agent plays with, by the name its spec gives each, and their SHA-256.

    Any object in the agent's config, or nested in it (an MCTS agent's evaluator, a mixed
    evaluator's ``value``), that has a ``network_digests()`` method adds what that returns:
    the ``net`` agent and evaluator give ``{model: digest}``. An agent without a network
    gives ``{}``. An arena results file records them (:meth:`~agents.matches.match.
    MatchConfig.identity`), so that a record names the file it measured.
    """
    found: dict[str, str] = {}

    def visit(obj: Any) -> None:
        if callable(getattr(obj, "network_digests", None)) and not isinstance(obj, type):
            found.update(obj.network_digests())
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            for item in dataclasses.fields(obj):
                visit(getattr(obj, item.name))
        elif isinstance(obj, (list, tuple)):
            for item in obj:
                visit(item)

    visit(agent_config(spec))
    return found


def make_agent(spec: str | Any) -> Agent:
    """Build an agent from a spec string such as ``"mcts:sims=800"`` or from its config."""
    agent = agent_config(spec).build()
    if not isinstance(agent, Agent):
        raise TypeError(f"{type(spec).__name__}.build() returned {agent!r}, not an Agent")
    return agent
