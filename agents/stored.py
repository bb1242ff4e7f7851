"""A results file stored plain while a run appends to it, and gzip-compressed once recorded.

The project's resumable results files (arena matches, trap-tree grids, the noise simulation)
are JSON lines appended game by game. A run recorded under ``docs/results/`` keeps its file
compressed, ``results.jsonl.gz`` (``gomcts record``, :mod:`agents.matches.records`): gzip,
because Python reads it with no extra package (``gzip``, built on the ``zlib`` every Python
has), as do ``zcat``, ``zgrep`` and pandas, and because it is the format a reader expects of a
``.gz``. (``xz`` and ``bz2`` make files 17-25% smaller here but are optional in a Python
build.)

This module finds the form a file is stored in, reads it, and turns a compressed file back
into the plain one when a run goes on appending to it. The plain and the compressed name of a
file are ``NAME`` and ``NAME.gz``; either name finds the file stored under the other.
"""

from __future__ import annotations

import gzip
import zlib
from os import PathLike
from pathlib import Path

from agents.atomic_file import write_atomically

__all__ = [
    "COMPRESSED_SUFFIX",
    "StoredFileError",
    "compress",
    "expand",
    "is_compressed",
    "pair_of",
    "read_stored",
    "stored_file",
    "write_compressed",
]

COMPRESSED_SUFFIX = ".gz"
"""Suffix of the compressed form of a file."""


class StoredFileError(ValueError):
    """A file stored twice (plain and compressed), or a compressed file that cannot be read."""


def is_compressed(path: str | PathLike[str]) -> bool:
    """Whether ``path`` names the compressed form (``.gz``)."""
    return Path(path).name.endswith(COMPRESSED_SUFFIX)


def pair_of(path: str | PathLike[str]) -> tuple[Path, Path]:
    """The plain and the compressed name of a file given by either name."""
    path = Path(path)
    if is_compressed(path):
        return path.with_name(path.name[: -len(COMPRESSED_SUFFIX)]), path
    return path, path.with_name(path.name + COMPRESSED_SUFFIX)


def stored_file(path: str | PathLike[str]) -> Path | None:
    """The file ``path`` stands for as it is stored; ``None`` when neither form exists.

    An empty plain file beside a compressed one counts as absent (a run that created its file
    and stopped before writing).

    Raises:
        StoredFileError: When both the plain and the compressed file hold data.
    """
    plain, packed = pair_of(path)
    has_plain = plain.is_file() and plain.stat().st_size > 0
    if has_plain and packed.exists():
        raise StoredFileError(
            f"both {plain} and {packed} exist; keep one of them (the plain file is the one a "
            "resumed run appends to, the compressed one the recorded copy)"
        )
    if has_plain:
        return plain
    if packed.exists():
        return packed
    return plain if plain.exists() else None


def read_stored(path: str | PathLike[str]) -> bytes:
    """The content of a stored file, decompressed when its name ends in ``.gz``.

    Raises:
        StoredFileError: When a compressed file is not valid gzip (corrupt or cut short).
        OSError: When it cannot be read.
    """
    path = Path(path)
    data = path.read_bytes()
    if not is_compressed(path):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise StoredFileError(
            f"{path} is not a readable gzip file ({exc or type(exc).__name__}); restore it "
            "from the repository or the run that wrote it"
        ) from None


def write_compressed(path: str | PathLike[str], data: bytes) -> Path:
    """Write ``data`` as the compressed file ``path`` (a ``.gz`` name), durably.

    gzip level 9 without a time stamp, so the same content always gives the same bytes; the
    file is read back before this returns.

    Raises:
        StoredFileError: When ``path`` is not a ``.gz`` name, or does not read back.
    """
    packed = Path(path)
    if not is_compressed(packed):
        raise StoredFileError(f"{packed} is not a compressed name (it must end in .gz)")
    write_atomically(packed, gzip.compress(data, compresslevel=9, mtime=0))
    if read_stored(packed) != data:  # pragma: no cover - a failing disk
        packed.unlink()
        raise StoredFileError(f"{packed} does not read back as the data written")
    return packed


def expand(path: str | PathLike[str]) -> Path:
    """Turn a compressed file back into its plain form (durably), then remove the ``.gz``.

    Args:
        path: The file by either name; nothing happens when it is stored plain.

    Returns:
        The plain file.

    Raises:
        StoredFileError: As :func:`stored_file` and :func:`read_stored`.
    """
    plain, packed = pair_of(path)
    stored = stored_file(plain)
    if stored == packed:
        write_atomically(plain, read_stored(packed))
        packed.unlink()
    return plain


def compress(path: str | PathLike[str]) -> Path:
    """Store a plain file compressed, then remove the plain file.

    gzip level 9 without a time stamp, so the same content always gives the same bytes; the
    ``.gz`` is written and read back before the plain file goes.

    Args:
        path: The file by either name; nothing happens when it is stored compressed already.

    Returns:
        The compressed file.

    Raises:
        StoredFileError: As :func:`stored_file`, or when the file does not exist.
    """
    plain, packed = pair_of(path)
    stored = stored_file(plain)
    if stored is None:
        raise StoredFileError(f"no file {plain} (nor {packed}) to compress")
    if stored == plain:
        write_compressed(packed, plain.read_bytes())
        plain.unlink()
    return packed
