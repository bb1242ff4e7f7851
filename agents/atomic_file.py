"""Replacing a file whole, so that a reader or a crash sees the old file or the new one.

Every file that a long run rewrites (a self-play manifest, a checkpoint, a replay buffer, a
run's JSON-lines metrics, a stored record) goes through :func:`write_atomically`:

1. the content is written to a temporary file beside the target (same folder, so the rename
   below stays on one file system), named by process and thread so that two writers of the
   same path never share it;
2. the temporary file is flushed and ``fsync``-ed, so that its bytes are on disk before the
   rename makes them the file (without this a power cut after the rename can leave an empty
   file under the new name on some file systems);
3. ``os.replace`` renames it over the target, which POSIX makes atomic.

A writer that fails (an exception, a full disk) removes its temporary file and leaves the old
file as it was.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from os import PathLike
from pathlib import Path
from typing import BinaryIO

__all__ = ["write_atomically"]


def write_atomically(
    path: str | PathLike[str], content: bytes | str | Callable[[BinaryIO], object]
) -> Path:
    """Write ``content`` as the whole of ``path``, atomically and durably.

    Args:
        path: The file to write; its folder is made when missing.
        content: The bytes, the text (written as UTF-8), or a function that writes the
            content to the binary handle it is given (``torch.save``, ``np.savez`` ...).

    Returns:
        ``path`` as a :class:`~pathlib.Path`.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with temporary.open("wb") as handle:
            if isinstance(content, str):
                handle.write(content.encode("utf-8"))
            elif isinstance(content, bytes | bytearray | memoryview):
                handle.write(content)
            else:
                content(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target
