"""GTP (Go Text Protocol v2): a client for external engines such as GNU Go."""

from __future__ import annotations

from agents.gtp.process import (
    GtpCommandError,
    GtpConnectionError,
    GtpError,
    GtpProcess,
    GtpTimeoutError,
)

__all__ = [
    "GtpCommandError",
    "GtpConnectionError",
    "GtpError",
    "GtpProcess",
    "GtpTimeoutError",
]
