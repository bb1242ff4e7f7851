"""The self-play games of one worker: its evaluator, and the games it reads one index at a time.

:func:`selfplay_worker` is what a worker process of a self-play run executes (the target of
:class:`~agents.matches.stream_pool.StreamPool`, and on a Ray cluster of
:class:`~agents.matches.ray_stream_pool.RayStreamPool` through
:mod:`agents.nets.training.selfplay_ray`): one evaluator, ``width`` games at once
(:func:`~agents.nets.training.generation.play_selfplay_games`), each game seeded by the run,
the generation and its index (:func:`game_seed`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from agents.nets.threads import use_threads
from agents.nets.training.generation import play_selfplay_games
from agents.nets.training.records import GameRecord
from agents.nets.training.selfplay_config import SelfPlayConfig

__all__ = ["game_seed", "selfplay_evaluator", "selfplay_worker"]


def game_seed(seed: int, generation: int, index: int) -> int:
    """The seed of game ``index`` of ``generation`` in a run seeded with ``seed``."""
    return int(np.random.SeedSequence([seed, generation, index]).generate_state(1)[0])


def selfplay_evaluator(config: SelfPlayConfig, model: str, generation: int, first: int) -> Any:
    """The evaluator of a worker whose first game is ``first`` (seeded by it)."""
    from agents.mcts.evaluator_plugins import make_evaluator

    seed = int(
        np.random.SeedSequence([config.seed, generation, first, 0xE7A1]).generate_state(1)[0]
    )
    return make_evaluator(config.evaluator_spec(model)).build(seed=seed)


def selfplay_worker(
    indices: Iterator[int], config: dict[str, Any], model: str, generation: int, width: int
) -> Iterator[GameRecord]:
    """A worker process's games (the target of :class:`~agents.matches.stream_pool.StreamPool`)."""
    run = SelfPlayConfig.from_dict(config)
    use_threads(1)
    evaluator = None
    tasks = ((i, game_seed(run.seed, generation, i)) for i in indices)
    first = next(tasks, None)
    if first is None:
        return
    evaluator = selfplay_evaluator(run, model, generation, first[0])

    def all_tasks() -> Iterator[tuple[int, int]]:
        yield first
        yield from tasks

    yield from play_selfplay_games(evaluator, run.settings(), all_tasks(), width)
