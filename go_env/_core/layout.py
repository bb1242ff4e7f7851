"""Memory layout of a board in the compiled core, and the per-size geometry tables.

A whole position lives in one flat ``int64`` vector so that cloning is one ``memcpy`` and a
compiled kernel receives it as a single argument. The vector holds a header of scalars followed
by nine segments of ``P = N*N`` entries each:

======== =========================================================================
segment  content (indexed by point ``p``)
======== =========================================================================
COLOR    0 empty, 1 black, 2 white
HEAD     representative point of the chain that holds ``p``
NEXT     next stone of the same chain (a circular list)
SIZE     stones in the chain (valid at the head)
PLIB     pseudo-liberties of the chain: (stone, empty neighbour) pairs (at the head)
LSUM     sum of the points of those pseudo-liberties (at the head)
LSQ      sum of their squares (at the head); the chain is in atari iff
         ``PLIB * LSQ == LSUM**2`` (all pseudo-liberties are one point)
EMPTY    the empty points, the first ``n_empty`` entries valid, in no order
EPOS     position of ``p`` in EMPTY, or -1
======== =========================================================================

The pseudo-liberty bookkeeping with sum and sum of squares is the classic incremental scheme
used by fast playout engines; it detects atari exactly without keeping liberty sets.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

__all__ = [
    "HEADER",
    "H_CAPT_B",
    "H_CAPT_W",
    "H_HASH",
    "H_KO",
    "H_LAST",
    "H_MOVES",
    "H_NEMPTY",
    "H_P",
    "H_PASSES",
    "H_PEAK",
    "H_SIZE",
    "H_TO_PLAY",
    "Geometry",
    "geometry",
]

# Header slots.
H_SIZE = 0  # N
H_P = 1  # N*N
H_TO_PLAY = 2  # 1 black, 2 white
H_KO = 3  # simple-ko point forbidden to the player to move, or -1
H_PASSES = 4  # consecutive passes
H_MOVES = 5  # moves played, passes included
H_HASH = 6  # Zobrist hash of the stones
H_CAPT_B = 7  # prisoners taken by black
H_CAPT_W = 8  # prisoners taken by white
H_NEMPTY = 9  # number of empty points
H_LAST = 10  # last move, or -1
H_PEAK = 11  # most stones in a position recorded for superko so far (see _core.history.record)
HEADER = 16

N_SEGMENTS = 9
_ZOBRIST_SEED = 0x60D0_2026


class Geometry(NamedTuple):
    """Constant tables of one board size.

    Attributes:
        size: N.
        nbr: ``int64 (P, 4)`` orthogonal neighbours of each point, -1 where off the board.
        diag: ``int64 (P, 4)`` diagonal neighbours, -1 where off the board.
        zobrist: ``int64 (P, 3)`` random keys; column 1 for black, 2 for white stones.
        side: ``int64 (3,)`` keys for the player to move (situational superko); 1 black, 2 white.
    """

    size: int
    nbr: np.ndarray
    diag: np.ndarray
    zobrist: np.ndarray
    side: np.ndarray


@cache
def geometry(size: int) -> Geometry:
    """The (cached, read-only) geometry tables of an N x N board."""
    points = size * size
    nbr = np.full((points, 4), -1, dtype=np.int64)
    diag = np.full((points, 4), -1, dtype=np.int64)
    for p in range(points):
        r, c = divmod(p, size)
        for k, (dr, dc) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
            if 0 <= r + dr < size and 0 <= c + dc < size:
                nbr[p, k] = (r + dr) * size + (c + dc)
        for k, (dr, dc) in enumerate(((-1, -1), (-1, 1), (1, -1), (1, 1))):
            if 0 <= r + dr < size and 0 <= c + dc < size:
                diag[p, k] = (r + dr) * size + (c + dc)
    rng = np.random.default_rng([_ZOBRIST_SEED, size])
    zobrist = rng.integers(
        np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=(points, 3), dtype=np.int64
    )
    zobrist[:, 0] = 0
    side = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=3, dtype=np.int64)
    side[0] = 0
    for table in (nbr, diag, zobrist, side):
        table.setflags(write=False)
    return Geometry(size, nbr, diag, zobrist, side)
