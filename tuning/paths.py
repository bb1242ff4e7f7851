"""Paths written into recorded files (plan commands, study records, summaries).

A recorded folder is committed and cloned elsewhere, so a path that lies inside the folder it
is recorded for is written relative to it; any other path stays as given.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["relative_inside"]


def relative_inside(path: str | Path, folder: str | Path) -> str:
    """``path`` relative to ``folder`` where it lies inside it, else unchanged."""
    try:
        return Path(path).resolve().relative_to(Path(folder).resolve()).as_posix()
    except ValueError:
        return str(path)
