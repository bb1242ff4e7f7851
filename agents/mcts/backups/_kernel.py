"""The calling convention of the built-in backups' compiled kernels.

Every built-in strategy's kernel has the same signature::

    kernel(t, path, leaf_value, table, params)

* ``t``: the tree as one :class:`~agents.mcts.tree.TreeArrays`;
* ``path``: ``int64 (L+1,)`` nodes from the root to the leaf, ``leaf_value`` the leaf's value
  for the player to move there (:mod:`agents.mcts.backups.base`);
* ``table``: ``float64 (K,)`` a table the strategy computes at ``bind`` (the Monotone step
  sizes, the Softmax temperatures), :data:`NO_TABLE` when it has none;
* ``params``: ``float64 (P,)`` the strategy's scalar parameters in an order of its own (a
  flag as 0 or 1, an integer as its exact float), built once by :func:`kernel_params`.

One signature lets compiled code that holds many searches call the built-in kernels alike.
Each module also has a ``*_packed`` entry taking :attr:`~agents.mcts.tree.Tree.packed` (a
plain tuple, cheaper for numba's dispatcher than the ``NamedTuple``) that the strategy's
Python ``backup`` method calls. The public method ``backup(tree, path, leaf_value)`` is the
protocol; the kernels are private to the built-in strategies.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NO_TABLE", "kernel_params"]

NO_TABLE = np.zeros(0, dtype=np.float64)
"""The ``table`` of a strategy without one (never written)."""


def kernel_params(*values: float) -> np.ndarray:
    """The ``params`` vector of a kernel: ``values`` as ``float64``, in the given order."""
    return np.array([float(v) for v in values], dtype=np.float64)
