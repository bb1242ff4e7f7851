"""Input lines read by a background thread, so that a long computation can see new input.

The GTP engine streams ``lz-analyze`` output until the next command arrives: its search asks
:meth:`LineQueue.pending` between batches of simulations instead of blocking on ``readline``.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import TextIO

__all__ = ["LineQueue"]

log = logging.getLogger(__name__)


class LineQueue:
    """Lines of ``stream``, read by a daemon thread as soon as they arrive.

    Args:
        stream: A text stream (each item one line); ``None`` marks its end.
    """

    def __init__(self, stream: TextIO) -> None:
        self._lines: deque[str | None] = deque()
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: TextIO) -> None:
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
