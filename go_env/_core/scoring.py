"""Tromp-Taylor area scoring in the compiled core.

A point scores for a colour if it holds a stone of that colour, or if it is empty and every
empty region it belongs to reaches stones of that colour only (John Tromp and Bill Taylor,
*The Tromp-Taylor rules of Go*, 1995).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env._core.layout import H_P, HEADER

__all__ = ["area"]


@njit(cache=True)
def area(s, nbr):  # pragma: no cover - compiled
    """Black's and White's area as a pair ``(black, white)`` of ints."""
    points = s[H_P]
    black = 0
    white = 0
    seen = np.zeros(points, dtype=np.bool_)
    stack = np.empty(points, dtype=np.int64)
    for p in range(points):
        c = s[HEADER + p]
        if c == 1:
            black += 1
        elif c == 2:
            white += 1
        elif not seen[p]:
            size = 0
            reach = 0  # bit 1: reaches black, bit 2: reaches white
            top = 0
            stack[top] = p
            top += 1
            seen[p] = True
            while top > 0:
                top -= 1
                q = stack[top]
                size += 1
                for k in range(4):
                    t = nbr[q, k]
                    if t < 0:
                        continue
                    ct = s[HEADER + t]
                    if ct == 0:
                        if not seen[t]:
                            seen[t] = True
                            stack[top] = t
                            top += 1
                    else:
                        reach |= ct
            if reach == 1:
                black += size
            elif reach == 2:
                white += size
    return black, white
