"""Tromp-Taylor area scoring in the compiled core.

A point scores for a colour if it holds a stone of that colour, or if it is empty and every
empty region it belongs to reaches stones of that colour only (John Tromp and Bill Taylor,
*The Tromp-Taylor rules of Go*, 1995).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env._core.layout import H_P, HEADER

__all__ = ["area", "area_owners"]


@njit(cache=True)
def _empty_region(s, nbr, p, seen, queue):  # pragma: no cover - compiled
    """Fill the empty region through point ``p`` (not yet ``seen``), breadth first.

    Marks its points in ``seen`` and leaves them in ``queue[:size]``; returns ``(size,
    reach)``, ``reach`` with bit 1 set when the region touches a black stone, bit 2 a white.
    """
    seen[p] = True
    queue[0] = p
    size = 1
    head = 0
    reach = 0
    while head < size:
        q = queue[head]
        head += 1
        for k in range(4):
            t = nbr[q, k]
            if t < 0:
                continue
            ct = s[HEADER + t]
            if ct == 0:
                if not seen[t]:
                    seen[t] = True
                    queue[size] = t
                    size += 1
            else:
                reach |= ct
    return size, reach


@njit(cache=True)
def area(s, nbr):  # pragma: no cover - compiled
    """Black's and White's area as a pair ``(black, white)`` of ints."""
    points = s[H_P]
    black = 0
    white = 0
    seen = np.zeros(points, dtype=np.bool_)
    queue = np.empty(points, dtype=np.int64)
    for p in range(points):
        c = s[HEADER + p]
        if c == 1:
            black += 1
        elif c == 2:
            white += 1
        elif not seen[p]:
            size, reach = _empty_region(s, nbr, p, seen, queue)
            if reach == 1:
                black += size
            elif reach == 2:
                white += size
    return black, white


@njit(cache=True)
def area_owners(s, nbr, owners):  # pragma: no cover - compiled
    """Fill ``owners`` (``int8 (P,)``) with each point's owner under :func:`area`'s count.

    1 for Black, -1 for White (a stone's point is its colour's; an empty region is the colour's
    whose stones alone it reaches), 0 for an empty region that reaches both colours or none.
    """
    points = s[H_P]
    seen = np.zeros(points, dtype=np.bool_)
    queue = np.empty(points, dtype=np.int64)
    for p in range(points):
        c = s[HEADER + p]
        if c != 0:
            owners[p] = 1 if c == 1 else -1
        elif not seen[p]:
            size, reach = _empty_region(s, nbr, p, seen, queue)
            owner = 1 if reach == 1 else -1 if reach == 2 else 0
            for i in range(size):
                owners[queue[i]] = owner
