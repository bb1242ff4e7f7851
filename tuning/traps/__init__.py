"""The trap-tree benchmark as an experiment (``docs/traps.md``).

Grids of backups x budgets x trees, their statistics and plots, the ``gomcts traps`` command
and a tuning objective. The trees and the search are in :mod:`agents.traps`.
"""

from __future__ import annotations

from tuning.traps.grid import (
    DEFAULT_BACKUPS,
    DEFAULT_BUDGETS,
    GridConfig,
    GridError,
    GridResults,
    TreeResult,
    read_grid,
    run_grid,
    tree_seed,
)
from tuning.traps.report import CellSummary, markdown_table, plot_grid, summarise

__all__ = [
    "DEFAULT_BACKUPS",
    "DEFAULT_BUDGETS",
    "CellSummary",
    "GridConfig",
    "GridError",
    "GridResults",
    "TreeResult",
    "markdown_table",
    "plot_grid",
    "read_grid",
    "run_grid",
    "summarise",
    "tree_seed",
]
