"""The MCTS loop: select, expand, evaluate, back up; tree reuse by re-rooting.

One simulation is:

1. **collect** (compiled, :func:`_descend`): copy the root position, walk down the tree with
   the tree policy replaying each move, and stop at a node that is terminal or not expanded.
   A leaf reached with at least ``expand_visits`` visits (the root always) is expanded there
   with one child per legal move, uniform priors and a pass weight, in a random order so that
   ties between equal scores are broken at random.
2. **evaluate**: the exact outcome at a terminal node (+1/-1/0 for the player to move there;
   computed once and cached in ``Tree.terminal``), otherwise the
   :class:`~agents.mcts.evaluators.Evaluator` (whose priors replace the uniform ones of a new
   expansion unless it declares ``uniform_priors``).
3. **backup**: ``strategy.backup(tree, path, leaf_value)`` (see
   :mod:`agents.mcts.backups.base`).

With the ``solver`` backup (MCTS-Solver, ``docs/backups.md``), selection takes a child proven
to win at once and avoids proven losses, a proven node is a leaf whose known result is backed
up without evaluation, and the search stops once the root is proven.

**Batched evaluation with virtual loss** (``MCTSConfig.batch > 1``, for network evaluators):
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
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from agents.mcts.backups import bind_backup
from agents.mcts.evaluators import Evaluator, LeafBatch, RolloutEvaluator
from agents.mcts.selection import (
    FPU_ABSOLUTE,
    FPU_INFINITE,
    FPU_PARENT,
    POLICY_PUCT,
    POLICY_UCT,
    dirichlet_noise,
    select_child,
)
from agents.mcts.stats import SearchStats
from agents.mcts.tree import Tree
from go_env.kernels import (
    H_HASH,
    H_KO,
    H_MOVES,
    H_P,
    H_PASSES,
    H_TO_PLAY,
    HEADER,
    LEGAL,
    area,
    area_without_dead,
    candidate_hash,
    check_local,
    next_random,
    play,
    seed_rng,
)
from go_env.rules import KoRule
from go_env.state import GoState

if TYPE_CHECKING:
    from agents.mcts.config import MCTSConfig

__all__ = ["Search", "SearchError"]

LEAF = 0  # evaluated, not expanded
EXPANDED = 1  # expanded now, then evaluated
TERMINAL = 2  # game over: exact value

# Tree.terminal codes: 0 not over, 1 over and not yet scored, then the cached exact value for
# the player to move at the node.
_OVER, _WON, _LOST, _DRAWN = 1, 2, 3, 4

_FPU = {"infinite": FPU_INFINITE, "parent": FPU_PARENT, "absolute": FPU_ABSOLUTE}
_KO = {KoRule.SIMPLE: 0, KoRule.POSITIONAL: 1, KoRule.SITUATIONAL: 2}

# Slots of the packed kernel parameters.
I_POLICY, I_FPU, I_SOLVER, I_EXPAND, I_KO, I_SUICIDE, I_LIMIT, I_DEAD = range(8)
F_C, F_FPU, F_PASS, F_KOMI = range(4)


class SearchError(ValueError):
    """The search was asked something impossible (e.g. to search a finished game)."""


@njit(cache=True)
def _expand(
    node,
    size,
    parent,
    move,
    first_child,
    n_children,
    visits,
    value,
    prior,
    terminal,
    proven,
    s,
    nbr,
    zob,
    side,
    root_keys,
    path_keys,
    depth,
    legal,
    rng,
    iparams,
    pass_weight,
):  # pragma: no cover - compiled
    """Give ``node`` (position ``s``) one child per legal move from index ``size``; new size."""
    points = s[H_P]
    color = s[H_TO_PLAY]
    ko_mode = iparams[I_KO]
    suicide = iparams[I_SUICIDE] != 0
    side_after = side[3 - color] if ko_mode == 2 else 0
    count = 0
    for p in range(points):
        if check_local(s, nbr, p, color, suicide) != LEGAL:
            continue
        if ko_mode != 0:
            key = candidate_hash(s, nbr, zob, p, color) ^ side_after
            i = np.searchsorted(root_keys, key)
            if i < root_keys.shape[0] and root_keys[i] == key:
                continue
            repeated = False
            for d in range(1, depth + 1):
                if path_keys[d] == key:
                    repeated = True
                    break
            if repeated:
                continue
        legal[count] = p
        count += 1
    legal[count] = points  # pass
    count += 1
    for i in range(count - 1, 0, -1):  # Fisher-Yates shuffle: random tie-breaking order
        j = np.int64((next_random(rng) * np.uint64(i + 1)) >> np.uint64(32))
        legal[i], legal[j] = legal[j], legal[i]
    total = (count - 1) + pass_weight
    point_prior = 1.0 / total if total > 0 else 0.0
    pass_prior = pass_weight / total if total > 0 else 1.0
    passes = s[H_PASSES]
    capped = s[H_MOVES] + 1 >= iparams[I_LIMIT]
    for k in range(count):
        ch = size + k
        m = legal[k]
        parent[ch] = node
        move[ch] = m
        first_child[ch] = -1
        n_children[ch] = 0
        visits[ch] = 0
        value[ch] = 0.0
        proven[ch] = 0
        if m == points:
            prior[ch] = pass_prior
            terminal[ch] = 1 if (passes >= 1 or capped) else 0
        else:
            prior[ch] = point_prior
            terminal[ch] = 1 if capped else 0
    first_child[node] = size
    n_children[node] = count
    return size + count


@njit(cache=True)
def _score_finished(s, nbr, diag, zob, rng, iparams, fparams, work, owned):  # pragma: no cover
    """The terminal code (``_WON``, ``_LOST``, ``_DRAWN``) of the finished game ``s``.

    Counted by Tromp-Taylor, or, when ``iparams[I_DEAD]`` (the number of ownership playouts)
    is positive and the game ended by two passes, after removing the dead stones.
    """
    if iparams[I_DEAD] > 0 and s[H_PASSES] >= 2:
        black, white = area_without_dead(s, nbr, diag, zob, iparams[I_DEAD], rng, work, owned)
    else:
        black, white = area(s, nbr)
    score = float(black - white) - fparams[F_KOMI]
    if s[H_TO_PLAY] == 2:
        score = -score
    return _WON if score > 0 else (_LOST if score < 0 else _DRAWN)


@njit(cache=True)
def _descend(
    parent,
    move,
    first_child,
    n_children,
    visits,
    value,
    prior,
    terminal,
    proven,
    size,
    limit,
    root_vec,
    s,
    nbr,
    diag,
    zob,
    side,
    root_keys,
    path,
    path_moves,
    path_keys,
    legal,
    rng,
    iparams,
    fparams,
    work,
    owned,
    out,
):  # pragma: no cover - compiled
    """Select from the root to a leaf, replaying moves on ``s``; expand or score the leaf.

    Returns:
        ``(depth, size, status)``: the leaf is ``path[depth]``; ``size`` is the new tree size;
        ``status`` is ``LEAF``, ``EXPANDED`` or ``TERMINAL`` (the game is over at the leaf, or
        the solver proved it; ``out[0]`` then holds the exact value for the player to move
        there).
    """
    s[:] = root_vec
    policy = iparams[I_POLICY]
    fpu_mode = iparams[I_FPU]
    solver = iparams[I_SOLVER] != 0
    ko_mode = iparams[I_KO]
    c = fparams[F_C]
    fpu_value = fparams[F_FPU]
    node = 0
    depth = 0
    path[0] = 0
    while first_child[node] >= 0 and terminal[node] == 0 and not (solver and proven[node] != 0):
        node = select_child(
            node,
            first_child,
            n_children,
            visits,
            value,
            prior,
            proven,
            policy,
            c,
            fpu_mode,
            fpu_value,
            solver,
        )
        mv = move[node]
        play(s, nbr, zob, mv)
        path_moves[depth] = mv
        depth += 1
        path[depth] = node
        if ko_mode == 2:
            path_keys[depth] = s[H_HASH] ^ side[s[H_TO_PLAY]]
        elif ko_mode == 1:
            path_keys[depth] = s[H_HASH]
    if terminal[node] != 0:
        if terminal[node] == _OVER:
            terminal[node] = _score_finished(s, nbr, diag, zob, rng, iparams, fparams, work, owned)
        code = terminal[node]
        out[0] = 1.0 if code == _WON else (-1.0 if code == _LOST else 0.0)
        return depth, size, TERMINAL
    if solver and proven[node] != 0:  # a proven node is a leaf with a known result
        out[0] = -float(proven[node])
        return depth, size, TERMINAL
    if (node == 0 or visits[node] >= iparams[I_EXPAND]) and size + s[H_P] + 1 <= limit:
        size = _expand(
            node,
            size,
            parent,
            move,
            first_child,
            n_children,
            visits,
            value,
            prior,
            terminal,
            proven,
            s,
            nbr,
            zob,
            side,
            root_keys,
            path_keys,
            depth,
            legal,
            rng,
            iparams,
            fparams[F_PASS],
        )
        return depth, size, EXPANDED
    return depth, size, LEAF


@njit(cache=True)
def _add_virtual_loss(
    path, depth, visits, value, loss, saved_node, saved_visits, saved_value, top
):  # pragma: no cover - compiled
    """Add ``loss`` lost visits to ``path[1 .. depth]``, saving what it changes; new ``top``."""
    for d in range(1, depth + 1):
        node = path[d]
        n = visits[node]
        saved_node[top] = node
        saved_visits[top] = n
        saved_value[top] = value[node]
        top += 1
        value[node] = (value[node] * n - loss) / (n + loss)
        visits[node] = n + loss
    return top


@njit(cache=True)
def _undo_virtual_loss(
    top, visits, value, saved_node, saved_visits, saved_value
):  # pragma: no cover - compiled
    """Restore the saved visits and values, newest first."""
    for i in range(top - 1, -1, -1):
        node = saved_node[i]
        visits[node] = saved_visits[i]
        value[node] = saved_value[i]


@njit(cache=True)
def _subtree_size(first_child, n_children, root, stack):  # pragma: no cover - compiled
    count = 0
    top = 1
    stack[0] = root
    while top > 0:
        top -= 1
        node = stack[top]
        count += 1
        first = first_child[node]
        if first >= 0:
            for i in range(first, first + n_children[node]):
                stack[top] = i
                top += 1
    return count


@njit(cache=True)
def _compact(
    root,
    o_first,
    o_count,
    o_move,
    o_visits,
    o_value,
    o_prior,
    o_terminal,
    o_proven,
    o_stats,
    parent,
    first_child,
    n_children,
    move,
    visits,
    value,
    prior,
    terminal,
    proven,
    stats,
    old_of,
):  # pragma: no cover - compiled
    """Copy the subtree of ``root`` breadth-first into fresh arrays (contiguous child blocks)."""
    old_of[0] = root
    parent[0] = -1
    size = 1
    i = 0
    while i < size:
        o = old_of[i]
        move[i] = o_move[o] if i > 0 else -1
        visits[i] = o_visits[o]
        value[i] = o_value[o]
        prior[i] = o_prior[o] if i > 0 else 1.0
        terminal[i] = o_terminal[o]
        proven[i] = o_proven[o]
        stats[i, :] = o_stats[o, :]
        first = o_first[o]
        if first >= 0:
            count = o_count[o]
            first_child[i] = size
            n_children[i] = count
            for k in range(count):
                old_of[size + k] = first + k
                parent[size + k] = i
            size += count
        else:
            first_child[i] = -1
            n_children[i] = 0
        i += 1
    return size


def _same_position(a: np.ndarray, b: np.ndarray, points: int) -> bool:
    """Whether two state vectors hold the same board, player, ko point and counters."""
    slots = [H_HASH, H_TO_PLAY, H_KO, H_PASSES, H_MOVES]
    return bool(
        np.array_equal(a[slots], b[slots])
        and np.array_equal(a[HEADER : HEADER + points], b[HEADER : HEADER + points])
    )


class Search:
    """Monte-Carlo tree search over a :class:`~go_env.state.GoState` (see the module docstring).

    Args:
        config: The search parameters (:class:`~agents.mcts.config.MCTSConfig`).
        evaluator: Leaf evaluator; ``None``: a :class:`RolloutEvaluator` seeded from ``seed``
            with the config's ``score_scale``.
        seed: Seed of the search's generators (tie-breaking order, root noise, rollouts);
            ``None``: the config's seed, or fresh entropy.

    Example:
        >>> search = Search(MCTSConfig(sims=1000), seed=1)  # doctest: +SKIP
        >>> search.set_root(GoState())
        >>> stats = search.run(sims=1000)
        >>> stats.pv, stats.sims_per_second
    """

    def __init__(
        self, config: MCTSConfig, evaluator: Evaluator | None = None, *, seed: int | None = None
    ) -> None:
        self.config = config
        seed = config.seed if seed is None else seed
        seeds = np.random.SeedSequence(seed).generate_state(3, dtype=np.uint64)
        self._rng = seed_rng(int(seeds[0]))
        self._noise_rng = np.random.default_rng(int(seeds[1]))
        self.evaluator: Evaluator = (
            evaluator
            if evaluator is not None
            else RolloutEvaluator(seed=int(seeds[2]), score_scale=config.score_scale)
        )
        self._unbound = config.backup_strategy()
        self.strategy = bind_backup(self._unbound, config.sims)
        self._iparams = np.zeros(8, dtype=np.int64)
        self._iparams[I_POLICY] = POLICY_UCT if config.policy == "uct" else POLICY_PUCT
        self._iparams[I_FPU] = _FPU[config.fpu_mode]
        self._iparams[I_SOLVER] = int(config.uses_solver)
        self._iparams[I_EXPAND] = config.expand_visits
        self._iparams[I_DEAD] = config.dead_playouts if config.end_scoring == "remove_dead" else 0
        self._fparams = np.zeros(4, dtype=np.float64)
        self._fparams[F_C] = config.exploration
        self._fparams[F_FPU] = (
            config.fpu_reduction if config.fpu_mode == "parent" else config.fpu_value
        )
        self._fparams[F_PASS] = config.pass_prior
        self.tree: Tree | None = None
        self._root: GoState | None = None
        self._clean_priors: np.ndarray | None = None

    # ------------------------------------------------------------------ the root
    @property
    def root(self) -> GoState:
        """The root position (a private clone; do not modify)."""
        if self._root is None:
            raise SearchError("the search has no root yet; call set_root(state) first")
        return self._root

    def set_root(self, state: GoState) -> None:
        """Start a new tree at ``state`` (which is cloned, never modified)."""
        if state.is_over:
            raise SearchError(f"the game is over (result {state.result()}); nothing to search")
        self._set_state(state.clone())
        self.strategy = bind_backup(self._unbound, self.config.sims, board_points=self._points)
        self.tree = Tree(
            self.strategy.n_stats, capacity=min(self.config.max_nodes, 64 * (self._points + 1))
        )
        self._clean_priors = None

    def clear(self) -> None:
        """Drop the tree and the root (``set_root`` starts again)."""
        self.tree = None
        self._root = None
        self._clean_priors = None

    def advance(self, state: GoState) -> bool:
        """Re-root the tree at ``state`` if it follows from the root by moves in the tree.

        The subtree of the new root is copied into a compact new tree (visits, values, priors
        and backup statistics kept). Returns ``False``, leaving the search unchanged, when
        ``state`` does not continue the root's game or leaves the tree.
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
        if not _same_position(vector, state.compiled().vector, self._points):
            return False  # another game with the same moves so far (e.g. set-up positions)
        tree = self.tree
        node = 0
        for move in moves:
            children = tree.children(node)
            hit = children[tree.move[children] == move]
            if hit.size == 0:
                return False
            node = int(hit[0])
        if node != 0:
            self.tree = self._subtree(node)
            self._clean_priors = None
        self._set_state(state.clone())
        return True

    def _set_state(self, state: GoState) -> None:
        self._root = state
        self._compiled = state.compiled()
        self._points = state.size * state.size
        rules = state.rules
        self._iparams[I_KO] = _KO[rules.ko]
        self._iparams[I_SUICIDE] = int(rules.suicide)
        self._iparams[I_LIMIT] = rules.move_limit
        self._fparams[F_KOMI] = float(rules.komi)
        depth = max(rules.move_limit - state.move_number, 0) + 2
        length = self._compiled.vector.shape[0]
        self._scratch = np.empty((1, length), dtype=np.int64)
        self._path = np.zeros(depth, dtype=np.int64)
        self._path_moves = np.zeros((1, depth), dtype=np.int64)
        self._path_keys = np.zeros(depth, dtype=np.int64)
        self._depths = np.zeros(1, dtype=np.int64)
        self._legal = np.empty(self._points + 1, dtype=np.int64)
        self._out = np.zeros(1, dtype=np.float64)
        self._work = np.empty(length, dtype=np.int64)
        self._owned = np.zeros(self._points, dtype=np.float64)
        self._batch = LeafBatch(
            state, self._compiled, self._scratch, self._path_moves, self._depths
        )
        batch = self.config.batch
        if batch > 1:
            self._b_vectors = np.empty((batch, length), dtype=np.int64)
            self._b_paths = np.zeros((batch, depth), dtype=np.int64)
            self._b_moves = np.zeros((batch, depth), dtype=np.int64)
            self._b_depths = np.zeros(batch, dtype=np.int64)
            self._b_status = np.zeros(batch, dtype=np.int64)
            self._b_values = np.zeros(batch, dtype=np.float64)
            self._vl_node = np.zeros(batch * depth, dtype=np.int64)
            self._vl_visits = np.zeros(batch * depth, dtype=np.int64)
            self._vl_value = np.zeros(batch * depth, dtype=np.float64)

    def _subtree(self, node: int) -> Tree:
        old = self.tree
        assert old is not None
        stack = np.empty(old.size, dtype=np.int64)
        count = int(_subtree_size(old.first_child, old.n_children, node, stack))
        new = Tree(old.n_stats, capacity=max(count + self._points + 1, 64 * (self._points + 1)))
        size = _compact(
            node,
            old.first_child,
            old.n_children,
            old.move,
            old.visits,
            old.value,
            old.prior,
            old.terminal,
            old.proven,
            old.stats,
            new.parent,
            new.first_child,
            new.n_children,
            new.move,
            new.visits,
            new.value,
            new.prior,
            new.terminal,
            new.proven,
            new.stats,
            stack,
        )
        new.size = int(size)
        return new

    # ------------------------------------------------------------------ searching
    def run(self, *, sims: int | None = None, seconds: float | None = None) -> SearchStats:
        """Run simulations from the root and return the root statistics.

        Args:
            sims: Number of simulations; ``None``: the config's ``sims`` unless ``seconds`` is
                given.
            seconds: Wall-clock budget; the search stops at whichever limit comes first and
                runs at least one simulation. With the solver backup it also stops once the
                root is proven.

        Raises:
            SearchError: When no root was set.
        """
        tree = self.tree
        if tree is None:
            raise SearchError("the search has no root yet; call set_root(state) first")
        if sims is None and seconds is None:
            sims = self.config.sims
        limit = sims if sims is not None else -1
        start = time.perf_counter()
        deadline = start + seconds if seconds is not None else float("inf")
        done = 0
        if tree.first_child[0] < 0 and limit != 0:
            self._simulate()
            done = 1
        self._noise_root()
        solver = self.config.uses_solver
        batch = self.config.batch
        while done != limit:
            if done > 0 and time.perf_counter() >= deadline:
                break
            if solver and tree.proven[0] != 0:  # the result is known: stop early
                break
            if batch == 1:
                self._simulate()
                done += 1
            else:
                count = batch if limit < 0 else min(batch, limit - done)
                self._simulate_batch(count)
                done += count
        elapsed = time.perf_counter() - start
        return SearchStats.from_tree(tree, simulations=done, elapsed=elapsed)

    def stats(self) -> SearchStats:
        """The root statistics now (no simulation run)."""
        if self.tree is None:
            raise SearchError("the search has no root yet; call set_root(state) first")
        return SearchStats.from_tree(self.tree, simulations=0, elapsed=0.0)

    def _collect(self, vector: np.ndarray, path: np.ndarray, moves: np.ndarray) -> tuple[int, int]:
        """Step 1 of a simulation (:func:`_descend`): ``(depth, status)`` of the leaf reached.

        The leaf's position is left in ``vector``, the nodes from the root in ``path`` and the
        moves in ``moves``; the tree grows first when an expansion might not fit.
        """
        tree = self.tree
        assert tree is not None
        need = tree.size + self._points + 1
        if need > tree.capacity and need <= self.config.max_nodes:
            tree.reserve(self._points + 1)
        compiled = self._compiled
        geo = compiled.geometry
        depth, size, status = _descend(
            tree.parent,
            tree.move,
            tree.first_child,
            tree.n_children,
            tree.visits,
            tree.value,
            tree.prior,
            tree.terminal,
            tree.proven,
            tree.size,
            min(tree.capacity, self.config.max_nodes),
            compiled.vector,
            vector,
            geo.nbr,
            geo.diag,
            geo.zobrist,
            geo.side,
            compiled.superko_keys,
            path,
            moves,
            self._path_keys,
            self._legal,
            self._rng,
            self._iparams,
            self._fparams,
            self._work,
            self._owned,
            self._out,
        )
        tree.size = size
        return depth, status

    def _simulate(self) -> None:
        """One simulation: collect a leaf, evaluate it, back it up."""
        tree = self.tree
        assert tree is not None
        depth, status = self._collect(self._scratch[0], self._path, self._path_moves[0])
        if status == TERMINAL:
            value = float(self._out[0])
        else:
            self._depths[0] = depth
            priors, values = self.evaluator.evaluate(self._batch)
            value = float(values[0])
            if status == EXPANDED and not self.evaluator.uniform_priors:
                self._set_priors(int(self._path[depth]), priors[0])
        self.strategy.backup(tree, self._path[: depth + 1], value)

    def _simulate_batch(self, count: int) -> None:
        """``count`` simulations whose leaves are evaluated as one batch (virtual loss)."""
        tree = self.tree
        assert tree is not None
        compiled = self._compiled
        loss = self.config.virtual_loss
        paths, depths, status, exact = self._b_paths, self._b_depths, self._b_status, self._b_values
        top = 0
        for i in range(count):
            depth, kind = self._collect(self._b_vectors[i], paths[i], self._b_moves[i])
            depths[i] = depth
            status[i] = kind
            exact[i] = self._out[0] if kind == TERMINAL else 0.0
            if loss > 0 and i < count - 1:
                top = _add_virtual_loss(
                    paths[i],
                    depth,
                    tree.visits,
                    tree.value,
                    loss,
                    self._vl_node,
                    self._vl_visits,
                    self._vl_value,
                    top,
                )
        _undo_virtual_loss(
            top, tree.visits, tree.value, self._vl_node, self._vl_visits, self._vl_value
        )
        leaves = np.flatnonzero(status[:count] != TERMINAL)
        if leaves.size:
            batch = LeafBatch(
                self.root,
                compiled,
                self._b_vectors[leaves],
                self._b_moves[leaves],
                depths[leaves],
            )
            priors, values = self.evaluator.evaluate(batch)
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
        weight = self.config.noise_weight
        tree = self.tree
        if weight == 0.0 or tree is None or tree.first_child[0] < 0:
            return
        block = tree.children(0)
        if self._clean_priors is None:
            self._clean_priors = tree.prior[block].copy()
        tree.prior[block] = dirichlet_noise(
            self._clean_priors, self.config.noise_alpha, weight, self._noise_rng
        )
