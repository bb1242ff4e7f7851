"""Exception tree of :mod:`go_env`.

``GoError`` is the root; ``IllegalMoveError`` is also a ``ValueError`` so that callers that
only know the standard library can still catch it.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["GoError", "IllegalMoveError", "IllegalReason"]


class IllegalReason(str, Enum):
    """Why a move was refused."""

    OFF_BOARD = "off-board"
    OCCUPIED = "occupied"
    SUICIDE = "suicide"
    KO = "ko"
    SUPERKO = "superko"
    GAME_OVER = "game over"


class GoError(Exception):
    """Root of every error raised by :mod:`go_env`."""


class IllegalMoveError(GoError, ValueError):
    """A move that the rules forbid.

    Attributes:
        move: The refused move as an action index (``N*N`` is pass).
        reason: The rule that forbids it.
    """

    def __init__(self, move: int, reason: IllegalReason, detail: str = "") -> None:
        self.move = move
        self.reason = reason
        text = f"illegal move {detail or move}: {reason.value}"
        super().__init__(text)
