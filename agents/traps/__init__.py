"""Synthetic game trees with search traps and known minimax values, and MCTS on them.

``docs/traps.md#the-trees``: a benchmark where the truth is known, to see where one backup
strategy beats another. :mod:`agents.traps.trees` generates the trees,
:mod:`agents.traps.search` searches them with the project's tree, selection rules and
registered backup strategies, :mod:`agents.traps.grid` runs grids of backups x budgets x trees
in worker processes (resumable), :mod:`agents.traps.report` gives their statistics, table and
plots, and :mod:`agents.traps.cli` is ``gomcts traps``. See ``docs/traps.md``.

Python API::

    from agents.traps import GridConfig, TrapTreeConfig, run_grid, summarise, markdown_table

    config = GridConfig(trees=TrapTreeConfig(deceptive=True), budgets=(100, 1000), n_trees=200)
    results = run_grid(config, results="runs/traps/results.jsonl", workers=2, progress=True)
    print(markdown_table(summarise(results)))
"""

from __future__ import annotations

from agents.traps.grid import (
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
from agents.traps.report import CellSummary, markdown_table, plot_grid, summarise
from agents.traps.search import POLICIES, TrapOutcome, TrapSearch, search_tree
from agents.traps.trees import Node, TrapTree, TrapTreeConfig

__all__ = [
    "DEFAULT_BACKUPS",
    "DEFAULT_BUDGETS",
    "POLICIES",
    "CellSummary",
    "GridConfig",
    "GridError",
    "GridResults",
    "Node",
    "TrapOutcome",
    "TrapSearch",
    "TrapTree",
    "TrapTreeConfig",
    "TreeResult",
    "markdown_table",
    "plot_grid",
    "read_grid",
    "run_grid",
    "search_tree",
    "summarise",
    "tree_seed",
]
