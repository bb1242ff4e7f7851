"""The compiled calls of a search set's round: descend all searches, finish all leaves.

A :class:`~agents.mcts.search_set.SearchSet` keeps each search's arrays in one slot of a numba
typed list, the **item** of the slot::

    (tree, board, scratch, iparams, fparams, vector, path, moves, kind, solver, table, params)

the first three as plain tuples (``tuple(TreeArrays)``, ``tuple(Board)``, ``tuple(Scratch)``,
:func:`~agents.mcts.kernels.descend_packed`), then the search's parameter vectors, its state
vector, path and path moves, and its backup strategy as compiled code runs it
(:class:`~agents.mcts.backups.compiled.CompiledBackup`: ``kind``, ``solver``, ``table``,
``params``; ``kind = NO_KERNEL`` for a strategy only its Python ``backup`` method runs).

A round makes two compiled calls over the slots of its searches: :func:`descend_all` before
the network (a leaf whose game is over is backed up there at once) and :func:`finish_all`
after it (the priors of the leaves just expanded, and the backups). A backup strategy
without a kernel is backed up by the caller, from Python, after :func:`finish_all`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.mcts.backups.compiled import run_backup, run_solver_backup
from agents.mcts.kernels import EXPANDED, TERMINAL, Board, Scratch, descend
from agents.mcts.tree import TreeArrays

__all__ = ["NO_KERNEL", "descend_all", "finish_all", "set_priors"]

NO_KERNEL = -1
"""The ``kind`` of a slot whose backup strategy has no compiled kernel."""

_BLOCK = 128  # numpy's PW_BLOCKSIZE: the pairwise sum's leaf block


@njit(cache=True)
def _block_sum(p, start, n):  # pragma: no cover - compiled
    """The sum numpy makes of ``n <= 128`` float64 from ``p[start]``: eight accumulators."""
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += p[i]
        return total
    r0, r1, r2, r3 = p[start], p[start + 1], p[start + 2], p[start + 3]
    r4, r5, r6, r7 = p[start + 4], p[start + 5], p[start + 6], p[start + 7]
    i = start + 8
    stop = start + n - n % 8
    while i < stop:
        r0 += p[i]
        r1 += p[i + 1]
        r2 += p[i + 2]
        r3 += p[i + 3]
        r4 += p[i + 4]
        r5 += p[i + 5]
        r6 += p[i + 6]
        r7 += p[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < start + n:
        total += p[i]
        i += 1
    return total


@njit(cache=True)
def _pairwise_sum(p, n):  # pragma: no cover - compiled
    """``p[:n].sum()`` exactly as numpy adds float64 (its pairwise summation).

    numpy's ``pairwise_sum_DOUBLE``: blocks of at most 128 values (:func:`_block_sum`), the
    halves of a longer run (the first rounded down to a multiple of 8) summed apart and added.
    The recursion runs on an explicit stack: numba's cache cannot hold a recursive function
    (numba issue 6061).
    """
    if n <= _BLOCK:
        return _block_sum(p, 0, n)
    starts = np.empty(64, dtype=np.int64)
    sizes = np.empty(64, dtype=np.int64)
    stages = np.zeros(64, dtype=np.int64)
    lefts = np.empty(64, dtype=np.float64)
    starts[0] = 0
    sizes[0] = n
    top = 0
    result = 0.0  # the sum of the run that ended last
    while top >= 0:
        start, size = starts[top], sizes[top]
        if size <= _BLOCK:
            result = _block_sum(p, start, size)
            top -= 1
            continue
        half = size // 2
        half -= half % 8
        if stages[top] == 0:  # the first half next
            stages[top] = 1
            top += 1
            starts[top], sizes[top], stages[top] = start, half, 0
        elif stages[top] == 1:  # the first half's sum is in; the second half next
            lefts[top] = result
            stages[top] = 2
            top += 1
            starts[top], sizes[top], stages[top] = start + half, size - half, 0
        else:
            result = lefts[top] + result
            top -= 1
    return result


@njit(cache=True)
def set_priors(prior, move, first, count, row, scratch):  # pragma: no cover - compiled
    """:meth:`Search._set_priors <agents.mcts.search.Search._set_priors>` in compiled code.

    The children ``first .. first + count - 1`` get ``row[move[child]]`` normalised to sum 1
    (uniform when they sum to 0), bit for bit as the numpy expression; ``scratch`` holds at
    least ``count`` float64.
    """
    for i in range(count):
        scratch[i] = row[move[first + i]]
    total = _pairwise_sum(scratch, count)
    for i in range(count):
        prior[first + i] = scratch[i] / total if total > 0 else 1.0 / count


@njit(cache=True)
def _back_up(kind, solver, t, path, leaf_value, table, params):  # pragma: no cover - compiled
    """The built-in backup ``kind`` (in MCTS-Solver when ``solver``) of ``path``."""
    if solver:
        run_solver_backup(kind, t, path, leaf_value, table, params)
    else:
        run_backup(kind, t, path, leaf_value, table, params)


@njit(cache=True)
def descend_all(
    items, which, sizes, limits, depths, status, known, given, backed
):  # pragma: no cover - compiled
    """:func:`~agents.mcts.kernels.descend` of the searches ``which`` in one call.

    ``items[i]`` is slot ``i``'s item (module docstring); ``sizes`` and ``limits`` hold each
    search's tree size and node limit and get the new sizes, ``depths`` and ``status`` get
    :func:`descend`'s other results. A leaf expanded now has its legal moves (its children:
    the moves :class:`~go_env.state.GoState` would accept, pass included) written in
    ``known[slot]``, and ``given[slot]`` set. A leaf whose value is known (``TERMINAL``) is
    backed up here when its search's strategy has a kernel, and ``backed[j]`` says so.
    """
    for j in range(which.shape[0]):
        slot = which[j]
        t, board, scratch, iparams, fparams, s, path, moves, kind, solver, table, params = items[
            slot
        ]
        tree = TreeArrays(*t)
        work = Scratch(*scratch)
        depth, size, code = descend(
            tree, sizes[j], limits[j], Board(*board), s, path, moves, work, iparams, fparams
        )
        depths[j] = depth
        sizes[j] = size
        status[j] = code
        given[slot] = code == EXPANDED
        backed[j] = False
        if code == EXPANDED:  # the expansion's children are the leaf's legal moves
            row = known[slot]
            row[:] = False
            node = path[depth]
            first = tree.first_child[node]
            for k in range(tree.n_children[node]):
                row[tree.move[first + k]] = True
        elif code == TERMINAL and kind != NO_KERNEL:
            _back_up(kind, solver, tree, path[: depth + 1], work.out[0], table, params)
            backed[j] = True


@njit(cache=True)
def finish_all(items, which, depths, with_priors, priors, values, scratch):  # pragma: no cover
    """Set the new nodes' priors and back up the leaves of a round, in one call.

    For leaf ``j`` of the search in slot ``which[j]`` (``path[:depths[j] + 1]`` of its item):
    when ``with_priors[j]``, the children of the leaf (expanded by this descent) get the
    priors of ``priors[j]`` (:func:`set_priors`, ``scratch`` as long as the most children);
    then, when its strategy has a kernel, ``values[j]`` is backed up (the caller backs up
    the others, whose ``kind`` is :data:`NO_KERNEL`).
    The same operations, in the same order, as :meth:`Search.steps
    <agents.mcts.search.Search.steps>` does for the leaf.
    """
    for j in range(which.shape[0]):
        t, _, _, _, _, _, path, _, kind, solver, table, params = items[which[j]]
        tree = TreeArrays(*t)
        depth = depths[j]
        if with_priors[j]:
            node = path[depth]
            first, count = tree.first_child[node], tree.n_children[node]
            set_priors(tree.prior, tree.move, first, count, priors[j], scratch)
        if kind != NO_KERNEL:
            _back_up(kind, solver, tree, path[: depth + 1], values[j], table, params)
