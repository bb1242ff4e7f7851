"""The JSON-lines files of a training run (metrics, ladder): how they are read and written.

A run appends a row with :func:`append_row` (one write of a whole line ending in a newline)
and rewrites a file whole with :func:`write_rows` (through
:func:`agents.atomic_file.write_atomically`), so a reader sees the old file or the new one,
never a mixture. A kill during an append can leave a last line cut short: :func:`read_rows`
drops a last line that does not end in a newline and does not parse (a resumed run rewrites
its file from the rows it keeps, then writes the lost row again). Any other line that is not
a JSON object is damage, not an interruption: it is an error that names the file and the
line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agents.atomic_file import write_atomically

__all__ = ["append_row", "parse_rows", "read_rows", "write_rows"]


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file, in file order; none when the file does not exist.

    Blank lines are skipped; a torn last line (no newline, not JSON) is dropped.

    Raises:
        ValueError: A complete line that is not a JSON object (named by its number).
    """
    if not path.exists():
        return []
    return parse_rows(path.read_text(encoding="utf-8"), str(path))


def parse_rows(text: str, name: str) -> list[dict[str, Any]]:
    """The rows of JSON-lines ``text`` (from the file ``name``), as :func:`read_rows` reads them.

    For callers that read the text themselves (a compressed record, for example).

    Raises:
        ValueError: A complete line that is not a JSON object (named by ``name`` and its number).
    """
    lines = text.split("\n")  # the last element is "" when the text ends in a newline
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break  # an append cut short by a kill: the run writes the row again
            raise ValueError(f"{name}, line {number}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise ValueError(f"{name}, line {number}: not a JSON object")
        rows.append(row)
    return rows


def write_rows(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Write ``rows`` as the whole of ``path``, atomically (a reader sees old or new)."""
    write_atomically(path, "".join(json.dumps(row) + "\n" for row in rows))


def append_row(path: Path, row: dict[str, Any]) -> None:
    """Append ``row`` to ``path`` as one JSON line (the file is made when missing)."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(row) + "\n")
