"""Playout ownership and area scoring with dead stones removed, in the compiled core.

Tromp-Taylor counts every stone on the board; players who pass with dead stones on the board
(people, GNU Go) expect them to be removed before the count. These kernels estimate which
stones are dead the way playout engines do (Monte-Carlo ownership, as in Fuego and Pachi):

* ownership: from the position, uniform random playouts (:func:`~go_env._core.playout.
  random_playout`, which never fills its own eyes) are played to the end; a point is *owned*
  by a colour in one playout when it holds that colour's stone, or is empty with at least one
  neighbour of that colour and none of the other. The mean over the playouts is +1 where
  Black always owns the point, -1 where White does.
* a chain is *dead* when the opponent owns its points more often than not (the sum of its
  stones' mean ownership has the opponent's sign). Random playouts cannot recognise seki:
  both sides' chains die in them about equally often.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env._core.board import HEAD
from go_env._core.layout import H_MOVES, H_P, H_PASSES, HEADER
from go_env._core.playout import random_playout
from go_env._core.scoring import area

__all__ = ["area_without_dead", "mark_dead", "ownership"]


@njit(cache=True)
def ownership(s, nbr, diag, zob, playouts, rng, work, out):  # pragma: no cover - compiled
    """Fill ``out`` (``float64 (P,)``) with the mean playout ownership of every point.

    Args:
        s: The position (unchanged; a finished game is played on as if not over).
        nbr: Neighbour table of the board size.
        diag: Diagonal table.
        zob: Zobrist table.
        playouts: Number of playouts (at least 1).
        rng: ``uint64 (1,)`` xorshift state (advanced).
        work: A scratch vector of the length of ``s``.
        out: Receives the ownership, in ``[-1, 1]``.
    """
    points = s[H_P]
    for p in range(points):
        out[p] = 0.0
    limit = s[H_MOVES] + 3 * points
    for _ in range(playouts):
        work[:] = s
        work[H_PASSES] = 0
        random_playout(work, nbr, diag, zob, limit, rng)
        for p in range(points):
            c = work[HEADER + p]
            if c == 1:
                out[p] += 1.0
            elif c == 2:
                out[p] -= 1.0
            else:
                reach = 0
                for k in range(4):
                    q = nbr[p, k]
                    if q >= 0:
                        reach |= work[HEADER + q]
                if reach == 1:
                    out[p] += 1.0
                elif reach == 2:
                    out[p] -= 1.0
    for p in range(points):
        out[p] /= playouts


@njit(cache=True)
def mark_dead(s, owned, dead):  # pragma: no cover - compiled
    """Set ``dead[p]`` (bool, ``(P,)``) for every stone of a chain the opponent owns.

    A chain is dead when the sum of ``owned`` over its stones has the opponent's sign (Black
    owns positive values). Returns the number of dead stones.
    """
    points = s[H_P]
    head0 = HEADER + HEAD * points
    total = np.zeros(points, dtype=np.float64)
    for p in range(points):
        if s[HEADER + p] != 0:
            total[s[head0 + p]] += owned[p]
    count = 0
    for p in range(points):
        c = s[HEADER + p]
        dead[p] = False
        if c != 0:
            t = total[s[head0 + p]]
            if (c == 1 and t < 0.0) or (c == 2 and t > 0.0):
                dead[p] = True
                count += 1
    return count


@njit(cache=True)
def area_without_dead(s, nbr, diag, zob, playouts, rng, work, owned):  # pragma: no cover
    """Tromp-Taylor ``(black, white)`` area after removing the stones judged dead.

    The dead stones are those of :func:`mark_dead` over :func:`ownership` from ``playouts``
    playouts. ``work`` (a vector of the length of ``s``) and ``owned`` (``float64 (P,)``) are
    scratch space; ``s`` is unchanged.
    """
    points = s[H_P]
    ownership(s, nbr, diag, zob, playouts, rng, work, owned)
    dead = np.empty(points, dtype=np.bool_)
    mark_dead(s, owned, dead)
    work[:] = s
    for p in range(points):
        if dead[p]:
            work[HEADER + p] = 0
    return area(work, nbr)
