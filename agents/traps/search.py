"""MCTS on trap trees with the project's own tree, selection rules and backup strategies.

One simulation is the same three steps as :mod:`agents.mcts.search`, on a generated tree
instead of a Go position:

1. **descend** (compiled, :func:`_descend`, taking the tree's
   :class:`~agents.mcts.tree.TreeArrays` and a :class:`TrapDescent`): from the root, choose
   children with the project's compiled tree policy :func:`agents.mcts.selection.select_child`
   (UCT or PUCT, first-play urgency, MCTS-Solver's proven nodes) until a node that is
   terminal, proven (with the solver) or not expanded. A node that is not expanded is expanded
   there with all its ``b`` children (:func:`agents.traps.trees.gen_children`), uniform priors
   or the noisy prior's softmax, in the tree arrays of :class:`agents.mcts.tree.Tree`, each
   child set up by the Go search's own :func:`agents.mcts.tree.init_child`.
2. **evaluate**: the exact outcome of a terminal node, the proven result of a proven node,
   otherwise the noisy (or deceptive) heuristic :func:`agents.traps.trees.evaluate`.
3. **backup**: ``strategy.backup(tree, path, leaf_value)`` of any registered backup strategy
   (:mod:`agents.mcts.backups.base`): the built-ins and ``pip install``-ed plugins alike. A
   built-in strategy (alone or inside ``solver``) backs up inside the same compiled call as
   the descent (:mod:`agents.mcts.backups.compiled`), with the same kernel its ``backup``
   method calls; any other is called from Python.

The decision is the most visited root child (ties to the higher value), or MCTS-Solver's
secure child (:func:`agents.mcts.backups.solver.secure_child`) for the ``solver`` backup, as
:class:`agents.mcts.config.MCTSConfig`'s ``choice="auto"`` does.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from agents.mcts.backups import bind_backup, make_backup
from agents.mcts.backups._kernel import NO_TABLE
from agents.mcts.backups.compiled import kernel_of, run_backup, run_solver_backup
from agents.mcts.config import DEFAULT_C
from agents.mcts.selection import (
    FPU_ABSOLUTE,
    FPU_INFINITE,
    POLICY_PUCT,
    POLICY_UCT,
    select_child,
)
from agents.mcts.tree import Tree, TreeArrays, init_child
from agents.plugins import capability
from agents.traps.trees import (
    I_KIND,
    I_VSTAR,
    N_INFO,
    ROOT_INFO,
    TRAP,
    TrapTreeConfig,
    child_key,
    evaluate,
    gen_children,
    is_terminal,
    prior_logit,
    root_key,
)
from go_env.validation import check_int

__all__ = ["POLICIES", "TrapDescent", "TrapOutcome", "TrapSearch", "search_tree"]

POLICIES = ("uct", "puct", "puct-noisy")
"""Tree policies: UCT, PUCT with uniform priors, PUCT with the noisy prior."""


class TrapDescent(NamedTuple):
    """What the trap search's compiled descent takes besides the tree, as one value.

    Attributes:
        keys: ``uint64 (C,)`` the generator key of each tree node.
        info: ``int64 (C, N_INFO)`` each node's generated facts (kind, ``V*``, depth...).
        path: ``int64 (D,)`` nodes from the root to the leaf (written).
        scratch: ``int64 (b, N_INFO)`` the facts of a new expansion's children.
        order: ``int64 (b,)`` buffer of :func:`agents.traps.trees.gen_children`.
        logits: ``float64 (b,)`` the children's prior logits, then weights.
        params: Int parameters of the tree family (:meth:`TrapTreeConfig.packed`).
        fparams: Float parameters of the tree family.
        policy: ``POLICY_UCT`` or ``POLICY_PUCT``.
        noisy_prior: Priors from the noisy prior's softmax rather than uniform.
        c: Exploration constant.
        fpu_mode: First-play urgency (:mod:`agents.mcts.selection`).
        solver: Honour proven nodes (MCTS-Solver).
        backup_kind: The built-in backup kernel run in the same compiled call
            (:mod:`agents.mcts.backups.compiled`), or -1: the caller backs up in Python.
        backup_solver: That kernel wrapped in MCTS-Solver.
        backup_table: Its ``table``.
        backup_params: Its ``params``.
    """

    keys: np.ndarray
    info: np.ndarray
    path: np.ndarray
    scratch: np.ndarray
    order: np.ndarray
    logits: np.ndarray
    params: np.ndarray
    fparams: np.ndarray
    policy: int
    noisy_prior: bool
    c: float
    fpu_mode: int
    solver: bool
    backup_kind: int
    backup_solver: bool
    backup_table: np.ndarray
    backup_params: np.ndarray


@njit(cache=True)
def _descend(t, size, d):  # pragma: no cover - compiled
    """Select to a leaf, expand it, and return ``(depth, new size, leaf value)``.

    ``t`` is the tree (:class:`~agents.mcts.tree.TreeArrays`), ``size`` its nodes in use and
    ``d`` the :class:`TrapDescent`.
    """
    first_child, terminal, proven = t.first_child, t.terminal, t.proven
    keys, info, path, scratch, logits = d.keys, d.info, d.path, d.scratch, d.logits
    params, fparams, noisy_prior, solver = d.params, d.fparams, d.noisy_prior, d.solver
    node = 0
    depth = 0
    path[0] = 0
    while first_child[node] >= 0 and terminal[node] == 0 and not (solver and proven[node] != 0):
        node = select_child(t, node, d.policy, d.c, d.fpu_mode, 0.0, solver)
        depth += 1
        path[depth] = node
    if terminal[node] != 0:
        return depth, size, float(info[node, I_VSTAR])
    if solver and proven[node] != 0:
        return depth, size, -float(proven[node])
    key = keys[node]
    count = gen_children(key, info[node], params, fparams, scratch, d.order)
    if count == 0:  # the root of a terminal tree cannot happen; a safe leaf anyway
        terminal[node] = 1
        return depth, size, float(info[node, I_VSTAR])
    top = -np.inf
    for i in range(count):
        ch = size + i
        ck = child_key(key, i)
        keys[ch] = ck
        for j in range(N_INFO):
            info[ch, j] = scratch[i, j]
        init_child(t, ch, node, i, 0.0, 1 if is_terminal(info[ch], params) else 0)
        if noisy_prior:
            logits[i] = prior_logit(ck, info[ch], params, fparams)
            top = max(top, logits[i])
    total = 0.0
    for i in range(count):
        if noisy_prior:
            logits[i] = math.exp(logits[i] - top)
        else:
            logits[i] = 1.0
        total += logits[i]
    prior = t.prior
    for i in range(count):
        prior[size + i] = logits[i] / total
    first_child[node] = size
    t.n_children[node] = count
    return depth, size + count, evaluate(key, info[node], params, fparams)


@njit(cache=True)
def _simulate(t, size, d):  # pragma: no cover - compiled
    """:func:`_descend`, then the built-in backup ``d.backup_kind`` if there is one."""
    depth, size, leaf_value = _descend(t, size, d)
    if d.backup_kind >= 0:
        path = d.path[: depth + 1]
        if d.backup_solver:
            run_solver_backup(d.backup_kind, t, path, leaf_value, d.backup_table, d.backup_params)
        else:
            run_backup(d.backup_kind, t, path, leaf_value, d.backup_table, d.backup_params)
    return depth, size, leaf_value


@njit(cache=True)
def _simulate_packed(packed, size, d):  # pragma: no cover - compiled
    """:func:`_simulate` with the tree and the descent as plain tuples (faster to dispatch)."""
    return _simulate(TreeArrays(*packed), size, TrapDescent(*d))


@dataclass(frozen=True)
class TrapOutcome:
    """What one search of one trap tree decided.

    Attributes:
        move: The root child chosen.
        winning: Whether it is a winning move (``V* = -1`` for the opponent).
        trap: Whether it is a trap.
        root_traps: Traps among the root's children.
        root_value: The search's value of the root for the player to move there.
        error: ``|root_value - V*(root)|`` (``V*(root) = +1``).
        simulations: Simulations run (fewer than the budget when the solver proved the root).
        nodes: Tree nodes at the end.
        seconds: Wall-clock time of the search.
    """

    move: int
    winning: bool
    trap: bool
    root_traps: int
    root_value: float
    error: float
    simulations: int
    nodes: int
    seconds: float


class TrapSearch:
    """MCTS of one backup strategy on trap trees (see the module docstring).

    Args:
        backup: A backup spec string (``"softmax"``, ``"coulom:a=2,b=16"``) or a strategy.
        trees: The tree family.
        policy: ``"uct"``, ``"puct"`` (uniform prior) or ``"puct-noisy"``.
        c: Exploration constant; ``None`` takes :data:`agents.mcts.config.DEFAULT_C`.

    Example:
        >>> search = TrapSearch("softmax", TrapTreeConfig(deceptive=True))
        >>> outcome = search.run(seed=3, sims=1000)
        >>> outcome.winning, outcome.trap
    """

    def __init__(
        self,
        backup: Any,
        trees: TrapTreeConfig,
        *,
        policy: str = "uct",
        c: float | None = None,
    ) -> None:
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
        self.trees = trees
        self.policy = policy
        base = "uct" if policy == "uct" else "puct"
        self.c = float(DEFAULT_C[base] if c is None else c)
        if not math.isfinite(self.c) or self.c < 0:
            raise ValueError(f"c must be a finite number >= 0, got {c!r}")
        self.strategy = make_backup(backup)
        self.solver = capability(self.strategy, "proves_values")  # MCTS-Solver or alike
        self._params, self._fparams = trees.packed()
        b = trees.b
        self._scratch = np.zeros((b, N_INFO), dtype=np.int64)
        self._order = np.zeros(b, dtype=np.int64)
        self._logits = np.zeros(b, dtype=np.float64)
        self._path = np.zeros(trees.depth + 2, dtype=np.int64)
        self._policy = POLICY_UCT if policy == "uct" else POLICY_PUCT
        self._fpu = FPU_INFINITE if policy == "uct" else FPU_ABSOLUTE

    def run(self, seed: int, sims: int) -> TrapOutcome:
        """Search the tree with this ``seed`` for ``sims`` simulations; the decision."""
        check_int("sims", sims, min=1, allowed="a positive int")
        check_int("seed", seed, min=0)
        start = time.perf_counter()
        b = self.trees.b
        strategy = bind_backup(self.strategy, sims, board_points=b)
        capacity = min(sims * b + 1, 1 << 16) + b
        tree = Tree(strategy.n_stats, capacity=capacity)
        keys = np.zeros(tree.capacity, dtype=np.uint64)
        info = np.zeros((tree.capacity, N_INFO), dtype=np.int64)
        keys[0] = root_key(seed)
        info[0] = ROOT_INFO
        compiled = kernel_of(strategy)  # a built-in backs up inside the compiled call
        descent = TrapDescent(
            keys,
            info,
            self._path,
            self._scratch,
            self._order,
            self._logits,
            self._params,
            self._fparams,
            self._policy,
            self.policy == "puct-noisy",
            self.c,
            self._fpu,
            self.solver,
            -1 if compiled is None else compiled.kind,
            compiled is not None and compiled.solver,
            NO_TABLE if compiled is None else compiled.table,
            NO_TABLE if compiled is None else compiled.params,
        )
        packed = tuple(descent)
        path = self._path
        done = 0
        for _ in range(sims):
            if self.solver and tree.proven[0] != 0:
                break
            if tree.size + b > tree.capacity:
                tree.reserve(b)
                keys = np.concatenate([keys, np.zeros(tree.capacity - keys.shape[0], np.uint64)])
                info = np.concatenate(
                    [info, np.zeros((tree.capacity - info.shape[0], N_INFO), np.int64)]
                )
                descent = descent._replace(keys=keys, info=info)
                packed = tuple(descent)
            depth, size, leaf_value = _simulate_packed(tree.packed, tree.size, packed)
            tree.size = size
            if compiled is None:
                strategy.backup(tree, path[: depth + 1], leaf_value)
            done += 1
        chosen = self._choose(tree)
        children = tree.children(0)
        root_value = -float(tree.value[0])
        return TrapOutcome(
            move=int(tree.move[chosen]),
            winning=bool(info[chosen, I_VSTAR] < 0),
            trap=bool(info[chosen, I_KIND] == TRAP),
            root_traps=int(np.count_nonzero(info[children, I_KIND] == TRAP)),
            root_value=root_value,
            error=abs(root_value - 1.0),
            simulations=done,
            nodes=int(tree.size),
            seconds=time.perf_counter() - start,
        )

    def _choose(self, tree: Tree) -> int:
        if self.solver:
            from agents.mcts.backups.solver import secure_child

            return secure_child(tree, 0)
        children = tree.children(0)
        visits = tree.visits[children]
        best = visits == visits.max()
        candidates = children[best]
        return int(candidates[np.argmax(tree.value[candidates])])


def search_tree(
    backup: Any, trees: TrapTreeConfig, seed: int, sims: int, *, policy: str = "uct"
) -> TrapOutcome:
    """One search of the tree ``seed`` of the family ``trees`` (see :class:`TrapSearch`)."""
    return TrapSearch(backup, trees, policy=policy).run(seed, sims)
