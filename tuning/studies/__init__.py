"""Optuna studies over a backup's declared parameters: describe, run, resume, record.

* :mod:`tuning.studies.config`: the study description (:class:`StudyConfig`);
* :mod:`tuning.studies.study`: running a study (jobs, workers);
* :mod:`tuning.studies.objective`, :mod:`tuning.studies.trap_objective`: what a trial plays
  (arena games against a baseline, or trap trees);
* :mod:`tuning.studies.resume`: a stored study continued from plain Python;
* :mod:`tuning.studies.storage`: where a study lives (a file, or a database server);
* :mod:`tuning.studies.recovery`: trials of dead workers retried;
* :mod:`tuning.studies.outputs`: the best parameters, plots, verification and summary;
* :mod:`tuning.studies.trial_bar`: the progress bar of complete trials;
* :mod:`tuning.studies.cli`: the ``gomcts tune`` command.

The main names are re-exported here (``from tuning.studies import StudyConfig, run_study``),
loaded lazily: importing this package, or one of its light modules, does not import Optuna.
"""

from __future__ import annotations

from agents.lazy_exports import lazy_exports

__all__ = [
    "Objective",
    "ObjectiveConfig",
    "StorageError",
    "StudyConfig",
    "StudyIdentityError",
    "StudyReport",
    "TrapObjective",
    "TrapObjectiveConfig",
    "WilsonPruner",
    "finish_study",
    "load_objective",
    "load_study",
    "open_storage",
    "recover_dead_trials",
    "retry_trial",
    "run_study",
    "study_config",
]

_WHERE = {
    "StudyConfig": "tuning.studies.config",
    "StudyIdentityError": "tuning.studies.config",
    "run_study": "tuning.studies.study",
    "load_study": "tuning.studies.resume",
    "load_objective": "tuning.studies.resume",
    "study_config": "tuning.studies.resume",
    "Objective": "tuning.studies.objective",
    "ObjectiveConfig": "tuning.studies.objective",
    "WilsonPruner": "tuning.studies.objective",
    "TrapObjective": "tuning.studies.trap_objective",
    "TrapObjectiveConfig": "tuning.studies.trap_objective",
    "StudyReport": "tuning.studies.outputs",
    "finish_study": "tuning.studies.outputs",
    "StorageError": "tuning.studies.storage",
    "open_storage": "tuning.studies.storage",
    "recover_dead_trials": "tuning.studies.recovery",
    "retry_trial": "tuning.studies.recovery",
}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
