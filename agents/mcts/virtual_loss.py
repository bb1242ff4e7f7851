"""Virtual loss: spread the descents of one batch over different lines, then undo it exactly.

After each collection of a batch a *virtual loss* is applied to the nodes of its path
(``loss`` extra visits, each counted as a loss for the player who moved into the node:
``q <- (q n - v) / (n + v)``), so the next descents of the same batch go elsewhere (Guillaume
Chaslot, Mark Winands, Jaap van den Herik, *Parallel Monte-Carlo tree search*, CG 2008;
AlphaGo's asynchronous search). Before the backups every change is undone from a ledger of the
saved visits and values, newest first, so that the backups see the tree as it was and every
backup strategy works unchanged.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["VirtualLoss", "add_virtual_loss", "undo_virtual_loss"]


@njit(cache=True)
def add_virtual_loss(
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
def undo_virtual_loss(
    top, visits, value, saved_node, saved_visits, saved_value
):  # pragma: no cover - compiled
    """Restore the saved visits and values, newest first."""
    for i in range(top - 1, -1, -1):
        node = saved_node[i]
        visits[node] = saved_visits[i]
        value[node] = saved_value[i]


class VirtualLoss:
    """The ledger of one batch's virtual losses (room for ``batch`` paths of ``depth`` nodes).

    Args:
        loss: Lost visits added per node of a pending path (0: none, :meth:`add` does nothing).
        batch: Paths per batch.
        depth: Longest path.
    """

    def __init__(self, loss: int, batch: int, depth: int) -> None:
        self.loss = int(loss)
        self._node = np.zeros(batch * depth, dtype=np.int64)
        self._visits = np.zeros(batch * depth, dtype=np.int64)
        self._value = np.zeros(batch * depth, dtype=np.float64)
        self._top = 0

    def add(self, path: np.ndarray, depth: int, visits: np.ndarray, value: np.ndarray) -> None:
        """Apply the loss to ``path[1 .. depth]`` and remember what was there."""
        if self.loss > 0:
            self._top = add_virtual_loss(
                path,
                depth,
                visits,
                value,
                self.loss,
                self._node,
                self._visits,
                self._value,
                self._top,
            )

    def undo(self, visits: np.ndarray, value: np.ndarray) -> None:
        """Restore every saved visit count and value; the ledger is empty afterwards."""
        undo_virtual_loss(self._top, visits, value, self._node, self._visits, self._value)
        self._top = 0
