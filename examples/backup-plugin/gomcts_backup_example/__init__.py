"""Example gomcts plugins: a backup (``window_mean``) and a leaf evaluator (``area_value``)."""

from __future__ import annotations

from gomcts_backup_example.area_value import AreaValueConfig
from gomcts_backup_example.window_mean import WindowMeanBackup

__all__ = ["AreaValueConfig", "WindowMeanBackup"]
