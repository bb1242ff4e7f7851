"""The reproduction runner: an experiment plan's matches and studies, run resumably.

* :mod:`tuning.reproduction.plan`: the TOML plan and its rows;
* :mod:`tuning.reproduction.runner`: running the rows in order, resumably, with progress;
* :mod:`tuning.reproduction.table`: the results table (paper value, ours, interval);
* :mod:`tuning.reproduction.cli`: the ``gomcts reproduce`` command.
"""
