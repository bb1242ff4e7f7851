"""Many searches in rounds: descend all, evaluate all leaves in one call, back up all.

A :class:`SearchSet` holds the searches of many games of one process (``K`` of them, e.g.
an arena worker's ``--games-per-worker``, or a self-play worker's games) and runs them in
**rounds**, as batched searches do (mctx, KataGo's and minigo's many games per process):

1. every search descends to its next leaf in **one** compiled call (:func:`descend_all`:
   :func:`~agents.mcts.kernels.descend` over a typed list of each search's arrays); a
   finished leaf is backed up at once and its search descends again in a next pass;
2. the leaves of all searches whose evaluator is a :class:`RowEvaluator` (the network
   evaluator) get their input planes and legal masks in **one** compiled call
   (:class:`go_env.leaf_features.LeafRoots`, one root slot per search), their cache keys in
   one more, and the rows not in a cache go through **one** network call per shared network;
3. the new nodes of all searches get their priors, and the leaves of all searches whose
   backup strategy is a built-in one are backed up, in **one** compiled call
   (:func:`~agents.mcts.round_kernels.finish_all`: the strategy's kernel chosen by a number,
   :mod:`agents.mcts.backups.compiled`); a third-party strategy is backed up by its Python
   ``backup`` method after it.

No Python generator frame stands between a leaf and the network: a game's coroutine yields
one :class:`~agents.mcts.multi.SearchRequest` per **move**, not one request per leaf. Each
search stays exactly the sequential search it is alone (``Search.steps`` with ``batch = 1``):
the same descents, the same evaluator cache and symmetry draws (each search's own), the same
backups, in the same order; only the network's rounding on a batch of another size can
differ (``docs/decisions/019-shared-evaluator.md``), as with
:class:`~agents.mcts.multi.SharedEvaluation`. A search whose evaluator is not a
:class:`RowEvaluator` (random rollouts, a mixed or third-party evaluator), or that collects
several leaves per step (``batch > 1``, virtual loss), runs its own
:meth:`Search.steps <agents.mcts.search.Search.steps>` inside the set, its leaf answered by
the :class:`~agents.mcts.multi.SharedEvaluation` of the round (still one frame per leaf, and
still exact). See ``docs/decisions/013-search-modules.md``.

**API** (also for self-play): ``searches = SearchSet(capacity)``; ``searches.add(request)``
for each :class:`~agents.mcts.multi.SearchRequest` (a search with its root set and its
budget); ``finished = searches.round(shared)`` runs one round and returns
``[(request, stats)]`` of the searches that ended in it; ``len(searches)`` is the number still
running. :func:`agents.mcts.multi.round_robin` drives coroutines (games) with it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numba import typed

from agents.mcts.backups._kernel import NO_TABLE
from agents.mcts.backups.compiled import kernel_of
from agents.mcts.kernels import EXPANDED, TERMINAL
from agents.mcts.requests import LeafRequest, SearchRequest
from agents.mcts.round_kernels import NO_KERNEL, descend_all, finish_all
from agents.mcts.search import Search
from agents.mcts.stats import SearchStats
from go_env.leaf_features import LeafRoots
from go_env.validation import check_int

__all__ = ["RowEvaluator", "SearchSet"]


@runtime_checkable
class RowEvaluator(Protocol):
    """An evaluator whose leaves a :class:`SearchSet` evaluates in rows (the network).

    It must give exactly what its ``evaluate`` gives for a batch of one leaf when the set
    does: look the leaf's key up (:meth:`cached`), draw a symmetry for a miss
    (:meth:`draw_symmetry`), run :attr:`shared` on the rows, :meth:`remember` the result.

    Attributes:
        shared: ``(planes, symmetries, masks) -> (priors (R, A), values (R,))``, one object
            per network (the rows of evaluators with the same ``shared`` go in one call).
        plane_spec: ``(board size, history, tactical)`` of the input planes
            (:class:`go_env.leaf_features.LeafRoots`), or ``None`` when this evaluator cannot
            be evaluated in rows now (e.g. averaging over symmetries).
    """

    shared: Callable[..., tuple[np.ndarray, np.ndarray]]
    uniform_priors: bool

    @property
    def plane_spec(self) -> tuple[int, int, bool] | None: ...  # noqa: D102

    def cache_keys(self, planes: np.ndarray, masks: np.ndarray) -> bytes:
        """16 bytes per row: the keys of the rows (a pure function of the rows)."""
        ...

    def cached(self, key: bytes) -> tuple[np.ndarray, float] | None:
        """The cached ``(priors, value)`` of ``key`` (a hit is counted), or ``None``."""
        ...

    def draw_symmetry(self) -> int:
        """The symmetry of a row that is not in the cache (its own generator)."""
        ...

    def remember(self, key: bytes, priors: np.ndarray, value: float) -> None:
        """Count one evaluation and cache its result."""
        ...


def _none(*args: Any) -> None:
    return None


def _rows(evaluator: Any) -> bool:
    """Whether ``evaluator`` has the methods of a :class:`RowEvaluator` (a cheap check)."""
    return all(
        callable(getattr(evaluator, name, None))
        for name in ("shared", "cache_keys", "cached", "draw_symmetry", "remember")
    )


class _Running:
    """One search in the set, and where it stands in its ``Search.steps``."""

    __slots__ = (
        "backup",
        "batch",
        "cached",
        "deadline",
        "depth",
        "done",
        "draw",
        "evaluator",
        "forward",
        "kernel",
        "limit",
        "moves",
        "noised",
        "packed",
        "priors",
        "remember",
        "request",
        "search",
        "slot",
        "spec",
        "start",
        "status",
        "steps",
        "vector",
    )

    def __init__(self, request: SearchRequest, slot: int) -> None:
        self.request = request
        self.search: Search = request.search
        self.evaluator: Any = self.search.evaluator
        self.slot = slot
        self.start = time.perf_counter()
        sims, seconds = request.sims, request.time_limit
        if sims is None and seconds is None:
            sims = self.search.params.sims
        self.limit = sims if sims is not None else -1
        self.deadline = self.start + seconds if seconds is not None else float("inf")
        self.done = 0
        self.noised = False
        self.depth = 0
        self.status = 0
        self.spec: tuple[int, int, bool] | None = None
        self.steps: Generator[Any, Any, SearchStats] | None = None
        self.batch: Any = None
        strategy = self.search.strategy
        self.backup = strategy.backup
        # the strategy as compiled code runs it; None: only its Python backup method
        kernel = kernel_of(strategy)
        if kernel is not None:  # every slot of the typed list has the same array types
            table, params = (
                np.require(a, np.float64, ("C", "W")) for a in (kernel.table, kernel.params)
            )
            kernel = kernel._replace(table=table, params=params)
        self.kernel = kernel
        self.priors = not self.evaluator.uniform_priors
        # the RowEvaluator's methods, bound once (set by SearchSet.add)
        self.cached: Callable[[bytes], Any] = _none
        self.draw: Callable[[], int] = int
        self.forward: Any = None
        self.remember: Callable[..., None] = _none
        self.vector = self.search._vector[0]
        self.moves: np.ndarray = self.vector  # its row of the set's path moves (SearchSet.add)
        self.packed: Any = None  # the tree arrays of its item in SearchSet._items


class SearchSet:
    """Searches run in rounds, their leaves evaluated together (module docstring).

    Args:
        capacity: Most searches at once (root slots of the leaf planes).

    Raises:
        ValueError: For a capacity below 1.
    """

    def __init__(self, capacity: int) -> None:
        check_int("capacity", capacity, min=1, allowed="an int >= 1 (searches at once)")
        self.capacity = capacity
        self._running: list[_Running] = []
        self._free = list(range(capacity - 1, -1, -1))
        self._roots: dict[tuple[int, int, bool], LeafRoots] = {}
        self._moves = np.zeros((capacity, 8), dtype=np.int64)  # each slot's path moves
        self._scratch = np.empty(2, dtype=np.float64)  # set_priors: the most children
        self._items: Any = None  # typed list: each slot's arrays for descend_all
        self._known = np.zeros((capacity, 2), dtype=np.bool_)  # legal masks from expansions
        self._given = np.zeros(capacity, dtype=np.bool_)

    def __len__(self) -> int:
        return len(self._running)

    def add(self, request: SearchRequest) -> None:
        """Start ``request``'s search (its root set) in the next round.

        Raises:
            ValueError: When ``capacity`` searches are running.
        """
        if request.search.tree is None:
            raise ValueError("the search has no root yet; call set_root(state) first")
        if not self._free:
            raise ValueError(f"this set runs at most {self.capacity} searches at once")
        entry = _Running(request, self._free.pop())
        search = entry.search
        evaluator = entry.evaluator
        spec = getattr(evaluator, "plane_spec", None) if search.params.batch == 1 else None
        if spec is not None and _rows(evaluator):
            entry.spec = spec
            entry.cached, entry.draw = evaluator.cached, evaluator.draw_symmetry
            entry.forward, entry.remember = evaluator.shared, evaluator.remember
            roots = self._roots.get(spec)
            if roots is None:
                roots = self._roots[spec] = LeafRoots(
                    spec[0], spec[1], spec[2], slots=self.capacity
                )
            roots.set_root(entry.slot, search.root)
            depth = search._path.shape[0]
            if depth > self._moves.shape[1]:  # room for the longest path of this search
                moves = np.zeros((self.capacity, 2 * depth), dtype=np.int64)
                moves[:, : self._moves.shape[1]] = self._moves
                self._moves = moves
                for other in self._running:
                    other.moves = moves[other.slot]
                    self._pack(other)
            entry.moves = self._moves[entry.slot]
            self._pack(entry)
            actions = search._points + 1
            if actions > self._known.shape[1]:
                self._known = np.zeros((self.capacity, actions), dtype=np.bool_)
                self._scratch = np.empty(actions, dtype=np.float64)
        else:
            entry.steps = search.steps(sims=request.sims, seconds=request.time_limit)
        self._running.append(entry)

    def round(self, shared: Any) -> list[tuple[SearchRequest, SearchStats]]:
        """One round of every search (module docstring); the searches that ended in it.

        Args:
            shared: The :class:`~agents.mcts.multi.SharedEvaluation` that answers the leaves
                of the searches that run their own steps, and whose statistics count every
                evaluation and network call of the round.
        """
        start = time.perf_counter()
        finished: list[tuple[SearchRequest, SearchStats]] = []
        rows: list[_Running] = []
        generic: list[_Running] = []
        descents: list[_Running] = []
        for entry in self._running:
            if entry.steps is not None:
                if entry.batch is None:
                    try:
                        entry.batch = next(entry.steps)
                    except StopIteration as stop:
                        finished.append((entry.request, stop.value))
                        continue
                generic.append(entry)
            else:
                descents.append(entry)
        if descents:
            rows = self._descend(descents, finished)
        if rows:
            self._evaluate_rows(rows, shared)
        if generic:
            requests = [LeafRequest(e.evaluator, e.batch) for e in generic]
            answers = shared.answer(requests)
            for entry, answer in zip(generic, answers, strict=True):
                assert entry.steps is not None
                try:
                    entry.batch = entry.steps.send(answer)
                except StopIteration as stop:
                    entry.batch = None
                    finished.append((entry.request, stop.value))
        share = (time.perf_counter() - start) / max(len(self._running), 1)
        for entry in self._running:
            entry.request.seconds += share
        if finished:
            done = {id(request) for request, _ in finished}
            still = []
            for entry in self._running:
                if id(entry.request) in done:
                    self._free.append(entry.slot)
                else:
                    still.append(entry)
            self._running = still
        return finished

    def close(self) -> None:
        """Drop the running searches (their generators are closed)."""
        for entry in self._running:
            if entry.steps is not None:
                entry.steps.close()
        self._running = []
        self._free = list(range(self.capacity - 1, -1, -1))

    # ------------------------------------------------------------------ the row path
    def _pack(self, entry: _Running) -> None:
        """Put ``entry``'s arrays in its slot of the typed list that :func:`descend_all` reads."""
        search = entry.search
        tree = search.tree
        assert tree is not None
        arrays = tree.arrays
        kernel = entry.kernel
        item = (
            tuple(arrays),
            search._board_packed,
            search._scratch_packed,
            search._iparams,
            search._fparams,
            entry.vector,
            search._path,
            entry.moves,
            *((NO_KERNEL, False, NO_TABLE, NO_TABLE) if kernel is None else kernel),
        )
        if self._items is None:
            self._items = typed.List([item] * self.capacity)
        else:
            self._items[entry.slot] = item
        entry.packed = arrays

    def _check(self, entry: _Running) -> SearchStats | None:
        """Before a descent: the root noise, the stop rules; the stats when the search ended.

        The steps of :meth:`Search.steps` with ``batch = 1``: the first simulation of an
        unexpanded root, then the root noise, then simulations until the budget (or a
        proven root) stops the search.
        """
        tree = entry.search.tree
        assert tree is not None
        if not entry.noised:
            if entry.done == 0 and tree.first_child[0] < 0 and entry.limit != 0:
                return None  # the first simulation expands the root, before the noise
            entry.search._noise_root()
            entry.noised = True
        if entry.done == entry.limit:
            return self._stats(entry)
        timed = entry.request.time_limit is not None
        if timed and entry.done > 0 and time.perf_counter() >= entry.deadline:
            return self._stats(entry)
        if entry.search.params.solver and tree.proven[0] != 0:
            return self._stats(entry)
        return None

    def _descend(
        self, entries: list[_Running], finished: list[tuple[SearchRequest, SearchStats]]
    ) -> list[_Running]:
        """Descend each search to its next leaf to evaluate (one compiled call a pass).

        A finished leaf is backed up at once and its search descends again in the next
        pass; a search that ends goes to ``finished``. Returns the searches with a leaf.
        """
        leaves: list[_Running] = []
        todo = entries
        while todo:
            ready: list[_Running] = []
            slots: list[int] = []
            sizes: list[int] = []
            limits: list[int] = []
            for entry in todo:
                stats = self._check(entry)
                if stats is not None:
                    finished.append((entry.request, stats))
                    continue
                search = entry.search
                tree = search.tree
                assert tree is not None
                width = search._points + 1
                size = tree.size
                most = search.params.max_nodes
                if size + width > tree.parent.shape[0] and size + width <= most:
                    tree.reserve(width)
                if tree.arrays is not entry.packed:
                    self._pack(entry)
                ready.append(entry)
                slots.append(entry.slot)
                sizes.append(size)
                limits.append(min(tree.parent.shape[0], most))
            if not ready:
                break
            count = len(ready)
            grown = np.array(sizes, dtype=np.int64)
            depths = np.empty(count, dtype=np.int64)
            status = np.empty(count, dtype=np.int64)
            backed = np.empty(count, dtype=np.bool_)
            descend_all(
                self._items,
                np.array(slots, dtype=np.int64),
                grown,
                np.array(limits, dtype=np.int64),
                depths,
                status,
                self._known,
                self._given,
                backed,
            )
            todo = []
            results = (grown.tolist(), depths.tolist(), status.tolist(), backed.tolist())
            for entry, size, depth, code, done in zip(ready, *results, strict=True):
                search = entry.search
                tree = search.tree
                assert tree is not None
                tree.size = size
                if code == TERMINAL:
                    if not done:  # a strategy without a kernel: its Python backup
                        out = search._scratch_state.out
                        entry.backup(tree, search._path[: depth + 1], float(out[0]))
                    entry.done += 1
                    todo.append(entry)
                else:
                    entry.depth = depth
                    entry.status = code
                    leaves.append(entry)
        return leaves

    def _stats(self, entry: _Running) -> SearchStats:
        tree = entry.search.tree
        assert tree is not None
        elapsed = time.perf_counter() - entry.start
        return SearchStats.from_tree(tree, simulations=entry.done, elapsed=elapsed)

    def _evaluate_rows(self, rows: list[_Running], shared: Any) -> None:
        """Planes, keys, one network call per shared network, priors and backups.

        The priors of the new nodes and the backups of the strategies with a kernel are one
        compiled call (:func:`~agents.mcts.round_kernels.finish_all`); a strategy without
        one is backed up by its Python ``backup`` method after it.
        """
        tick = time.perf_counter()
        count = len(rows)
        slots = np.array([e.slot for e in rows], dtype=np.int64)
        depths = np.array([e.depth for e in rows], dtype=np.int64)
        moves = self._moves[slots]
        given = self._given[slots]
        groups: dict[Any, list[int]] = {}
        for b, entry in enumerate(rows):
            groups.setdefault(entry.spec, []).append(b)
        priors_of = np.empty((count, self._known.shape[1]), dtype=np.float64)
        values_of = np.empty(count, dtype=np.float64)
        keys_of: list[bytes] = [b""] * count
        # per shared network: the forward, then (leaf, its planes' array, masks, row, symmetry)
        forwards: dict[int, tuple[Any, list[tuple[int, np.ndarray, np.ndarray, int, int]]]] = {}
        for spec, members in groups.items():
            index = np.asarray(members, dtype=np.int64)
            roots = self._roots[spec]
            masks = self._known[slots[index], : roots.points + 1]
            planes, masks = roots.fill(
                slots[index], moves[index], depths[index], masks=masks, given=given[index]
            )
            over = ~masks.any(axis=1)
            if over.any():
                masks[over, -1] = True
            raw = rows[members[0]].evaluator.cache_keys(planes, masks)
            for j, b in enumerate(members):
                entry = rows[b]
                key = raw[16 * j : 16 * j + 16]
                keys_of[b] = key
                hit = entry.cached(key)
                if hit is not None:
                    row, values_of[b] = hit
                    priors_of[b, : row.shape[0]] = row
                    continue
                forward = entry.forward
                group = forwards.get(id(forward))
                if group is None:
                    group = forwards[id(forward)] = (forward, [])
                group[1].append((b, planes, masks, j, entry.draw()))
        stats = shared.stats
        for forward, parts in forwards.values():
            first = parts[0][1]
            if all(part[1] is first for part in parts):  # one board size: one planes array
                take = [part[3] for part in parts]
                planes, masks = first[take], parts[0][2][take]
            else:
                planes = np.stack([part[1][part[3]] for part in parts])
                masks = np.stack([part[2][part[3]] for part in parts])
            syms = np.fromiter((part[4] for part in parts), dtype=np.int64, count=len(parts))
            start = time.perf_counter()
            p, v = forward(planes, syms, masks)
            stats.forward_seconds += time.perf_counter() - start
            stats.calls += 1
            stats.rows += len(parts)
            values = v.tolist()
            leaves = [part[0] for part in parts]
            priors_of[leaves, : p.shape[1]] = p
            values_of[leaves] = values
            for j, b in enumerate(leaves):
                rows[b].remember(keys_of[b], p[j], values[j])
        stats.requests += count
        with_priors = np.array([e.priors and e.status == EXPANDED for e in rows], dtype=np.bool_)
        finish_all(self._items, slots, depths, with_priors, priors_of, values_of, self._scratch)
        for b, entry in enumerate(rows):
            search = entry.search
            if entry.kernel is None:  # a strategy without a kernel: its Python backup
                tree = search.tree
                assert tree is not None
                entry.backup(tree, search._path[: entry.depth + 1], float(values_of[b]))
            entry.done += 1
            if not entry.noised:
                search._noise_root()
                entry.noised = True
        stats.evaluate_seconds += time.perf_counter() - tick
