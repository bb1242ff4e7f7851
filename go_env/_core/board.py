"""Compiled board kernels: placing stones, captures, legality, hashing.

All kernels take the state vector ``s`` described in :mod:`go_env._core.layout` plus the
constant tables of :class:`~go_env._core.layout.Geometry`. Colours are 1 (black) and 2 (white);
moves are point indices ``0..P-1`` and ``P`` for pass.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env._core.layout import (
    H_CAPT_B,
    H_CAPT_W,
    H_HASH,
    H_KO,
    H_LAST,
    H_MOVES,
    H_NEMPTY,
    H_P,
    H_PASSES,
    H_SIZE,
    H_TO_PLAY,
    HEADER,
    N_SEGMENTS,
)

__all__ = [
    "LEGAL",
    "R_KO",
    "R_OCCUPIED",
    "R_SUICIDE",
    "R_SUPERKO",
    "atari_liberty",
    "candidate_hash",
    "check_local",
    "fills_nakade",
    "in_atari",
    "is_self_atari",
    "liberties_after",
    "liberty_count",
    "new_state",
    "place",
    "play",
]

LEGAL = 0
R_OCCUPIED = 1
R_SUICIDE = 2
R_KO = 3
R_SUPERKO = 4

# Segment indices; the offset of segment k is HEADER + k * P.
COLOR, HEAD, NEXT, SIZE, PLIB, LSUM, LSQ, EMPTY, EPOS = 0, 1, 2, 3, 4, 5, 6, 7, 8


@njit(cache=True)
def new_state(size):  # pragma: no cover - compiled
    """An empty N x N board with Black to play."""
    points = size * size
    s = np.zeros(HEADER + N_SEGMENTS * points, dtype=np.int64)
    s[H_SIZE] = size
    s[H_P] = points
    s[H_TO_PLAY] = 1
    s[H_KO] = -1
    s[H_LAST] = -1
    s[H_NEMPTY] = points
    for p in range(points):
        s[HEADER + EMPTY * points + p] = p
        s[HEADER + EPOS * points + p] = p
        s[HEADER + HEAD * points + p] = p
        s[HEADER + NEXT * points + p] = p
    return s


@njit(cache=True, inline="always")
def _at(s, segment, p):  # pragma: no cover - compiled
    return HEADER + segment * s[H_P] + p


@njit(cache=True, inline="always")
def in_atari(s, h):  # pragma: no cover - compiled
    """Whether the chain with head ``h`` has exactly one liberty."""
    plib = s[_at(s, PLIB, h)]
    return plib > 0 and plib * s[_at(s, LSQ, h)] == s[_at(s, LSUM, h)] ** 2


@njit(cache=True, inline="always")
def atari_liberty(s, h):  # pragma: no cover - compiled
    """The one liberty of the chain with head ``h``, which must be in atari (:func:`in_atari`)."""
    return s[_at(s, LSUM, h)] // s[_at(s, PLIB, h)]


@njit(cache=True, inline="always")
def _add_lib(s, h, q):  # pragma: no cover - compiled
    s[_at(s, PLIB, h)] += 1
    s[_at(s, LSUM, h)] += q
    s[_at(s, LSQ, h)] += q * q


@njit(cache=True, inline="always")
def _remove_lib(s, h, q):  # pragma: no cover - compiled
    s[_at(s, PLIB, h)] -= 1
    s[_at(s, LSUM, h)] -= q
    s[_at(s, LSQ, h)] -= q * q


@njit(cache=True, inline="always")
def _take_empty(s, p):  # pragma: no cover - compiled
    n = s[H_NEMPTY] - 1
    idx = s[_at(s, EPOS, p)]
    last = s[_at(s, EMPTY, n)]
    s[_at(s, EMPTY, idx)] = last
    s[_at(s, EPOS, last)] = idx
    s[_at(s, EPOS, p)] = -1
    s[H_NEMPTY] = n


@njit(cache=True, inline="always")
def _give_empty(s, p):  # pragma: no cover - compiled
    n = s[H_NEMPTY]
    s[_at(s, EMPTY, n)] = p
    s[_at(s, EPOS, p)] = n
    s[H_NEMPTY] = n + 1


@njit(cache=True)
def _merge(s, a, b):  # pragma: no cover - compiled
    """Merge the chains with heads ``a`` and ``b``; return the surviving head."""
    if s[_at(s, SIZE, a)] < s[_at(s, SIZE, b)]:
        a, b = b, a
    q = b
    while True:  # relabel the smaller chain
        s[_at(s, HEAD, q)] = a
        q = s[_at(s, NEXT, q)]
        if q == b:
            break
    na, nb = s[_at(s, NEXT, a)], s[_at(s, NEXT, b)]
    s[_at(s, NEXT, a)] = nb
    s[_at(s, NEXT, b)] = na
    for seg in (SIZE, PLIB, LSUM, LSQ):
        s[_at(s, seg, a)] += s[_at(s, seg, b)]
    return a


@njit(cache=True)
def _remove_chain(s, nbr, zob, h):  # pragma: no cover - compiled
    """Remove the chain with head ``h`` from the board; return the number of stones."""
    color = s[_at(s, COLOR, h)]
    count = 0
    q = h
    while True:  # first empty every stone, so that neighbours are other chains only
        s[_at(s, COLOR, q)] = 0
        s[H_HASH] ^= zob[q, color]
        _give_empty(s, q)
        count += 1
        q = s[_at(s, NEXT, q)]
        if q == h:
            break
    while True:  # then give each neighbouring chain its new pseudo-liberties
        nxt = s[_at(s, NEXT, q)]
        for k in range(4):
            t = nbr[q, k]
            if t >= 0 and s[_at(s, COLOR, t)] != 0:
                _add_lib(s, s[_at(s, HEAD, t)], q)
        s[_at(s, HEAD, q)] = q
        s[_at(s, NEXT, q)] = q
        s[_at(s, SIZE, q)] = 0
        s[_at(s, PLIB, q)] = 0
        s[_at(s, LSUM, q)] = 0
        s[_at(s, LSQ, q)] = 0
        q = nxt
        if q == h:
            break
    return count


@njit(cache=True)
def place(s, nbr, zob, p, color):  # pragma: no cover - compiled
    """Put a stone of ``color`` on the empty point ``p`` and resolve captures.

    A chain of the mover left without liberties (suicide, when the caller allows it) is removed.
    Does not change the player to move, the ko point or the move counters.

    Returns:
        The point of the single stone captured (a possible ko), -1 when no stone or more than
        one stone was captured, or -2 when the move was a suicide.
    """
    opp = 3 - color
    _take_empty(s, p)
    s[_at(s, COLOR, p)] = color
    s[_at(s, HEAD, p)] = p
    s[_at(s, NEXT, p)] = p
    s[_at(s, SIZE, p)] = 1
    s[_at(s, PLIB, p)] = 0
    s[_at(s, LSUM, p)] = 0
    s[_at(s, LSQ, p)] = 0
    s[H_HASH] ^= zob[p, color]
    for k in range(4):
        q = nbr[p, k]
        if q < 0:
            continue
        if s[_at(s, COLOR, q)] == 0:
            _add_lib(s, p, q)
        else:
            _remove_lib(s, s[_at(s, HEAD, q)], p)
    h = p
    for k in range(4):
        q = nbr[p, k]
        if q >= 0 and s[_at(s, COLOR, q)] == color and s[_at(s, HEAD, q)] != h:
            h = _merge(s, h, s[_at(s, HEAD, q)])
    captured = 0
    last_captured = -1
    for k in range(4):
        q = nbr[p, k]
        if q >= 0 and s[_at(s, COLOR, q)] == opp and s[_at(s, PLIB, s[_at(s, HEAD, q)])] == 0:
            captured += _remove_chain(s, nbr, zob, s[_at(s, HEAD, q)])
            last_captured = q
    if color == 1:
        s[H_CAPT_B] += captured
    else:
        s[H_CAPT_W] += captured
    if s[_at(s, PLIB, h)] == 0:  # suicide
        lost = _remove_chain(s, nbr, zob, h)
        if color == 1:
            s[H_CAPT_W] += lost
        else:
            s[H_CAPT_B] += lost
        return -2
    if captured == 1 and s[_at(s, SIZE, h)] == 1 and s[_at(s, PLIB, h)] == 1:
        return last_captured
    return -1


@njit(cache=True)
def play(s, nbr, zob, move):  # pragma: no cover - compiled
    """Play ``move`` (a point or ``P`` for pass) for the player to move, without validation."""
    color = s[H_TO_PLAY]
    if move == s[H_P]:
        s[H_PASSES] += 1
        s[H_KO] = -1
    else:
        ko = place(s, nbr, zob, move, color)
        s[H_PASSES] = 0
        s[H_KO] = ko if ko >= 0 else -1
    s[H_LAST] = move
    s[H_MOVES] += 1
    s[H_TO_PLAY] = 3 - color


@njit(cache=True)
def check_local(s, nbr, p, color, allow_suicide):  # pragma: no cover - compiled
    """Legality of ``color`` playing the point ``p``, ignoring superko.

    Returns:
        ``LEGAL``, ``R_OCCUPIED``, ``R_KO`` (simple ko) or ``R_SUICIDE``.
    """
    if s[_at(s, COLOR, p)] != 0:
        return R_OCCUPIED
    if p == s[H_KO] and color == s[H_TO_PLAY]:
        return R_KO
    for k in range(4):
        q = nbr[p, k]
        if q < 0:
            continue
        c = s[_at(s, COLOR, q)]
        if c == 0:
            return LEGAL
        atari = in_atari(s, s[_at(s, HEAD, q)])
        if (c == color and not atari) or (c != color and atari):
            return LEGAL  # connects to a chain with another liberty, or captures
    return LEGAL if allow_suicide else R_SUICIDE


@njit(cache=True)
def candidate_hash(s, nbr, zob, p, color):  # pragma: no cover - compiled
    """Zobrist hash of the stones after ``color`` plays the locally legal point ``p``."""
    h = s[H_HASH] ^ zob[p, color]
    seen0 = -1  # heads of the neighbouring chains already counted (at most four)
    seen1 = -1
    seen2 = -1
    captures = False
    liberty = False
    for k in range(4):
        q = nbr[p, k]
        if q < 0:
            continue
        c = s[_at(s, COLOR, q)]
        if c == 0:
            liberty = True
            continue
        g = s[_at(s, HEAD, q)]
        if c != color and in_atari(s, g):
            if g != seen0 and g != seen1 and g != seen2:
                h ^= _chain_hash(s, zob, g)
                captures = True
                seen2 = seen1
                seen1 = seen0
                seen0 = g
        elif c == color and not in_atari(s, g):
            liberty = True
    if not captures and not liberty:  # suicide: the merged chain (with p) disappears
        h ^= zob[p, color]
        for k in range(4):
            q = nbr[p, k]
            if q >= 0 and s[_at(s, COLOR, q)] == color:
                g = s[_at(s, HEAD, q)]
                if g != seen0 and g != seen1 and g != seen2:
                    h ^= _chain_hash(s, zob, g)
                    seen2 = seen1
                    seen1 = seen0
                    seen0 = g
    return h


@njit(cache=True)
def _chain_hash(s, zob, h):  # pragma: no cover - compiled
    color = s[_at(s, COLOR, h)]
    out = 0
    q = h
    while True:
        out ^= zob[q, color]
        q = s[_at(s, NEXT, q)]
        if q == h:
            return out


@njit(cache=True)
def liberty_count(s, nbr, p):  # pragma: no cover - compiled
    """Exact number of distinct liberties of the chain through the stone at ``p``."""
    points = s[H_P]
    mark = np.zeros(points, dtype=np.bool_)
    count = 0
    q = p
    while True:
        for k in range(4):
            t = nbr[q, k]
            if t >= 0 and s[_at(s, COLOR, t)] == 0 and not mark[t]:
                mark[t] = True
                count += 1
        q = s[_at(s, NEXT, q)]
        if q == p:
            return count


@njit(cache=True)
def liberties_after(s, nbr, p, color, cap=2):  # pragma: no cover - compiled
    """Distinct liberties, counted up to ``cap``, of the chain ``color`` would make at ``p``.

    ``cap`` is 2 (is the move a self-atari?) or 3 (does it gain a liberty over two?). A move
    that captures counts ``cap`` (the captured stones leave liberties). ``p`` must be empty.
    """
    if cap < 2 or cap > 3:
        raise ValueError("liberties_after counts up to cap = 2 or 3")
    first = -1
    second = -1
    count = 0
    for k in range(4):
        q = nbr[p, k]
        if q < 0:
            continue
        c = s[_at(s, COLOR, q)]
        if c == 0:
            if count == 0:
                first = q
            else:
                second = q
            count += 1
            if count == cap:
                return cap
        elif c != color and in_atari(s, s[_at(s, HEAD, q)]):
            return cap
    for k in range(4):
        q = nbr[p, k]
        if q < 0 or s[_at(s, COLOR, q)] != color:
            continue
        h = s[_at(s, HEAD, q)]
        stone = h
        while True:
            for j in range(4):
                t = nbr[stone, j]
                if t >= 0 and t != p and t != first and t != second and s[_at(s, COLOR, t)] == 0:
                    if count == 0:
                        first = t
                    else:
                        second = t
                    count += 1
                    if count == cap:
                        return cap
            stone = s[_at(s, NEXT, stone)]
            if stone == h:
                break
    return count


@njit(cache=True)
def is_self_atari(s, nbr, p, color):  # pragma: no cover - compiled
    """Whether ``color`` at the empty ``p`` leaves 2+ stones in atari, capturing nothing."""
    joins = False
    for k in range(4):
        q = nbr[p, k]
        if q >= 0 and s[_at(s, COLOR, q)] == color:
            joins = True
            break
    if not joins:
        return False  # a single stone: a throw-in is allowed
    return liberties_after(s, nbr, p, color) == 1


_NAKADE_MAX = 5  # the most stones of a killing fill: a plus of five, the largest shape known


@njit(cache=True)
def fills_nakade(s, nbr, p, color):  # pragma: no cover - compiled
    """Whether ``color``'s self-atari at ``p`` fills an enclosed eye space into a killing shape.

    Call it only for a move :func:`is_self_atari` calls one. The chain the move makes, with its
    one liberty ``L``, must fill a space enclosed by the opponent alone (every neighbour of
    ``L`` is the chain, the opponent or the edge), and the points its capture leaves empty
    must be a shape the player kills by playing one point (nakade): two, three, a pyramid of
    four or a plus of five, each with a point next to all the others, or the square of four,
    dead as it stands. Bulky fives and sixes are not recognised: those fills stay rejected.
    """
    opponent = 3 - color
    chain = np.empty(_NAKADE_MAX, dtype=np.int64)
    chain[0] = p
    n = 1
    for k in range(4):
        q = nbr[p, k]
        if q < 0 or s[_at(s, COLOR, q)] != color:
            continue
        h = s[_at(s, HEAD, q)]
        seen = False
        for i in range(1, n):  # chain[0] is the empty p
            if s[_at(s, HEAD, chain[i])] == h:
                seen = True
                break
        if seen:
            continue
        stone = h
        while True:
            if n == _NAKADE_MAX:
                return False
            chain[n] = stone
            n += 1
            stone = s[_at(s, NEXT, stone)]
            if stone == h:
                break
    liberty = -1
    for i in range(n):
        for k in range(4):
            t = nbr[chain[i], k]
            if t >= 0 and t != p and s[_at(s, COLOR, t)] == 0:
                liberty = t
    if liberty < 0:
        return False
    for k in range(4):
        t = nbr[liberty, k]
        if t < 0 or s[_at(s, COLOR, t)] == opponent:
            continue
        inside = False
        for i in range(n):
            if chain[i] == t:
                inside = True
        if not inside:
            return False  # the space opens onto an empty point or another chain of the player
    square = n == 4
    for i in range(n):
        inner = 0
        for k in range(4):
            t = nbr[chain[i], k]
            for j in range(n):
                if t >= 0 and chain[j] == t:
                    inner += 1
        if inner == n - 1:
            return True
        if inner != 2:
            square = False
    return square
