"""Play one game between two agents in the PettingZoo environment.

The single code path for whole games: the ``gomcts play`` command uses it now, and the arena
builds on it. :func:`play_game_steps` is the same game as a coroutine, so that one process can
play many games and batch their searches' leaf evaluations (:mod:`agents.mcts.multi`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import go_env
from agents.base import Agent, Resignation
from agents.lifetime import check_stop
from agents.mcts.multi import Steps, answer_alone
from go_env.rules import Rules
from go_env.state import Color, GoState

__all__ = ["GameResult", "move_steps", "play_game", "play_game_steps"]


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
        resigned: The colour that resigned, or ``None``. An agent resigns by raising
            :class:`~agents.base.Resignation` for the colour to move; the result is then
            ``"B+R"``/``"W+R"``, the winner the other colour, and ``score`` the area score of
            the board as it stands.
    """

    state: GoState
    winner: Color
    score: float
    result: str
    truncated: bool
    names: dict[Color, str] = field(default_factory=dict)
    resigned: Color | None = None


def play_game(
    black: Agent,
    white: Agent,
    rules: Rules | None = None,
    *,
    on_move: Callable[[GoState, int], None] | None = None,
    opening: Sequence[int] = (),
) -> GameResult:
    """Play a whole game in the AEC environment and return its outcome.

    Args:
        black: The agent that plays Black.
        white: The agent that plays White.
        rules: Rules of the game (9x9, komi 7.5, positional superko by default).
        on_move: Called after each move with the new state and the move (e.g. to render).
        opening: Moves played first, alternately from the player to move, before the agents
            are asked (e.g. an arena's opening); they are part of the game's history.

    Raises:
        go_env.errors.IllegalMoveError: When an opening move (or an agent's move) is illegal.
    """
    return answer_alone(play_game_steps(black, white, rules, on_move=on_move, opening=opening))


def play_game_steps(
    black: Agent,
    white: Agent,
    rules: Rules | None = None,
    *,
    on_move: Callable[[GoState, int], None] | None = None,
    opening: Sequence[int] = (),
) -> Steps[GameResult]:
    """:func:`play_game` as a coroutine that yields the leaf evaluations of its searches.

    An agent with an ``act_steps`` method (the ``mcts`` agent) is asked for its moves
    through it, and its :class:`~agents.mcts.multi.LeafRequest` are yielded; any other agent
    is asked through ``act``. Driving the coroutine with each request's own evaluator
    (:func:`~agents.mcts.multi.answer_alone`) is :func:`play_game`; driving many at once
    with :func:`~agents.mcts.multi.round_robin` plays them with one evaluator call per round.
    Arguments and errors as :func:`play_game`; the coroutine returns the
    :class:`GameResult`.
    """
    rules = rules or Rules()
    env = go_env.GoEnv.from_rules(rules)
    env.reset()
    seats = {"black_0": black, "white_0": white}
    for agent in seats.values():
        agent.reset()
    for move in opening:
        env.step(int(move))
        if on_move is not None:
            on_move(env.unwrapped.game_state, int(move))
    for seat in env.agent_iter():
        check_stop()  # a stop signal whose KeyboardInterrupt was lost (agents.lifetime)
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        state = env.unwrapped.game_state
        try:
            move = yield from move_steps(seats[seat], state, observation)
        except Resignation as exc:
            if exc.color != state.to_play:
                raise
            return _resigned(state, black, white)
        env.step(move)
        if on_move is not None:
            on_move(env.unwrapped.game_state, move)
    final = env.unwrapped.game_state
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


def move_steps(agent: Agent, state: GoState, observation: dict[str, Any] | None) -> Steps[int]:
    """The agent's move as a coroutine: its ``act_steps`` if it has one, else ``act``."""
    steps = getattr(agent, "act_steps", None)
    if callable(steps):
        return (yield from steps(state, observation))
    return agent.act(state, observation)


def _resigned(state: GoState, black: Agent, white: Agent) -> GameResult:
    """The result of a game that the player to move in ``state`` resigned."""
    loser = state.to_play
    winner = loser.opponent
    return GameResult(
        state=state,
        winner=winner,
        score=state.score(),
        result=f"{'B' if winner == Color.BLACK else 'W'}+R",
        truncated=False,
        names={Color.BLACK: black.name, Color.WHITE: white.name},
        resigned=loser,
    )
