"""One compiled call per move of a game that keeps its history: the environment's hot path.

:func:`advance` plays a move, records the new position (board row and superko key), writes the
legal mask of the player to move next and scores the new position, so that a Python caller
crosses into compiled code once per move instead of four times.
"""

from __future__ import annotations

from numba import njit

from go_env._core.board import play
from go_env._core.history import fill_legal_mask, record
from go_env._core.layout import H_MOVES, H_PASSES, H_TO_PLAY
from go_env._core.scoring import area

__all__ = ["RUNNING", "TERMINAL", "TRUNCATED", "advance"]

RUNNING = 0
"""Status of :func:`advance`: the game goes on."""
TERMINAL = 1
"""Status of :func:`advance`: two consecutive passes ended the game."""
TRUNCATED = 2
"""Status of :func:`advance`: the move cap ended the game."""


@njit(cache=True)
def advance(
    s,
    nbr,
    zob,
    side,
    move,
    allow_suicide,
    use_table,
    situational,
    move_limit,
    boards,
    row,
    table,
    mask,
):  # pragma: no cover - compiled
    """Play ``move`` unchecked, record the position in ``row``, fill ``mask``, score.

    Args:
        s: State vector (changed in place).
        nbr: Neighbour table.
        zob: Zobrist table.
        side: Player-to-move keys (situational superko).
        move: A legal move of the player to move (``P`` passes); not validated.
        allow_suicide: Whether suicide is legal.
        use_table: Whether positions are recorded in the superko table.
        situational: Whether the superko keys include the player to move.
        move_limit: The move cap.
        boards: Board history; the new board goes to ``boards[row]``.
        row: Row of the new position.
        table: Superko key table.
        mask: ``bool (P + 1,)`` output: the legal moves after ``move`` (see
            :func:`go_env._core.history.fill_legal_mask`).

    Returns:
        ``(colour of the mover, black area - white area, moves played, status)`` after the
        move; status is :data:`RUNNING`, :data:`TERMINAL` or :data:`TRUNCATED`.
    """
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
