"""The agent protocol: anything that chooses moves in a :class:`go_env.state.GoState`.

An agent is asked for an action each time it is to move. It receives the live game state (which
it must not modify: planning agents ``clone()`` it) and the environment's observation for its
seat, and returns an action index (``N*N`` is pass).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from go_env.state import Color as GoColor
from go_env.state import GoState

__all__ = ["Agent", "AgentError", "Resignation"]


class AgentError(Exception):
    """An agent could not be built or could not choose a move."""


class Resignation(AgentError):
    """Raised by ``act`` when the agent resigns the game instead of moving.

    The game runner (:func:`agents.game.play_game`) records the game as lost by ``color``
    (``"B+R"``/``"W+R"``).

    Attributes:
        color: The colour that resigns (the player to move).
    """

    def __init__(self, color: GoColor, message: str = "") -> None:
        super().__init__(message or f"{color.name.lower()} resigns")
        self.color = color


@runtime_checkable
class Agent(Protocol):
    """What the environment, the arena and the GTP engine need from a player.

    ``reset`` starts a new game, ``act`` returns a legal action for the player to move, and
    ``close`` releases resources (processes, threads); agents without resources may leave
    ``close`` as a no-op.
    """

    name: str

    def reset(self) -> None:
        """Forget the previous game (search trees, caches); called before each game."""

    def act(self, state: GoState, observation: dict[str, Any] | None = None) -> int:
        """Choose an action for ``state.to_play``; ``state`` must be left unchanged."""
        ...

    def close(self) -> None:
        """Release resources; the agent is not used afterwards."""
