"""The rules of a game: a frozen, per-instance value (never a module global)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from go_env.validation import check_int

__all__ = ["MAX_MOVES", "MAX_SIZE", "MIN_SIZE", "KoRule", "Rules"]

MIN_SIZE = 2
MAX_SIZE = 25
#: The largest move cap: the engine counts moves in 64-bit integers.
MAX_MOVES = 2**63 - 1


class KoRule(str, Enum):
    """Which repetitions are forbidden.

    ``SIMPLE`` forbids only the immediate recapture of a single stone. ``POSITIONAL`` (positional
    superko, the default) forbids any move that recreates an earlier board position.
    ``SITUATIONAL`` forbids recreating an earlier position with the same player to move.
    """

    SIMPLE = "simple"
    POSITIONAL = "positional"
    SITUATIONAL = "situational"


@dataclass(frozen=True, kw_only=True)
class Rules:
    """Rules of one game of Go, scored by area (Tromp-Taylor).

    Args:
        size: Board size N (the board has N x N points), 2 to 25.
        komi: Points given to White. An integer komi allows a draw, and a draw is a draw.
        ko: The repetition rule, positional superko by default.
        suicide: Whether a move that leaves its own chain without liberties is allowed (the
            chain is then removed). Illegal by default.
        max_moves: Moves (passes included) after which the game ends as a truncation;
            ``None`` means ``2 * N * N``.
        handicap: Fixed handicap stones for Black (0, or 2 up to the number of star points of
            the size); White moves first when it is non-zero.

    Raises:
        ValueError: When a value is out of range; the message names the argument.
    """

    size: int = 9
    komi: float = 7.5
    ko: KoRule = KoRule.POSITIONAL
    suicide: bool = False
    max_moves: int | None = None
    handicap: int = 0

    def __post_init__(self) -> None:
        check_int("size", self.size, allowed=f"an int from {MIN_SIZE} to {MAX_SIZE}")
        if not MIN_SIZE <= self.size <= MAX_SIZE:
            raise ValueError(f"size must be from {MIN_SIZE} to {MAX_SIZE}, got {self.size}")
        if isinstance(self.komi, bool) or not isinstance(self.komi, (int, float)):
            raise ValueError(f"komi must be a number, got {self.komi!r}")
        if isinstance(self.komi, int) and abs(self.komi) > 2**53:
            # math.isfinite(10**400) raises OverflowError; a komi past 2**53 is no float either.
            raise ValueError(
                f"komi must be a finite number of magnitude at most 2**53, got an int of "
                f"{self.komi.bit_length()} bits"
            )
        if not math.isfinite(self.komi):
            raise ValueError(f"komi must be finite, got {self.komi}")
        try:
            object.__setattr__(self, "ko", KoRule(self.ko))
        except ValueError:
            allowed = ", ".join(k.value for k in KoRule)
            raise ValueError(f"ko must be one of {allowed}; got {self.ko!r}") from None
        if not isinstance(self.suicide, bool):
            raise ValueError(f"suicide must be True or False, got {self.suicide!r}")
        if self.max_moves is not None and (
            isinstance(self.max_moves, bool)
            or not isinstance(self.max_moves, int)
            or not 1 <= self.max_moves <= MAX_MOVES
        ):
            raise ValueError(
                "max_moves must be a positive int or None; at most 2**63 - 1 (the engine counts "
                f"moves in 64 bits), got {self.max_moves!r}"
            )
        from go_env.handicap import max_handicap  # local: handicap imports coords only

        top = max_handicap(self.size)
        if (
            isinstance(self.handicap, bool)
            or not isinstance(self.handicap, int)
            or self.handicap == 1
            or not 0 <= self.handicap <= top
        ):
            allowed = f"0 or 2..{top}" if top >= 2 else "0 (this size has no handicap points)"
            raise ValueError(
                f"handicap must be {allowed} on {self.size}x{self.size}, got {self.handicap!r}"
            )

    @property
    def move_limit(self) -> int:
        """The move cap in force: ``max_moves`` or ``2 * N * N``."""
        return self.max_moves if self.max_moves is not None else 2 * self.size * self.size
