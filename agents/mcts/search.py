"""The MCTS driver: select, expand, evaluate, back up; tree reuse by re-rooting.

The pieces live in their own modules: the compiled descent in :mod:`agents.mcts.kernels`,
virtual loss in :mod:`agents.mcts.virtual_loss`, re-rooting in :mod:`agents.mcts.reuse`, the
resolved parameters in :mod:`agents.mcts.params` (``docs/decisions/013-search-modules.md``).

One simulation is:

1. **collect** (compiled, :func:`~agents.mcts.kernels.descend`): copy the root position, walk
   down the tree with the tree policy replaying each move, and stop at a node that is terminal
   or not expanded. A leaf reached with at least ``expand_visits`` visits (the root always) is
   expanded there with one child per legal move, uniform priors and a pass weight, in a random
   order so that ties between equal scores are broken at random.
2. **evaluate**: the exact outcome at a terminal node (+1/-1/0 for the player to move there;
   computed once and cached in ``Tree.terminal``), otherwise the
   :class:`~agents.mcts.evaluators.Evaluator` (whose priors replace the uniform ones of a new
   expansion unless it declares ``uniform_priors``).
3. **backup**: ``strategy.backup(tree, path, leaf_value)`` (see
   :mod:`agents.mcts.backups.base`).

With the ``solver`` backup (MCTS-Solver, ``docs/backups.md``), selection takes a child proven
to win at once and avoids proven losses, a proven node is a leaf whose known result is backed
up without evaluation, and the search stops once the root is proven.

**A search as a coroutine.** :meth:`Search.steps` is the search as a generator: it yields
each :class:`~agents.mcts.evaluators.LeafBatch` that needs an evaluation and resumes with the
evaluator's ``(priors, values)``; :meth:`Search.run` drives it with the search's own
evaluator. A caller that drives many searches at once can therefore answer the leaves of all
of them with one network call (:mod:`agents.mcts.multi`), and each search stays exactly the
sequential search it would be alone; :class:`agents.mcts.search_set.SearchSet` runs many
searches in rounds with the same steps inlined (no generator frame per leaf).

**Batched evaluation with virtual loss** (``SearchParams.batch > 1``, for network evaluators):
step 1 runs ``batch`` times before one evaluation of all the leaves collected. After each
collection a *virtual loss* is applied to the nodes of its path (``virtual_loss`` extra visits,
each counted as a loss for the player who moved into the node: ``q <- (q n - v) / (n + v)``),
so the next descents spread over other lines (Guillaume Chaslot, Mark Winands, Jaap van den
Herik, *Parallel Monte-Carlo tree search*, CG 2008; AlphaGo's asynchronous search). Before the
backups every virtual loss is undone exactly (the saved visits and values are restored), then
each leaf is backed up in collection order with the normal strategy, so every backup strategy
works unchanged. A leaf expanded earlier in the same batch has uniform priors until the batch
is evaluated; a later descent through it chooses among its children by those. With
``batch = 1`` (the default) a simulation is exactly steps 1-3.

**Rules inside the tree.** Children are exactly the moves :class:`~go_env.state.GoState` would
accept: suicide per the rules, simple ko, and superko (positional or situational) against the
root's position keys plus the keys of the positions along the path. Pass is always a child. A
child is terminal when it is the second pass in a row or reaches the move cap; its value is
exact: the Tromp-Taylor count, or with ``end_scoring="remove_dead"`` the count of a game ended
by passes after removing the stones that playout ownership judges dead
(:mod:`go_env._core.ownership`, ``docs/decisions/011``). The random playouts below the tree
use simple ko only (``docs/decisions/002``).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Generator
from typing import Any

import numpy as np

from agents.mcts.backups import bind_backup
from agents.mcts.evaluators import Evaluator, LeafBatch, RolloutEvaluator
from agents.mcts.kernels import EXPANDED, TERMINAL, Board, Scratch, descend_packed
from agents.mcts.params import SearchParams
from agents.mcts.reuse import compact_subtree, follow, same_position
from agents.mcts.selection import dirichlet_noise
from agents.mcts.stats import SearchStats
from agents.mcts.tree import Tree, TreeArrays
from agents.mcts.virtual_loss import VirtualLoss
from go_env.kernels import play, seed_rng
from go_env.state import GoState
from go_env.validation import check_int

__all__ = ["Evaluation", "Search", "SearchError", "SearchSteps"]

Evaluation = tuple[np.ndarray, np.ndarray]
"""What an evaluator returns for a batch: ``(priors (B, A), values (B,))``."""

SearchSteps = Generator[LeafBatch, Evaluation, SearchStats]
"""A search run as a coroutine (:meth:`Search.steps`)."""


class SearchError(ValueError):
    """The search was asked something impossible (e.g. to search a finished game)."""


class Search:
    """Monte-Carlo tree search over a :class:`~go_env.state.GoState` (see the module docstring).

    Args:
        params: The resolved search parameters (:class:`~agents.mcts.params.SearchParams`,
            e.g. ``MCTSConfig(...).search_params()``). An ``MCTSConfig`` is still accepted
            (converted, with a ``DeprecationWarning``).
        evaluator: Leaf evaluator; ``None``: a :class:`RolloutEvaluator` seeded from ``seed``
            with the parameters' ``score_scale``.
        seed: Seed of the search's generators (tie-breaking order, root noise, rollouts);
            ``None``: the parameters' seed, or fresh entropy.

    Attributes:
        params: The parameters.
        evaluator: The leaf evaluator.
        strategy: The backup strategy, bound to ``params.sims`` (and the board size).
        tree: The tree (``None`` before :meth:`set_root`).

    Example:
        >>> search = Search(MCTSConfig(sims=1000).search_params(), seed=1)  # doctest: +SKIP
        >>> search.set_root(GoState())
        >>> stats = search.run(sims=1000)
        >>> stats.pv, stats.sims_per_second
    """

    def __init__(
        self, params: SearchParams, evaluator: Evaluator | None = None, *, seed: int | None = None
    ) -> None:
        self._config: Any = None
        if not isinstance(params, SearchParams):
            if not callable(getattr(params, "search_params", None)):
                raise TypeError(
                    f"Search takes SearchParams (MCTSConfig(...).search_params()), got {params!r}"
                )
            warnings.warn(
                "Search(MCTSConfig) is deprecated; pass config.search_params()",
                DeprecationWarning,
                stacklevel=2,
            )
            self._config = params
            params = params.search_params()
        self.params = params
        seed = params.seed if seed is None else seed
        seeds = np.random.SeedSequence(seed).generate_state(3, dtype=np.uint64)
        self._rng = seed_rng(int(seeds[0]))
        self._noise_seed = int(seeds[1])
        self._noise_generator: np.random.Generator | None = None  # made at its first use
        self.evaluator: Evaluator = (
            evaluator
            if evaluator is not None
            else RolloutEvaluator(seed=int(seeds[2]), score_scale=params.score_scale)
        )
        self._unbound = params.backup
        self.strategy = bind_backup(self._unbound, params.sims)
        self.tree: Tree | None = None
        self._root: GoState | None = None
        self._clean_priors: np.ndarray | None = None
        self._tree_arrays: TreeArrays | None = None  # the arrays _tree_packed holds
        self._tree_packed: tuple[np.ndarray, ...] = ()

    @property
    def _noise_rng(self) -> np.random.Generator:
        """The root noise's generator, made when first drawn from (most searches never do)."""
        if self._noise_generator is None:
            self._noise_generator = np.random.default_rng(self._noise_seed)
        return self._noise_generator

    @property
    def config(self) -> Any:
        """Deprecated: the parameters (:attr:`params`; the ``MCTSConfig`` if one was given)."""
        warnings.warn(
            "Search.config is deprecated; use Search.params", DeprecationWarning, stacklevel=2
        )
        return self._config if self._config is not None else self.params

    # ------------------------------------------------------------------ the root
    @property
    def root(self) -> GoState:
        """The root position (a private clone; do not modify)."""
        if self._root is None:
            raise SearchError("the search has no root yet; call set_root(state) first")
        return self._root

    def set_root(self, state: GoState, *, planned: int | None = None) -> None:
        """Start a new tree at ``state`` (which is cloned, never modified).

        Args:
            state: The root position.
            planned: Simulations the caller plans from this root, to size the tree's arrays
                (default: ``params.sims``, and room for at least 64). Only the first
                allocation depends on it: a tree that needs more room grows, and the search
                is the same.
        """
        if state.is_over:
            raise SearchError(f"the game is over (result {state.result()}); nothing to search")
        self._set_state(state.clone())
        self.strategy = bind_backup(self._unbound, self.params.sims, board_points=self._points)
        # room for the planned simulations (each expands at most one node of points + 1
        # children), so that a search of params.sims does not copy its arrays as it grows
        width = self._points + 1
        if planned is None:
            capacity = max(64, self.params.sims + 2) * width
        else:
            capacity = (check_int("planned", planned, min=1) + 2) * width
        self.tree = Tree(self.strategy.n_stats, capacity=min(self.params.max_nodes, capacity))
        self._clean_priors = None

    def clear(self) -> None:
        """Drop the tree and the root (``set_root`` starts again)."""
        self.tree = None
        self._root = None
        self._clean_priors = None

    def advance(self, state: GoState) -> bool:
        """Re-root the tree at ``state`` if it follows from the root by moves in the tree.

        The subtree of the new root is copied into a compact new tree (visits, values, priors
        and backup statistics kept, :mod:`agents.mcts.reuse`). Returns ``False``, leaving the
        search unchanged, when ``state`` does not continue the root's game or leaves the tree.
        """
        if self.tree is None or self._root is None or state.is_over:
            return False
        old = self._root
        if state.rules != old.rules:
            return False
        before, after = old.history, state.history
        if len(after) < len(before) or after[: len(before)] != before:
            return False
        moves = [move for _, move in after[len(before) :]]
        vector = self._compiled.vector.copy()
        geo = self._compiled.geometry
        for move in moves:
            play(vector, geo.nbr, geo.zobrist, move)
        if not same_position(vector, state.compiled().vector, self._points):
            return False  # another game with the same moves so far (e.g. set-up positions)
        node = follow(self.tree, moves)
        if node is None:
            return False
        if node != 0:
            self.tree = compact_subtree(self.tree, node, self._points)
            self._clean_priors = None
        self._set_state(state.clone())
        return True

    def _set_state(self, state: GoState) -> None:
        self._root = state
        compiled = self._compiled = state.compiled()
        self._points = state.size * state.size
        rules = state.rules
        self._iparams, self._fparams = self.params.kernel_arrays(rules)
        depth = max(rules.move_limit - state.move_number, 0) + 2
        length = compiled.vector.shape[0]
        geo = compiled.geometry
        self._board = Board(
            compiled.vector, geo.nbr, geo.diag, geo.zobrist, geo.side, compiled.superko_keys
        )
        self._scratch_state = Scratch(
            path_keys=np.zeros(depth, dtype=np.int64),
            legal=np.empty(self._points + 1, dtype=np.int64),
            work=np.empty(length, dtype=np.int64),
            owned=np.zeros(self._points, dtype=np.float64),
            out=np.zeros(1, dtype=np.float64),
            rng=self._rng,
        )
        # The kernel takes them as plain tuples (descend_packed: faster to dispatch).
        self._board_packed = tuple(self._board)
        self._scratch_packed = tuple(self._scratch_state)
        self._vector = np.empty((1, length), dtype=np.int64)
        self._path = np.zeros(depth, dtype=np.int64)
        self._path_moves = np.zeros((1, depth), dtype=np.int64)
        self._depths = np.zeros(1, dtype=np.int64)
        self._batch = LeafBatch(state, compiled, self._vector, self._path_moves, self._depths)
        batch = self.params.batch
        if batch > 1:
            self._b_vectors = np.empty((batch, length), dtype=np.int64)
            self._b_paths = np.zeros((batch, depth), dtype=np.int64)
            self._b_moves = np.zeros((batch, depth), dtype=np.int64)
            self._b_depths = np.zeros(batch, dtype=np.int64)
            self._b_status = np.zeros(batch, dtype=np.int64)
            self._b_values = np.zeros(batch, dtype=np.float64)
            self._virtual = VirtualLoss(self.params.virtual_loss, batch, depth)

    # ------------------------------------------------------------------ searching
    def run(self, *, sims: int | None = None, seconds: float | None = None) -> SearchStats:
        """Run simulations from the root and return the root statistics.

        Args:
            sims: Number of simulations; ``None``: the parameters' ``sims`` unless ``seconds``
                is given.
            seconds: Wall-clock budget; the search stops at whichever limit comes first and
                runs at least one simulation. With the solver backup it also stops once the
                root is proven.

        Raises:
            SearchError: When no root was set.
        """
        steps = self.steps(sims=sims, seconds=seconds)
        evaluate = self.evaluator.evaluate
        try:
            batch = next(steps)
            while True:
                batch = steps.send(evaluate(batch))
        except StopIteration as stop:
            return stop.value

    def steps(self, *, sims: int | None = None, seconds: float | None = None) -> SearchSteps:
        """The search of :meth:`run` as a coroutine that asks for its leaf evaluations.

        Each ``yield`` is a :class:`LeafBatch` (one leaf when ``batch`` is 1; valid until the
        generator is resumed); resume it with ``send((priors, values))`` as
        :meth:`Evaluator.evaluate <agents.mcts.evaluators.Evaluator.evaluate>` would return
        them. Whether the priors are read follows ``self.evaluator.uniform_priors``. The
        generator returns the :class:`SearchStats` (``StopIteration.value``).

        Raises:
            SearchError: When no root was set (at the first ``next``).
        """
        tree = self.tree
        if tree is None:
            raise SearchError("the search has no root yet; call set_root(state) first")
        params = self.params
        if sims is None and seconds is None:
            sims = params.sims
        limit = sims if sims is not None else -1
        start = time.perf_counter()
        deadline = start + seconds if seconds is not None else float("inf")
        done = 0
        if tree.first_child[0] < 0 and limit != 0:
            yield from self._simulation()
            done = 1
        self._noise_root()
        solver = params.solver
        batch = params.batch
        uniform = self.evaluator.uniform_priors
        strategy = self.strategy
        path, vector, moves = self._path, self._vector[0], self._path_moves[0]
        out = self._scratch_state.out
        timed = seconds is not None
        while done != limit:
            if timed and done > 0 and time.perf_counter() >= deadline:
                break
            if solver and tree.proven[0] != 0:  # the result is known: stop early
                break
            if batch == 1:  # one simulation, inline (the hot loop of a sequential search)
                depth, status = self._collect(vector, path, moves)
                if status == TERMINAL:
                    value = float(out[0])
                else:
                    self._depths[0] = depth
                    priors, values = yield self._batch
                    value = float(values[0])
                    if status == EXPANDED and not uniform:
                        self._set_priors(int(path[depth]), priors[0])
                strategy.backup(tree, path[: depth + 1], value)
                done += 1
            else:
                count = batch if limit < 0 else min(batch, limit - done)
                yield from self._simulation_batch(count)
                done += count
        elapsed = time.perf_counter() - start
        return SearchStats.from_tree(tree, simulations=done, elapsed=elapsed)

    def simulation(self) -> Generator[LeafBatch, Evaluation, None]:
        """One simulation from the root, as :meth:`steps` with ``sims=1`` runs it.

        The same coroutine protocol and the same tree afterwards (root noise and the solver's
        early stop included), without the :class:`SearchStats` that :meth:`steps` builds at
        its end: for callers that drive many small searches one simulation at a time and read
        the tree themselves (Gumbel's root, :mod:`agents.mcts.gumbel`).

        Raises:
            SearchError: When no root was set (at the first ``next``).
        """
        tree = self.tree
        if tree is None:
            raise SearchError("the search has no root yet; call set_root(state) first")
        if tree.first_child[0] < 0:
            yield from self._simulation()
            self._noise_root()
            return
        self._noise_root()
        if self.params.solver and tree.proven[0] != 0:
            return
        if self.params.batch == 1:
            yield from self._simulation()
        else:
            yield from self._simulation_batch(1)

    def stats(self) -> SearchStats:
        """The root statistics now (no simulation run)."""
        if self.tree is None:
            raise SearchError("the search has no root yet; call set_root(state) first")
        return SearchStats.from_tree(self.tree, simulations=0, elapsed=0.0)

    def _collect(self, vector: np.ndarray, path: np.ndarray, moves: np.ndarray) -> tuple[int, int]:
        """Step 1 of a simulation (:func:`~agents.mcts.kernels.descend`): ``(depth, status)``.

        The leaf's position is left in ``vector``, the nodes from the root in ``path`` and the
        moves in ``moves``; the tree grows first when an expansion might not fit.
        """
        tree = self.tree
        assert tree is not None
        need = tree.size + self._points + 1
        if need > tree.capacity and need <= self.params.max_nodes:
            tree.reserve(self._points + 1)
        arrays = tree.arrays
        if arrays is not self._tree_arrays:  # a new tree, or the tree grew
            self._tree_arrays = arrays
            self._tree_packed = tuple(arrays)
        depth, size, status = descend_packed(
            self._tree_packed,
            tree.size,
            min(tree.capacity, self.params.max_nodes),
            self._board_packed,
            vector,
            path,
            moves,
            self._scratch_packed,
            self._iparams,
            self._fparams,
        )
        tree.size = size
        return depth, status

    def _simulation(self) -> Generator[LeafBatch, Evaluation, None]:
        """One simulation: collect a leaf, have it evaluated, back it up."""
        tree = self.tree
        assert tree is not None
        depth, status = self._collect(self._vector[0], self._path, self._path_moves[0])
        if status == TERMINAL:
            value = float(self._scratch_state.out[0])
        else:
            self._depths[0] = depth
            priors, values = yield self._batch
            value = float(values[0])
            if status == EXPANDED and not self.evaluator.uniform_priors:
                self._set_priors(int(self._path[depth]), priors[0])
        self.strategy.backup(tree, self._path[: depth + 1], value)

    def _simulation_batch(self, count: int) -> Generator[LeafBatch, Evaluation, None]:
        """``count`` simulations whose leaves are evaluated as one batch (virtual loss)."""
        tree = self.tree
        assert tree is not None
        paths, depths, status, exact = self._b_paths, self._b_depths, self._b_status, self._b_values
        virtual = self._virtual
        out = self._scratch_state.out
        for i in range(count):
            depth, kind = self._collect(self._b_vectors[i], paths[i], self._b_moves[i])
            depths[i] = depth
            status[i] = kind
            exact[i] = out[0] if kind == TERMINAL else 0.0
            if i < count - 1:
                virtual.add(paths[i], depth, tree.visits, tree.value)
        virtual.undo(tree.visits, tree.value)
        leaves = np.flatnonzero(status[:count] != TERMINAL)
        if leaves.size:
            batch = LeafBatch(
                self.root,
                self._compiled,
                self._b_vectors[leaves],
                self._b_moves[leaves],
                depths[leaves],
            )
            priors, values = yield batch
            uniform = self.evaluator.uniform_priors
            for j, leaf in enumerate(leaves.tolist()):
                exact[leaf] = float(values[j])
                if status[leaf] == EXPANDED and not uniform:
                    self._set_priors(int(paths[leaf, depths[leaf]]), priors[j])
        for i in range(count):
            self.strategy.backup(tree, paths[i, : depths[i] + 1], float(exact[i]))

    def _set_priors(self, node: int, priors: np.ndarray) -> None:
        tree = self.tree
        assert tree is not None
        block = tree.children(node)
        p = np.asarray(priors, dtype=np.float64)[tree.move[block]]
        total = float(p.sum())
        tree.prior[block] = p / total if total > 0 else 1.0 / block.size

    def _noise_root(self) -> None:
        """Mix fresh Dirichlet noise into the root priors (from the noise-free priors)."""
        weight = self.params.noise_weight
        tree = self.tree
        if weight == 0.0 or tree is None or tree.first_child[0] < 0:
            return
        block = tree.children(0)
        if self._clean_priors is None:
            self._clean_priors = tree.prior[block].copy()
        tree.prior[block] = dirichlet_noise(
            self._clean_priors, self.params.noise_alpha, weight, self._noise_rng
        )
