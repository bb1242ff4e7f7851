"""One compiled call per move of a game that keeps its history: the environment's hot path.

:func:`advance` checks and plays a move, records the new position (board row and superko key),
writes the legal mask of the player to move next and scores the new position, so that a Python
caller crosses into compiled code once per move instead of five times.

numba's on-disk cache of :func:`advance` keys on this file only, not on the kernels it calls
(in ``board``, ``history`` and ``scoring``): after changing those, touch this file (or delete
``__pycache__``) so that a working tree with a warm cache does not keep running the old code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env._core.board import play
from go_env._core.history import fill_legal_mask, move_is_legal, record
from go_env._core.layout import H_MOVES, H_P, H_PASSES, H_TO_PLAY
from go_env._core.scoring import area

__all__ = [
    "BAD_MASK",
    "ILLEGAL",
    "RUNNING",
    "TERMINAL",
    "TRUNCATED",
    "advance",
    "rule_flags",
]

RUNNING = 0
"""Status of :func:`advance`: the move was played and the game goes on."""
TERMINAL = 1
"""Status of :func:`advance`: the move was played and two consecutive passes ended the game."""
TRUNCATED = 2
"""Status of :func:`advance`: the move was played and the move cap ended the game."""
ILLEGAL = -1
"""Status of :func:`advance`: the move is illegal; nothing was changed."""
BAD_MASK = -2
"""Status of :func:`advance`: the mask does not have ``P + 1`` entries; nothing was changed."""


def rule_flags(suicide: bool, superko: bool, situational: bool, move_limit: int) -> np.ndarray:
    """The rules as :func:`advance` takes them: ``int64 [suicide, superko, situational, cap]``.

    Args:
        suicide: Whether suicide is legal.
        superko: Whether positions are recorded in the superko table (positional or situational
            superko).
        situational: Whether the superko keys include the player to move.
        move_limit: The move cap.
    """
    flags = np.array([suicide, superko, situational, move_limit], dtype=np.int64)
    flags.setflags(write=False)
    return flags


@njit(cache=True)
def advance(s, nbr, zob, side, rules, move, boards, row, table, mask):  # pragma: no cover
    """Play ``move`` if legal, record the position in ``row``, fill ``mask``, score.

    Args:
        s: State vector (changed in place).
        nbr: Neighbour table.
        zob: Zobrist table.
        side: Player-to-move keys (situational superko).
        rules: :func:`rule_flags`.
        move: Any integer; ``P`` passes.
        boards: Board history; the new board goes to ``boards[row]``.
        row: Row of the new position.
        table: Superko key table.
        mask: ``P + 1`` entries (``bool`` or integer): the legal moves after ``move`` (see
            :func:`go_env._core.history.fill_legal_mask`).

    Returns:
        ``(colour of the mover, black area - white area, moves played, status)`` after the
        move; status is :data:`RUNNING`, :data:`TERMINAL` or :data:`TRUNCATED`, or
        :data:`ILLEGAL` or :data:`BAD_MASK` (then nothing changed, the other values are 0).
    """
    allow_suicide = rules[0] != 0
    use_table = rules[1] != 0
    situational = rules[2] != 0
    move_limit = rules[3]
    if mask.shape[0] != s[H_P] + 1:
        return 0, 0, 0, BAD_MASK
    if not move_is_legal(
        s, nbr, zob, side, move, allow_suicide, use_table, situational, move_limit, table
    ):
        return 0, 0, 0, ILLEGAL
    color = s[H_TO_PLAY]
    play(s, nbr, zob, move)
    record(s, side, use_table, situational, boards, row, table)
    fill_legal_mask(
        s, nbr, zob, side, allow_suicide, use_table, situational, move_limit, table, mask
    )
    black, white = area(s, nbr)
    moves = s[H_MOVES]
    if s[H_PASSES] >= 2:
        status = TERMINAL
    elif moves >= move_limit:
        status = TRUNCATED
    else:
        status = RUNNING
    return color, black - white, moves, status
