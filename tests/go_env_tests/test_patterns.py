"""MoGo's 3x3 patterns (go_env._core.patterns) and the playout rule that plays them."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import kernels
from go_env._core.heavy_playout import (
    capture_moves,
    low_liberty_moves,
    pattern_moves,
    tactical_moves,
)
from go_env._core.patterns import (
    MOGO_PATTERNS,
    matches_pattern,
    neighbourhood_code,
    pattern_table,
)
from go_env.state import Color, GoState


def point(state: GoState, row: int, column: int) -> int:
    return row * state.size + column


def matches(text: str, row: int, column: int) -> bool:
    state = GoState.from_ascii(text)
    return bool(matches_pattern(state.compiled().vector, point(state, row, column)))


def rotate(text: str) -> str:
    """The board of ``text`` turned a quarter clockwise."""
    rows = [line.split() for line in text.strip().splitlines()]
    return "\n".join(" ".join(row) for row in zip(*rows[::-1], strict=True))


def swap_colours(text: str) -> str:
    return text.translate(str.maketrans("XO", "OX"))


# 5x5 boards; the point tested is the centre (2, 2) unless named.
HANE = """
. . . . .
. X O X .
. . . . .
. . . . .
. . . . .
"""
CUT = """
. . . . .
. X O . .
. O . . .
. . . . .
. . . . .
"""
LONE_STONE = """
. . . . .
. . . . .
. . . X .
. . . . .
. . . . .
"""


@pytest.mark.parametrize("board", [HANE, CUT], ids=["hane", "cut"])
def test_a_shape_matches_in_every_orientation_and_in_both_colours(board: str) -> None:
    for text in (board, swap_colours(board)):
        for _ in range(4):
            text = rotate(text)
            assert matches(text, 2, 2)
            mirrored = "\n".join(" ".join(line.split()[::-1]) for line in text.splitlines())
            assert matches(mirrored, 2, 2)


def test_an_empty_or_plain_neighbourhood_matches_nothing() -> None:
    assert not matches(LONE_STONE, 2, 2)
    assert not matches(LONE_STONE.replace("X", "."), 2, 2)


def test_an_edge_shape_matches_only_on_the_edge() -> None:
    # "edge sagari": ? X O / x . x on the first line, the move at the centre.
    sagari = pattern_table({"edge sagari": MOGO_PATTERNS["edge sagari"]})
    on_edge = GoState.from_ascii(
        """
        . . . . .
        . . . . .
        . . . . .
        . . X O .
        . . . . .
        """
    )
    off_edge = GoState.from_ascii(
        """
        . . . . .
        . . . . .
        . . X O .
        . . . . .
        . . . . .
        """
    )
    assert sagari[neighbourhood_code(on_edge.compiled().vector, point(on_edge, 4, 2))]
    assert not sagari[neighbourhood_code(off_edge.compiled().vector, point(off_edge, 3, 2))]


ALLOWED = {
    "X": {1},
    "O": {2},
    "x": {0, 2, 3},
    "o": {0, 1, 3},
    ".": {0},
    "#": {3},
    "?": {0, 1, 2, 3},
}


def reference_table(patterns: dict[str, tuple[str, str, str]]) -> np.ndarray:
    """Decode every code into its 3x3 grid and compare it with each pattern, turned by numpy."""
    codes = np.arange(4**8)
    cells = (codes[:, None] // 4 ** np.arange(8)) % 4  # reading order, the centre left out
    out = np.zeros(4**8, dtype=bool)
    for rows in patterns.values():
        grid = np.array([list(row) for row in rows])
        for colours in (
            grid,
            np.vectorize(lambda c: c.translate(str.maketrans("XOxo", "OXox")))(grid),
        ):
            for turns in range(4):
                for shape in (np.rot90(colours, turns), np.fliplr(np.rot90(colours, turns))):
                    symbols = np.delete(shape.ravel(), 4)
                    ok = np.ones(4**8, dtype=bool)
                    for i, symbol in enumerate(symbols):
                        ok &= np.isin(cells[:, i], list(ALLOWED[symbol]))
                    out |= ok
    return out


def test_the_table_is_every_neighbourhood_a_pattern_matches_turned_and_recoloured() -> None:
    hane = {"hane enclosing": MOGO_PATTERNS["hane enclosing"]}
    assert np.array_equal(pattern_table(hane), reference_table(hane))
    assert np.array_equal(pattern_table(), reference_table(MOGO_PATTERNS))
    assert not pattern_table()[0]  # all eight neighbours empty


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (("XO", "...", "???"), "three rows of three"),
        (("XOZ", "...", "???"), "three rows of three"),
        (("XOX", ".X.", "???"), "empty centre"),
    ],
)
def test_a_malformed_pattern_is_refused(rows: tuple[str, str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pattern_table({"bad": rows})


def after_last_move(text: str, last: tuple[int, int], mover: Color) -> GoState:
    state = GoState.from_ascii(text, to_play=mover)
    state.play(point(state, *last))
    return state


def moves_of(kernel: object, state: GoState) -> set[int]:
    compiled = state.compiled()
    out = np.empty(64, dtype=np.int64)
    n = kernel(compiled.vector, compiled.geometry.nbr, compiled.geometry.diag, out)
    return set(out[:n].tolist())


def test_the_hane_next_to_the_last_move_is_a_pattern_move() -> None:
    # White attaches at (2, 3) to Black's (2, 2). Black's hanes at (1, 3) and (3, 3) match,
    # and so do White's at (1, 2) and (3, 2): the shapes hold for both colours.
    state = after_last_move(
        """
        . . . . . . .
        . . . . . . .
        . . X . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        (2, 3),
        Color.WHITE,
    )
    assert moves_of(tactical_moves, state) == set()
    hanes = {point(state, 1, 3), point(state, 3, 3), point(state, 1, 2), point(state, 3, 2)}
    assert moves_of(pattern_moves, state) == hanes


def test_a_pattern_move_that_leaves_its_stone_in_atari_is_left_out() -> None:
    # The hane at (1, 3) would have one liberty: White's stones at (0, 3) and (1, 4).
    state = after_last_move(
        """
        . . . O . . .
        . . . . O . .
        . . X . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        (2, 3),
        Color.WHITE,
    )
    assert point(state, 1, 3) not in moves_of(pattern_moves, state)
    assert point(state, 3, 3) in moves_of(pattern_moves, state)


def test_a_chain_in_atari_anywhere_is_a_capture_move() -> None:
    # White's stone at (5, 5) is in atari far from the last move (0, 0).
    state = after_last_move(
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . X .
        . . . . X O X
        . . . . . . .
        """,
        (0, 0),
        Color.WHITE,
    )
    assert moves_of(tactical_moves, state) == set()
    assert moves_of(capture_moves, state) == {point(state, 6, 5)}


def test_patterns_change_the_playouts_and_off_they_change_nothing() -> None:
    state = GoState.from_ascii("\n".join(" ".join("." * 9) for _ in range(9)))
    state.play(point(state, 4, 4))
    compiled = state.compiled()
    geo = compiled.geometry

    def final(*flags: bool) -> list[int]:
        vector = compiled.vector.copy()
        args = (geo.nbr, geo.diag, geo.zobrist, compiled.move_limit, kernels.seed_rng(3))
        kernels.heavy_playout(vector, *args, *flags)
        return vector.tolist()

    assert final(False) == final(False, False) == final(False, False, False)
    assert final(False, True) != final(False)
    assert final(False, True, True) != final(False, True)


def test_a_chain_left_with_two_liberties_extends_to_three() -> None:
    # White's (1, 2) leaves Black's pair with two liberties, (3, 2) and (3, 3); either
    # extension gives it three or more.
    state = after_last_move(
        """
        . . . . . . .
        . . . O . . .
        . O X X O . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        (1, 2),
        Color.WHITE,
    )
    assert moves_of(tactical_moves, state) == set()
    assert moves_of(low_liberty_moves, state) == {point(state, 3, 2), point(state, 3, 3)}


def test_no_extension_where_it_keeps_two_liberties() -> None:
    # As above, but White also holds (3, 1) and (4, 2): at (3, 2) the chain would have one
    # liberty, at (3, 3) it has three, (3, 2), (3, 4) and (4, 3).
    state = after_last_move(
        """
        . . . . . . .
        . . . O . . .
        . O X X O . .
        . O . . . . .
        . . O . . . .
        . . . . . . .
        . . . . . . .
        """,
        (1, 2),
        Color.WHITE,
    )
    assert moves_of(low_liberty_moves, state) == {point(state, 3, 3)}


def test_an_opponent_chain_with_two_liberties_is_put_in_atari() -> None:
    # White's last stone at (0, 1) has two liberties, (0, 0) and (0, 2): Black may atari
    # from either side, where its stone keeps two liberties.
    state = after_last_move(
        """
        . . . . . . .
        . X . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        (0, 1),
        Color.WHITE,
    )
    assert moves_of(low_liberty_moves, state) == {point(state, 0, 2)}
