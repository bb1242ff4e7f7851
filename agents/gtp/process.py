"""A GTP v2 client for an external engine (GNU Go, ...) running as a subprocess.

The engine's stdout is read by a background thread, so that every command can have a timeout;
its stderr is drained by another thread into a short buffer (its last lines are quoted when the
engine dies), so a chatty engine never blocks on a full pipe.

Memory is bounded whatever the engine writes: a line of stdout longer than
:data:`MAX_LINE_CHARS` characters, or a response longer than :data:`MAX_RESPONSE_CHARS`, stops
the engine with a :class:`GtpConnectionError` saying so; at most :data:`_QUEUED_LINES` lines
wait to be read (the reading thread then waits, and the engine with it); stderr lines are
kept cut to :data:`MAX_LINE_CHARS` characters.
"""

from __future__ import annotations

import collections
import contextlib
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Sequence
from types import TracebackType
from typing import IO

__all__ = [
    "MAX_LINE_CHARS",
    "MAX_RESPONSE_CHARS",
    "GtpCommandError",
    "GtpConnectionError",
    "GtpError",
    "GtpProcess",
    "GtpTimeoutError",
]

_STDERR_LINES = 20
#: The longest line accepted from an engine (characters, newline included).
MAX_LINE_CHARS = 1 << 20
#: The longest response accepted from an engine (characters, all lines together).
MAX_RESPONSE_CHARS = 16 << 20
_QUEUED_LINES = 16


class GtpError(Exception):
    """Root of the errors of the GTP client."""


class GtpCommandError(GtpError):
    """The engine answered a command with a failure (``? message``).

    Attributes:
        command: The command sent.
        message: The engine's error message.
    """

    def __init__(self, command: str, message: str) -> None:
        self.command = command
        self.message = message
        super().__init__(f"GTP command {command!r} failed: {message}")


class GtpConnectionError(GtpError):
    """The engine cannot be started, has exited, or broke the protocol."""


class GtpTimeoutError(GtpConnectionError, TimeoutError):
    """The engine did not answer in time (the engine is then stopped)."""


class GtpProcess:
    """A running GTP engine; send commands and read responses.

    Args:
        command: The engine's command line: an argv list, or a string split with ``shlex``.
        timeout: Default seconds to wait for each whole response; ``None`` waits forever.
        cwd: Working directory of the engine.

    Raises:
        GtpConnectionError: When the program cannot be started (the message names it).
        ValueError: When the command line is empty.

    Example:
        >>> with GtpProcess("gnugo --mode gtp") as engine:  # doctest: +SKIP
        ...     engine.send("boardsize 9")
        ...     move = engine.send("genmove black")
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout: float | None = 30.0,
        cwd: str | None = None,
    ) -> None:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        if not argv:
            raise ValueError("the engine command line is empty")
        self.argv: list[str] = argv
        self.timeout = timeout
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except FileNotFoundError:
            raise GtpConnectionError(f"GTP engine program {argv[0]!r} was not found") from None
        except PermissionError:
            raise GtpConnectionError(f"GTP engine program {argv[0]!r} is not executable") from None
        self._lines: queue.Queue[str | None] = queue.Queue(maxsize=_QUEUED_LINES)
        self._overlong = False  # the engine wrote a line longer than MAX_LINE_CHARS
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self._lock = threading.Lock()
        self._closed = False
        assert self._proc.stdout is not None and self._proc.stderr is not None
        self._threads = [
            threading.Thread(target=self._pump, args=(self._proc.stdout,), daemon=True),
            threading.Thread(target=self._drain, args=(self._proc.stderr,), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    # ------------------------------------------------------------------ reading threads
    def _pump(self, stream: IO[str]) -> None:
        try:
            while True:
                line = stream.readline(MAX_LINE_CHARS + 1)
                if not line:
                    break
                if len(line) > MAX_LINE_CHARS:
                    self._overlong = True
                    break
                self._lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            self._lines.put(None)  # end of file

    def _drain(self, stream: IO[str]) -> None:
        continuing = False  # within a line longer than MAX_LINE_CHARS: its start is kept
        try:
            while True:
                line = stream.readline(MAX_LINE_CHARS)
                if not line:
                    break
                cut = len(line) >= MAX_LINE_CHARS and not line.endswith("\n")
                if not continuing:
                    text = line.rstrip("\n")
                    self._stderr.append(text[:200] + "..." if cut else text)
                continuing = cut
        except (OSError, ValueError):
            pass

    # ----------------------------------------------------------------------- properties
    @property
    def program(self) -> str:
        """The engine's program name (``argv[0]``)."""
        return self.argv[0]

    @property
    def pid(self) -> int:
        """Process id of the engine."""
        return self._proc.pid

    @property
    def alive(self) -> bool:
        """Whether the engine process is still running and not closed."""
        return not self._closed and self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        """The engine's exit status once it has exited, else ``None``."""
        return self._proc.poll()

    @property
    def stderr_tail(self) -> list[str]:
        """The last lines the engine wrote to stderr."""
        return list(self._stderr)

    # ------------------------------------------------------------------------ commands
    def send(self, command: str, *, timeout: float | None = None) -> str:
        """Send one command and return the engine's response text.

        Args:
            command: One GTP command line (no line break), with or without a numeric id.
            timeout: Seconds to wait for the response; ``None`` uses the instance's timeout.

        Returns:
            The response without its ``=`` (and id) and the closing empty line; the first
            line is stripped of surrounding spaces (dropped when empty, as in ``showboard``),
            later lines keep their indentation.

        Raises:
            GtpCommandError: When the engine answers ``? message``.
            GtpTimeoutError: When no response comes in time; the engine is stopped.
            GtpConnectionError: When the engine has exited or was closed.
            ValueError: When the command is empty or spans several lines.
        """
        text = command.strip()
        if not text or "\n" in text or "\r" in text:
            raise ValueError(f"a GTP command is one non-empty line, got {command!r}")
        wait = self.timeout if timeout is None else timeout
        with self._lock:
            if self._closed:
                raise GtpConnectionError(f"GTP engine {self.program!r} is closed")
            self._write(text)
            status, body = self._read_response(text, wait)
        if status == "?":
            raise GtpCommandError(text, body)
        return body

    def _write(self, text: str) -> None:
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write(text + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died(text) from None

    def _next_line(self, command: str, timeout: float | None, deadline: float | None) -> str:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            line = self._lines.get(timeout=wait)
        except queue.Empty:
            self._kill()
            raise GtpTimeoutError(
                f"GTP engine {self.program!r} did not answer {command!r} within {timeout} s; "
                "it has been stopped"
            ) from None
        if line is None:
            self._lines.put(None)  # keep reporting end of file
            if self._overlong:
                self._kill()
                raise GtpConnectionError(
                    f"GTP engine {self.program!r} wrote a line longer than {MAX_LINE_CHARS} "
                    f"characters while handling {command!r}; it has been stopped"
                )
            raise self._died(command)
        return line.replace("\r", "").replace("\t", " ")

    def _read_response(self, command: str, timeout: float | None) -> tuple[str, str]:
        deadline = None if timeout is None else time.monotonic() + timeout
        line = self._next_line(command, timeout, deadline)
        while not line.startswith(("=", "?")):  # blank lines or chatter before the response
            line = self._next_line(command, timeout, deadline)
        status = line[0]
        head = line[1:].rstrip("\n")
        digits = len(head) - len(head.lstrip("0123456789"))
        head = head[digits:]
        lines = [head.strip()]  # GNU Go pads some answers: "=  7.5"
        total = len(head)
        while True:
            line = self._next_line(command, timeout, deadline).rstrip("\n")
            if not line.strip():
                break
            total += len(line) + 1
            if total > MAX_RESPONSE_CHARS:
                self._kill()
                raise GtpConnectionError(
                    f"GTP engine {self.program!r} answered {command!r} with more than "
                    f"{MAX_RESPONSE_CHARS} characters; it has been stopped"
                )
            lines.append(line)
        if len(lines) > 1 and not lines[0]:
            lines = lines[1:]
        return status, "\n".join(lines).rstrip()

    def _died(self, command: str) -> GtpConnectionError:
        try:
            code = self._proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        self._closed = True
        self._close_pipes()
        tail = "; stderr: " + " | ".join(self._stderr) if self._stderr else ""
        status = f"exit status {code}" if code is not None else "output closed"
        return GtpConnectionError(
            f"GTP engine {self.program!r} stopped while handling {command!r} ({status}){tail}"
        )

    # ----------------------------------------------------------------------- shutdown
    def _kill(self) -> None:
        self._closed = True
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._close_pipes()

    def _close_pipes(self) -> None:
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def close(self, timeout: float = 5.0) -> None:
        """Send ``quit``, wait up to ``timeout`` seconds for the engine to exit, then kill it.

        Safe to call more than once.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write("quit\n")
                self._proc.stdin.flush()
                self._proc.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        for thread in self._threads:
            thread.join(timeout=1.0)
        self._close_pipes()

    def __enter__(self) -> GtpProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "alive" if self.alive else "closed"
        return f"GtpProcess({shlex.join(self.argv)!r}, {state})"
