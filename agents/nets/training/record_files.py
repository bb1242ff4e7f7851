"""Reading a self-play run's record files, plain (in a run) or compressed (in a record).

A run folder holds ``manifest.json``, ``metrics.jsonl`` and ``ladder.jsonl`` plain; a record
(``gomcts train report``) holds them gzip-compressed (:mod:`agents.stored`). These readers take
either, so a record can be read wherever a run can.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.nets.training.jsonl import parse_rows
from agents.nets.training.manifest import Manifest
from agents.stored import read_stored, stored_file

__all__ = ["RECORD_FILES", "load_manifest", "read_rows", "read_text"]

RECORD_FILES = ("manifest.json", "metrics.jsonl", "ladder.jsonl")
"""The run's files copied as they are, stored gzip-compressed (``NAME.gz``) in a record."""


def read_text(folder: Path, name: str) -> str | None:
    """The text of ``folder``'s file ``name``, stored plain or compressed; ``None``: no file."""
    stored = stored_file(folder / name)
    return None if stored is None else read_stored(stored).decode("utf-8")


def read_rows(folder: Path, name: str) -> list[dict[str, Any]]:
    """The rows of ``folder``'s JSON-lines file ``name`` (plain or compressed); none: no file."""
    text = read_text(folder, name)
    return [] if text is None else parse_rows(text, str(folder / name))


def load_manifest(folder: Path) -> Manifest:
    """The self-play manifest of ``folder`` (``manifest.json``, plain or compressed).

    Raises:
        ValueError: ``not a self-play run folder: ...`` when it has none, or not a valid one.
    """
    path = folder / "manifest.json"
    text = read_text(folder, "manifest.json")
    if text is None:
        raise ValueError(f"not a self-play run folder: {folder} (it has no manifest.json)")
    try:
        return Manifest.parse(path, text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a self-play run folder: {path} is not JSON ({exc})") from exc
    except ValueError as exc:
        raise ValueError(f"not a self-play run folder: {exc}") from exc
