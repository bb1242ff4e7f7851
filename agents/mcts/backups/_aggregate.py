"""Per-node bookkeeping shared by the child-aggregation backups (softmax, power mean).

Both keep, per node, the plain mean of its returns and the sum and count of its own leaf
evaluations (``docs/backups.md#notation``; ``docs/backups.md#softmax``, ``self_mixed``: the node's
own evaluation is mixed in, not tilted), then recompute the node's value from its children.
"""

from __future__ import annotations

from numba import njit

__all__ = ["MEAN", "SELF_N", "SELF_SUM", "count_return", "mix_own_evaluation"]

MEAN, SELF_SUM, SELF_N = 0, 1, 2  # stats columns (perspective of the mover into the node)


@njit(cache=True, inline="always")
def count_return(visits, stats, node, x, is_leaf):  # pragma: no cover - compiled
    """Add one visit with return ``x`` to ``node``; at the leaf, also to its own evaluation."""
    n = visits[node] + 1
    visits[node] = n
    stats[node, MEAN] += (x - stats[node, MEAN]) / n
    if is_leaf:
        stats[node, SELF_SUM] += x
        stats[node, SELF_N] += 1.0
    return n


@njit(cache=True, inline="always")
def mix_own_evaluation(stats, node, total, aggregate, self_mixed):  # pragma: no cover - compiled
    """The node's value: ``aggregate`` over ``total`` child visits, mixed with its own evaluation.

    ``V(s) = (sum of own evaluations + total * aggregate) / (own count + total)`` when
    ``self_mixed``, else ``aggregate``.
    """
    if self_mixed:
        return (stats[node, SELF_SUM] + total * aggregate) / (stats[node, SELF_N] + total)
    return aggregate
