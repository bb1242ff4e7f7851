"""The search tree: a struct of arrays that compiled kernels and Python code share.

Node 0 is the root. The children of a node occupy a contiguous block
``first_child[s] .. first_child[s] + n_children[s] - 1`` (as in minigo's per-node child arrays),
so selection scans one slice and child-aggregation backups read one slice.

Sign convention (negamax, ``docs/backups.md#notation``): ``value[c]`` is the value of node ``c``
**from the perspective of the player who moved into** ``c``, i.e. the player to move at its
parent, so a parent picks the child with the largest ``value``. ``value[0]`` (the root) is from
the perspective of the root's opponent; the root player's value is ``-value[0]``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

__all__ = ["PROVEN_LOSS", "PROVEN_WIN", "UNPROVEN", "Tree", "TreeArrays", "init_child"]

UNPROVEN = 0
PROVEN_WIN = 1  # a forced win for the player who moved into the node
PROVEN_LOSS = -1  # a forced loss for the player who moved into the node


class TreeArrays(NamedTuple):
    """The per-node arrays of a :class:`Tree` as one value the compiled kernels take.

    The same arrays as the tree's attributes (views, not copies): a kernel that writes
    ``arrays.visits[i]`` writes the tree. Valid until the tree grows (:meth:`Tree.reserve`).

    Compiled kernels take the tree as this struct (the descent, the tree policy, the backups).
    From Python, a kernel is best called through a ``*_packed`` entry with
    :attr:`Tree.packed`, the same arrays as a plain tuple: numba's dispatcher types a plain
    tuple of arrays about twice as fast as a ``NamedTuple`` (``docs/performance.md``), and the
    entry names the fields again in compiled code (``TreeArrays(*packed)``), where it costs
    nothing.
    """

    parent: np.ndarray
    move: np.ndarray
    first_child: np.ndarray
    n_children: np.ndarray
    visits: np.ndarray
    value: np.ndarray
    prior: np.ndarray
    terminal: np.ndarray
    proven: np.ndarray
    stats: np.ndarray


@njit(cache=True)
def init_child(t, child, node, move, prior, terminal):  # pragma: no cover - compiled
    """Make ``child`` a new, unvisited child of ``node`` reached by ``move``.

    The one child initialisation of the compiled expansions (the Go search's
    :func:`agents.mcts.kernels.expand` and the trap search's descent): ``t`` is the
    :class:`TreeArrays`, ``prior`` the move's prior and ``terminal`` the node's
    ``Tree.terminal`` code (non-zero when the game is over there). The caller links the block
    of children to ``node`` (``first_child``, ``n_children``). ``stats`` is left as it is (zero
    in a new tree's arrays).
    """
    t.parent[child] = node
    t.move[child] = move
    t.first_child[child] = -1
    t.n_children[child] = 0
    t.visits[child] = 0
    t.value[child] = 0.0
    t.prior[child] = prior
    t.terminal[child] = terminal
    t.proven[child] = 0


class Tree:
    """Growable struct-of-arrays search tree.

    Args:
        n_stats: Columns of per-node float statistics reserved for the backup strategy.
        capacity: Initial number of nodes (grows by doubling).

    Attributes:
        parent: ``int64 (C,)`` parent node, -1 for the root.
        move: ``int64 (C,)`` action that leads from the parent to the node (-1 for the root).
        first_child: ``int64 (C,)`` index of the first child, -1 while not expanded.
        n_children: ``int64 (C,)`` number of children (0 while not expanded).
        visits: ``int64 (C,)`` simulations that went through the node.
        value: ``float64 (C,)`` backed-up value, perspective of the player who moved into it.
        prior: ``float64 (C,)`` prior probability of the move into the node.
        terminal: ``int8 (C,)`` non-zero when the game is over at the node: 1 until the
            search scores it, then its cached outcome for the player to move there (see
            :mod:`agents.mcts.search`).
        proven: ``int8 (C,)`` MCTS-Solver status: ``PROVEN_WIN``/``PROVEN_LOSS`` for the
            player who moved into the node, or ``UNPROVEN``.
        stats: ``float64 (C, n_stats)`` statistics owned by the backup strategy; zero for a
            new node.
        size: Number of nodes in use.
    """

    def __init__(self, n_stats: int = 0, capacity: int = 1024) -> None:
        if n_stats < 0:
            raise ValueError(f"n_stats must be >= 0, got {n_stats}")
        self.n_stats = n_stats
        capacity = max(int(capacity), 2)
        self.parent = np.full(capacity, -1, dtype=np.int64)
        self.move = np.full(capacity, -1, dtype=np.int64)
        self.first_child = np.full(capacity, -1, dtype=np.int64)
        self.n_children = np.zeros(capacity, dtype=np.int64)
        self.visits = np.zeros(capacity, dtype=np.int64)
        self.value = np.zeros(capacity, dtype=np.float64)
        self.prior = np.zeros(capacity, dtype=np.float64)
        self.terminal = np.zeros(capacity, dtype=np.int8)
        self.proven = np.zeros(capacity, dtype=np.int8)
        self.stats = np.zeros((capacity, n_stats), dtype=np.float64)
        self.size = 1  # the root
        self._arrays: TreeArrays | None = None
        self._packed: tuple[np.ndarray, ...] = ()

    @property
    def arrays(self) -> TreeArrays:
        """The node arrays as one :class:`TreeArrays` (rebuilt after the tree grows)."""
        arrays = self._arrays
        if arrays is None:
            arrays = self._arrays = TreeArrays(
                self.parent,
                self.move,
                self.first_child,
                self.n_children,
                self.visits,
                self.value,
                self.prior,
                self.terminal,
                self.proven,
                self.stats,
            )
            self._packed = tuple(arrays)
        return arrays

    @property
    def packed(self) -> tuple[np.ndarray, ...]:
        """:attr:`arrays` as a plain tuple, for the ``*_packed`` kernel entries (cached)."""
        if self._arrays is None:
            self.arrays  # noqa: B018 - builds both
        return self._packed

    @property
    def capacity(self) -> int:
        """Number of nodes the arrays can hold without growing."""
        return int(self.parent.shape[0])

    def reserve(self, extra: int) -> None:
        """Make room for ``extra`` more nodes, doubling the arrays as needed."""
        need = self.size + extra
        if need <= self.capacity:
            return
        new = self.capacity
        while new < need:
            new *= 2
        for name, fill in (
            ("parent", -1),
            ("move", -1),
            ("first_child", -1),
            ("n_children", 0),
            ("visits", 0),
            ("value", 0.0),
            ("prior", 0.0),
            ("terminal", 0),
            ("proven", 0),
        ):
            old = getattr(self, name)
            grown = np.full(new, fill, dtype=old.dtype)
            grown[: old.shape[0]] = old
            setattr(self, name, grown)
        stats = np.zeros((new, self.n_stats), dtype=np.float64)
        stats[: self.stats.shape[0]] = self.stats
        self.stats = stats
        self._arrays = None

    def add_children(self, node: int, moves: np.ndarray, priors: np.ndarray) -> None:
        """Expand ``node`` with one child per move (Python path; kernels do the same inline)."""
        count = int(moves.shape[0])
        self.reserve(count)
        start = self.size
        self.first_child[node] = start
        self.n_children[node] = count
        block = slice(start, start + count)
        self.parent[block] = node
        self.move[block] = moves
        self.prior[block] = priors
        self.size += count

    def children(self, node: int) -> np.ndarray:
        """Node indices of the children of ``node`` (empty if not expanded)."""
        first = int(self.first_child[node])
        if first < 0:
            return np.empty(0, dtype=np.int64)
        return np.arange(first, first + int(self.n_children[node]), dtype=np.int64)

    def path_to(self, node: int) -> np.ndarray:
        """Node indices from the root down to ``node``."""
        out = [node]
        while self.parent[out[-1]] >= 0:
            out.append(int(self.parent[out[-1]]))
        return np.array(out[::-1], dtype=np.int64)
