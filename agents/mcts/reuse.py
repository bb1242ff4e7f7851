"""Tree reuse: re-root a search tree at a later position of the same game.

:func:`follow` finds the node that a sequence of moves from the root reaches (if the tree
holds it); :func:`compact_subtree` copies that node's subtree breadth-first into a fresh
:class:`~agents.mcts.tree.Tree` (contiguous child blocks, visits, values, priors, terminal and
proven codes and the backup's statistics kept), so the old tree's memory is released and the
new one stays compact; :func:`same_position` checks that replaying the moves gives exactly the
position asked for (another game with the same moves, e.g. set-up stones, must not reuse).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from agents.mcts.tree import Tree
from go_env.kernels import H_HASH, H_KO, H_MOVES, H_PASSES, H_TO_PLAY, HEADER

__all__ = ["compact_subtree", "follow", "same_position", "subtree_size"]


@njit(cache=True)
def subtree_size(first_child, n_children, root, stack):  # pragma: no cover - compiled
    """Number of nodes in the subtree of ``root`` (``stack``: room for the tree's size)."""
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
def _compact(root, old, new, old_of):  # pragma: no cover - compiled
    """Copy the subtree of ``root`` breadth-first from ``old`` into ``new`` (TreeArrays)."""
    old_of[0] = root
    new.parent[0] = -1
    size = 1
    i = 0
    while i < size:
        o = old_of[i]
        new.move[i] = old.move[o] if i > 0 else -1
        new.visits[i] = old.visits[o]
        new.value[i] = old.value[o]
        new.prior[i] = old.prior[o] if i > 0 else 1.0
        new.terminal[i] = old.terminal[o]
        new.proven[i] = old.proven[o]
        new.stats[i, :] = old.stats[o, :]
        first = old.first_child[o]
        if first >= 0:
            count = old.n_children[o]
            new.first_child[i] = size
            new.n_children[i] = count
            for k in range(count):
                old_of[size + k] = first + k
                new.parent[size + k] = i
            size += count
        else:
            new.first_child[i] = -1
            new.n_children[i] = 0
        i += 1
    return size


def compact_subtree(tree: Tree, node: int, points: int) -> Tree:
    """A new tree holding the subtree of ``node`` (its root), with room for one expansion.

    Args:
        tree: The tree.
        node: The new root.
        points: Board points (an expansion adds at most ``points + 1`` children).
    """
    stack = np.empty(tree.size, dtype=np.int64)
    count = int(subtree_size(tree.first_child, tree.n_children, node, stack))
    new = Tree(tree.n_stats, capacity=max(count + points + 1, 64 * (points + 1)))
    new.size = int(_compact(node, tree.arrays, new.arrays, stack))
    return new


def follow(tree: Tree, moves: Sequence[int]) -> int | None:
    """The node reached from the root by ``moves``; ``None`` when it is not in the tree."""
    node = 0
    for move in moves:
        children = tree.children(node)
        hit = children[tree.move[children] == move]
        if hit.size == 0:
            return None
        node = int(hit[0])
    return node


def same_position(a: np.ndarray, b: np.ndarray, points: int) -> bool:
    """Whether two state vectors hold the same board, player, ko point and counters."""
    slots = [H_HASH, H_TO_PLAY, H_KO, H_PASSES, H_MOVES]
    return bool(
        np.array_equal(a[slots], b[slots])
        and np.array_equal(a[HEADER : HEADER + points], b[HEADER : HEADER + points])
    )
