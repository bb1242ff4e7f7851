"""Move encodings: action indices, GTP vertices and SGF points.

A move is an int *action index*: ``row * N + col`` for a point, with row 0 the top row as
rendered (GTP row ``N``) and col 0 the left column (GTP letter ``A``); ``N * N`` is pass.
This is the encoding of the environment's ``Discrete(N*N + 1)`` action space.
"""

from __future__ import annotations

__all__ = [
    "GTP_COLUMNS",
    "from_gtp",
    "from_sgf",
    "pass_move",
    "point",
    "row_col",
    "to_gtp",
    "to_sgf",
]

GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # GTP skips the letter I
_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def pass_move(size: int) -> int:
    """The action index of pass on an N x N board (``N * N``)."""
    return size * size


def point(row: int, col: int, size: int) -> int:
    """The action index of (row, col); row 0 is the top row."""
    if not (0 <= row < size and 0 <= col < size):
        raise ValueError(f"({row}, {col}) is off a {size}x{size} board")
    return row * size + col


def row_col(move: int, size: int) -> tuple[int, int]:
    """(row, col) of a point's action index; raises for pass or off-board."""
    if not 0 <= move < size * size:
        raise ValueError(
            f"move {move} is not a point of a {size}x{size} board (0..{size * size - 1})"
        )
    return divmod(move, size)


def to_gtp(move: int, size: int) -> str:
    """GTP vertex of a move: ``"D4"``, or ``"pass"``."""
    if move == size * size:
        return "pass"
    row, col = row_col(move, size)
    return f"{GTP_COLUMNS[col]}{size - row}"


def from_gtp(vertex: str, size: int) -> int:
    """Action index of a GTP vertex (case-insensitive; ``pass`` accepted).

    Raises:
        ValueError: When the vertex is malformed or off the board.
    """
    text = vertex.strip().upper()
    if text == "PASS":
        return size * size
    if len(text) < 2 or text[0] not in GTP_COLUMNS or not text[1:].isdigit():
        raise ValueError(
            f"invalid GTP vertex {vertex!r}: expected a letter A-Z (no I) and a number, or pass"
        )
    col = GTP_COLUMNS.index(text[0])
    number = int(text[1:])
    if col >= size or not 1 <= number <= size:
        raise ValueError(f"vertex {vertex!r} is off a {size}x{size} board")
    return (size - number) * size + col


def to_sgf(move: int, size: int) -> str:
    """SGF point of a move (``"cd"``: column c, row d from the top); pass is ``""``."""
    if move == size * size:
        return ""
    row, col = row_col(move, size)
    return _SGF_LETTERS[col] + _SGF_LETTERS[row]


def from_sgf(text: str, size: int) -> int:
    """Action index of an SGF point; ``""`` and (on boards up to 19x19) ``"tt"`` are pass.

    Raises:
        ValueError: When the point is malformed or off the board.
    """
    value = text.strip()
    if value == "" or (value == "tt" and size <= 19):
        return size * size
    if len(value) != 2 or not all(c in _SGF_LETTERS for c in value):
        # SGF's upper-case letters stand for points 27..52, beyond any board we support.
        raise ValueError(f"invalid SGF point {text!r}: expected two lower-case letters a-y")
    col = _SGF_LETTERS.index(value[0])
    row = _SGF_LETTERS.index(value[1])
    if col >= size or row >= size:
        raise ValueError(f"SGF point {text!r} is off a {size}x{size} board")
    return row * size + col
