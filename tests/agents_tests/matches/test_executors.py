"""The match executors (agents/matches/executors.py): one protocol, the same games everywhere.

Every implementation of :class:`~agents.matches.executors.Executor` plays a tiny match; each
must yield exactly the games that one process plays alone (same moves, same results), and a
stop must hand over the games still running instead of losing them.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor

import pytest

from agents.matches.executors import (
    Executor,
    InProcessExecutor,
    PoolExecutor,
    StreamExecutor,
    init_cluster_worker,
    init_worker,
)
from agents.matches.game import play_match_game
from agents.matches.match import ArenaError, MatchConfig
from agents.matches.results import GameOutcome
from go_env.rules import Rules

CONFIG = MatchConfig(agent_a="mcts:sims=6", agent_b="random", games=6, rules=Rules(size=5), seed=11)
TODO = list(range(CONFIG.games))


def _played(game: GameOutcome) -> tuple[object, ...]:
    """What decides a game (its clocks aside)."""
    return (game.index, game.a_black, game.opening, game.moves, game.result, game.score_a)


@pytest.fixture(scope="module")
def alone() -> dict[int, tuple[object, ...]]:
    """Every game of the match, each played alone in this process."""
    return {i: _played(play_match_game(CONFIG, i)) for i in TODO}


def _process_pool(processes: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(
        processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=init_worker,
        initargs=(os.getpid(),),
    )


EXECUTORS: dict[str, Callable[[MatchConfig], Executor]] = {
    "in process": lambda config: InProcessExecutor(config),
    "in process, 3 at once": lambda config: InProcessExecutor(config, 3),
    "process pool": lambda config: PoolExecutor(config, _process_pool(2), ahead=4),
    "stream, 2 processes x 2": lambda config: StreamExecutor(config, 2, 2),
}


def _run(executor: Executor, todo: list[int]) -> Iterator[GameOutcome]:
    """Read the executor as the arena does: games, then stop and close."""
    games = executor.games(todo)
    try:
        yield from games
    finally:
        games.close()
        executor.stop(lambda game: None)
        executor.close()


@pytest.mark.parametrize("name", list(EXECUTORS))
def test_every_executor_plays_the_games_one_process_plays_alone(
    name: str, alone: dict[int, tuple[object, ...]]
) -> None:
    executor = EXECUTORS[name](CONFIG)
    assert isinstance(executor, Executor)
    games = list(_run(executor, TODO))
    assert sorted(g.index for g in games) == TODO  # each game once, in any order
    assert {g.index: _played(g) for g in games} == alone


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs Ray (gomcts[cluster])")
def test_the_ray_executor_plays_the_same_games(alone: dict[int, tuple[object, ...]]) -> None:
    from agents.matches.ray_pool import RayPool, import_ray

    ray = import_ray()
    started_here = not ray.is_initialized()
    try:
        pool = RayPool("local", slots=2, initializer=init_cluster_worker)
        games = list(_run(PoolExecutor(CONFIG, pool, ahead=4), TODO))
    finally:
        if started_here:
            ray.shutdown()
    assert {g.index: _played(g) for g in games} == alone


def test_with_ray_and_no_workers_the_arena_leaves_the_count_to_the_cluster(monkeypatch) -> None:
    import agents.matches.arena as arena

    asked: list[object] = []

    def pick(config: MatchConfig, todo: list[int], workers: object, ray: object, k: int):
        asked.append(workers)
        return InProcessExecutor(config)

    monkeypatch.setattr(arena, "_pick_executor", pick)
    assert len(list(arena.iter_games(CONFIG, ray="auto"))) == CONFIG.games
    assert len(list(arena.iter_games(CONFIG))) == CONFIG.games
    assert asked == [None, os.cpu_count() or 1]  # not this machine's cores on a cluster


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs Ray (gomcts[cluster])")
def test_a_ray_pool_without_workers_has_one_slot_per_cpu_of_the_cluster() -> None:
    from agents.matches.arena import _pick_executor
    from agents.matches.ray_pool import import_ray

    ray = import_ray()
    if ray.is_initialized():
        pytest.skip("this process is already connected to a Ray of unknown size")
    cpus = (os.cpu_count() or 1) + 3  # more than this machine has: the cluster's count
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    try:
        executor = _pick_executor(CONFIG, TODO, None, "auto", 1)
        try:
            assert executor._pool.slots == cpus  # type: ignore[attr-defined]
            assert executor._ahead() == 2 * cpus  # type: ignore[attr-defined]
        finally:
            executor.close()
    finally:
        ray.shutdown()


@pytest.mark.parametrize(("name", "most"), [("process pool", 4), ("stream, 2 processes x 2", 199)])
def test_a_stop_hands_over_the_games_still_running(name: str, most: int) -> None:
    # The pool holds `ahead` = 4 games at most; the stream's workers read indices as slots
    # free, so some more may have started (on a fast machine, dozens) before the stop drains
    # the queue, never all 200.
    config = dataclasses.replace(CONFIG, agent_a="mcts:sims=48", games=200)
    executor = EXECUTORS[name](config)
    games = executor.games(list(range(config.games)))
    first = next(games)
    kept: list[GameOutcome] = []
    games.close()
    executor.stop(kept.append)
    executor.close()
    indices = [first.index] + [g.index for g in kept]
    assert len(set(indices)) == len(indices)
    assert 2 <= len(indices) <= most  # another worker was playing: its game is kept
    for game in [first, *kept]:
        assert _played(game) == _played(play_match_game(config, game.index))


@pytest.mark.parametrize("name", ["in process", "stream, 2 processes x 2"])
def test_a_failing_game_is_an_arena_error(name: str) -> None:
    bad = MatchConfig(
        agent_a='gtp:cmd="/nonexistent/engine --mode gtp"',
        agent_b="random",
        games=2,
        rules=Rules(size=5),
    )
    with pytest.raises(ArenaError, match="nonexistent"):
        list(_run(EXECUTORS[name](bad), [0, 1]))


@pytest.mark.parametrize(
    ("workers", "k", "todo", "kind", "width"),
    [
        (1, 1, 6, InProcessExecutor, None),
        (4, 1, 1, InProcessExecutor, None),  # one game left: no pool for it
        (2, 1, 6, PoolExecutor, None),
        (1, 4, 6, InProcessExecutor, 4),
        (4, 8, 1, InProcessExecutor, 1),  # K > 1 keeps the shared evaluation
        (2, 8, 6, StreamExecutor, None),
    ],
)
def test_the_arena_picks_the_executor_from_workers_k_and_the_games_left(
    workers: int, k: int, todo: int, kind: type, width: int | None
) -> None:
    from agents.matches.arena import _pick_executor

    executor = _pick_executor(CONFIG, list(range(todo)), workers, None, k)
    try:
        assert type(executor) is kind
        if width is not None:
            assert executor._width == width  # type: ignore[attr-defined]
    finally:
        executor.close()
