"""The reproduction runner: an experiment plan's matches and studies, run resumably.

* :mod:`tuning.reproduction.plan`: the TOML plan and its rows;
* :mod:`tuning.reproduction.runner`: running the rows in order, resumably, with progress;
* :mod:`tuning.reproduction.table`: the results table (paper value, ours, interval);
* :mod:`tuning.reproduction.cli`: the ``gomcts reproduce`` command.

The main names are re-exported here (``from tuning.reproduction import load_plan, run_plan``),
loaded lazily: importing this package does not import the agents or Optuna.
"""

from __future__ import annotations

from agents.lazy_exports import lazy_exports

__all__ = [
    "MatchRow",
    "Plan",
    "PlanError",
    "PlanProgress",
    "RowChangedError",
    "RowWaitingError",
    "StudyRow",
    "fingerprint",
    "load_plan",
    "results_table",
    "row_definition",
    "run_plan",
    "write_table",
]

_WHERE = {
    "MatchRow": "tuning.reproduction.plan",
    "Plan": "tuning.reproduction.plan",
    "PlanError": "tuning.reproduction.plan",
    "StudyRow": "tuning.reproduction.plan",
    "load_plan": "tuning.reproduction.plan",
    "PlanProgress": "tuning.reproduction.runner",
    "RowChangedError": "tuning.reproduction.runner",
    "RowWaitingError": "tuning.reproduction.runner",
    "fingerprint": "tuning.reproduction.runner",
    "row_definition": "tuning.reproduction.runner",
    "run_plan": "tuning.reproduction.runner",
    "results_table": "tuning.reproduction.table",
    "write_table": "tuning.reproduction.table",
}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
