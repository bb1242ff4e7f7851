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

# The engine (serving an agent over GTP) and the client agent (an external engine as an agent).
from agents.gtp.analysis import Analyzer, MoveInfo
from agents.gtp.client_agent import GtpAgent, GtpConfig, GtpResignation
from agents.gtp.engine import GtpEngine, GtpFailure

__all__ += [
    "Analyzer",
    "GtpAgent",
    "GtpConfig",
    "GtpEngine",
    "GtpFailure",
    "GtpResignation",
    "MoveInfo",
]
