"""The backup-strategy protocol: how a simulation's result updates the tree.

A backup strategy is a frozen dataclass of keyword-only hyperparameters with a ``backup``
method. After each simulation the search calls ``strategy.backup(tree, path, leaf_value)``:

* ``path``: ``int64 (L+1,)`` node indices from the root (``path[0] == 0``) down to the leaf.
* ``leaf_value``: ``v(s_L)`` in ``[-1, 1]``, the leaf's evaluation (rollout result, value
  network, or exact outcome of a finished game) **from the perspective of the player to move at
  the leaf**.

The strategy must, for every node on the path, add one to ``tree.visits`` and set
``tree.value`` to the node's new value from the perspective of the player who moved into the
node (see :mod:`agents.mcts.tree`). So the return credited to the leaf is ``X = -v(s_L)`` and
its sign alternates on the way up ([LL20] notation, ``docs/backups.md#notation``). It may keep
its own per-node statistics in ``tree.stats[:, :n_stats]`` (zero for a new node).

``bind(n_simulations)`` gives the strategy the search's budget ``N`` (simulations per move),
which the Monotone and Softmax weight functions are defined over; strategies that do not need
it return ``self``.

Capabilities are class attributes, optional (absent means ``False``):

* ``proves_values``: the strategy writes exact game values into ``tree.proven`` (MCTS-Solver);
  the search then honours proven wins and losses in selection and stops early once the root
  is proven, and the agent's ``choice="auto"`` picks the secure child.
* ``tunable``: a :class:`~agents.mcts.backups.tunable.Tunable` saying which parameters a study
  may search and how to draw them (``gomcts tune NAME``).
"""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from agents.mcts.tree import Tree

__all__ = ["BackupStrategy", "check_backup_class"]


@runtime_checkable
class BackupStrategy(Protocol):
    """What the search needs from a backup strategy (see the module docstring)."""

    n_stats: ClassVar[int]
    """Columns of ``tree.stats`` the strategy keeps per node."""

    def bind(self, n_simulations: int) -> BackupStrategy:
        """This strategy specialised for ``n_simulations`` per move."""
        ...

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        """Update visits, values and own statistics of the nodes on ``path``."""
        ...


def check_backup_class(obj: object) -> type:
    """Validate a backup plugin's class; raise ``TypeError`` saying what is missing."""
    import dataclasses

    if not (isinstance(obj, type) and dataclasses.is_dataclass(obj)):
        raise TypeError(f"expected a dataclass class, got {obj!r}")
    missing = [name for name in ("backup", "bind") if not callable(getattr(obj, name, None))]
    n_stats = getattr(obj, "n_stats", None)
    if not isinstance(n_stats, int) or isinstance(n_stats, bool) or n_stats < 0:
        missing.append("n_stats (a non-negative int class attribute)")
    if missing:
        raise TypeError(f"{obj.__name__} lacks {', '.join(missing)}")
    return obj
