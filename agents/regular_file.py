"""Reading a file a user names: a regular file only, and at most a given number of bytes.

A path given on a command line or in a GTP command may name a FIFO with no writer (``open``
would block forever), a device such as ``/dev/zero`` (endless) or a file far larger than
anything meant. :func:`open_regular_file` opens it without blocking, checks the type and size
with ``fstat`` on the open descriptor (so they are those of the file read) and reads at most
``limit + 1`` bytes, so that a file growing meanwhile is caught as well.
"""

from __future__ import annotations

import os
import stat
from os import PathLike
from typing import BinaryIO

__all__ = ["open_regular_file", "read_regular_file"]


def open_regular_file(
    path: str | PathLike[str], limit: int, *, name: str | None = None, hint: str = ""
) -> BinaryIO:
    """``path`` opened for binary reading, once known to be a regular file of <= ``limit`` bytes.

    For a reader that needs only part of the file, such as its first line.

    Args:
        path: The file.
        limit: The largest size accepted.
        name: How the errors name the file (default: its path).
        hint: Appended to the error for anything but a regular file (what to give instead).

    Raises:
        ValueError: For anything but a regular file, or a file over ``limit`` bytes.
        OSError: When the file cannot be opened.
    """
    name = str(path) if name is None else name
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:  # checked before fdopen, which refuses a directory with a message naming the fd
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{name} is not a regular file{hint}")
        if info.st_size > limit:
            raise ValueError(f"{name} has {info.st_size} bytes; at most {limit} are read")
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_regular_file(
    path: str | PathLike[str], limit: int, *, name: str | None = None, hint: str = ""
) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes.

    Args:
        path: The file.
        limit: The most bytes read.
        name: How the errors name the file (default: its path).
        hint: Appended to the error for anything but a regular file (what to give instead).

    Raises:
        ValueError: For anything but a regular file, or a file over ``limit`` bytes.
        OSError: When the file cannot be opened or read.
    """
    name = str(path) if name is None else name
    with open_regular_file(path, limit, name=name, hint=hint) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{name} grew past {limit} bytes while being read")
    return data
