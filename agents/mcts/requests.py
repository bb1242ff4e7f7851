"""What a stepped search, move or game yields: a leaf to evaluate, or a whole search to run.

* :class:`LeafRequest`: the leaves of one search step (:meth:`Search.steps
  <agents.mcts.search.Search.steps>`) and the evaluator that answers them alone; the driver
  resumes the coroutine with their ``(priors, values)``.
* :class:`SearchRequest`: a whole search (its root set, its budget), what
  :meth:`MCTSAgent.act_steps <agents.mcts.agent.MCTSAgent.act_steps>` yields once per move;
  the driver resumes the coroutine with its :class:`~agents.mcts.stats.SearchStats`. Alone it
  is :meth:`Search.run <agents.mcts.search.Search.run>`; many at once run in rounds with their
  leaves evaluated together (:class:`agents.mcts.search_set.SearchSet`).

:func:`answer_alone` drives one such coroutine with every request answered alone (the
``mcts`` agent's own :meth:`~agents.mcts.agent.MCTSAgent.act`); it lives here, not in
:mod:`agents.mcts.multi`, so that the agent needs nothing of the shared machinery.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, TypeVar, Union

if TYPE_CHECKING:
    from agents.mcts.evaluators import Evaluator, LeafBatch
    from agents.mcts.search import Search
    from agents.mcts.stats import SearchStats

__all__ = ["LeafRequest", "Request", "SearchRequest", "Steps", "answer_alone"]

T = TypeVar("T")


class LeafRequest:
    """A leaf batch waiting for its evaluation (what a stepped search yields).

    Attributes:
        evaluator: The evaluator that answers this batch when the search runs alone.
        batch: The leaves; valid until the coroutine that yielded them is resumed.
        seconds: Set by the driver: this request's share of the wall time of the call that
            answered it (so per-move timings stay meaningful).
    """

    __slots__ = ("batch", "evaluator", "seconds")

    def __init__(self, evaluator: Evaluator, batch: LeafBatch) -> None:
        self.evaluator = evaluator
        self.batch = batch
        self.seconds = 0.0


class SearchRequest:
    """A search to run, whose statistics resume the coroutine that yielded it.

    Args:
        search: The search, its root set.
        sims: Simulations (``None``: the search's own, unless ``time_limit`` is given).
        time_limit: Wall-clock budget in seconds, as :meth:`Search.run`'s ``seconds``.

    Attributes:
        seconds: Set by the driver: the wall time of the rounds this search took part in,
            shared among the searches of each round (so per-move timings stay meaningful).
    """

    __slots__ = ("search", "seconds", "sims", "time_limit")

    def __init__(
        self, search: Search, *, sims: int | None = None, time_limit: float | None = None
    ) -> None:
        self.search = search
        self.sims = sims
        self.time_limit = time_limit
        self.seconds = 0.0

    @property
    def evaluator(self) -> Evaluator:
        """The search's evaluator."""
        return self.search.evaluator

    def run_alone(self) -> SearchStats:
        """The search run alone: :meth:`Search.run` with this budget."""
        return self.search.run(sims=self.sims, seconds=self.time_limit)


Request = Union[LeafRequest, SearchRequest]  # noqa: UP007 - a runtime alias
"""What a stepped coroutine yields."""

Steps = Generator[Request, Any, T]
"""A coroutine that yields requests: resumed with ``(priors, values)`` for a
:class:`LeafRequest`, with :class:`~agents.mcts.stats.SearchStats` for a
:class:`SearchRequest`."""


def answer_alone(steps: Steps[T]) -> T:
    """Run one coroutine to its end, each request answered alone.

    A :class:`LeafRequest` by its own evaluator, a :class:`SearchRequest` by its search's
    :meth:`~agents.mcts.search.Search.run`; each request's ``seconds`` is the time its
    answer took.
    """
    try:
        request = next(steps)
        while True:
            start = time.perf_counter()
            if isinstance(request, SearchRequest):
                answer: Any = request.run_alone()
            else:
                answer = request.evaluator.evaluate(request.batch)
            request.seconds = time.perf_counter() - start
            request = steps.send(answer)
    except StopIteration as stop:
        return stop.value
