"""Input lines read by a background thread, so that a long computation can see new input.

The GTP engine streams ``lz-analyze`` output until the next command arrives: its search asks
:meth:`LineQueue.pending` between batches of simulations instead of blocking on ``readline``.

Standard input is read with :func:`fd_lines` (``os.read`` on the descriptor) rather than
through ``sys.stdin``: a daemon thread blocked inside a buffered reader holds that reader's
lock, and when the engine returns after ``quit`` while the controller keeps the pipe open (as
GUIs do), the interpreter's shutdown cannot take the lock to close ``sys.stdin`` and aborts
("Fatal Python error: _enter_buffered_busy"). A thread blocked in ``os.read`` holds no lock.
"""

from __future__ import annotations

import codecs
import logging
import os
import threading
from collections import deque
from collections.abc import Iterable, Iterator

__all__ = ["MAX_LINE_CHARS", "LineQueue", "OverlongLine", "fd_lines"]

#: The longest command line :func:`fd_lines` keeps (characters); the rest of a longer line is
#: dropped as it arrives, so memory stays bounded whatever the controller sends.
MAX_LINE_CHARS = 1 << 20


class OverlongLine(str):
    """Stands for a line longer than :data:`MAX_LINE_CHARS`, whose text was dropped.

    The engine answers it with a failure, so the controller still gets one response per line.
    """


log = logging.getLogger(__name__)


class LineQueue:
    """Lines of ``stream``, read by a daemon thread as soon as they arrive.

    Args:
        stream: Lines of text (a text stream, or :func:`fd_lines` of a descriptor).
    """

    def __init__(self, stream: Iterable[str]) -> None:
        self._lines: deque[str | None] = deque()
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: Iterable[str]) -> None:
        try:
            for line in stream:
                with self._ready:
                    self._lines.append(line)
                    self._ready.notify_all()
        except (OSError, ValueError) as exc:  # closed or undecodable stream
            log.warning("GTP input ended: %s", exc)
        with self._ready:
            self._lines.append(None)
            self._ready.notify_all()

    def pending(self) -> bool:
        """Whether a line (or the end of input) is waiting."""
        return bool(self._lines)

    def wait(self) -> None:
        """Block until a line (or the end of input) is waiting."""
        with self._ready:
            self._ready.wait_for(lambda: bool(self._lines))

    def get(self) -> str | None:
        """The next line, or ``None`` at the end of input (blocks)."""
        with self._ready:
            self._ready.wait_for(lambda: bool(self._lines))
            line = self._lines.popleft()
            if line is None:
                self._lines.appendleft(None)  # keep reporting the end
            return line


def fd_lines(fd: int, *, chunk: int = 65536) -> Iterator[str]:
    """Lines read from a file descriptor with ``os.read``, decoded as UTF-8 (bad bytes replaced).

    Each line keeps its newline; a last line without one is yielded at the end of input. A
    line longer than :data:`MAX_LINE_CHARS` is dropped as it arrives and yielded as an empty
    :class:`OverlongLine`. No Python-level lock is held while waiting for input (see the module
    docstring).
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    parts: list[str] = []  # the line so far (a list: a long line arrives in many chunks)
    size = 0  # characters in parts
    overlong = False  # the current line passed MAX_LINE_CHARS: its text is being dropped
    while True:
        data = os.read(fd, chunk)
        text = decoder.decode(data, final=not data)
        *complete, rest = text.split("\n")
        for piece in complete:
            if overlong or size + len(piece) > MAX_LINE_CHARS:
                yield OverlongLine("\n")
            else:
                parts.append(piece)
                yield "".join(parts) + "\n"
            parts, size, overlong = [], 0, False
        if rest and not overlong:
            parts.append(rest)
            size += len(rest)
            if size > MAX_LINE_CHARS:
                parts, size, overlong = [], 0, True
        if not data:
            if overlong:
                yield OverlongLine("")
            elif parts:
                yield "".join(parts)
            return
