"""Shared helper for tests of resumable training folders (``gomcts train distill``, ``teach``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agents.nets.training import resumable

__all__ = ["killed_then_resumed"]


def killed_then_resumed(
    monkeypatch: pytest.MonkeyPatch, train: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """Run ``train`` killed right after its first checkpoint, then again; the rerun's summary."""
    real_save = resumable.save_checkpoint

    def save_then_stop(path: Path, *args: Any, **kwargs: Any) -> Path:
        written = real_save(path, *args, **kwargs)
        if Path(path).name == "model.pt":  # the first checkpoint is whole: killed here
            raise KeyboardInterrupt
        return written

    monkeypatch.setattr(resumable, "save_checkpoint", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        train()
    monkeypatch.setattr(resumable, "save_checkpoint", real_save)
    return train()
