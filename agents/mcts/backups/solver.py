"""MCTS-Solver: proves wins and losses in the tree and wraps any other backup strategy.

Mark H. M. Winands, Yngvi Björnsson and Jahn-Takeshi Saito, *Monte-Carlo Tree Search Solver*,
Computers and Games 2008 (``docs/backups.md#solver``, EXACT in outline). Statuses live in
``tree.proven``, for the player who moved into a node (:mod:`agents.mcts.tree`):

* a terminal leaf is proven by the sign of its exact outcome (a draw stays unproven: draws are
  treated as "not a win");
* a node with a child that is a ``PROVEN_WIN`` (a winning move for the player to move there) is
  a ``PROVEN_LOSS``; a node whose children are all ``PROVEN_LOSS`` is a ``PROVEN_WIN``
  (children must be the full move list, as the search expands them);
* otherwise the ordinary result is backed up by the wrapped (``inner``) strategy; the return
  of a terminal leaf is its exact ``±1`` and, when the path runs through a node proven
  earlier, the nodes above it receive that node's proven result (a regular ``±1``, never an
  infinity);
* every proven node on the path ends with the value ``+1`` (``PROVEN_WIN``) or ``-1``, which
  stand for the paper's ``±∞`` within ``[-1, 1]``.

How the search uses the statuses (selection and the final "secure child" choice) is in
``docs/backups.md``; :func:`secure_child` implements the final choice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numba import njit

from agents.mcts.backups._common import bound_copy, check_number, check_simulations
from agents.mcts.backups._solver_kernels import _pin_proven, _solve
from agents.mcts.backups.base import BackupStrategy
from agents.mcts.backups.binding import bind_backup
from agents.mcts.backups.compiled import kernel_of, solver_packed
from agents.mcts.backups.registry import BACKUPS
from agents.mcts.tree import PROVEN_LOSS, PROVEN_WIN, Tree, TreeArrays
from agents.plugins import capability, plugin_field, resolve_plugin_fields

__all__ = ["SolverBackup", "secure_child"]


@njit(cache=True)
def _solve_packed(packed, path, leaf_value):  # pragma: no cover - compiled
    return _solve(TreeArrays(*packed), path, leaf_value)


@njit(cache=True)
def _pin_proven_packed(packed, path):  # pragma: no cover - compiled
    _pin_proven(TreeArrays(*packed), path)


@dataclass(frozen=True, kw_only=True)
class SolverBackup:
    """MCTS-Solver around another backup strategy.

    Attributes:
        inner: The wrapped strategy; a spec gives it as a string (``"mean"``,
            ``"softmax:g=[-7,-6,-5]"``...), also as the positional value (``solver:softmax``),
            and the solver holds it built.

    ``n_stats`` is the wrapped strategy's, so it is an instance attribute here (read it from
    the instance, as the search does). ``proves_values`` is the capability the search and the
    agent read (see :mod:`agents.mcts.backups.base`).
    """

    n_stats: ClassVar[int] = 0
    proves_values: ClassVar[bool] = True
    __spec_positional__: ClassVar[str] = "inner"

    inner: BackupStrategy = plugin_field(BACKUPS, "mean")

    def __post_init__(self) -> None:
        try:
            resolve_plugin_fields(self)
        except Exception as exc:
            raise ValueError(
                f"solver: parameter 'inner' = {self.inner!r} is not a usable backup: {exc}"
            ) from exc
        if capability(self.inner, "proves_values"):
            raise ValueError("solver: parameter 'inner' cannot be another solver")
        object.__setattr__(self, "_inner", self.inner)
        object.__setattr__(self, "n_stats", int(self.inner.n_stats))

    @property
    def inner_strategy(self) -> Any:
        """The wrapped strategy (bound once :meth:`bind` has been called)."""
        return self._inner  # type: ignore[attr-defined]

    def bind(self, n_simulations: int, *, board_points: int | None = None) -> SolverBackup:
        """Bind the wrapped strategy (cached per budget and board)."""
        n = check_simulations("solver", n_simulations)
        inner = self._inner  # type: ignore[attr-defined]
        return bound_copy(
            self,
            (n, board_points),
            lambda: {"_inner": bind_backup(inner, n, board_points=board_points)},
        )

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        """Prove what the leaf decides, back up through ``inner``, pin proven values to ±1."""
        inner = self._inner  # type: ignore[attr-defined]
        fast = self.__dict__.get("_compiled")
        if fast is None or fast[0] is not inner:  # first call, or a copy bound to another
            fast = (inner, kernel_of(self))
            object.__setattr__(self, "_compiled", fast)
        compiled = fast[1]
        if compiled is not None:  # a built-in inner strategy: all in one compiled call
            solver_packed(
                tree.packed, path, float(leaf_value), compiled.kind, compiled.table, compiled.params
            )
            return
        cut, value = _solve_packed(tree.packed, path, float(leaf_value))
        last = path.shape[0] - 1
        if 0 <= cut < last:
            # Below a node proven earlier: the ordinary result; above it: its proven result.
            inner.backup(tree, path[cut + 1 :], value)
            inner.backup(tree, path[: cut + 1], -float(tree.proven[path[cut]]))
        else:
            inner.backup(tree, path, value)
        _pin_proven_packed(tree.packed, path)


def secure_child(tree: Tree, node: int = 0, *, a: float = -1.0) -> int:
    """The move choice of MCTS-Solver at ``node``: the child to play.

    A ``PROVEN_WIN`` child if there is one (the most visited of them); otherwise the "secure
    child" ``argmax_i q_i + a / sqrt(n_i)`` over visited children that are not proven losses;
    when every visited child is a proven loss, the most visited child. Winands et al. (2008)
    print ``+A/sqrt(n)`` with ``A = 1`` but call the rule a lower confidence bound; the default
    ``a = -1`` is that lower bound (see ``docs/decisions/004-secure-child.md``), and ``a = 1``
    gives the formula as printed.

    Returns:
        The child's node index (``tree.move[child]`` is the move).

    Raises:
        ValueError: When ``node`` has no visited child.
    """
    check_number("secure_child", "a", a)
    children = tree.children(node)
    visits = tree.visits[children]
    visited = children[visits > 0]
    if visited.shape[0] == 0:
        raise ValueError(f"node {node} has no visited child to choose")
    status = tree.proven[visited]
    n = tree.visits[visited]
    wins = visited[status == PROVEN_WIN]
    if wins.shape[0]:
        return int(wins[np.argmax(tree.visits[wins])])
    open_ = status != PROVEN_LOSS
    if not open_.any():
        return int(visited[np.argmax(n)])
    score = tree.value[visited] + a / np.sqrt(n.astype(np.float64))
    score[~open_] = -math.inf
    return int(visited[np.argmax(score)])
