"""RayStreamPool (agents/matches/ray_stream_pool.py): StreamPool's games on Ray actors.

A private Ray of 2 CPUs plays a tiny match through the arena's stream worker (``K = 2`` games
at once per actor): every game must come back once and be the game one process plays alone;
a worker killed mid-match must cost nothing but time; a stop keeps the games in flight; a
game that raises fails the pool with its message. Skipped without Ray (``gomcts[cluster]``).
"""

from __future__ import annotations

import dataclasses
import importlib.util
from typing import Any

import pytest

from agents.matches.executors import _stream_games
from agents.matches.game import play_match_game
from agents.matches.match import MatchConfig
from agents.matches.results import GameOutcome
from agents.matches.stream_pool import WorkerError
from go_env.rules import Rules

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("ray") is None, reason="needs Ray (gomcts[cluster])"
    ),
]

CONFIG = MatchConfig(agent_a="mcts:sims=6", agent_b="random", games=8, rules=Rules(size=5), seed=11)


def _played(game: GameOutcome) -> tuple[object, ...]:
    return (game.index, game.a_black, game.opening, game.moves, game.result, game.score_a)


def _pool(config: MatchConfig, **options: Any) -> Any:
    from agents.matches.ray_stream_pool import RayStreamPool

    return RayStreamPool(_stream_games, (config, 2), 2, **options)


def test_the_games_are_those_one_process_plays_alone(ray: Any) -> None:
    pool = _pool(CONFIG)
    try:
        games = list(pool.games(range(CONFIG.games)))
    finally:
        pool.close()
    assert sorted(g.index for g in games) == list(range(CONFIG.games))
    assert {g.index: _played(g) for g in games} == {
        i: _played(play_match_game(CONFIG, i)) for i in range(CONFIG.games)
    }


KILLED = dataclasses.replace(CONFIG, agent_a="mcts:sims=24", games=10)
"""A match long enough that a worker killed after the first game has games in flight."""


def _games_with_a_worker_killed(ray: Any, pool: Any) -> list[GameOutcome]:
    """``KILLED``'s games from ``pool``, one of its workers killed after the first game."""
    try:
        games = pool.games(range(KILLED.games))
        got = [next(games)]
        ray.kill(next(iter(pool._actors.values())))  # its process ends with games in flight
        got += list(games)
    finally:
        pool.close()
    return got


def test_a_killed_worker_is_replaced_and_its_games_played_again(ray: Any) -> None:
    got = _games_with_a_worker_killed(ray, _pool(KILLED))
    assert sorted(g.index for g in got) == list(range(KILLED.games))  # each once, none lost
    for game in got:
        assert _played(game) == _played(play_match_game(KILLED, game.index))


def test_a_take_of_a_killed_worker_that_arrives_late_takes_nothing(ray: Any) -> None:
    """The race of a worker killed while asking for its next index: its call reaches the
    dispenser after the driver has put its games back. Played here on purpose, right after
    the give-back: the late call must not take a game back for the dead worker."""
    pool = _pool(KILLED)
    late: list[Any] = []
    replace = pool._replace

    def replace_then_take_late(name: int, exc: BaseException) -> None:
        replace(name, exc)
        late.append(ray.get(pool._dispenser.take.remote(name)))

    pool._replace = replace_then_take_late
    got = _games_with_a_worker_killed(ray, pool)
    assert late == [None]
    assert sorted(g.index for g in got) == list(range(KILLED.games))


def test_workers_that_keep_dying_fail_the_pool(ray: Any) -> None:
    pool = _pool(KILLED, max_restarts=0)
    try:
        games = pool.games(range(KILLED.games))
        next(games)
        ray.kill(next(iter(pool._actors.values())))
        with pytest.raises(WorkerError, match="died too often"):
            list(games)
    finally:
        pool.close()


def test_a_stop_keeps_the_games_in_flight(ray: Any) -> None:
    config = dataclasses.replace(CONFIG, agent_a="mcts:sims=24", games=40)
    pool = _pool(config)
    games = pool.games(range(config.games))
    first = next(games)
    kept: list[GameOutcome] = []
    games.close()
    pool.stop(kept.append)
    pool.close()
    indices = [first.index] + [g.index for g in kept]
    assert len(set(indices)) == len(indices)
    assert 2 <= len(indices) < config.games  # the others' games were kept, no new ones begun


def test_a_failing_game_is_a_worker_error(ray: Any) -> None:
    bad = dataclasses.replace(CONFIG, agent_a='gtp:cmd="/nonexistent/engine --mode gtp"', games=2)
    pool = _pool(bad)
    try:
        with pytest.raises(WorkerError, match="nonexistent"):
            list(pool.games(range(2)))
    finally:
        pool.close()


def test_bad_arguments_are_refused() -> None:
    from agents.matches.ray_stream_pool import RayStreamPool

    with pytest.raises(ValueError, match="workers"):
        RayStreamPool(_stream_games, (CONFIG, 2), 0)
    with pytest.raises(ValueError, match="num_cpus"):
        RayStreamPool(_stream_games, (CONFIG, 2), 1, num_cpus=0)
