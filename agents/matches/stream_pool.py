"""Worker processes that each play many games at once, fed one game index at a time.

The arena's ordinary pool gives each worker one game at a time. A worker that plays ``K``
games at once (``games_per_worker``, :mod:`agents.mcts.multi`) wants a new game as soon as
one of its games ends, and its finished games reported one by one, so that each is recorded
(and a match resumable) the moment it ends. :class:`StreamPool` does that with two queues:
game indices go out one at a time, in order, to whichever worker has a free slot; finished
games come back as they end. A worker runs ``target(indices, *args)``, a generator that
plays the indices it reads and yields each finished game.

Stopping early (:meth:`StreamPool.stop`) hands out no further index and collects the games
still running, as the arena's ordinary pool does. A worker that dies (killed, out of memory)
fails the match with :class:`WorkerError`; so does a game that raises, with its message.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from agents.lifetime import die_with_parent

__all__ = ["StreamPool", "WorkerError"]

_POLL = 0.2
"""Seconds between checks that the workers are alive while waiting for a game."""


class WorkerError(RuntimeError):
    """A worker process failed: a game raised, or the process died."""


def _serve(
    target: Callable[..., Iterator[Any]],
    args: tuple[Any, ...],
    parent: int,
    indices: Any,
    results: Any,
    stopping: Any,
) -> None:  # pragma: no cover - runs in the worker process
    """A worker's main: play what ``target`` makes of the indices read, report each game.

    An index read once ``stopping`` is set is not played (:meth:`StreamPool.stop`).
    """
    die_with_parent(parent)

    def read() -> Iterator[int]:
        while True:
            index = indices.get()
            if index is None or stopping.is_set():
                return
            yield index

    try:
        for game in target(read(), *args):
            results.put(("game", game))
    except BaseException as exc:
        results.put(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        results.put(("done", os.getpid()))


class StreamPool:
    """``processes`` spawned workers, each running ``target(indices, *args)``.

    Args:
        target: A module-level generator function (it is pickled by reference).
        args: Its further arguments (picklable).
        processes: Worker processes (``>= 1``).
    """

    def __init__(
        self, target: Callable[..., Iterator[Any]], args: tuple[Any, ...], processes: int
    ) -> None:
        if processes < 1:
            raise ValueError(f"processes must be >= 1, got {processes}")
        context = multiprocessing.get_context("spawn")
        self._indices = context.Queue()
        self._results = context.Queue()
        self._stopping = context.Event()
        self._workers = [
            context.Process(
                target=_serve,
                args=(target, args, os.getpid(), self._indices, self._results, self._stopping),
                daemon=True,
            )
            for _ in range(processes)
        ]
        self._done: set[int] = set()
        self._suspects: set[int] = set()
        self._started = False

    def games(self, todo: Iterable[int]) -> Iterator[Any]:
        """Start the workers, hand out ``todo`` in order, yield the games as they end.

        Raises:
            WorkerError: When a game fails or a worker dies.
        """
        for index in todo:
            self._indices.put(index)
        for _ in self._workers:
            self._indices.put(None)
        for worker in self._workers:
            worker.start()
        self._started = True
        while len(self._done) < len(self._workers):
            item = self._next()
            if item is not None:
                yield item

    def stop(self, record: Callable[[Any], None]) -> None:
        """Hand out no more games; pass the games still running to ``record`` as they end.

        A game that fails now, or a worker that dies, is logged by the caller's ``record``
        never seeing it; nothing is raised.
        """
        if not self._started:
            return
        # Each worker ends at the next index it reads, and one end marker per worker follows
        # the indices, so none waits. (Draining the queue instead raced its feeder thread:
        # indices still on their way into the pipe were played, all 200 of a test's games
        # once on a loaded machine.)
        self._stopping.set()
        while len(self._done) < len(self._workers):
            try:
                item = self._next()
            except WorkerError:
                continue
            if item is not None:
                record(item)
        for worker in self._workers:
            worker.join(timeout=5)

    def close(self) -> None:
        """End the workers that are still running (after :meth:`stop` there are none).

        Indices still queued for workers that are gone are dropped: without that, the queue's
        feeder thread blocks on a full pipe that nobody reads, and the process hangs at exit
        (a run stopped early with many games to go).
        """
        for worker in self._workers:
            if worker.is_alive():
                worker.terminate()
            if self._started:
                worker.join(timeout=5)
        for channel in (self._indices, self._results):
            channel.cancel_join_thread()
            channel.close()

    def _next(self) -> Any:
        """The next finished game (``None`` when a worker ended instead)."""
        while True:
            try:
                kind, payload = self._results.get(timeout=_POLL)
            except queue.Empty:
                self._check_alive()
                continue
            if kind == "game":
                return payload
            if kind == "done":
                self._done.add(payload)
                return None
            raise WorkerError(payload)

    def _check_alive(self) -> None:
        """Raise for a worker that ended without saying so (after one more empty poll)."""
        for worker in self._workers:
            if worker.exitcode is None or worker.pid in self._done:
                continue
            if worker.pid not in self._suspects:  # its last words may still be in the pipe
                self._suspects.add(worker.pid or -1)
            else:
                self._done.add(worker.pid or -1)
                raise WorkerError(
                    f"a worker process died (exit code {worker.exitcode}) with games in flight"
                )
