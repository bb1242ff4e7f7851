"""MCTS backup strategies, discovered through the entry-point group ``gomcts.backups``."""

from __future__ import annotations

from agents.mcts.backups.base import BackupStrategy, check_backup_class
from agents.plugins import Registry

__all__ = ["BACKUPS", "BackupStrategy", "check_backup_class"]

BACKUPS: Registry[type] = Registry("gomcts.backups", "backup strategy", check_backup_class)
