"""Helpers for tests of the search's root statistics."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.mcts import SearchStats


def make_stats(visits: Any, values: Any, proven: Any = None, priors: Any = None) -> SearchStats:
    """Root statistics of children ``10, 11, ...`` with these visits and mean values."""
    k = len(visits)
    return SearchStats(
        moves=np.arange(10, 10 + k),
        visits=np.asarray(visits),
        values=np.asarray(values, float),
        priors=np.full(k, 1 / k) if priors is None else np.asarray(priors, float),
        proven=np.zeros(k, np.int8) if proven is None else np.asarray(proven, np.int8),
        root_value=0.0,
        root_visits=int(np.sum(visits)) + 1,
        pv=(),
        simulations=0,
        elapsed=0.0,
        nodes=k + 1,
    )
