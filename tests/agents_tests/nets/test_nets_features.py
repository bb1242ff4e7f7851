"""Network input planes: tactical (Boke Go) planes, the 8 symmetries, equivariance."""

from __future__ import annotations

import numpy as np
import pytest
from game_support import played_moves, random_game

from agents.nets.features import input_planes, num_input_planes, stack_planes
from agents.nets.symmetry import (
    action_permutation,
    inverse,
    inverse_policy,
    transform_actions,
    transform_planes,
    transform_policy,
)
from go_env.features import history_planes
from go_env.rules import Rules
from go_env.state import Color, GoState
from go_env.tactical_features import BOKE_PLANES, TACTICAL_PLANES, boke_planes, tactical_planes

POSITION = """
. X O . . . .
X O . . . . .
O . . . . . .
. . . . . . .
. . . X X . .
. . . X O . .
. . . . X . .
"""


def binned(planes: np.ndarray) -> np.ndarray:
    """Sum of a 7-plane bin group: the count (capped at 7) where there is one."""
    return planes.sum(axis=0)


def test_tactical_planes_of_a_position(board):
    state = board(POSITION)  # Black to move
    t = tactical_planes(state)
    assert t.shape == (TACTICAL_PLANES, 7, 7) and t.dtype == np.int8
    assert np.array_equal(t[0], (state.board == 0).astype(np.int8))
    assert not t[1].any()  # no move played yet
    assert np.array_equal(t[2].ravel().astype(bool), state.legal_mask()[:49])
    libs = binned(t[3:10])
    assert libs[0, 1] == 1 and libs[1, 0] == 1  # two black stones in atari
    assert libs[0, 2] == 2 and libs[1, 1] == 2 and libs[6, 4] == 2
    assert libs[5, 4] == 1  # the white stone surrounded on three sides
    assert libs[4, 3] == libs[4, 4] == libs[5, 3] == 6  # the black chain of three stones
    assert (libs[state.board == 0] == 0).all()
    captures = binned(t[17:24])
    assert captures[5, 5] == 1 and captures.sum() == 1  # only the atari point captures
    after = binned(t[10:17])
    assert after[0, 0] == 0  # suicide is illegal: nothing recorded
    assert after[5, 5] == 4  # captures the white stone: its point becomes a liberty
    assert after[3, 3] == 7  # joins the chain of three (6 liberties, one used, two new)


def test_bins_hold_the_counts_and_cap_at_seven(board):
    state = board(POSITION)
    t = tactical_planes(state)
    for first in (3, 10, 17):
        group = t[first : first + 7]
        for j in range(7):
            values = set(np.unique(group[j]).tolist())
            assert values <= {0, j + 1}
        assert (np.count_nonzero(group, axis=0) <= 1).all()


def test_last_move_plane_and_boke_order():
    state = GoState(Rules(size=7))
    state.play(10)
    state.play(20)
    t = tactical_planes(state)
    assert np.flatnonzero(t[1].ravel()).tolist() == [20]
    state.play(state.pass_move)
    assert not tactical_planes(state)[1].any()
    b = boke_planes(state)
    h = history_planes(state, 1, state.to_play)
    assert b.shape == (BOKE_PLANES, 7, 7)
    assert np.array_equal(b[0], h[0]) and np.array_equal(b[1], h[1])
    assert np.array_equal(b[3], h[2])
    t = tactical_planes(state)
    assert np.array_equal(b[2], t[0]) and np.array_equal(b[4:], t[1:])


def test_input_planes_layout():
    state = GoState(Rules(size=5))
    state.play(6)
    assert num_input_planes(3, False) == 7 and num_input_planes(3, True) == 31
    plain = input_planes(state, 3)
    assert np.array_equal(plain, history_planes(state, 3, Color.WHITE))
    full = input_planes(state, 3, tactical=True)
    assert np.array_equal(full[:7], plain) and np.array_equal(full[7:], tactical_planes(state))
    assert stack_planes([state, state], 3, True).shape == (2, 31, 5, 5)
    with pytest.raises(ValueError, match="sizes"):
        stack_planes([state, GoState(Rules(size=7))], 3)


def test_symmetries_form_the_dihedral_group():
    size = 5
    board = np.arange(size * size).reshape(size, size)
    images = {transform_planes(board, k).tobytes() for k in range(8)}
    assert len(images) == 8
    for k in range(8):
        assert np.array_equal(transform_planes(transform_planes(board, k), inverse(k)), board)
        perm = action_permutation(k, size)
        assert sorted(perm.tolist()) == list(range(size * size + 1)) and perm[-1] == size * size
        policy = np.random.default_rng(k).random(size * size + 1)
        moved = transform_policy(policy, k, size)
        assert np.array_equal(
            moved[:-1].reshape(size, size), transform_planes(policy[:-1].reshape(size, size), k)
        )
        assert np.array_equal(inverse_policy(moved, k, size), policy)
        actions = np.arange(size * size + 1)
        assert np.array_equal(moved[transform_actions(actions, k, size)], policy)
    with pytest.raises(ValueError, match=r"0\.\.7"):
        transform_planes(board, 8)


@pytest.mark.parametrize("k", range(8))
def test_features_are_equivariant(k):
    size = 7
    moves = played_moves(random_game(size, 11, moves=30))
    moves.append(size * size)  # a pass too
    original = GoState(Rules(size=size))
    image = GoState(Rules(size=size))
    for move in moves:
        original.play(move)
        image.play(int(transform_actions(move, k, size)))
    a = input_planes(original, 4, tactical=True)
    b = input_planes(image, 4, tactical=True)
    assert np.array_equal(transform_planes(a, k), b)
    assert np.array_equal(transform_policy(original.legal_mask(), k, size), image.legal_mask())
