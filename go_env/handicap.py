"""Fixed handicap placement, as in the GTP v2 specification (section 4.1.1)."""

from __future__ import annotations

from go_env.coords import point

__all__ = ["fixed_handicap_points", "max_handicap"]


def max_handicap(size: int) -> int:
    """Largest fixed handicap on an N x N board: 0 below 7x7, 4 on 7x7 and even sizes, else 9."""
    if size < 7:
        return 0
    if size == 7 or size % 2 == 0:
        return 4
    return 9


def fixed_handicap_points(size: int, stones: int) -> list[int]:
    """Action indices of the fixed handicap stones, in the GTP specification's order.

    Raises:
        ValueError: When the size allows no such handicap.
    """
    top = max_handicap(size)
    if stones == 0:
        return []
    if stones == 1 or not 2 <= stones <= top:
        raise ValueError(f"a fixed handicap on {size}x{size} must be 2..{top} stones, got {stones}")
    edge = 2 if size < 13 else 3  # third line below 13x13, fourth line from 13x13 up
    low, mid, high = edge, size // 2, size - 1 - edge

    def at(col: int, gtp_row_from_bottom: int) -> int:
        return point(size - 1 - gtp_row_from_bottom, col, size)

    corners = [at(low, low), at(high, high), at(low, high), at(high, low)]
    sides = [at(low, mid), at(high, mid), at(mid, low), at(mid, high)]
    centre = at(mid, mid)
    order = {
        2: corners[:2],
        3: corners[:3],
        4: corners,
        5: [*corners, centre],
        6: corners + sides[:2],
        7: [*corners, *sides[:2], centre],
        8: corners + sides,
        9: [*corners, *sides, centre],
    }
    return order[stones]
