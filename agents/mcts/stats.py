"""What a search found: root statistics per move, principal variation, speed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.mcts.tree import Tree

__all__ = ["SearchStats", "principal_variation"]


def principal_variation(tree: Tree, node: int = 0, max_length: int = 64) -> tuple[int, ...]:
    """Moves from ``node`` following the most-visited child (ties: the higher value).

    The line stops at a node without visited children or after ``max_length`` moves.
    """
    line: list[int] = []
    while len(line) < max_length:
        first = int(tree.first_child[node])
        count = int(tree.n_children[node])
        if first < 0 or count == 0:
            break
        visits = tree.visits[first : first + count]
        if int(visits.max()) == 0:
            break
        top = np.flatnonzero(visits == visits.max())
        best = int(top[np.argmax(tree.value[first + top])])
        node = first + best
        line.append(int(tree.move[node]))
    return tuple(line)


@dataclass(frozen=True)
class SearchStats:
    """Root statistics of a search, from the perspective of the player to move at the root.

    Attributes:
        moves: ``int64 (K,)`` the root's children (legal moves, pass included), in tree order.
        visits: ``int64 (K,)`` visits of each child. For a fresh tree
            ``visits.sum() == root_visits - 1`` (the first simulation evaluates the root).
        values: ``float64 (K,)`` mean value of each child in ``[-1, 1]`` (0 where unvisited).
        priors: ``float64 (K,)`` priors of the children (after root noise, if any).
        proven: ``int8 (K,)`` MCTS-Solver status of each child (``PROVEN_WIN`` = proven win
            for the root player), 0 without the solver.
        root_value: Value of the root position for the player to move.
        root_visits: Visits of the root (previous searches included when the tree is reused).
        pv: Principal variation from the root (most visited child at each ply).
        simulations: Simulations run by this search.
        elapsed: Seconds this search took.
        nodes: Nodes in the tree after the search.
    """

    moves: np.ndarray
    visits: np.ndarray
    values: np.ndarray
    priors: np.ndarray
    proven: np.ndarray
    root_value: float
    root_visits: int
    pv: tuple[int, ...]
    simulations: int
    elapsed: float
    nodes: int

    @classmethod
    def from_tree(cls, tree: Tree, *, simulations: int, elapsed: float) -> SearchStats:
        """The statistics of ``tree``'s root."""
        children = tree.children(0)
        return cls(
            moves=tree.move[children].copy(),
            visits=tree.visits[children].copy(),
            values=tree.value[children].copy(),
            priors=tree.prior[children].copy(),
            proven=tree.proven[children].copy(),
            root_value=-float(tree.value[0]),
            root_visits=int(tree.visits[0]),
            pv=principal_variation(tree),
            simulations=int(simulations),
            elapsed=float(elapsed),
            nodes=int(tree.size),
        )

    @property
    def sims_per_second(self) -> float:
        """Simulations per second of this search."""
        return self.simulations / self.elapsed if self.elapsed > 0 else float("inf")

    def visit_distribution(self, n_actions: int) -> np.ndarray:
        """``float64 (n_actions,)`` root visit fractions by action (a policy target)."""
        out = np.zeros(n_actions, dtype=np.float64)
        total = int(self.visits.sum())
        if total:
            out[self.moves] = self.visits / total
        return out

    def value_of(self, move: int) -> float:
        """Mean value of the root child ``move``.

        Raises:
            KeyError: When ``move`` is not a child of the root (illegal, or not expanded).
        """
        hit = np.flatnonzero(self.moves == move)
        if hit.size == 0:
            raise KeyError(f"move {move} is not a child of the root")
        return float(self.values[hit[0]])
