"""Where a match's games are played: one :class:`Executor` protocol, three implementations.

:func:`agents.matches.arena.iter_games` picks an executor for a match and reads its games
without knowing which it picked: every executor plays the games it is given (a game is
decided by the match and its index alone, :mod:`agents.matches.game`, so it is the same game
wherever it runs) and yields each one as it ends, in whatever order they end. The arena puts
them back in index order and records them.

* :class:`InProcessExecutor`: in the calling process, one game at a time, or ``K`` at a time
  sharing their network calls (:func:`~agents.matches.game.play_games`).
* :class:`PoolExecutor`: one game per call of a :class:`concurrent.futures.Executor`, a few
  games ahead of those running: a :class:`~concurrent.futures.ProcessPoolExecutor` of spawned
  worker processes (initialised by :func:`init_worker`), or a
  :class:`~agents.matches.ray_pool.RayPool` whose calls are tasks on a Ray cluster
  (initialised by :func:`init_cluster_worker`; ``docs/cluster.md``).
* :class:`StreamExecutor`: spawned worker processes that each play ``K`` games at once, fed
  one game index at a time (:class:`~agents.matches.stream_pool.StreamPool`).

The protocol is the same three calls for all of them: :meth:`Executor.games` plays,
:meth:`Executor.stop` starts no further game and hands over the games still running as they
end (so a stopped match keeps them), :meth:`Executor.close` releases the processes and
agents. Worker processes build their agents once and reuse them
(:class:`~agents.matches.players.Players`); the ``spawn`` start method is safe with numba and
threads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent import futures
from concurrent.futures import FIRST_COMPLETED, Future, wait
from multiprocessing.util import Finalize
from typing import Protocol, runtime_checkable

from agents.lifetime import die_with_parent
from agents.matches.game import play_games, play_match_game
from agents.matches.match import ArenaError, MatchConfig
from agents.matches.players import Players
from agents.matches.results import GameOutcome
from agents.matches.stream_pool import StreamPool, WorkerError

__all__ = [
    "Executor",
    "InProcessExecutor",
    "PoolExecutor",
    "StreamExecutor",
    "init_cluster_worker",
    "init_worker",
]

log = logging.getLogger(__name__)

Record = Callable[[GameOutcome], None]
"""What receives a game that ends after :meth:`Executor.stop` (the arena records it)."""


@runtime_checkable
class Executor(Protocol):
    """Plays the games of one match somewhere (see the module docstring).

    The caller calls :meth:`games` once, reads it, then calls :meth:`stop` (also after an
    error or an early stop) and :meth:`close`.
    """

    def games(self, todo: Sequence[int]) -> Generator[GameOutcome, None, None]:
        """Play the games ``todo`` (started in this order); yield each as it ends.

        Raises:
            ArenaError: When a game fails or a worker dies.
        """
        ...

    def stop(self, record: Record) -> None:
        """Start no further game; pass each game still running to ``record`` as it ends.

        A game that fails now is logged, not raised: the match is stopping anyway.
        """
        ...

    def close(self) -> None:
        """Release the worker processes (or the agents of this process)."""
        ...


class InProcessExecutor:
    """The games in the calling process.

    Args:
        config: The match.
        width: ``None``: one game at a time (:func:`~agents.matches.game.play_match_game`);
            an int ``>= 1``: that many at a time, their leaves evaluated together
            (:func:`~agents.matches.game.play_games`). A stop loses the games in flight, as
            it loses a lone game's.
    """

    def __init__(self, config: MatchConfig, width: int | None = None) -> None:
        self._config = config
        self._width = width
        self._players = Players()
        self._running: Generator[GameOutcome, None, None] | None = None

    def games(self, todo: Sequence[int]) -> Generator[GameOutcome, None, None]:
        """See :meth:`Executor.games`."""
        if self._width is None:
            for index in todo:
                yield play_match_game(self._config, index, self._players)
            return
        self._running = play_games(self._config, todo, self._width)
        yield from self._running

    def stop(self, record: Record) -> None:
        """See :meth:`Executor.stop`."""
        if self._running is not None:
            self._running.close()  # the games in flight are lost, as a lone game here is

    def close(self) -> None:
        """See :meth:`Executor.close`."""
        self._players.close()


class PoolExecutor:
    """One game per call of ``pool``, handed out a few games ahead of those running.

    The pool gets new games as games end, so a long match holds a few futures, not one per
    game (a million games submitted at once held 1.5 GB of futures before the first ended).

    Args:
        config: The match.
        pool: A :class:`concurrent.futures.Executor` whose processes were initialised by
            :func:`init_worker` (a process pool) or :func:`init_cluster_worker` (a
            :class:`~agents.matches.ray_pool.RayPool`); this executor shuts it down.
        ahead: Games submitted and not yet finished, at most; or a function that says it
            each time games are handed out (a Ray pool's size follows its cluster).
    """

    def __init__(
        self, config: MatchConfig, pool: futures.Executor, ahead: int | Callable[[], int]
    ) -> None:
        self._config = config
        self._pool = pool
        self._ahead = ahead
        self._running: dict[Future[GameOutcome], int] = {}

    def games(self, todo: Sequence[int]) -> Generator[GameOutcome, None, None]:
        """See :meth:`Executor.games`."""
        waiting = iter(todo)

        def hand_out() -> None:
            ahead = self._ahead() if callable(self._ahead) else self._ahead
            while len(self._running) < ahead:
                index = next(waiting, None)
                if index is None:
                    return
                self._running[self._pool.submit(_worker_game, self._config, index)] = index

        hand_out()
        while self._running:
            done, _ = wait(self._running, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=self._running.__getitem__):
                # popped as it is yielded: a stop before the next one still records that one
                yield _outcome(future, self._running.pop(future))
            hand_out()

    def stop(self, record: Record) -> None:
        """See :meth:`Executor.stop`."""
        for future in self._running:
            future.cancel()
        for future, index in self._running.items():  # games already running: keep them
            if not future.cancelled():
                try:
                    record(_outcome(future, index))
                except BaseException as exc:  # the match is stopping anyway
                    log.warning("game %d, still running at the stop, failed: %s", index, exc)
        self._running.clear()

    def close(self) -> None:
        """See :meth:`Executor.close`."""
        self._pool.shutdown(wait=True)


class StreamExecutor:
    """Worker processes that each play ``width`` games at once, sharing network calls.

    Game indices go out one at a time, in order, as a slot frees; each game comes back as
    it ends (:class:`~agents.matches.stream_pool.StreamPool`).

    Args:
        config: The match.
        processes: Worker processes (``>= 1``).
        width: Games at once in each (an int ``>= 1``).
    """

    def __init__(self, config: MatchConfig, processes: int, width: int) -> None:
        self._pool = StreamPool(_stream_games, (config, width), processes)

    def games(self, todo: Sequence[int]) -> Generator[GameOutcome, None, None]:
        """See :meth:`Executor.games`."""
        try:
            yield from self._pool.games(todo)
        except WorkerError as exc:
            raise ArenaError(str(exc)) from exc

    def stop(self, record: Record) -> None:
        """See :meth:`Executor.stop`."""
        self._pool.stop(record)  # games still running at a stop are kept

    def close(self) -> None:
        """See :meth:`Executor.close`."""
        self._pool.close()


# ------------------------------------------------------------------ worker processes

_WORKER_PLAYERS: Players | None = None
"""The agents of this worker process (set by its initialiser)."""


def init_worker(parent: int | None = None) -> None:
    """Initialiser of a process-pool worker: its agents, and its death with ``parent``."""
    global _WORKER_PLAYERS
    if parent is not None:
        die_with_parent(parent)  # a killed arena takes its workers along
    _WORKER_PLAYERS = Players()
    Finalize(None, _WORKER_PLAYERS.close, exitpriority=10)


def init_cluster_worker() -> None:
    """Initialiser of a Ray worker process (whose life Ray manages, not this process)."""
    global _WORKER_PLAYERS
    if _WORKER_PLAYERS is None:
        _WORKER_PLAYERS = Players()
        Finalize(None, _WORKER_PLAYERS.close, exitpriority=10)


def _worker_game(config: MatchConfig, index: int) -> GameOutcome:
    assert _WORKER_PLAYERS is not None, "the worker was not initialised"
    return play_match_game(config, index, _WORKER_PLAYERS)


def _stream_games(indices: Iterable[int], config: MatchConfig, width: int) -> Iterator[GameOutcome]:
    """A :class:`~agents.matches.stream_pool.StreamPool` worker: ``width`` games at once."""
    yield from play_games(config, indices, width)


def _outcome(future: Future[GameOutcome], index: int) -> GameOutcome:
    """The result of a worker's game; a dead worker becomes an :class:`ArenaError`."""
    try:
        return future.result()
    except ArenaError:
        raise
    except Exception as exc:  # e.g. BrokenProcessPool when a worker was killed
        raise ArenaError(
            f"game {index}: the worker process failed: {type(exc).__name__}: {exc}"
        ) from exc
