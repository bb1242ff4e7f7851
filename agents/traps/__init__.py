"""Synthetic game trees with search traps and known minimax values, and MCTS on them.

``backups-spec.md`` §13: a benchmark where the truth is known, to see where one backup
strategy beats another. :mod:`agents.traps.trees` generates the trees,
:mod:`agents.traps.search` searches them with the project's tree, selection rules and
registered backup strategies. The grid experiment and its statistics are in
:mod:`tuning.traps` (``gomcts traps``); see ``docs/traps.md``.
"""

from __future__ import annotations

from agents.traps.search import POLICIES, TrapOutcome, TrapSearch, search_tree
from agents.traps.trees import Node, TrapTree, TrapTreeConfig

__all__ = [
    "POLICIES",
    "Node",
    "TrapOutcome",
    "TrapSearch",
    "TrapTree",
    "TrapTreeConfig",
    "search_tree",
]
