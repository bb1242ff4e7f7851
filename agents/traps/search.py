"""MCTS on trap trees with the project's own tree, selection rules and backup strategies.

One simulation is the same three steps as :mod:`agents.mcts.search`, on a generated tree
instead of a Go position:

1. **descend** (compiled, :func:`_descend`): from the root, choose children with the
   project's compiled tree policy :func:`agents.mcts.selection.select_child` (UCT or PUCT,
   first-play urgency, MCTS-Solver's proven nodes) until a node that is terminal, proven (with
   the solver) or not expanded. A node that is not expanded is expanded there with all its
   ``b`` children (:func:`agents.traps.trees.gen_children`), uniform priors or the noisy
   prior's softmax, in the tree arrays of :class:`agents.mcts.tree.Tree`.
2. **evaluate**: the exact outcome of a terminal node, the proven result of a proven node,
   otherwise the noisy (or deceptive) heuristic :func:`agents.traps.trees.evaluate`.
3. **backup**: ``strategy.backup(tree, path, leaf_value)`` of any registered backup strategy
   (:mod:`agents.mcts.backups.base`): the built-ins and ``pip install``-ed plugins alike.

The decision is the most visited root child (ties to the higher value), or MCTS-Solver's
secure child (:func:`agents.mcts.backups.solver.secure_child`) for the ``solver`` backup, as
:class:`agents.mcts.config.MCTSConfig`'s ``choice="auto"`` does.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from agents.mcts.backups import bind_backup, make_backup
from agents.mcts.config import DEFAULT_C
from agents.mcts.selection import (
    FPU_ABSOLUTE,
    FPU_INFINITE,
    POLICY_PUCT,
    POLICY_UCT,
    select_child,
)
from agents.mcts.tree import Tree
from agents.spec import parse_spec
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

__all__ = ["POLICIES", "TrapOutcome", "TrapSearch", "search_tree"]

POLICIES = ("uct", "puct", "puct-noisy")
"""Tree policies: UCT, PUCT with uniform priors, PUCT with the noisy prior."""


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
    keys,
    info,
    path,
    scratch,
    order,
    logits,
    params,
    fparams,
    policy,
    noisy_prior,
    c,
    fpu_mode,
    solver,
):  # pragma: no cover - compiled
    """Select to a leaf, expand it, and return ``(depth, new size, leaf value)``."""
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
            0.0,
            solver,
        )
        depth += 1
        path[depth] = node
    if terminal[node] != 0:
        return depth, size, float(info[node, I_VSTAR])
    if solver and proven[node] != 0:
        return depth, size, -float(proven[node])
    key = keys[node]
    count = gen_children(key, info[node], params, fparams, scratch, order)
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
        parent[ch] = node
        move[ch] = i
        first_child[ch] = -1
        n_children[ch] = 0
        visits[ch] = 0
        value[ch] = 0.0
        proven[ch] = 0
        terminal[ch] = 1 if is_terminal(info[ch], params) else 0
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
    for i in range(count):
        prior[size + i] = logits[i] / total
    first_child[node] = size
    n_children[node] = count
    return depth, size + count, evaluate(key, info[node], params, fparams)


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
        self.solver = isinstance(backup, str) and parse_spec(backup)[0] == "solver"
        if not isinstance(backup, str):
            from agents.mcts.backups.solver import SolverBackup

            self.solver = isinstance(self.strategy, SolverBackup)
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
        if isinstance(sims, bool) or not isinstance(sims, int) or sims < 1:
            raise ValueError(f"sims must be a positive int, got {sims!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be an int >= 0, got {seed!r}")
        start = time.perf_counter()
        b = self.trees.b
        strategy = bind_backup(self.strategy, sims, board_points=b)
        capacity = min(sims * b + 1, 1 << 16) + b
        tree = Tree(strategy.n_stats, capacity=capacity)
        keys = np.zeros(tree.capacity, dtype=np.uint64)
        info = np.zeros((tree.capacity, N_INFO), dtype=np.int64)
        keys[0] = root_key(seed)
        info[0] = ROOT_INFO
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
            depth, size, leaf_value = _descend(
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
                keys,
                info,
                path,
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
            )
            tree.size = size
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
