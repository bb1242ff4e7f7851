"""tuning: Optuna studies over agent parameters, and the reproduction runner that drives them.

Arena matches are in :mod:`agents.matches`; ``docs/decisions/012-package-layout.md`` says why
the reproduction runner (:mod:`tuning.reproduction.runner`) stands here.
"""

from agents._moved import install as _install_moved_modules

_install_moved_modules()  # old ``tuning.arena`` etc. paths, for one release (CHANGELOG.md)
