"""Compiled bookkeeping of a game's past: position keys for superko and board snapshots.

Superko needs to know whether a candidate move recreates an earlier position. The keys of all
positions of the game live in an open-addressing hash table (an ``int64`` array whose length is
a power of two, 0 marking an empty slot), so a look-up is O(1) inside compiled code. Board
snapshots (for observation history planes) live in a preallocated ``int8 (rows, P)`` array.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env._core.board import LEGAL, R_SUPERKO, candidate_hash, check_local, play
from go_env._core.layout import H_HASH, H_MOVES, H_P, H_PASSES, H_TO_PLAY, HEADER

__all__ = [
    "KEY_ZERO",
    "commit",
    "fill_legal_mask",
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
    """Store the current position: its board in ``boards[row]`` and its key in ``table``."""
    points = s[H_P]
    for p in range(points):
        boards[row, p] = s[HEADER + p]
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
    """Write the legal actions of the player to move into ``out`` (bool, ``P + 1``).

    All entries are False once the game is over (two passes or the move cap); otherwise pass
    (the last entry) is always legal.
    """
    points = s[H_P]
    over = s[H_PASSES] >= 2 or s[H_MOVES] >= move_limit
    color = s[H_TO_PLAY]
    side_key = side[3 - color] if situational else 0
    for p in range(points):
        legal = False
        if not over and check_local(s, nbr, p, color, allow_suicide) == LEGAL:
            legal = True
            if use_table:
                key = candidate_hash(s, nbr, zob, p, color) ^ side_key
                legal = not table_contains(table, key)
        out[p] = legal
    out[points] = not over


@njit(cache=True)
def superko_code(s, nbr, zob, side, p, situational, table):  # pragma: no cover - compiled
    """``R_SUPERKO`` if the locally legal point ``p`` recreates a recorded position, else 0."""
    color = s[H_TO_PLAY]
    key = candidate_hash(s, nbr, zob, p, color)
    if situational:
        key ^= side[3 - color]
    return R_SUPERKO if table_contains(table, key) else LEGAL
