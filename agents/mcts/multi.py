"""Many searches, one evaluator: the leaves of concurrent sequential searches in one call.

A sequential search (``batch = 1``) asks for one leaf evaluation per simulation; a network
evaluates one position at about the cost of a dozen, so one search leaves most of the
network's time to call overhead. KataGo and minigo keep the device busy by playing many
games at once and gathering their leaves into one batch. This module does the same for any
number of :meth:`Search.steps <agents.mcts.search.Search.steps>` coroutines, each of which
stays exactly the sequential search it would be alone (``docs/decisions/019``):

* A coroutine (a search, an agent's move, a whole game) yields a :class:`LeafRequest`: the
  evaluator that would answer it alone and the :class:`~agents.mcts.evaluators.LeafBatch`;
  or (the ``mcts`` agent's move) a :class:`SearchRequest`: a whole search, which
  :func:`round_robin` runs with the others in rounds
  (:class:`~agents.mcts.search_set.SearchSet`: descend all, evaluate all leaves in one
  call, back up all; no generator frame per leaf).
* :class:`SharedEvaluation` answers a list of requests. An evaluator that can be *split*
  (:class:`SplitEvaluator`: ``prepare`` a batch into network inputs, ``finish`` it from the
  network's outputs) has the part that depends on the game done per request, with its own
  cache and its own symmetry draws; the inputs of every request whose evaluator names the
  same :attr:`~SplitEvaluator.shared` forward function are concatenated and run in **one**
  call. Any other evaluator (random rollouts) answers its own request, as it would alone.
* :func:`round_robin` drives ``width`` coroutines at a time, refilling from a queue as they
  finish, and yields each one's return value as soon as it is done.

What can differ from a lone search is the floating-point rounding of a network run on a
batch of another size (about 1e-7 on the CPU here), which can flip an exact tie between two
children; ``docs/decisions/019-shared-evaluator.md`` measures how often that changes a move.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from agents.mcts.evaluators import LeafBatch
from agents.mcts.requests import LeafRequest, Request, SearchRequest, Steps, answer_alone
from agents.mcts.search_set import SearchSet
from go_env.validation import check_int

__all__ = [
    "BatchStats",
    "LeafRequest",
    "PendingEvaluation",
    "SearchRequest",
    "SharedEvaluation",
    "SplitEvaluator",
    "Steps",
    "answer_alone",
    "check_width",
    "finish_alone",
    "round_robin",
    "rows",
]

Evaluation = tuple[np.ndarray, np.ndarray]
T = TypeVar("T")


@runtime_checkable
class PendingEvaluation(Protocol):
    """A batch prepared by :meth:`SplitEvaluator.prepare`, waiting for the network's outputs.

    Attributes:
        inputs: The arguments of the shared forward function, arrays with one row each per
            input row (may have 0 rows, e.g. when every position was in the evaluator's
            cache).
    """

    inputs: tuple[np.ndarray, ...]

    def finish(self, outputs: tuple[np.ndarray, ...]) -> Evaluation:
        """``(priors, values)`` of the batch from the forward function's rows for ``inputs``.

        ``outputs`` is empty (``()``) when no forward call was needed (no rows).
        """
        ...


@runtime_checkable
class SplitEvaluator(Protocol):
    """An evaluator whose network call can be shared with other evaluators.

    ``evaluate(batch)`` must equal ``p.finish(shared(*p.inputs))`` with ``p =
    prepare(batch)`` (one ``prepare`` per evaluation: it may draw random numbers).
    ``shared`` maps arrays of rows (``inputs``) to a tuple of arrays with one row per input
    row, each row computed independently of the others (so that rows of several batches can
    be concatenated); evaluators whose ``shared`` is the same object are batched together.
    """

    shared: Callable[..., tuple[np.ndarray, ...]]

    def prepare(self, batch: LeafBatch) -> PendingEvaluation:
        """The network inputs of ``batch`` and what is needed to finish its evaluation."""
        ...


def check_width(width: object, what: str = "games_per_worker") -> int:
    """Validate a number of concurrent searches: an int >= 1.

    Raises:
        ValueError: Naming the value and what is allowed.
    """
    return check_int(
        what,
        width,
        min=1,
        numpy=True,
        allowed="an int >= 1 (the searches sharing one evaluator)",
    )


@dataclass
class BatchStats:
    """What the shared evaluation did.

    Attributes:
        requests: Leaf requests answered.
        calls: Calls of shared forward functions.
        rows: Rows those calls evaluated (positions times symmetries).
        forward_seconds: Wall time inside the shared forward functions.
        evaluate_seconds: Wall time answering requests (forward calls, preparing and
            finishing, and the evaluators that are not split, e.g. rollouts).
    """

    requests: int = 0
    calls: int = 0
    rows: int = 0
    forward_seconds: float = 0.0
    evaluate_seconds: float = 0.0

    @property
    def mean_batch(self) -> float:
        """Mean rows per forward call (NaN before the first)."""
        return self.rows / self.calls if self.calls else float("nan")


class SharedEvaluation:
    """Answers many :class:`LeafRequest` at once, one forward call per shared network.

    Attributes:
        stats: Counters and timings (:class:`BatchStats`).
    """

    def __init__(self) -> None:
        self.stats = BatchStats()

    def answer(self, requests: Sequence[LeafRequest]) -> list[Evaluation]:
        """The evaluations of ``requests``, in order; sets each request's ``seconds``."""
        start = time.perf_counter()
        answers: list[Evaluation | None] = [None] * len(requests)
        groups: dict[int, list[tuple[int, PendingEvaluation]]] = {}
        forwards: dict[int, Callable[..., tuple[np.ndarray, ...]]] = {}
        for i, request in enumerate(requests):
            evaluator = request.evaluator
            shared = getattr(evaluator, "shared", None)
            prepare = getattr(evaluator, "prepare", None)
            if shared is None or not callable(prepare):
                answers[i] = evaluator.evaluate(request.batch)
                continue
            groups.setdefault(id(shared), []).append((i, prepare(request.batch)))
            forwards[id(shared)] = shared
        for key, pending in groups.items():
            sizes = [rows(p) for _, p in pending]
            total = sum(sizes)
            outputs: tuple[np.ndarray, ...] = ()
            if total:
                parts = [p.inputs for (_, p), size in zip(pending, sizes, strict=True) if size]
                inputs = [np.concatenate(column) for column in zip(*parts, strict=True)]
                tick = time.perf_counter()
                outputs = forwards[key](*inputs)
                self.stats.forward_seconds += time.perf_counter() - tick
                self.stats.calls += 1
                self.stats.rows += total
            offset = 0
            for (i, p), size in zip(pending, sizes, strict=True):
                answers[i] = p.finish(tuple(out[offset : offset + size] for out in outputs))
                offset += size
        elapsed = time.perf_counter() - start
        self.stats.requests += len(requests)
        self.stats.evaluate_seconds += elapsed
        for request in requests:
            request.seconds = elapsed / len(requests)
        done = [a for a in answers if a is not None]
        assert len(done) == len(requests), "a request was left unanswered"
        return done


def rows(pending: PendingEvaluation) -> int:
    """Input rows of a pending evaluation."""
    return int(pending.inputs[0].shape[0]) if pending.inputs else 0


def finish_alone(evaluator: Any, pending: PendingEvaluation) -> Evaluation:
    """``pending.finish(evaluator.shared(*pending.inputs))``: a split evaluation, alone."""
    return pending.finish(evaluator.shared(*pending.inputs) if rows(pending) else ())


def round_robin(
    tasks: Iterable[tuple[Any, Callable[[], Steps[T]]]],
    width: int,
    *,
    shared: SharedEvaluation | None = None,
) -> Iterator[tuple[Any, T]]:
    """Run coroutines ``width`` at a time and yield ``(key, result)`` as each finishes.

    Each round answers the pending request of every running coroutine: the
    :class:`LeafRequest` together with one :meth:`SharedEvaluation.answer`, and one round of
    every :class:`SearchRequest`'s search in a :class:`~agents.mcts.search_set.SearchSet`
    (their leaves evaluated together, no coroutine resumed until its search ends). A
    coroutine whose request was answered is resumed; a finished coroutine is replaced by the
    next task. Coroutines start in the order of ``tasks`` (which is read lazily, so it may be
    a queue that grows).

    Args:
        tasks: ``(key, start)`` pairs; ``start()`` creates the coroutine.
        width: How many run at once (``>= 1``).
        shared: The evaluation (and its statistics) to use; a new one by default.

    Raises:
        ValueError: For a bad ``width``.
        Exception: Whatever a coroutine raises; the others are closed.
    """
    width = check_width(width, "width")
    shared = shared if shared is not None else SharedEvaluation()
    queue = iter(tasks)
    searches = SearchSet(width)
    # key, coroutine, its pending request (None while its search runs in the set)
    running: list[list[Any]] = []
    by_request: dict[int, list[Any]] = {}
    exhausted = False

    def pending(entry: list[Any], request: Request) -> None:
        if isinstance(request, SearchRequest):
            searches.add(request)
            by_request[id(request)] = entry
            entry[2] = None
        else:
            entry[2] = request

    try:
        while True:
            while not exhausted and len(running) < width:
                task = next(queue, None)
                if task is None:
                    exhausted = True
                    break
                key, start = task
                steps = start()
                try:
                    request = next(steps)
                except StopIteration as stop:  # finished without asking anything
                    yield key, stop.value
                    continue
                entry = [key, steps, None]
                running.append(entry)
                pending(entry, request)
            if not running:
                return
            answered: list[tuple[list[Any], Any]] = []
            leaves = [entry for entry in running if entry[2] is not None]
            if leaves:
                answers = shared.answer([entry[2] for entry in leaves])
                answered += zip(leaves, answers, strict=True)
            if len(searches):
                for request, stats in searches.round(shared):
                    answered.append((by_request.pop(id(request)), stats))
            finished: list[tuple[Any, T]] = []
            ended: set[int] = set()
            for entry, answer in answered:
                try:
                    pending(entry, entry[1].send(answer))
                except StopIteration as stop:
                    finished.append((entry[0], stop.value))
                    ended.add(id(entry))
            if ended:
                running = [entry for entry in running if id(entry) not in ended]
            yield from finished
    finally:
        searches.close()
        for entry in running:
            entry[1].close()
