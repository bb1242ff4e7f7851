"""Workers on a Ray cluster that each play many games at once, fed one game index at a time.

:class:`RayStreamPool` is :class:`~agents.matches.stream_pool.StreamPool` with Ray actors
(Moritz et al., "Ray: A Distributed Framework for Emerging AI Applications", OSDI 2018) in
place of local processes, and the same interface: ``games(todo)``, ``stop(record)``,
``close()``. Each worker is one actor holding one CPU of the cluster; it runs
``target(indices, *args)``, a generator that plays the indices it reads (``K`` at a time,
sharing one evaluator, as a :class:`StreamPool` worker does) and yields each finished game.

How it works:

- The indices wait in a small *dispenser* actor (no CPU), in order; a worker takes the next
  one whenever one of its game slots frees, so the fastest workers play the most games.
- The driver asks each worker for its next finished game (one actor call per game) and
  yields the games as they come, in whatever order they end; it asks again before yielding,
  so the worker keeps playing while the caller records the game.
- A worker that raises fails the pool with :class:`~agents.matches.stream_pool.WorkerError`
  and its message (a bug stays a bug). A worker whose process or node dies is a *system*
  failure: the indices it had taken and not finished go back to the front of the queue, a
  new worker takes its place, and the games are played again elsewhere, as Ray plays the
  arena's lost tasks again (``docs/cluster.md``). After ``max_restarts`` such deaths in all,
  the pool fails instead.
- The actors belong to the driver: when the driver process ends (even killed), Ray ends
  them, so a killed driver loses only the games in flight.

The module imports Ray only when a pool is made; without Ray installed that raises
:class:`~agents.matches.ray_pool.RayUnavailableError`, whose message says how to install it.
"""

from __future__ import annotations

import logging
import operator
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from agents.matches.ray_pool import ClusterError, connect, import_ray
from agents.matches.stream_pool import WorkerError
from go_env.validation import check_int

__all__ = ["RayStreamPool"]

log = logging.getLogger(__name__)

_POLL = 1.0
"""Seconds of one wait for a finished game (the wait is repeated until one comes)."""


# ----------------------------------------------------------------- the actors


class _Dispenser:
    """The indices still to play, in order, and which worker took which.

    A dead worker is *retired* when its indices are given back: a call of its ``take`` that
    was still on its way when it died (calls from different callers arrive in no set order)
    gets nothing, so it cannot take back an index that was just put back for the others.
    """

    def __init__(self, indices: list[int]) -> None:
        self._queue = deque(indices)
        self._taken: dict[int, list[int]] = {}
        self._retired: set[int] = set()

    def take(self, worker: int) -> int | None:
        """The next index for ``worker`` (``None``: there is none left, or it is retired)."""
        if not self._queue or worker in self._retired:
            return None
        index = self._queue.popleft()
        self._taken.setdefault(worker, []).append(index)
        return index

    def clear(self) -> None:
        """Hand out no further index."""
        self._queue.clear()

    def give_back(self, worker: int, finished: list[int]) -> tuple[list[int], int]:
        """Put the indices ``worker`` took and did not finish back at the front; retire it.

        Returns:
            Those indices, and how many indices are now waiting.
        """
        self._retired.add(worker)
        done = set(finished)
        lost = [i for i in self._taken.pop(worker, []) if i not in done]
        self._queue.extendleft(reversed(lost))
        return lost, len(self._queue)


class _Worker:
    """One worker: ``target(indices, *args)``, read one finished game per call."""

    def __init__(
        self, target: Callable[..., Iterator[Any]], args: tuple[Any, ...], dispenser: Any, name: int
    ) -> None:
        self._target = target
        self._args = args
        self._dispenser = dispenser
        self._name = name
        self._games: Iterator[Any] | None = None

    def _indices(self) -> Iterator[int]:
        ray = import_ray()
        while True:
            index = ray.get(self._dispenser.take.remote(self._name))
            if index is None:
                return
            yield index

    def next_game(self) -> tuple[str, Any]:
        """``("game", game)``, ``("done", None)`` at the end, or ``("error", message)``."""
        try:
            if self._games is None:
                self._games = self._target(self._indices(), *self._args)
            return "game", next(self._games)
        except StopIteration:
            return "done", None
        except Exception as exc:  # a value, so that the driver tells it from a dead worker
            log.exception("a worker of a RayStreamPool failed")
            return "error", f"{type(exc).__name__}: {exc}"


_ACTORS: dict[int, tuple[Any, Any]] = {}


def _actor_classes(ray: Any) -> tuple[Any, Any]:
    """The Ray actor classes of the dispenser and the worker (made once per Ray module)."""
    if id(ray) not in _ACTORS:
        _ACTORS[id(ray)] = (ray.remote(_Dispenser), ray.remote(_Worker))
    return _ACTORS[id(ray)]


# ----------------------------------------------------------------- the driver side


class RayStreamPool:
    """``workers`` Ray actors, each running ``target(indices, *args)`` (module docstring).

    Args:
        target: A module-level generator function, importable on every node of the cluster.
        args: Its further arguments (serialisable; large ones travel through Ray's object
            store once per worker).
        workers: Actors (default: one per ``num_cpus`` CPUs of the cluster now).
        address: The cluster (see :func:`~agents.matches.ray_pool.connect`); an existing
            connection of this process is reused whatever the address.
        num_cpus: CPUs each actor holds on the cluster.
        max_restarts: Worker deaths (process or node lost) replaced in all before the pool
            fails (default: 3 per worker).
        index_of: The index of a finished game (default: its ``index`` attribute); tells
            which games a dead worker had not finished.

    Raises:
        agents.matches.ray_pool.RayUnavailableError: When Ray is not installed.
        ClusterError: When the cluster cannot be reached or has no CPU.
        ValueError: For ``workers < 1``, ``max_restarts < 0`` or ``num_cpus <= 0``.
    """

    def __init__(
        self,
        target: Callable[..., Iterator[Any]],
        args: tuple[Any, ...],
        workers: int | None = None,
        *,
        address: str = "auto",
        num_cpus: float = 1.0,
        max_restarts: int | None = None,
        index_of: Callable[[Any], int] = operator.attrgetter("index"),
    ) -> None:
        if workers is not None:
            check_int("workers", workers, min=1, allowed="a positive int or None")
        if max_restarts is not None:
            check_int("max_restarts", max_restarts, min=0)
        if not num_cpus > 0:
            raise ValueError(f"num_cpus must be > 0, got {num_cpus!r}")
        self._ray = connect(address)
        if workers is None:
            workers = cluster_workers(self._ray, num_cpus)
        self._target = target
        self._args = tuple(args)
        self._workers = workers
        self._num_cpus = float(num_cpus)
        self._restarts_left = 3 * workers if max_restarts is None else max_restarts
        self._index_of = index_of
        self._dispenser: Any = None
        self._actors: dict[int, Any] = {}  # name -> actor, while it may play
        self._pending: dict[Any, int] = {}  # the call waiting for a worker's next game
        self._finished: dict[int, list[int]] = {}  # name -> indices it finished
        self._named = 0

    @property
    def workers(self) -> int:
        """Actors started at once."""
        return self._workers

    def games(self, todo: Iterable[int]) -> Iterator[Any]:
        """Start the workers, hand out ``todo`` in order, yield the games as they end.

        Raises:
            WorkerError: When a game fails, the dispenser is lost, or workers died more
                than ``max_restarts`` times.
        """
        dispenser_class, _ = _actor_classes(self._ray)
        self._dispenser = dispenser_class.options(num_cpus=0).remote(list(todo))
        for _ in range(self._workers):
            self._start_worker()
        while self._pending:
            item = self._next(strict=True)
            if item is not None:
                yield item

    def stop(self, record: Callable[[Any], None]) -> None:
        """Hand out no more games; pass the games still running to ``record`` as they end.

        A game that fails now, or a worker that dies, is logged; nothing is raised.
        """
        if self._dispenser is None:
            return
        try:
            self._ray.get(self._dispenser.clear.remote())
        except Exception as exc:
            log.warning("the pool's dispenser is lost (%s); the games in flight are dropped", exc)
            self.close()
            return
        while self._pending:
            item = self._next(strict=False)
            if item is not None:
                record(item)

    def close(self) -> None:
        """End the workers and the dispenser (the games in flight are lost)."""
        for actor in [*self._actors.values(), self._dispenser]:
            if actor is not None:
                try:
                    self._ray.kill(actor)
                except Exception as exc:  # already gone, or the cluster is
                    log.debug("cannot kill an actor: %s", exc)
        self._actors.clear()
        self._pending.clear()
        self._dispenser = None

    # ----------------------------------------------------------------- internals

    def _start_worker(self) -> None:
        _, worker_class = _actor_classes(self._ray)
        name = self._named
        self._named += 1
        actor = worker_class.options(num_cpus=self._num_cpus, max_restarts=0).remote(
            self._target, self._args, self._dispenser, name
        )
        self._actors[name] = actor
        self._finished[name] = []
        self._pending[actor.next_game.remote()] = name

    def _next(self, *, strict: bool) -> Any:
        """The next finished game, or ``None`` when a worker ended or died instead.

        ``strict``: a failed game raises :class:`WorkerError` (else it is logged) and a dead
        worker is replaced (else its games are dropped).
        """
        ready: list[Any] = []
        while not ready:
            ready, _ = self._ray.wait(list(self._pending), num_returns=1, timeout=_POLL)
        ref = ready[0]
        name = self._pending.pop(ref)
        actor = self._actors[name]
        try:
            kind, payload = self._ray.get(ref)
        except self._ray.exceptions.RayTaskError as exc:  # not a game's error: a bug here
            self._end(name)
            self._fail(f"a worker failed: {exc}", strict)
            return None
        except self._ray.exceptions.RayError as exc:  # its process or node died
            self._end(name)
            if strict:
                self._replace(name, exc)
            else:
                log.warning("a worker died while the pool was stopping: %s", exc)
            return None
        if kind == "game":
            self._finished[name].append(self._index_of(payload))
            self._pending[actor.next_game.remote()] = name
            return payload
        self._end(name)
        if kind != "done":
            self._fail(str(payload), strict)
        return None

    def _end(self, name: int) -> None:
        """Kill a worker that has ended or failed (its CPU goes back to the cluster)."""
        actor = self._actors.pop(name)
        try:
            self._ray.kill(actor)
        except Exception as exc:
            log.debug("cannot kill an actor: %s", exc)

    def _fail(self, message: str, strict: bool) -> None:
        if strict:
            raise WorkerError(message)
        log.warning("a game still running at the stop failed: %s", message)

    def _replace(self, name: int, exc: BaseException) -> None:
        """Put a dead worker's unfinished games back in the queue and start another."""
        try:
            lost, waiting = self._ray.get(
                self._dispenser.give_back.remote(name, self._finished[name])
            )
        except Exception as lost_too:
            raise WorkerError(
                f"a worker died ({type(exc).__name__}) and the pool's dispenser cannot be "
                f"reached ({type(lost_too).__name__}: {lost_too})"
            ) from exc
        if not waiting:  # it had finished its games: the others play what is left
            return
        if self._restarts_left < 1:
            raise WorkerError(
                f"Ray workers died too often (the last: {type(exc).__name__}: {exc}); "
                f"the games {lost} were in flight"
            ) from exc
        self._restarts_left -= 1
        log.warning(
            "a Ray worker died (%s); its games %s go back to the queue, a new worker starts",
            type(exc).__name__,
            lost,
        )
        self._start_worker()


def cluster_workers(ray: Any, num_cpus: float = 1.0) -> int:
    """Workers of ``num_cpus`` CPUs that the connected cluster holds now.

    Raises:
        ClusterError: When it holds none.
    """
    cpus = float(ray.cluster_resources().get("CPU", 0.0))
    workers = int(cpus // num_cpus + 1e-9)
    if workers < 1:
        raise ClusterError(
            f"the Ray cluster has no CPU for a worker of {num_cpus:g} CPU "
            f"(resources: {ray.cluster_resources()})"
        )
    return workers
