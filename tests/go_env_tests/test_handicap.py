"""Fixed handicap placement (GTP v2 specification, section 4.1.1)."""

from __future__ import annotations

import pytest

from go_env.coords import row_col, to_gtp
from go_env.handicap import fixed_handicap_points, max_handicap
from go_env.rules import Rules

# The GTP specification's table for 19x19, in its order.
GTP_19 = {
    2: "D4 Q16",
    3: "D4 Q16 D16",
    4: "D4 Q16 D16 Q4",
    5: "D4 Q16 D16 Q4 K10",
    6: "D4 Q16 D16 Q4 D10 Q10",
    7: "D4 Q16 D16 Q4 D10 Q10 K10",
    8: "D4 Q16 D16 Q4 D10 Q10 K4 K16",
    9: "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10",
}


def vertices(size: int, stones: int) -> str:
    return " ".join(to_gtp(p, size) for p in fixed_handicap_points(size, stones))


@pytest.mark.parametrize("stones", range(2, 10))
def test_19x19_follows_the_gtp_table(stones: int) -> None:
    assert vertices(19, stones) == GTP_19[stones]


@pytest.mark.parametrize(
    ("size", "stones", "expected"),
    [
        (13, 4, "D4 K10 D10 K4"),  # fourth line from 13x13 up
        (13, 9, "D4 K10 D10 K4 D7 K7 G4 G10 G7"),
        (9, 4, "C3 G7 C7 G3"),  # third line below 13x13
        (9, 5, "C3 G7 C7 G3 E5"),
        (9, 9, "C3 G7 C7 G3 C5 G5 E3 E7 E5"),
        (7, 4, "C3 E5 C5 E3"),
        (8, 4, "C3 F6 C6 F3"),
        (12, 2, "C3 K10"),
        (14, 4, "D4 L11 D11 L4"),
        (25, 9, "D4 W22 D22 W4 D13 W13 N4 N22 N13"),
    ],
)
def test_other_sizes(size: int, stones: int, expected: str) -> None:
    assert vertices(size, stones) == expected


def test_max_handicap() -> None:
    assert [max_handicap(n) for n in range(2, 26)] == (
        [0] * 5 + [4, 4] + [9 if n % 2 else 4 for n in range(9, 26)]
    )


@pytest.mark.parametrize("size", range(2, 26))
def test_every_allowed_handicap_is_well_formed(size: int) -> None:
    top = max_handicap(size)
    assert fixed_handicap_points(size, 0) == []
    for stones in range(2, top + 1):
        points = fixed_handicap_points(size, stones)
        assert len(points) == len(set(points)) == stones
        assert all(0 <= p < size * size for p in points)
        rotated = {size * size - 1 - p for p in points}  # 180 degrees
        if stones != 3:
            assert rotated == set(points)
        if stones in (5, 7, 9):
            assert points[-1] == (size // 2) * size + size // 2  # the centre comes last
        assert points[:2] == fixed_handicap_points(size, 2)
        edge = 2 if size < 13 else 3  # third line below 13x13, fourth line from 13x13 up
        assert row_col(points[0], size) == (size - 1 - edge, edge)  # lower left first
        assert row_col(points[1], size) == (edge, size - 1 - edge)  # then upper right


@pytest.mark.parametrize(
    ("size", "stones", "message"),
    [
        (9, 1, "must be 2..9 stones, got 1"),
        (9, 10, "must be 2..9 stones, got 10"),
        (9, -1, "got -1"),
        (10, 5, "fixed handicap on 10x10 must be 2..4 stones, got 5"),
        (7, 5, "must be 2..4"),
        (6, 2, "on 6x6"),
        (2, 2, "on 2x2"),
    ],
)
def test_bad_handicaps(size: int, stones: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fixed_handicap_points(size, stones)


def test_rules_accept_exactly_the_placeable_handicaps() -> None:
    for size in range(2, 26):
        for stones in range(-1, 11):
            ok = stones == 0 or 2 <= stones <= max_handicap(size)
            if ok:
                assert Rules(size=size, handicap=stones).handicap == stones
            else:
                with pytest.raises(ValueError, match=f"handicap must be .* on {size}x{size}"):
                    Rules(size=size, handicap=stones)
