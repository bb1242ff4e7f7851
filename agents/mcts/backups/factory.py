"""Backup strategies from spec strings (``"softmax:g=[-6,-6,-5]"``) and back.

Thin names for :meth:`agents.plugins.Registry.build` and :meth:`~agents.plugins.Registry.spec_of`
of the backup registry :data:`agents.mcts.backups.BACKUPS`.
"""

from __future__ import annotations

from typing import Any

from agents.mcts.backups.base import BackupStrategy
from agents.mcts.backups.registry import BACKUPS

__all__ = ["backup_spec", "make_backup"]


def make_backup(spec: str | BackupStrategy) -> Any:
    """The backup strategy named by ``spec``; a strategy instance passes through unchanged.

    Args:
        spec: ``name`` or ``name:key=value,...`` with ``name`` an entry point of the group
            ``gomcts.backups`` (``mean``, ``softmax``, ``solver:inner=softmax``...).

    Raises:
        agents.spec.SpecError: For a malformed spec or a bad parameter (naming the key and
            what is allowed).
        agents.plugins.PluginError: For an unknown or broken backup plugin.
    """
    return BACKUPS.build(spec)


def backup_spec(strategy: Any) -> str:
    """The spec string of a strategy: its registered name plus its non-default parameters.

    Raises:
        ValueError: When the strategy's class is not registered in ``gomcts.backups``.
    """
    return BACKUPS.spec_of(strategy)
