"""tuning: Optuna studies over agent parameters (arena matches are in :mod:`agents.matches`)."""

from agents._moved import install as _install_moved_modules

_install_moved_modules()  # old ``tuning.arena`` etc. paths, for one release (CHANGELOG.md)
