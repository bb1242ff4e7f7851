"""Binding a backup strategy to a search: the budget ``N`` and, optionally, the board size.

The protocol's ``bind(n_simulations)`` gives the budget. Some strategies also depend on the
board: Coulom's Mix operator scales its constants by the number of board points ``S``
(``docs/backups.md#coulom``). They accept an optional keyword, ``bind(n_simulations, *,
board_points=None)``. :func:`bind_backup` passes the keyword only to strategies whose ``bind``
accepts it, so plugins written against the plain protocol keep working unchanged.
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["accepts_board_points", "bind_backup"]

_ACCEPTS: dict[type, bool] = {}


def accepts_board_points(strategy: Any) -> bool:
    """Whether ``strategy.bind`` takes the optional ``board_points`` keyword."""
    cls = type(strategy)
    known = _ACCEPTS.get(cls)
    if known is None:
        try:
            params = inspect.signature(strategy.bind).parameters
        except (TypeError, ValueError):  # a builtin or an odd callable: stay on the plain form
            known = False
        else:
            known = "board_points" in params or any(
                p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
            )
        _ACCEPTS[cls] = known
    return known


def bind_backup(strategy: Any, n_simulations: int, *, board_points: int | None = None) -> Any:
    """``strategy.bind(n_simulations)``, telling the board size to strategies that use it.

    Args:
        strategy: A backup strategy (see :mod:`agents.mcts.backups.base`).
        n_simulations: ``N``, simulations per move.
        board_points: Number of points of the board (81 on 9x9, 361 on 19x19), or ``None``.

    Returns:
        The bound strategy to call ``backup`` on.
    """
    if board_points is not None and accepts_board_points(strategy):
        return strategy.bind(n_simulations, board_points=board_points)
    return strategy.bind(n_simulations)
