"""Playout ownership and dead-stone scoring: the compiled kernels and their Python wrappers."""

from __future__ import annotations

import numpy as np
import pytest

from go_env.dead_stones import estimate_dead, owners_without, ownership, score_without
from go_env.kernels import area, area_without_dead, mark_dead, seed_rng
from go_env.rules import Rules
from go_env.state import Color, GoState

SETTLED_WITH_DEAD_STONES = """
. . . X O . .
. . . X O . .
. O . X O . .
. . . X O . .
. . . X O X .
. . . X O . .
. . . X O . .
"""
"""Black owns the left side, White the right; B5 (white) and F3 (black) are dead."""

WHITE_DEAD = 2 * 7 + 1  # B5
BLACK_DEAD = 4 * 7 + 5  # F3
BLACK_WALL = [r * 7 + 3 for r in range(7)]
WHITE_WALL = [r * 7 + 4 for r in range(7)]


def settled() -> GoState:
    return GoState.from_ascii(SETTLED_WITH_DEAD_STONES, Rules(size=7, komi=0.5))


def test_ownership_follows_the_territories():
    state = settled()
    owned = ownership(state, playouts=64, seed=1)
    assert owned.shape == (49,) and np.all(np.abs(owned) <= 1.0)
    board = state.board.ravel()
    assert np.all(owned[BLACK_WALL] > 0.0) and np.all(owned[WHITE_WALL] < 0.0)
    assert owned[WHITE_DEAD] > 0.0 and owned[BLACK_DEAD] < 0.0
    assert board[WHITE_DEAD] == Color.WHITE  # ownership never changes the position


def test_estimate_dead_names_the_stones_inside_the_other_territory():
    state = settled()
    assert estimate_dead(state, playouts=64, seed=0) == [WHITE_DEAD, BLACK_DEAD]
    assert estimate_dead(state, 64, seed=5) == estimate_dead(state, 64, seed=5)  # seeded


def test_area_without_dead_equals_the_score_without_the_estimated_stones():
    state = settled()
    compiled = state.compiled()
    geo = compiled.geometry
    vector = compiled.vector
    before = vector.copy()
    work = np.empty_like(vector)
    owned = np.zeros(49)
    black, white = area_without_dead(
        vector, geo.nbr, geo.diag, geo.zobrist, 64, seed_rng(4), work, owned
    )
    assert np.array_equal(vector, before)  # the position is left as it was
    assert (black, white) == (28, 21)
    expected = score_without(state, estimate_dead(state, 64, seed=4))
    assert black - white - 0.5 == expected
    raw_black, raw_white = area(vector, geo.nbr)
    assert (raw_black, raw_white) == (8, 8)  # as it stands, both empty regions are neutral


def test_mark_dead_uses_the_sign_of_each_chain_total():
    state = settled()
    vector = state.compiled().vector
    owned = np.zeros(49)
    owned[WHITE_DEAD] = 0.2  # black owns the point of the white stone: dead
    owned[BLACK_WALL] = -0.1  # the black wall's total is negative: dead ...
    owned[3] = 0.7  # ... unless one stone outweighs the rest (0.7 > 6 * 0.1)
    dead = np.zeros(49, dtype=np.bool_)
    count = mark_dead(vector, owned, dead)
    assert count == 1 and np.flatnonzero(dead).tolist() == [WHITE_DEAD]
    owned[3] = -0.1
    count = mark_dead(vector, owned, dead)
    assert count == 8 and dead[BLACK_WALL].all()


def test_ownership_refuses_a_bad_playout_count():
    with pytest.raises(ValueError, match="playouts must be a positive int"):
        ownership(settled(), playouts=0)


def test_owners_without_dead_stones_match_the_score_without_them() -> None:
    state = GoState(Rules(size=5, komi=0.5))
    for move in (12, 0, 25):  # Black centre, White corner, Black passes
        state.play(move)
    owners = owners_without(state, [0])
    assert (owners == 1).all()  # the corner stone gone, Black's stone reaches every point
    assert owners.sum() == score_without(state, [0]) + 0.5
    assert owners_without(state, []).tolist() == state.area_owners().tolist()
    with pytest.raises(ValueError, match="dead stone 3 is not a stone"):
        owners_without(state, [3])
