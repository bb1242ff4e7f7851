"""Move encodings: action indices, GTP vertices and SGF points."""

from __future__ import annotations

import pytest

from go_env.coords import (
    GTP_COLUMNS,
    from_gtp,
    from_sgf,
    pass_move,
    point,
    row_col,
    to_gtp,
    to_sgf,
)

SIZES = range(2, 26)


@pytest.mark.parametrize("size", SIZES)
def test_round_trips_for_every_point_and_pass(size: int) -> None:
    assert pass_move(size) == size * size
    gtp = [to_gtp(m, size) for m in range(size * size + 1)]
    sgf = [to_sgf(m, size) for m in range(size * size + 1)]
    assert len(set(gtp)) == len(set(sgf)) == size * size + 1  # all distinct
    for move in range(size * size + 1):
        assert from_gtp(gtp[move], size) == move
        assert from_gtp(gtp[move].lower(), size) == move
        assert from_sgf(sgf[move], size) == move
    for move in range(size * size):
        row, col = row_col(move, size)
        assert point(row, col, size) == move
        assert gtp[move] == f"{GTP_COLUMNS[col]}{size - row}"
        assert sgf[move] == "abcdefghijklmnopqrstuvwxyz"[col] + "abcdefghijklmnopqrstuvwxyz"[row]


def test_gtp_columns_skip_i() -> None:
    assert GTP_COLUMNS == "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    assert len(GTP_COLUMNS) == 25 and "I" not in GTP_COLUMNS
    assert to_gtp(8, 9) == "J9"  # the ninth column is J
    assert from_gtp("J9", 9) == 8
    assert to_gtp(24, 25) == "Z25"
    with pytest.raises(ValueError, match="no I"):
        from_gtp("I5", 9)


@pytest.mark.parametrize(
    ("vertex", "size", "move"),
    [
        ("A19", 19, 0),
        ("T19", 19, 18),
        ("A1", 19, 342),
        ("T1", 19, 360),
        ("D4", 19, 15 * 19 + 3),
        ("Q16", 19, 3 * 19 + 15),
        ("A1", 9, 72),
        ("E5", 9, 40),
        ("B1", 2, 3),
        ("pass", 9, 81),
        ("PASS", 19, 361),
        ("  Pass ", 5, 25),
        (" d4 ", 19, 15 * 19 + 3),
    ],
)
def test_known_gtp_vertices(vertex: str, size: int, move: int) -> None:
    assert from_gtp(vertex, size) == move
    if vertex == vertex.strip() and vertex != "PASS":
        assert to_gtp(move, size) == vertex  # "pass" is written in lower case


@pytest.mark.parametrize(
    ("point_", "size", "move"),
    [
        ("aa", 19, 0),
        ("sa", 19, 18),
        ("dp", 19, 15 * 19 + 3),
        ("pd", 19, 3 * 19 + 15),
        ("ie", 9, 4 * 9 + 8),
        ("ba", 2, 1),
    ],
)
def test_known_sgf_points(point_: str, size: int, move: int) -> None:
    assert from_sgf(point_, size) == move
    assert to_sgf(move, size) == point_


def test_sgf_and_gtp_agree_on_the_star_points() -> None:
    for vertex, sgf in (("D4", "dp"), ("Q16", "pd"), ("K10", "jj"), ("D16", "dd"), ("Q4", "pp")):
        assert to_sgf(from_gtp(vertex, 19), 19) == sgf


def test_sgf_pass_forms() -> None:
    for size in SIZES:
        assert to_sgf(size * size, size) == ""
        assert from_sgf("", size) == size * size
    for size in range(2, 20):
        assert from_sgf("tt", size) == size * size  # FF[3] pass, only up to 19x19
    assert from_sgf("tt", 20) == point(19, 19, 20)  # a real point on larger boards
    assert from_sgf("tt", 25) == point(19, 19, 25)
    assert to_sgf(point(19, 19, 20), 20) == "tt"


@pytest.mark.parametrize(
    ("vertex", "size", "message"),
    [
        ("", 9, "invalid GTP vertex ''"),
        ("A", 9, "invalid GTP vertex 'A'"),
        ("4D", 9, "invalid GTP vertex"),
        ("AA1", 9, "invalid GTP vertex"),
        ("A-1", 9, "invalid GTP vertex"),
        ("D4.5", 9, "invalid GTP vertex"),
        ("resign", 9, "invalid GTP vertex"),
        ("A0", 9, "vertex 'A0' is off a 9x9 board"),
        ("A10", 9, "off a 9x9 board"),
        ("K1", 9, "off a 9x9 board"),
        ("Z25", 24, "off a 24x24 board"),
        ("C1", 2, "off a 2x2 board"),
    ],
)
def test_bad_gtp_vertices(vertex: str, size: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        from_gtp(vertex, size)


@pytest.mark.parametrize(
    ("text", "size", "message"),
    [
        ("a", 9, "invalid SGF point 'a'"),
        ("abc", 9, "invalid SGF point"),
        ("a1", 9, "invalid SGF point"),
        ("??", 9, "invalid SGF point"),
        ("ja", 9, "SGF point 'ja' is off a 9x9 board"),
        ("aj", 9, "off a 9x9 board"),
        ("ta", 19, "off a 19x19 board"),
    ],
)
def test_bad_sgf_points(text: str, size: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        from_sgf(text, size)


@pytest.mark.parametrize("size", [2, 9, 25])
def test_point_and_row_col_errors(size: int) -> None:
    for row, col in ((-1, 0), (0, -1), (size, 0), (0, size)):
        with pytest.raises(ValueError, match=f"off a {size}x{size} board"):
            point(row, col, size)
    for move in (-1, size * size, size * size + 1):
        with pytest.raises(ValueError, match="is not a point"):
            row_col(move, size)
    for move in (-1, size * size + 1):
        with pytest.raises(ValueError):
            to_gtp(move, size)
        with pytest.raises(ValueError):
            to_sgf(move, size)


def test_upper_case_sgf_points_are_beyond_the_board() -> None:
    import pytest

    from go_env.coords import from_sgf

    with pytest.raises(ValueError, match="lower-case"):
        from_sgf("AB", 19)
