"""Lazy re-exports for a package's ``__init__`` (PEP 562 module ``__getattr__``).

A package lists its public names and the module each lives in; a name is imported on first
use, so that importing the package (or one of its light modules) does not load the heavy
libraries behind the others (torch, Optuna)::

    __getattr__, __dir__ = lazy_exports(__name__, {"StudyConfig": "tuning.studies.config"})

This module imports nothing heavy itself: :mod:`agents` and :mod:`tuning` packages share it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, where: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose names live in ``where``.

    Args:
        package: The package's ``__name__`` (for the error message).
        where: Each re-exported name -> the module that defines it.

    Returns:
        ``(__getattr__, __dir__)``: the first imports a name's module on demand (an unknown
        name raises :class:`AttributeError`, as for any module); the second lists the names.
    """
    names = dict(where)

    def getattr_(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    def dir_() -> list[str]:
        return sorted(names)

    return getattr_, dir_
