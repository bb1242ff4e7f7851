"""Play one game between two agents in the PettingZoo environment.

The single code path for whole games: the ``gomcts play`` command uses it now, and the arena
builds on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import go_env
from agents.base import Agent
from go_env.rules import Rules
from go_env.state import Color, GoState

__all__ = ["GameResult", "play_game"]


@dataclass
class GameResult:
    """Outcome of one game.

    Attributes:
        state: The final game state (moves, board, score).
        winner: ``Color.BLACK``, ``Color.WHITE`` or ``Color.EMPTY`` (draw).
        score: Tromp-Taylor area score, Black - White - komi.
        result: The result string (``"B+3.5"``).
        truncated: Whether the move cap ended the game.
        names: ``{Color.BLACK: ..., Color.WHITE: ...}`` agent names.
    """

    state: GoState
    winner: Color
    score: float
    result: str
    truncated: bool
    names: dict[Color, str] = field(default_factory=dict)


def play_game(
    black: Agent,
    white: Agent,
    rules: Rules | None = None,
    *,
    on_move: Callable[[GoState, int], None] | None = None,
) -> GameResult:
    """Play a whole game in the AEC environment and return its outcome.

    Args:
        black: The agent that plays Black.
        white: The agent that plays White.
        rules: Rules of the game (9x9, komi 7.5, positional superko by default).
        on_move: Called after each move with the new state and the move (e.g. to render).
    """
    rules = rules or Rules()
    env = go_env.raw_env(
        board_size=rules.size,
        komi=rules.komi,
        ko=rules.ko.value,
        suicide=rules.suicide,
        max_moves=rules.max_moves,
        handicap=rules.handicap,
    )
    env.reset()
    seats = {"black_0": black, "white_0": white}
    for agent in seats.values():
        agent.reset()
    for seat in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        state = env.unwrapped.state
        move = seats[seat].act(state, observation)
        env.step(move)
        if on_move is not None:
            on_move(env.unwrapped.state, move)
    final = env.unwrapped.state
    winner = final.winner
    assert winner is not None, "the environment ended a game that is not over"
    return GameResult(
        state=final,
        winner=winner,
        score=final.score(),
        result=final.result(),
        truncated=final.is_truncated,
        names={Color.BLACK: black.name, Color.WHITE: white.name},
    )
