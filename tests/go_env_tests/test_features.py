"""Observation planes of go_env.features, checked against boards replayed move by move."""

from __future__ import annotations

import numpy as np
import pytest
from game_support import replay

from go_env.coords import from_gtp
from go_env.features import PLANE_DTYPE, history_planes, history_planes_hwc, num_planes
from go_env.handicap import fixed_handicap_points
from go_env.rules import Rules
from go_env.state import Color, GoState

# A 5x5 game with a pass and a capture: Black's C4 (move 7) takes the white stone at C3.
MOVES_5X5 = ["B3", "C3", "C2", "pass", "D3", "A1", "C4", "A2"]


def expected_planes(boards: list[np.ndarray], k: int, own: int) -> np.ndarray:
    size = boards[0].shape[0]
    planes = np.zeros((2 * k + 1, size, size), dtype=np.int8)
    for i in range(k):
        if i < len(boards):
            board = boards[-1 - i]
            planes[i] = board == own
            planes[k + i] = board == 3 - own
    planes[2 * k] = 1 if own == Color.BLACK else 0
    return planes


@pytest.mark.parametrize("k", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("own", [Color.BLACK, Color.WHITE])
def test_planes_match_replayed_history(k: int, own: Color) -> None:
    state, boards = replay(MOVES_5X5, Rules(size=5))
    planes = history_planes(state, k, own)
    assert planes.shape == (num_planes(k), 5, 5)
    assert planes.dtype == PLANE_DTYPE == np.int8
    np.testing.assert_array_equal(planes, expected_planes(boards, k, own))


def test_capture_shows_in_history() -> None:
    state, _ = replay(MOVES_5X5, Rules(size=5))
    row, col = divmod(from_gtp("C3", 5), 5)
    planes = history_planes(state, 4, Color.WHITE)
    assert state.captures(Color.BLACK) == 1
    # White's own planes: C3 is gone now and after the capture, there before it.
    assert planes[:4, row, col].tolist() == [0, 0, 1, 1]
    # Black's planes seen by Black: C4 stands now and one move ago, not two moves ago.
    black = history_planes(state, 4, Color.BLACK)
    r4, c4 = divmod(from_gtp("C4", 5), 5)
    assert black[:4, r4, c4].tolist() == [1, 1, 0, 0]


def test_pass_repeats_the_position() -> None:
    state, _ = replay(["C3", "pass"], Rules(size=5))
    planes = history_planes(state, 3, Color.BLACK)
    np.testing.assert_array_equal(planes[0], planes[1])  # the board before the pass
    assert planes[2].sum() == 0  # before the game began: empty


def test_perspectives_swap_stone_planes() -> None:
    state, _ = replay(MOVES_5X5, Rules(size=5))
    k = 4
    black = history_planes(state, k, Color.BLACK)
    white = history_planes(state, k, Color.WHITE)
    np.testing.assert_array_equal(black[:k], white[k : 2 * k])
    np.testing.assert_array_equal(black[k : 2 * k], white[:k])
    assert black[2 * k].min() == 1
    assert white[2 * k].max() == 0
    assert not np.array_equal(black, white)


def test_plain_int_perspective_is_accepted() -> None:
    state, _ = replay(MOVES_5X5, Rules(size=5))
    np.testing.assert_array_equal(
        history_planes(state, 2, 2), history_planes(state, 2, Color.WHITE)
    )


@pytest.mark.parametrize("size", [2, 5, 9, 19, 25])
def test_channels_last_is_the_transpose(size: int) -> None:
    state = GoState(Rules(size=size))
    rng = np.random.default_rng(size)
    for _ in range(min(12, size * size // 2)):
        legal = state.legal_moves()
        state.play(int(rng.choice(legal[:-1] if len(legal) > 1 else legal)))
    chw = history_planes(state, 5, Color.WHITE)
    hwc = history_planes_hwc(state, 5, Color.WHITE)
    assert hwc.shape == (size, size, 11)
    assert hwc.flags.c_contiguous
    assert hwc.dtype == np.int8
    np.testing.assert_array_equal(hwc, chw.transpose(1, 2, 0))


def test_handicap_stones_are_the_first_position() -> None:
    state = GoState(Rules(size=9, handicap=4))
    planes = history_planes(state, 3, Color.BLACK)
    stones = set(np.flatnonzero(planes[0].ravel()).tolist())
    assert stones == set(fixed_handicap_points(9, 4))
    assert planes[1].sum() == 0 and planes[2].sum() == 0  # before the game: empty boards
    assert planes[3:6].sum() == 0  # White has no stones


def test_planes_are_new_arrays() -> None:
    state, _ = replay(MOVES_5X5, Rules(size=5))
    first = history_planes_hwc(state, 2, Color.BLACK)
    first[:] = 1
    second = history_planes_hwc(state, 2, Color.BLACK)
    assert second.sum() < first.sum()
    assert state.board.sum() > 0  # the state itself is untouched


@pytest.mark.parametrize("k", [0, -1, True, 2.0, "8"])
def test_bad_history_length(k: object) -> None:
    with pytest.raises(ValueError, match=r"k .*positive int"):
        history_planes(GoState(), k, Color.BLACK)  # type: ignore[arg-type]


@pytest.mark.parametrize("perspective", [Color.EMPTY, 0, 3, -1, True, "black"])
def test_bad_perspective(perspective: object) -> None:
    with pytest.raises(ValueError, match=r"perspective must be Color\.BLACK or Color\.WHITE"):
        history_planes_hwc(GoState(), 2, perspective)  # type: ignore[arg-type]
