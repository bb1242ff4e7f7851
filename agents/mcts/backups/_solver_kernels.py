"""The compiled kernels of MCTS-Solver: prove what a leaf decides, pin proven values.

Winands, Björnsson and Saito, *Monte-Carlo Tree Search Solver*, CG 2008
(``docs/backups.md#solver``). Apart from :mod:`agents.mcts.backups.solver` so that the
compiled backups (:mod:`agents.mcts.backups.compiled`) and the solver strategy both use them
without importing each other.
"""

from __future__ import annotations

from numba import njit

__all__: list[str] = []


@njit(cache=True)
def _solve(t, path, leaf_value):  # pragma: no cover - compiled
    """Mark and propagate proofs in the tree ``t`` (:class:`~agents.mcts.tree.TreeArrays`).

    Returns:
        The index on the path of the topmost node proven before this call (-1 if none) and
        the leaf value to back up (exact for a terminal or proven leaf).
    """
    proven, terminal, first_child, n_children = t.proven, t.terminal, t.first_child, t.n_children
    last = path.shape[0] - 1
    cut = -1
    for i in range(last + 1):
        if proven[path[i]] != 0:
            cut = i
            break
    leaf = path[last]
    if proven[leaf] != 0:
        leaf_value = -float(proven[leaf])
    elif terminal[leaf] != 0:
        if leaf_value > 0.0:  # the player to move at the leaf has won
            proven[leaf] = -1
            leaf_value = 1.0
        elif leaf_value < 0.0:
            proven[leaf] = 1
            leaf_value = -1.0
    changed = proven[leaf] != 0
    for i in range(last - 1, -1, -1):
        if not changed:
            break
        node = path[i]
        child = path[i + 1]
        changed = False
        if proven[node] != 0:
            break
        if proven[child] == 1:  # a winning move for the player to move at ``node``
            proven[node] = -1
            changed = True
        elif proven[child] == -1:
            first = first_child[node]
            count = n_children[node]
            every = count > 0
            for c in range(first, first + count):
                if proven[c] != -1:
                    every = False
                    break
            if every:
                proven[node] = 1
                changed = True
    return cut, leaf_value


@njit(cache=True)
def _pin_proven(t, path):  # pragma: no cover - compiled
    """Set the value of every proven node on ``path`` to its proven result."""
    proven, value = t.proven, t.value
    for i in range(path.shape[0]):
        node = path[i]
        if proven[node] != 0:
            value[node] = float(proven[node])
