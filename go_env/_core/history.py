"""Compiled bookkeeping of a game's past: position keys for superko and board snapshots.

Superko needs to know whether a candidate move recreates an earlier position. The keys of all
positions of the game live in an open-addressing hash table (an ``int64`` array whose length is
a power of two, 0 marking an empty slot), so a look-up is O(1) inside compiled code. Board
snapshots (for observation history planes) live in a preallocated ``int8 (rows, P)`` array.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env._core.board import (
    COLOR,
    EMPTY,
    HEAD,
    LEGAL,
    LSQ,
    LSUM,
    PLIB,
    R_SUPERKO,
    candidate_hash,
    check_local,
    play,
)
from go_env._core.layout import (
    H_HASH,
    H_KO,
    H_MOVES,
    H_NEMPTY,
    H_P,
    H_PASSES,
    H_PEAK,
    H_TO_PLAY,
    HEADER,
)

__all__ = [
    "KEY_ZERO",
    "commit",
    "fill_legal_mask",
    "move_is_legal",
    "new_table",
    "record",
    "table_contains",
    "table_insert",
]

KEY_ZERO = 0x5851F42D4C957F2D
"""Stand-in for a key equal to 0, which marks empty slots."""

_MIX = np.uint64(0x9E3779B97F4A7C15)


def new_table(positions: int) -> np.ndarray:
    """An empty key table with room for ``positions`` keys at a load factor of at most 1/2."""
    size = 16
    while size < 2 * positions:
        size *= 2
    return np.zeros(size, dtype=np.int64)


@njit(cache=True, inline="always")
def _slot(table, key):  # pragma: no cover - compiled
    mask = table.shape[0] - 1
    return np.int64((np.uint64(key) * _MIX) >> np.uint64(40)) & mask


@njit(cache=True)
def table_contains(table, key):  # pragma: no cover - compiled
    """Whether ``key`` is in the table."""
    if key == 0:
        key = KEY_ZERO
    mask = table.shape[0] - 1
    i = _slot(table, key)
    while table[i] != 0:
        if table[i] == key:
            return True
        i = (i + 1) & mask
    return False


@njit(cache=True)
def table_insert(table, key):  # pragma: no cover - compiled
    """Add ``key`` (no-op if present). The caller keeps the load factor below one half."""
    if key == 0:
        key = KEY_ZERO
    mask = table.shape[0] - 1
    i = _slot(table, key)
    while table[i] != 0:
        if table[i] == key:
            return
        i = (i + 1) & mask
    table[i] = key


@njit(cache=True)
def record(s, side, use_table, situational, boards, row, table):  # pragma: no cover - compiled
    """Store the current position: its board in ``boards[row]`` and its key in ``table``.

    Also raises ``s[H_PEAK]`` to the number of stones on the board if that is a new high: no
    recorded position has more stones than ``s[H_PEAK]`` (:func:`fill_legal_mask` relies on it;
    whoever clears ``table`` resets it to 0).
    """
    points = s[H_P]
    colors = s[HEADER : HEADER + points]
    board = boards[row]
    for p in range(points):
        board[p] = colors[p]
    stones = points - s[H_NEMPTY]
    if stones > s[H_PEAK]:
        s[H_PEAK] = stones
    if use_table:
        key = s[H_HASH]
        if situational:
            key ^= side[s[H_TO_PLAY]]
        table_insert(table, key)


@njit(cache=True)
def commit(s, nbr, zob, side, move, use_table, situational, boards, row, table):  # pragma: no cover
    """Play ``move`` without validation, then :func:`record` the new position in ``row``."""
    play(s, nbr, zob, move)
    record(s, side, use_table, situational, boards, row, table)


@njit(cache=True)
def fill_legal_mask(
    s, nbr, zob, side, allow_suicide, use_table, situational, move_limit, table, out
):  # pragma: no cover - compiled
    """Write the legal actions of the player to move into ``out`` (``P + 1`` entries).

    ``out`` may be ``bool`` or an integer type (1 legal, 0 not). All entries are False once the
    game is over (two passes or the move cap); otherwise pass (the last entry) is always legal.
    Only the empty points are examined (through the list of empty points of the state vector),
    with the tests of :func:`~go_env._core.board.check_local` inlined. A move that captures
    nothing and keeps a liberty leaves one stone more on the board; when that is more stones
    than any recorded position held (``s[H_PEAK]``, kept by :func:`record`), it cannot repeat
    one, and the superko table is not consulted.
    """
    points = s[H_P]
    over = s[H_PASSES] >= 2 or s[H_MOVES] >= move_limit
    for p in range(points):
        out[p] = False
    out[points] = not over
    if over:
        return
    color = s[H_TO_PLAY]
    ko = s[H_KO]
    side_key = side[3 - color] if situational else 0
    n_empty = s[H_NEMPTY]
    new_high = points - n_empty + 1 > s[H_PEAK]
    # Segments as views, indexed by uintp: numba then skips its negative-index wraparound.
    colors = s[HEADER + COLOR * points : HEADER + (COLOR + 1) * points]
    heads = s[HEADER + HEAD * points : HEADER + (HEAD + 1) * points]
    plib = s[HEADER + PLIB * points : HEADER + (PLIB + 1) * points]
    lsum = s[HEADER + LSUM * points : HEADER + (LSUM + 1) * points]
    lsq = s[HEADER + LSQ * points : HEADER + (LSQ + 1) * points]
    empties = s[HEADER + EMPTY * points : HEADER + EMPTY * points + n_empty]
    for i in range(n_empty):
        p = empties[i]
        if p == ko:
            continue
        liberty = False
        captures = False
        for k in range(4):
            q = nbr[np.uintp(p), k]
            if q < 0:
                continue
            c = colors[np.uintp(q)]
            if c == 0:
                liberty = True
                continue
            h = np.uintp(heads[np.uintp(q)])
            libs = plib[h]
            if libs > 0 and libs * lsq[h] == lsum[h] ** 2:  # in atari (see board.in_atari)
                if c != color:
                    captures = True
            elif c == color:
                liberty = True
        if not (liberty or captures or allow_suicide):
            continue  # suicide
        if use_table and not (liberty and not captures and new_high):
            key = candidate_hash(s, nbr, zob, p, color) ^ side_key
            out[p] = not table_contains(table, key)
        else:
            out[p] = True


@njit(cache=True)
def move_is_legal(
    s, nbr, zob, side, move, allow_suicide, use_table, situational, move_limit, table
):  # pragma: no cover - compiled
    """Whether the player to move may play ``move`` (any integer; ``P`` passes).

    The checks of :meth:`go_env.state.GoState.illegal_reason` (:func:`check_local`, then
    :func:`superko_code`), compiled; they agree with :func:`fill_legal_mask`.
    """
    points = s[H_P]
    if move < 0 or move > points or s[H_PASSES] >= 2 or s[H_MOVES] >= move_limit:
        return False
    if move == points:
        return True
    if check_local(s, nbr, move, s[H_TO_PLAY], allow_suicide) != LEGAL:
        return False
    return not use_table or superko_code(s, nbr, zob, side, move, situational, table) == LEGAL


@njit(cache=True)
def superko_code(s, nbr, zob, side, p, situational, table):  # pragma: no cover - compiled
    """``R_SUPERKO`` if the locally legal point ``p`` recreates a recorded position, else 0."""
    color = s[H_TO_PLAY]
    key = candidate_hash(s, nbr, zob, p, color)
    if situational:
        key ^= side[3 - color]
    return R_SUPERKO if table_contains(table, key) else LEGAL
