"""Optuna studies over a backup's declared parameters: describe, run, resume, record.

* :mod:`tuning.studies.study`: the study description and running it (jobs, workers);
* :mod:`tuning.studies.objective`, :mod:`tuning.studies.trap_objective`: what a trial plays
  (arena games against a baseline, or trap trees);
* :mod:`tuning.studies.resume`: a stored study continued from plain Python;
* :mod:`tuning.studies.storage`: where a study lives (a file, or a database server);
* :mod:`tuning.studies.outputs`: the best parameters, plots, verification and summary;
* :mod:`tuning.studies.trial_bar`: the progress bar of complete trials;
* :mod:`tuning.studies.cli`: the ``gomcts tune`` command.
"""
