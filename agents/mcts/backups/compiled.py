"""The built-in backups called from compiled code, chosen by a number.

numba cannot take a compiled kernel as a cheap argument (about 15 us a call in numba 0.68,
``docs/decisions/013-search-modules.md``), so a compiled loop that backs up in place names
the built-in kernel by a number, :func:`kernel_of` gives that number with the strategy's
``table`` and ``params`` (``agents.mcts.backups._kernel``), and :func:`run_backup` calls it.
A strategy :func:`kernel_of` does not know (a third-party backup, a subclass that may
override ``backup``, a strategy not yet bound) gets ``None``: the caller then calls its
Python ``backup`` method, the protocol. A kernel run here does exactly what the strategy's
``backup`` does, operation for operation.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from agents.mcts.backups._kernel import NO_TABLE
from agents.mcts.backups._solver_kernels import _pin_proven, _solve
from agents.mcts.backups.coulom import CoulomBackup, _coulom_backup
from agents.mcts.backups.erwa import ErwaBackup, _erwa_backup
from agents.mcts.backups.maxmcts import MaxMctsBackup, _maxmcts_backup
from agents.mcts.backups.mean import _PARAMS as _MEAN_PARAMS
from agents.mcts.backups.mean import MeanBackup, _mean_backup
from agents.mcts.backups.monotone import MonotoneBackup, _monotone_backup
from agents.mcts.backups.power_mean import PowerMeanBackup, _power_mean_backup
from agents.mcts.backups.softmax import SoftmaxBackup, _softmax_backup
from agents.mcts.backups.xie_liu import XieLiuBackup, _xie_liu_backup
from agents.mcts.tree import TreeArrays

__all__ = ["CompiledBackup", "kernel_of", "run_backup", "run_solver_backup", "solver_packed"]

MEAN, ERWA, MAXMCTS, POWER_MEAN, SOFTMAX, MONOTONE, XIE_LIU, COULOM = range(8)


class CompiledBackup(NamedTuple):
    """A built-in strategy as compiled code calls it.

    Attributes:
        kind: Which kernel (``MEAN``, ``SOFTMAX``...).
        solver: Wrapped in MCTS-Solver (:class:`~agents.mcts.backups.solver.SolverBackup`).
        table: The kernel's ``table``.
        params: The kernel's ``params``.
    """

    kind: int
    solver: bool
    table: np.ndarray
    params: np.ndarray


def _plain(strategy: Any) -> tuple[int, np.ndarray, np.ndarray] | None:
    kind = type(strategy)
    if kind is MeanBackup:
        return MEAN, NO_TABLE, _MEAN_PARAMS
    simple = {
        ErwaBackup: ERWA,
        MaxMctsBackup: MAXMCTS,
        PowerMeanBackup: POWER_MEAN,
        CoulomBackup: COULOM,
        XieLiuBackup: XIE_LIU,
    }
    if kind not in simple and kind not in (SoftmaxBackup, MonotoneBackup):
        return None
    own = strategy.__dict__
    if kind in simple and "_params" in own:
        return simple[kind], NO_TABLE, own["_params"]
    if kind is SoftmaxBackup and "_tau" in own:
        return SOFTMAX, own["_tau"], own["_params"]
    if kind is MonotoneBackup and "_tables" in own:
        return MONOTONE, own["_tables"]["steps"], own["_params"]
    return None


def _is_solver(strategy: Any) -> bool:
    """Whether ``strategy`` is the built-in MCTS-Solver itself (not a subclass).

    By module and name: :mod:`agents.mcts.backups.solver` imports this module.
    """
    kind = type(strategy)
    return kind.__module__ == "agents.mcts.backups.solver" and kind.__name__ == "SolverBackup"


def kernel_of(strategy: Any) -> CompiledBackup | None:
    """The compiled form of a bound built-in ``strategy``; ``None`` for any other."""
    if _is_solver(strategy):
        inner = _plain(strategy.inner_strategy)
        return None if inner is None else CompiledBackup(inner[0], True, inner[1], inner[2])
    plain = _plain(strategy)
    return None if plain is None else CompiledBackup(plain[0], False, plain[1], plain[2])


@njit(cache=True)
def run_backup(kind, t, path, leaf_value, table, params):  # pragma: no cover - compiled
    """Back up ``path`` with the built-in kernel ``kind`` (``agents.mcts.backups._kernel``)."""
    if kind == MEAN:
        _mean_backup(t, path, leaf_value, table, params)
    elif kind == ERWA:
        _erwa_backup(t, path, leaf_value, table, params)
    elif kind == MAXMCTS:
        _maxmcts_backup(t, path, leaf_value, table, params)
    elif kind == POWER_MEAN:
        _power_mean_backup(t, path, leaf_value, table, params)
    elif kind == SOFTMAX:
        _softmax_backup(t, path, leaf_value, table, params)
    elif kind == MONOTONE:
        _monotone_backup(t, path, leaf_value, table, params)
    elif kind == XIE_LIU:
        _xie_liu_backup(t, path, leaf_value, table, params)
    else:
        _coulom_backup(t, path, leaf_value, table, params)


@njit(cache=True)
def run_solver_backup(kind, t, path, leaf_value, table, params):  # pragma: no cover - compiled
    """:meth:`SolverBackup.backup` around the built-in kernel ``kind``, step for step."""
    cut, value = _solve(t, path, leaf_value)
    last = path.shape[0] - 1
    if 0 <= cut < last:
        run_backup(kind, t, path[cut + 1 :], value, table, params)
        run_backup(kind, t, path[: cut + 1], -float(t.proven[path[cut]]), table, params)
    else:
        run_backup(kind, t, path, value, table, params)
    _pin_proven(t, path)


@njit(cache=True)
def solver_packed(packed, path, leaf_value, kind, table, params):  # pragma: no cover - compiled
    """:func:`run_solver_backup` on :attr:`~agents.mcts.tree.Tree.packed`: one call from Python.

    :meth:`SolverBackup.backup` calls it around a built-in strategy, where it called three
    kernels (prove, back up, pin the proven values).
    """
    run_solver_backup(kind, TreeArrays(*packed), path, leaf_value, table, params)
