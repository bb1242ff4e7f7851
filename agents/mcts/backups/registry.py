"""The backup registry: strategies discovered through the entry-point group ``gomcts.backups``."""

from __future__ import annotations

from agents.mcts.backups.base import check_backup_class
from agents.plugins import Registry

__all__ = ["BACKUPS"]

BACKUPS: Registry[type] = Registry(
    "gomcts.backups", "backup strategy", check_backup_class, label="backup"
)
"""The backup strategies installed; ``BACKUPS.build(spec)`` and ``BACKUPS.spec_of(obj)``."""
