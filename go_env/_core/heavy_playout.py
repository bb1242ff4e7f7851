"""Compiled "heavy" playouts: the light playout with the tactics of the last move.

The light playout (:mod:`go_env._core.playout`) is uniform over the legal points that do not
fill one's own eye. It misjudges life and death in two classic ways: a group in atari is left
to die, or saved, by chance; and a player fills the last liberties of its own large groups
(self-atari), so that living groups and sekis die in the playout. The heavy policy corrects
both, after Sylvain Gelly, Yizao Wang, Remi Munos and Olivier Teytaud, *Modification of UCT
with patterns in Monte-Carlo Go* (INRIA RR-6062, 2006, section 3.2: replies to the last move
first), and the self-atari rule of playout engines since (Pachi, Fuego):

1. **The last move's tactics.** Look at the chain of the opponent's last stone and the chains
   next to it. Candidates: the liberty of every opponent chain in atari there (a capture); for
   every chain of the player's own in atari there, its liberty if playing it leaves at least
   two liberties (an escape), and the liberty of every opponent chain in atari next to it (a
   capture that saves it). A legal candidate that does not fill one's own eye is drawn
   uniformly.
2. **Otherwise a uniform move**, as in the light playout, that is also not a self-atari: a
   move that leaves its chain of two or more stones with one liberty and captures nothing. A
   single stone may still be thrown in. A player with no such move passes, which keeps a seki
   alive.
3. **Nakade** (optional, ``nakade``; the ``nakade`` policy of the evaluators). Rule 2 keeps a
   player from filling the opponent's eye space to kill: the last fill is a self-atari of two
   or more stones. With this rule such a self-atari is allowed when it fills a space enclosed
   by the opponent alone and its capture leaves a shape the player kills with one move (two
   or three points, a pyramid of four, a plus of five) or the dead square of four
   (:func:`go_env._core.board.fills_nakade`), as the self-atari check of Pachi's playouts
   lets nakade through (Petr Baudis, *MCTS with Information Sharing*, master thesis, Charles
   University in Prague, 2011).

4. **Patterns and captures** (optional, ``patterns``; the ``patterns`` policy of the
   evaluators), between rules 1 and 2, in the order of Gelly et al. (2006, section 3.2). First
   the empty points next to the last move (its eight neighbours) whose 3x3 neighbourhood is one
   of MoGo's hane, cut or edge shapes (:mod:`go_env._core.patterns`) and which leave the
   stone played at least two liberties; then, where none is, the capture of any opponent chain
   in atari on the board. Each is drawn uniformly among its legal candidates that fill no own
   eye.

5. **Low liberties** (optional, ``lowlib``; with rule 4, the ``lowlib`` policy of the
   evaluators), between rules 1 and 4, after the low-liberty rule of Fuego's playouts (Markus
   Enzenberger, Martin Mueller, Broderick Arneson and Richard Segal, *Fuego: an open-source
   framework for board games and Go engine based on Monte Carlo tree search*, IEEE TCIAIG
   2(4), 2010). Among the same chains as rule 1, a chain of the player's own left with two
   liberties plays the liberty that gives it three or more, or that captures; an opponent
   chain with two liberties is put in atari at either of them, where the stone played keeps
   two liberties.

The playout ends and is scored as the light one: two consecutive passes or the move cap,
Tromp-Taylor area; simple ko only, suicide never.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env._core.board import (
    COLOR,
    HEAD,
    LEGAL,
    NEXT,
    atari_liberty,
    check_local,
    in_atari,
    liberties_after,
    play,
)
from go_env._core.layout import H_LAST, H_MOVES, H_P, H_PASSES, H_TO_PLAY, HEADER
from go_env._core.patterns import matches_pattern
from go_env._core.playout import is_own_eye, next_random, uniform_move
from go_env._core.scoring import area

__all__ = [
    "capture_moves",
    "heavy_playout",
    "low_liberty_moves",
    "pattern_moves",
    "tactical_moves",
]

_MAX_CANDIDATES = 64


@njit(cache=True, inline="always")
def _get(s, segment, p):  # pragma: no cover - compiled
    return s[HEADER + segment * s[H_P] + p]


@njit(cache=True)
def _add(s, nbr, diag, p, color, out, n):  # pragma: no cover - compiled
    """Append ``p`` to ``out[:n]`` when it is a legal move that fills no own eye; new ``n``."""
    if (
        n < out.shape[0]
        and check_local(s, nbr, p, color, False) == LEGAL
        and not is_own_eye(s, nbr, diag, p, color)
    ):
        out[n] = p
        return n + 1
    return n


@njit(cache=True)
def _save(s, nbr, diag, h, color, out, n):  # pragma: no cover - compiled
    """Append the moves that save the player's chain ``h`` (in atari); new ``n``."""
    liberty = atari_liberty(s, h)
    if liberties_after(s, nbr, liberty, color) >= 2:
        n = _add(s, nbr, diag, liberty, color, out, n)
    stone = h
    while True:
        for j in range(4):
            t = nbr[stone, j]
            if t >= 0 and _get(s, COLOR, t) == 3 - color:
                g = _get(s, HEAD, t)
                if in_atari(s, g):
                    n = _add(s, nbr, diag, atari_liberty(s, g), color, out, n)
        stone = _get(s, NEXT, stone)
        if stone == h:
            break
    return n


@njit(cache=True)
def _stone_near_last(s, nbr, k):  # pragma: no cover - compiled
    """Point ``k`` (0-4) of the last move's neighbourhood if a stone is on it, else -1.

    The neighbourhood of rules 1 and 5: the four neighbours of the last move (``k`` 0-3) and
    the last move itself (``k`` 4). -1 also for a point off the board and when the last move
    was a pass or there was none.
    """
    last = s[H_LAST]
    if last < 0 or last >= s[H_P]:
        return -1
    q = last if k == 4 else nbr[last, k]
    if q < 0 or _get(s, COLOR, q) == 0:
        return -1
    return q


@njit(cache=True)
def tactical_moves(s, nbr, diag, out):  # pragma: no cover - compiled
    """Fill ``out`` with the last move's captures and escapes for the player to move; their count.

    Rule 1 of the module docstring. A point may appear more than once (it answers two
    chains); nothing is written when the last move was a pass or there was none.
    """
    color = s[H_TO_PLAY]
    n = 0
    for k in range(5):
        q = _stone_near_last(s, nbr, k)
        if q < 0:
            continue
        c = _get(s, COLOR, q)
        h = _get(s, HEAD, q)
        if not in_atari(s, h):
            continue
        if c == color:
            n = _save(s, nbr, diag, h, color, out, n)
        else:
            n = _add(s, nbr, diag, atari_liberty(s, h), color, out, n)
    return n


@njit(cache=True)
def _two_liberties(s, nbr, h, pair):  # pragma: no cover - compiled
    """Whether the chain with head ``h`` has exactly two liberties, written to ``pair``."""
    count = 0
    stone = h
    while True:
        for j in range(4):
            t = nbr[stone, j]
            if t < 0 or _get(s, COLOR, t) != 0:
                continue
            if (count > 0 and t == pair[0]) or (count > 1 and t == pair[1]):
                continue  # a liberty already counted
            if count == 2:
                return False  # a third one
            pair[count] = t
            count += 1
        stone = _get(s, NEXT, stone)
        if stone == h:
            break
    return count == 2


@njit(cache=True)
def low_liberty_moves(s, nbr, diag, out):  # pragma: no cover - compiled
    """Fill ``out`` with rule 5's moves around the last move; their count.

    Each chain of the last move's neighbourhood (rule 1's) with exactly two liberties: for the
    player's own, the liberties that give it three or more or capture; for the opponent's,
    the liberties that put it in atari while the stone played keeps two liberties. A point may
    appear more than once.
    """
    color = s[H_TO_PLAY]
    pair = np.empty(2, dtype=np.int64)
    n = 0
    for k in range(5):
        q = _stone_near_last(s, nbr, k)
        if q < 0 or not _two_liberties(s, nbr, _get(s, HEAD, q), pair):
            continue
        c = _get(s, COLOR, q)
        for i in range(2):
            if c == color:
                if liberties_after(s, nbr, pair[i], color, 3) == 3:
                    n = _add(s, nbr, diag, pair[i], color, out, n)
            elif liberties_after(s, nbr, pair[i], color) >= 2:
                n = _add(s, nbr, diag, pair[i], color, out, n)
    return n


@njit(cache=True)
def pattern_moves(s, nbr, diag, out):  # pragma: no cover - compiled
    """Fill ``out`` with the last move's neighbours that match a MoGo pattern; their count.

    The first half of rule 4: an empty point among the eight around the last move, legal,
    filling no own eye, whose neighbourhood matches
    (:func:`go_env._core.patterns.matches_pattern`) and whose stone keeps two liberties.
    """
    points = s[H_P]
    last = s[H_LAST]
    if last < 0 or last >= points:
        return 0
    color = s[H_TO_PLAY]
    n = 0
    for k in range(8):
        q = nbr[last, k] if k < 4 else diag[last, k - 4]
        if (
            q >= 0
            and _get(s, COLOR, q) == 0
            and matches_pattern(s, q)
            and liberties_after(s, nbr, q, color) >= 2
        ):
            n = _add(s, nbr, diag, q, color, out, n)
    return n


@njit(cache=True)
def capture_moves(s, nbr, diag, out):  # pragma: no cover - compiled
    """Fill ``out`` with the liberty of every opponent chain in atari; their count.

    The second half of rule 4. A chain is counted once, at its head stone.
    """
    color = s[H_TO_PLAY]
    n = 0
    for p in range(s[H_P]):
        if _get(s, COLOR, p) == 3 - color and _get(s, HEAD, p) == p and in_atari(s, p):
            n = _add(s, nbr, diag, atari_liberty(s, p), color, out, n)
    return n


@njit(cache=True)
def heavy_playout(
    s, nbr, diag, zob, max_moves, rng, nakade, patterns=False, lowlib=False
):  # pragma: no cover - compiled
    """Play the heavy policy on ``s`` (modified in place) to the end of the game.

    Arguments and result as :func:`go_env._core.playout.random_playout`: ``(black_area,
    white_area)`` of the final position. With ``nakade``, rule 2 also allows the self-atari
    that fills an enclosed eye space into a killing shape (the module docstring's rule 3);
    with ``patterns``, MoGo's shapes next to the last move and then captures anywhere come
    before rule 2 (rule 4); with ``lowlib``, the two-liberty replies come after rule 1
    (rule 5).
    """
    candidates = np.empty(_MAX_CANDIDATES, dtype=np.int64)
    while s[H_PASSES] < 2 and s[H_MOVES] < max_moves:
        n = tactical_moves(s, nbr, diag, candidates)
        if n == 0 and lowlib:
            n = low_liberty_moves(s, nbr, diag, candidates)
        if n == 0 and patterns:
            n = pattern_moves(s, nbr, diag, candidates)
            if n == 0:
                n = capture_moves(s, nbr, diag, candidates)
        if n > 0:
            move = candidates[np.int64((next_random(rng) * np.uint64(n)) >> np.uint64(32))]
        else:
            move = uniform_move(s, nbr, diag, rng, True, nakade)
        play(s, nbr, zob, move)
    return area(s, nbr)
