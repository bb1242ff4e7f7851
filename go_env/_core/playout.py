"""Compiled uniform random playouts for Monte-Carlo evaluation.

The policy is the classic "light" playout (Bruno Bouzy and Bernard Helmstetter,
*Monte-Carlo Go developments*, 2003; Sylvain Gelly et al., *Modification of UCT with patterns in
Monte-Carlo Go*, 2006): uniform over the legal points that do not fill one of the player's own
eyes; a player with no such point passes. The playout ends after two consecutive passes or at
the move cap, and is scored by Tromp-Taylor area.

Within a playout only simple ko is enforced (superko look-ups would dominate the cost and the
move cap ends any cycle), and suicide is never played: the standard practice of playout engines.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env._core.board import LEGAL, check_local, fills_nakade, is_self_atari, play
from go_env._core.layout import H_MOVES, H_NEMPTY, H_P, H_PASSES, H_TO_PLAY, HEADER
from go_env._core.scoring import area

__all__ = ["is_own_eye", "next_random", "own_eyes", "random_playout", "seed_rng", "uniform_move"]

_EMPTY_SEG = 7
_EPOS_SEG = 8


@njit(cache=True, inline="always")
def next_random(rng):  # pragma: no cover - compiled
    """Advance the xorshift64* generator held in ``rng[0]`` and return 32 random bits."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return (x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)


def seed_rng(seed: int) -> np.ndarray:
    """A generator state for :func:`random_playout` from any int seed (never zero).

    Raises:
        TypeError: When ``seed`` is not an integer (Python or NumPy).
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {seed!r}")
    mixed = (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % (1 << 64)
    return np.array([mixed or 1], dtype=np.uint64)


@njit(cache=True)
def is_own_eye(s, nbr, diag, p, color):  # pragma: no cover - compiled
    """Whether the empty point ``p`` is an eye of ``color`` that a playout must not fill.

    Every orthogonal neighbour is a stone of ``color``, and the opponent holds at most one
    diagonal point (none on the edge or in the corner).
    """
    edge = 0
    for k in range(4):
        q = nbr[p, k]
        if q < 0:
            edge = 1
        elif s[HEADER + q] != color:
            return False
    bad = 0
    for k in range(4):
        q = diag[p, k]
        if q >= 0 and s[HEADER + q] == 3 - color:
            bad += 1
    return bad + edge < 2


@njit(cache=True)
def own_eyes(s, nbr, diag, color, out):  # pragma: no cover - compiled
    """Fill ``out[p]`` (bool, shape ``(P,)``) with whether ``p`` is an eye of ``color``."""
    for p in range(s[H_P]):
        out[p] = s[HEADER + p] == 0 and is_own_eye(s, nbr, diag, p, color)


@njit(cache=True)
def random_playout(s, nbr, diag, zob, max_moves, rng):  # pragma: no cover - compiled
    """Play uniform random moves on ``s`` (modified in place) to the end of the game.

    Args:
        s: State vector (modified).
        nbr: Neighbour table.
        diag: Diagonal table.
        zob: Zobrist table.
        max_moves: The move cap: the playout stops when ``H_MOVES`` reaches it.
        rng: ``uint64 (1,)`` xorshift state (advanced).

    Returns:
        ``(black_area, white_area)`` of the final position.
    """
    while s[H_PASSES] < 2 and s[H_MOVES] < max_moves:
        play(s, nbr, zob, uniform_move(s, nbr, diag, rng, False, False))
    return area(s, nbr)


@njit(cache=True)
def uniform_move(s, nbr, diag, rng, no_self_atari, nakade):  # pragma: no cover - compiled
    """A uniform draw among the player to move's legal points that fill no own eye; ``P``: none.

    With ``no_self_atari``, a self-atari of two or more stones (:func:`is_self_atari`) is
    rejected too, unless ``nakade`` is set and it fills an enclosed eye space into a killing
    shape (:func:`fills_nakade`). Rejected points are moved behind the candidates in the empty
    list, so each point is tried at most once.
    """
    points = s[H_P]
    empty0 = HEADER + _EMPTY_SEG * points
    epos0 = HEADER + _EPOS_SEG * points
    color = s[H_TO_PLAY]
    k = s[H_NEMPTY]
    while k > 0:
        i = np.int64((next_random(rng) * np.uint64(k)) >> np.uint64(32))
        p = s[empty0 + i]
        if (
            not is_own_eye(s, nbr, diag, p, color)
            and check_local(s, nbr, p, color, False) == LEGAL
            and not (
                no_self_atari
                and is_self_atari(s, nbr, p, color)
                and not (nakade and fills_nakade(s, nbr, p, color))
            )
        ):
            return p
        k -= 1  # move the rejected point behind the candidates
        q = s[empty0 + k]
        s[empty0 + i] = q
        s[epos0 + q] = i
        s[empty0 + k] = p
        s[epos0 + p] = k
    return points
