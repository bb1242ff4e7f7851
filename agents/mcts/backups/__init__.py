"""MCTS backup strategies, discovered through the entry-point group ``gomcts.backups``.

Built-ins (see ``docs/backups.md``): ``mean``, ``erwa``, ``coulom``, ``xie_liu``, ``maxmcts``,
``monotone``, ``softmax``, ``power_mean`` and the ``solver`` wrapper. Each is imported only when
asked for by name (:data:`BACKUPS`), and built from a spec string by :func:`make_backup`.
"""

from __future__ import annotations

from agents.mcts.backups.base import BackupStrategy, check_backup_class
from agents.mcts.backups.binding import bind_backup
from agents.mcts.backups.factory import backup_spec, make_backup
from agents.mcts.backups.registry import BACKUPS

__all__ = [
    "BACKUPS",
    "BackupStrategy",
    "backup_spec",
    "bind_backup",
    "check_backup_class",
    "make_backup",
]
