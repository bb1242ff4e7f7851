"""Pictures of a game state: a text board with coordinates, and an RGB image drawn with numpy.

Neither needs a graphics library: :func:`render_ansi` builds a string and :func:`render_rgb`
computes every pixel with vectorised numpy operations (anti-aliased stones on a wooden board).
"""

from __future__ import annotations

import numpy as np

from go_env.coords import GTP_COLUMNS, point, to_gtp
from go_env.state import Color, GoState
from go_env.validation import check_int

__all__ = ["draw_board", "render_ansi", "render_rgb", "star_points"]

_WOOD = (220, 179, 92)
_LINE = (40, 30, 20)
_BLACK = (18, 18, 18)
_WHITE = (242, 242, 236)
_WHITE_EDGE = (70, 70, 70)
_MARK = (210, 40, 40)
_SYMBOLS = {0: ".", 1: "X", 2: "O"}


def star_points(size: int) -> list[int]:
    """The star points (hoshi) drawn on an N x N board, as action indices.

    The four corner points on the third line (fourth line from 13x13 up) from 7x7 up, the
    centre of odd boards from 7x7 up, and the four side points of odd boards from 15x15 up.
    """
    if size < 7:
        return [point(size // 2, size // 2, size)] if size % 2 == 1 and size >= 5 else []
    edge = 2 if size < 13 else 3
    low, mid, high = edge, size // 2, size - 1 - edge
    stars = [point(r, c, size) for r in (low, high) for c in (low, high)]
    if size % 2 == 1:
        stars.append(point(mid, mid, size))
        if size >= 15:
            stars += [point(low, mid, size), point(high, mid, size)]
            stars += [point(mid, low, size), point(mid, high, size)]
    return sorted(stars)


def _last_move(state: GoState) -> tuple[int, int] | None:
    history = state.history
    return (int(history[-1][0]), int(history[-1][1])) if history else None


def render_ansi(state: GoState) -> str:
    """The board as text: GTP coordinates around it and a status line below.

    Black stones are ``X``, white stones ``O``, empty points ``.`` (star points ``+``); the last
    stone played is wrapped in parentheses. Row numbers count from the bottom (row 0 of the
    action encoding is the top row, number N), columns are lettered A-Z without I.

    Args:
        state: The game state (read only).

    Returns:
        A multi-line string ending without a newline.
    """
    size = state.size
    board = state.board
    stars = set(star_points(size))
    last = _last_move(state)
    marked = last[1] if last is not None and last[1] != size * size else None
    header = "   " + " ".join(GTP_COLUMNS[:size])
    lines = [header]
    for row in range(size):
        text = f"{size - row:>2}"
        for col in range(size):
            move = row * size + col
            value = int(board[row, col])
            symbol = "+" if value == 0 and move in stars else _SYMBOLS[value]
            text += "(" if move == marked else ")" if move - 1 == marked and col > 0 else " "
            text += symbol
        text += ")" if marked == row * size + size - 1 else " "
        lines.append(text + f"{size - row:<2}".rstrip())
    lines.append(header)
    lines.append(_status(state, last))
    return "\n".join(lines)


def _status(state: GoState, last: tuple[int, int] | None) -> str:
    size = state.size
    parts = [f"move {state.move_number}"]
    if last is not None:
        who = "Black" if last[0] == Color.BLACK else "White"
        parts.append(f"last {who} {to_gtp(last[1], size)}")
    parts.append(f"captures B {state.captures(Color.BLACK)} W {state.captures(Color.WHITE)}")
    parts.append(f"komi {state.rules.komi:g}")
    if state.is_over:
        ending = "move limit" if not state.is_terminal else "two passes"
        parts.append(f"game over ({ending}): {state.result()}")
    else:
        parts.append(("Black" if state.to_play == Color.BLACK else "White") + " to play")
    return ", ".join(parts)


def _coverage(distance: np.ndarray, radius: float) -> np.ndarray:
    """Anti-aliased coverage in [0, 1] of a disc of ``radius`` at pixel distances ``distance``."""
    return np.clip(radius - distance + 0.5, 0.0, 1.0)


def _blend(image: np.ndarray, alpha: np.ndarray, colour: tuple[int, int, int]) -> None:
    image += alpha[..., None] * (np.asarray(colour, dtype=np.float32) - image)


def draw_board(board: np.ndarray, last_move: int | None = None, cell: int = 32) -> np.ndarray:
    """Draw a board position as an RGB image.

    Args:
        board: ``(N, N)`` array, 0 empty, 1 black, 2 white; row 0 is drawn at the top.
        last_move: Action index of a point to mark with a red dot (``None`` or pass: no mark).
        cell: Distance in pixels between neighbouring lines, at least 8.

    Returns:
        A ``uint8`` array of shape ``(cell * (N + 1), cell * (N + 1), 3)``: a wooden board with
        a margin of one cell around the grid.

    Raises:
        ValueError: When ``board`` is not square or ``cell`` is below 8.
    """
    if board.ndim != 2 or board.shape[0] != board.shape[1]:
        raise ValueError(f"board must be a square 2-d array, got shape {board.shape}")
    check_int("cell", cell, min=8, allowed="an int of at least 8 pixels")
    size = board.shape[0]
    side = cell * (size + 1)
    centres = np.arange(side, dtype=np.float32) + 0.5  # pixel centres along one axis
    nearest = np.clip(np.rint(centres / cell - 1.0), 0, size - 1).astype(np.intp)
    offset = centres - cell * (nearest + 1.0)  # signed distance to the nearest line
    half_line = max(1.0, cell / 32.0) / 2.0
    within = (centres >= cell - half_line) & (centres <= cell * size + half_line)

    image = np.empty((side, side, 3), dtype=np.float32)
    image[:] = np.asarray(_WOOD, dtype=np.float32)
    on_line = np.abs(offset) <= half_line
    grid = (on_line[:, None] & within[None, :]) | (within[:, None] & on_line[None, :])
    image[grid] = np.asarray(_LINE, dtype=np.float32)

    distance = np.hypot(offset[:, None], offset[None, :])  # to the nearest intersection
    rows, cols = nearest[:, None], nearest[None, :]
    flat = rows * size + cols  # action index of the nearest intersection, per pixel
    stars = np.zeros(size * size, dtype=bool)
    stars[star_points(size)] = True
    stones = np.asarray(board)[rows, cols]
    _blend(image, _coverage(distance, cell * 0.09) * (stars[flat] & (stones == 0)), _LINE)

    radius = cell * 0.47
    outer = _coverage(distance, radius)
    _blend(image, outer * (stones == 1), _BLACK)
    _blend(image, outer * (stones == 2), _WHITE_EDGE)
    _blend(image, _coverage(distance, radius - max(1.0, cell / 24.0)) * (stones == 2), _WHITE)
    if last_move is not None and 0 <= last_move < size * size:
        _blend(image, _coverage(distance, cell * 0.13) * (flat == last_move), _MARK)
    return np.rint(image).astype(np.uint8)


def render_rgb(state: GoState, cell: int = 32) -> np.ndarray:
    """The board of ``state`` as an RGB image, the last stone played marked with a red dot.

    Args:
        state: The game state (read only).
        cell: Distance in pixels between neighbouring lines, at least 8.

    Returns:
        A ``uint8`` array of shape ``(cell * (N + 1), cell * (N + 1), 3)``.
    """
    last = _last_move(state)
    return draw_board(state.board, None if last is None else last[1], cell)
