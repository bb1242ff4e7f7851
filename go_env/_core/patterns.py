"""MoGo's 3x3 patterns: the shapes a playout answers next to the last move.

Sylvain Gelly, Yizao Wang, Remi Munos and Olivier Teytaud, *Modification of UCT with patterns
in Monte-Carlo Go* (INRIA RR-6062, 2006, section 3.2 and its figures of hane, cut and edge
patterns), made playouts play, before a random move, an empty point next to the last move whose
3x3 neighbourhood matches one of a dozen hand-made shapes. This module holds those shapes as a
lookup table over every neighbourhood and the compiled test of a point against it.

A pattern is three rows of three symbols around the empty centre, where the move goes:

* ``X``, ``O``: a stone of one colour, and of the other;
* ``x``: not ``X`` (empty, ``O`` or off the board); ``o``: not ``O``;
* ``.``: empty; ``#``: off the board; ``?``: anything.

Each pattern counts in its eight rotations and reflections and with its colours swapped, so the
table is the same for both players. A neighbourhood is coded as ``sum(v_i * 4**i)`` over its
eight cells in reading order (the row above, left to right; the left and right cells; the row
below), with ``v`` = 0 empty, 1 black, 2 white, 3 off the board.
"""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit

from go_env._core.layout import H_SIZE, HEADER

__all__ = ["MOGO_PATTERNS", "matches_pattern", "neighbourhood_code", "pattern_table"]

MOGO_PATTERNS: dict[str, tuple[str, str, str]] = {
    # Hane: a move diagonal to one's own stone and next to the opponent's.
    "hane enclosing": ("XOX", "...", "???"),
    "hane not cutting": ("XO.", "...", "?.?"),
    "hane magari": ("XO?", "X..", "x.?"),
    "hane diagonal attachment": (".O.", "X..", "..."),
    # Cut: a move that separates two of the opponent's stones.
    "cut unprotected": ("XO?", "O.o", "?o?"),
    "cut peeped": ("XO?", "O.X", "???"),
    "cut between": ("?X?", "O.O", "ooo"),
    # On the first line: ``#`` is off the board.
    "edge chase": ("X.?", "O.?", "###"),
    "edge block side cut": ("OX?", "X.O", "###"),
    "edge block connection": ("?X?", "x.O", "###"),
    "edge sagari": ("?XO", "x.x", "###"),
    "edge cut": ("?OX", "X.O", "###"),
}
"""The shapes of Gelly et al. (2006), section 3.2, by name: three rows around the move."""

_EMPTY, _BLACK, _WHITE, _EDGE = 0, 1, 2, 3
_SYMBOLS = {
    "X": (_BLACK,),
    "O": (_WHITE,),
    "x": (_EMPTY, _WHITE, _EDGE),
    "o": (_EMPTY, _BLACK, _EDGE),
    ".": (_EMPTY,),
    "#": (_EDGE,),
    "?": (_EMPTY, _BLACK, _WHITE, _EDGE),
}
_SWAP = str.maketrans("XOxo", "OXox")
_CELLS = ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2))
"""The eight cells of a 3x3 grid in the code's order (row, column); the centre is (1, 1)."""


def _variants(rows: tuple[str, str, str]) -> set[tuple[str, ...]]:
    """The pattern in its eight rotations and reflections, each with its colours swapped too."""
    out: set[tuple[str, ...]] = set()
    grid = [list(row) for row in rows]
    for _ in range(4):
        grid = [list(row) for row in zip(*grid[::-1], strict=True)]  # a quarter turn
        for shape in (grid, [row[::-1] for row in grid]):
            rows_ = tuple("".join(row) for row in shape)
            out.add(rows_)
            out.add(tuple(row.translate(_SWAP) for row in rows_))
    return out


def pattern_table(patterns: dict[str, tuple[str, str, str]] = MOGO_PATTERNS) -> np.ndarray:
    """``bool (4**8,)``: whether a neighbourhood code matches one of ``patterns``.

    Raises:
        ValueError: When a pattern is not three rows of three known symbols with an empty
            centre.
    """
    table = np.zeros(4**8, dtype=np.bool_)
    for name, rows in patterns.items():
        if len(rows) != 3 or any(len(row) != 3 or set(row) - set(_SYMBOLS) for row in rows):
            raise ValueError(
                f"pattern {name!r} must be three rows of three of {''.join(_SYMBOLS)}, got {rows!r}"
            )
        if rows[1][1] != ".":
            raise ValueError(f"pattern {name!r} must have an empty centre '.', got {rows!r}")
        for variant in _variants(rows):
            choices = [_SYMBOLS[variant[r][c]] for r, c in _CELLS]
            for cells in itertools.product(*choices):
                table[sum(v * 4**i for i, v in enumerate(cells))] = True
    table.setflags(write=False)
    return table


_TABLE = pattern_table()


@njit(cache=True)
def neighbourhood_code(s, p):  # pragma: no cover - compiled
    """The code of the 3x3 neighbourhood of point ``p`` (the module docstring's order)."""
    size = s[H_SIZE]
    row = p // size
    column = p - row * size
    code = 0
    weight = 1
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            if dr == 0 and dc == 0:
                continue
            r = row + dr
            c = column + dc
            if 0 <= r < size and 0 <= c < size:
                code += s[HEADER + r * size + c] * weight
            else:
                code += 3 * weight
            weight *= 4
    return code


@njit(cache=True)
def matches_pattern(s, p):  # pragma: no cover - compiled
    """Whether the neighbourhood of ``p`` matches one of :data:`MOGO_PATTERNS`."""
    return _TABLE[neighbourhood_code(s, p)]
