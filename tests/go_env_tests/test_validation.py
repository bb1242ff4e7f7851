"""go_env.validation: one check per kind of argument; errors name the value and what is allowed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from go_env.validation import check_choice, check_float, check_int, describe_range


@pytest.mark.parametrize(
    ("kwargs", "value", "message"),
    [
        ({}, True, "n must be an int, got True"),
        ({}, 2.0, "n must be an int, got 2.0"),
        ({}, "3", "n must be an int, got '3'"),
        ({"min": 1}, 0, "n must be an int >= 1, got 0"),
        ({"max": 5}, 6, "n must be an int <= 5, got 6"),
        ({"min": 1, "max": 5}, 9, r"n must be an int in \[1, 5\], got 9"),
        ({"min": 1, "allowed": "a positive int"}, -2, "n must be a positive int, got -2"),
        ({"max": 5}, 10**5000, "n must be an int <= 5, got an int of 16610 bits"),
        ({}, np.int64(3), r"n must be an int, got np.int64\(3\)"),
    ],
    ids=range(9),
)
def test_check_int_refuses_with_the_value_and_what_is_allowed(
    kwargs: dict, value: object, message: str
) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        check_int("n", value, **kwargs)


def test_check_int_returns_the_int() -> None:
    assert check_int("n", 3, min=1, max=3) == 3
    got = check_int("n", np.int32(4), numpy=True)
    assert got == 4 and type(got) is int


@pytest.mark.parametrize(
    ("kwargs", "value", "message"),
    [
        ({}, False, "x must be a finite number, got False"),
        ({}, "1.5", "x must be a finite number, got '1.5'"),
        ({}, math.inf, "x must be a finite number, got inf"),
        ({}, math.nan, "x must be a finite number, got nan"),
        ({"finite": False}, math.nan, "x must be a number, got nan"),
        ({"min": 0}, -0.5, "x must be a number >= 0, got -0.5"),
        ({"min": 0, "max": 1}, 1.5, r"x must be a number in \[0, 1\], got 1.5"),
        ({}, 10**400, "x must be a finite number, got an int of 1329 bits"),
    ],
    ids=range(8),
)
def test_check_float_refuses_with_the_value_and_what_is_allowed(
    kwargs: dict, value: object, message: str
) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        check_float("x", value, **kwargs)


def test_check_float_returns_a_float() -> None:
    assert check_float("x", 2, min=0) == 2.0
    assert check_float("x", math.inf, finite=False) == math.inf


def test_check_choice() -> None:
    assert check_choice("mode", "b", ("a", "b")) == "b"
    with pytest.raises(ValueError, match=r"^mode must be one of a, b; got 'c'$"):
        check_choice("mode", "c", ("a", "b"))


def test_describe_range() -> None:
    assert describe_range("an int", None, None) == "an int"
    assert describe_range("an int", 0, None) == "an int >= 0"
    assert describe_range("a number", None, 1.5) == "a number <= 1.5"
