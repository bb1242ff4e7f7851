"""Old import paths of moved modules, kept working for one release (see CHANGELOG.md).

Issue 16 gave the packages names for what they hold: arena matches and their statistics moved
from ``tuning`` to :mod:`agents.matches`, network training from ``agents.nets`` and ``tuning``
to :mod:`agents.nets.training`, and dead-stone scoring from ``agents.gtp`` to
:mod:`go_env.dead_stones`. Issue 28 put the flat modules of ``tuning`` into the subpackages
:mod:`tuning.studies`, :mod:`tuning.samplers` and :mod:`tuning.reproduction`. :data:`MOVED`
maps every old module name to its new one.

:class:`MovedModuleFinder` is a meta-path finder (PEP 451) that answers only for the old
names: importing one emits a :class:`DeprecationWarning` naming the new path and binds the old
name to the *same* module object as the new one (``sys.modules`` holds it under both names), so
classes, module state and ``isinstance`` checks are shared and nothing is imported twice.
``agents/__init__.py`` and ``tuning/__init__.py`` call :func:`install`, so the hook is in place
before any old name can be looked up (importing ``tuning.arena`` imports ``tuning`` first).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

__all__ = ["MOVED", "MOVED_NAMES", "REMOVED_IN", "MovedModuleFinder", "install", "moved_name"]

REMOVED_IN = "0.2.0"
"""The release that removes the old names below (CHANGELOG.md, "Shims"); 0.1.0 keeps them."""

#: Old module name -> new module name (kept until :data:`REMOVED_IN`; listed in CHANGELOG.md).
MOVED: dict[str, str] = {
    "tuning.arena": "agents.matches.arena",
    "tuning.stats": "agents.matches.stats",
    "tuning.results": "agents.matches.results",
    "tuning.openings": "agents.matches.openings",
    "tuning.paired": "agents.matches.paired",
    "tuning.plots": "agents.matches.plots",
    "tuning.cli": "agents.matches.cli",
    "tuning.train_cli": "agents.nets.training.cli",
    "tuning.gating": "agents.nets.training.gating",
    "agents.nets.supervised": "agents.nets.training.supervised",
    "agents.nets.selfplay": "agents.nets.training.selfplay",
    "agents.nets.replay": "agents.nets.training.replay",
    "agents.nets.data": "agents.nets.training.data",
    "agents.nets.gnugo_games": "agents.nets.training.gnugo_games",
    "agents.nets.plots": "agents.nets.training.plots",
    "agents.gtp.scoring": "go_env.dead_stones",
    "agents.matches.book_cli": "agents.nets.book_cli",
    "tuning.noise": "tuning.samplers.noise",
    "tuning.noisy_gp": "tuning.samplers.noisy_gp",
    "tuning.simulation": "tuning.samplers.simulation",
    "tuning.objective": "tuning.studies.objective",
    "tuning.trap_objective": "tuning.studies.trap_objective",
    "tuning.study_outputs": "tuning.studies.outputs",
    "tuning.study": "tuning.studies.study",
    "tuning.resume": "tuning.studies.resume",
    "tuning.storage": "tuning.studies.storage",
    "tuning.trial_bar": "tuning.studies.trial_bar",
    "tuning.tune_cli": "tuning.studies.cli",
    "tuning.plan": "tuning.reproduction.plan",
    "tuning.repro_table": "tuning.reproduction.table",
    "tuning.reproduce_cli": "tuning.reproduction.cli",
    "tuning.reproduce": "tuning.reproduction.runner",
}


#: Old ``module.name`` -> new ``module.name`` of single names that moved (same grace). A module
#: that lost such a name forwards its ``__getattr__`` to :func:`moved_name`, so that it does
#: not import the new module itself (``agents.matches`` must not import ``agents.nets``).
MOVED_NAMES: dict[str, str] = {
    "agents.matches.balanced.net_value_fn": "agents.nets.evaluator.net_value_fn",
    "agents.matches.balanced.model_digest": "agents.nets.checkpoint.model_digest",
}


def moved_name(module: str, name: str) -> object:
    """The object an old ``module.name`` of :data:`MOVED_NAMES` now is (with a warning).

    Raises:
        AttributeError: When ``module.name`` is not a moved name (as a module's own
            ``__getattr__`` must).
    """
    new = MOVED_NAMES.get(f"{module}.{name}")
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"{module}.{name} moved to {new}; the old name goes in {REMOVED_IN} (CHANGELOG.md)",
        DeprecationWarning,
        stacklevel=3,
    )
    new_module, _, new_name = new.rpartition(".")
    return getattr(importlib.import_module(new_module), new_name)


def _in_import_machinery(module_name: str) -> bool:
    return module_name == __name__ or module_name.partition(".")[0] == "importlib"


def _caller_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the code that wrote the old import.

    ``warnings.warn`` already skips the frames of ``importlib._bootstrap`` when it counts, so
    only the other frames of the import machinery (this module, ``importlib.import_module``)
    are counted here.
    """
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and _in_import_machinery(frame.f_globals.get("__name__", "")):
        frame = frame.f_back
        if "_bootstrap" not in frame.f_code.co_filename:
            level += 1
    return level


class _AliasLoader(importlib.abc.Loader):
    """Loads an old name as the already imported module of its new name."""

    def __init__(self, module: ModuleType) -> None:
        self._module = module
        self._spec = module.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self._module

    def exec_module(self, module: ModuleType) -> None:
        # The import system stamps the alias spec on the module after create_module; give the
        # module its own spec back, so that it stays the module of its new name (reload works).
        module.__spec__ = self._spec


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Resolves the old names in ``moved`` to the modules of their new names (with a warning)."""

    def __init__(self, moved: dict[str, str]) -> None:
        self.moved = dict(moved)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        new = self.moved.get(fullname)
        if new is None:
            return None
        warnings.warn(
            f"{fullname} moved to {new}; import it from there "
            f"(the old path goes in {REMOVED_IN}, see CHANGELOG.md)",
            DeprecationWarning,
            stacklevel=_caller_stacklevel(),
        )
        module = importlib.import_module(new)
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module))


_FINDER = MovedModuleFinder(MOVED)


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (idempotent)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _FINDER)
