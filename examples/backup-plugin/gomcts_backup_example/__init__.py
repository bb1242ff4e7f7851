"""Example gomcts backup plugin: the sliding-window mean of a node's last returns."""

from __future__ import annotations

from gomcts_backup_example.window_mean import WindowMeanBackup

__all__ = ["WindowMeanBackup"]
