"""One game of a match, as a coroutine: players, clocks, referee and outcome.

Game ``index`` of a :class:`~agents.matches.match.MatchConfig` is pair ``index // 2``'s
opening, agent A Black when ``index`` is even, each agent seeded from the match seed and the
index; the players come from a :class:`~agents.matches.players.Players` cache and are timed
(:class:`~agents.matches.players.TimedAgent`).

Scoring. Games are scored by Tromp-Taylor area. A game that ends by two passes may still
have dead stones on the board, which an engine such as GNU Go does not bother to capture; a
*referee* then names the dead stones, which are removed before counting
(:attr:`MatchConfig.referee <agents.matches.match.MatchConfig>`): ``"auto"`` (the default)
uses a player that can judge them, i.e. offers ``final_status_dead(state)`` (the ``gtp``
agent, through ``final_status_list dead``; agent B is asked first); ``"none"`` scores the
board as it stands; any other value is the command line of a GTP engine that referees every
game, as ``gogui-twogtp -referee`` does. Games cut by the move cap are scored as they stand.

A game is a coroutine (:func:`match_game_steps`) that yields its searches' leaf evaluations;
:func:`play_match_game` answers them alone, :func:`play_games` plays many games at once with
one network call per round (:func:`agents.mcts.multi.round_robin`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterable

from agents.base import Agent
from agents.game import play_game_steps
from agents.matches.match import ArenaError, MatchConfig
from agents.matches.players import Players, TimedAgent
from agents.matches.results import GameOutcome
from agents.mcts.multi import SharedEvaluation, Steps, answer_alone, round_robin
from go_env.dead_stones import result_string, score_without
from go_env.state import Color, GoState

__all__ = ["match_game_steps", "play_games", "play_match_game"]


def _judge(
    config: MatchConfig,
    players: Players,
    state: GoState,
    black: Agent,
    white: Agent,
    a_black: bool,
) -> tuple[list[int], str | None]:
    """Dead stones of a game that ended by passes, and who judged them."""
    if config.referee == "none" or not state.is_terminal:
        return [], None
    if config.referee == "auto":
        b_agent, a_agent = (white, black) if a_black else (black, white)
        for agent in (b_agent, a_agent):
            judge = getattr(agent, "final_status_dead", None)
            if callable(judge):
                return list(judge(state)), agent.name
        return [], None
    referee = players.referee(config.referee)
    return list(referee.final_status_dead(state)), config.referee


def play_match_game(config: MatchConfig, index: int, players: Players | None = None) -> GameOutcome:
    """Play game ``index`` of a match and return its outcome (what a worker does).

    Args:
        config: The match.
        index: The game index (``0 <= index``; games beyond ``config.games`` are allowed).
        players: Agents to reuse; by default they are built for this game and closed.

    Raises:
        ArenaError: When an agent fails; the message names the game.
    """
    own = players is None
    players = players or Players()
    try:
        return answer_alone(match_game_steps(config, index, players))
    finally:
        if own:
            players.close()


def match_game_steps(config: MatchConfig, index: int, players: Players) -> Steps[GameOutcome]:
    """:func:`play_match_game` as a coroutine yielding its leaf evaluations.

    Driven alone (:func:`~agents.mcts.multi.answer_alone`) it is :func:`play_match_game`;
    :func:`play_games` drives many at once, one evaluator call per round.

    Raises:
        ArenaError: When an agent fails; the message names the game.
    """
    try:
        return (yield from _play(config, index, players))
    except ArenaError:
        raise
    except Exception as exc:
        raise ArenaError(
            f"game {index} ({config.agent_a} vs {config.agent_b}) failed: "
            f"{type(exc).__name__}: {exc}"
        ) from exc


def play_games(
    config: MatchConfig,
    indices: Iterable[int],
    width: int,
    slots: list[Players] | None = None,
    *,
    shared: SharedEvaluation | None = None,
) -> Generator[GameOutcome, None, None]:
    """Play games ``width`` at a time in this process, yielding each as it finishes.

    Each game is the same game as :func:`play_match_game` plays alone; the leaves of the
    searches of all running games are evaluated together (:func:`agents.mcts.multi.round_robin`).

    Args:
        config: The match.
        indices: The games to play, started in this order (read lazily).
        width: Games at once, an int ``>= 1`` (a match checks its ``games_per_worker`` once,
            in :func:`agents.matches.arena.iter_games`; :func:`~agents.mcts.multi.round_robin`
            refuses any other value with a ``ValueError``).
        slots: Agents to reuse, one set per running game (at least ``width``); by default
            they are built here as games start and closed at the end.
        shared: The shared evaluation (and its statistics); a new one by default.

    Raises:
        ValueError: For fewer ``slots`` than ``width``.
    """
    if slots is not None and len(slots) < width:
        raise ValueError(f"play_games needs {width} player slots, got {len(slots)}")
    free = list(reversed(slots[:width])) if slots is not None else []
    built: list[Players] = []

    def take() -> Players:
        if free:
            return free.pop()
        built.append(Players())  # the next set of this call's own, as a game needs one
        return built[-1]

    def start(index: int) -> Callable[[], Steps[GameOutcome]]:
        def steps() -> Steps[GameOutcome]:
            players = take()
            try:
                return (yield from match_game_steps(config, index, players))
            finally:
                free.append(players)

        return steps

    try:
        for _, game in round_robin(((i, start(i)) for i in indices), width, shared=shared):
            yield game
    finally:
        for players in built:
            players.close()


def _play(config: MatchConfig, index: int, players: Players) -> Steps[GameOutcome]:
    pair, a_black = index // 2, index % 2 == 0
    opening = config.opening(pair)
    seed_a, seed_b = config.agent_seeds(index)
    agent_a = players.agent("a", config.agent_a, seed_a)
    agent_b = players.agent("b", config.agent_b, seed_b)
    black, white = (agent_a, agent_b) if a_black else (agent_b, agent_a)
    timed_black, timed_white = TimedAgent(black), TimedAgent(white)
    start = time.perf_counter()
    game = yield from play_game_steps(timed_black, timed_white, config.rules, opening=opening)
    state = game.state
    dead: list[int]
    if game.resigned is not None:
        dead, referee, score, winner = [], None, game.score, game.winner
        result, ended_by = game.result, "resignation"
    else:
        dead, referee = _judge(config, players, state, black, white, a_black)
        score = score_without(state, dead) if dead else game.score
        winner = Color.BLACK if score > 0 else Color.WHITE if score < 0 else Color.EMPTY
        result = result_string(score)
        ended_by = "passes" if state.is_terminal else "move cap"
    a_colour = Color.BLACK if a_black else Color.WHITE
    score_a = 0.5 if winner == Color.EMPTY else float(winner == a_colour)
    return GameOutcome(
        index=index,
        pair=pair,
        a_black=a_black,
        black=config.agent_a if a_black else config.agent_b,
        white=config.agent_b if a_black else config.agent_a,
        opening=tuple(opening),
        moves=tuple(move for _, move in state.history),
        result=result,
        score=score,
        raw_score=game.score,
        dead=tuple(dead),
        referee=referee,
        ended_by=ended_by,
        score_a=score_a,
        seed_black=seed_a if a_black else seed_b,
        seed_white=seed_b if a_black else seed_a,
        moves_black=timed_black.moves,
        moves_white=timed_white.moves,
        time_black=timed_black.seconds,
        time_white=timed_white.seconds,
        duration=time.perf_counter() - start,
    )
