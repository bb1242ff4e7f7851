"""Argument checks shared by every package: an int, a number or a choice, with a clear error.

The library validates at construction: a bad value raises at once, naming the setting, the
value it got and what is allowed. These functions are that check, written once. They stand
at the bottom layer so that ``go_env``, ``agents`` and ``tuning`` can all use them
(``go_env`` <- ``agents`` <- ``tuning``).

``bool`` is a subclass of ``int`` in Python, so ``isinstance(True, int)`` holds; a flag given
where a count is expected is a mistake, and :func:`check_int` and :func:`check_float` refuse
it. NumPy integers are accepted by :func:`check_int` only when asked (``numpy=True``): most
settings are stored in configs written to JSON, where a NumPy scalar does not belong.

Example::

    from go_env.validation import check_int

    check_int("games", 0, min=1)   # ValueError: games must be an int >= 1, got 0
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import TypeVar

__all__ = ["check_choice", "check_float", "check_int", "describe_range", "shown"]

T = TypeVar("T")

_HUGE_BITS = 128
"""Ints longer than this are shown by their size (``str`` of a 10**5000 fails past 4300
digits, and such a number helps no reader)."""


def shown(value: object) -> str:
    """``repr(value)``, except that a huge int is described by its bit length."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _HUGE_BITS:
        return f"an int of {value.bit_length()} bits"
    return repr(value)


def describe_range(kind: str, low: float | None, high: float | None) -> str:
    """``"an int"``, ``"an int >= 1"``, ``"a number <= 2"`` or ``"an int in [1, 9]"``."""
    if low is not None and high is not None:
        return f"{kind} in [{low}, {high}]"
    if low is not None:
        return f"{kind} >= {low}"
    if high is not None:
        return f"{kind} <= {high}"
    return kind


def check_int(
    name: str,
    value: object,
    *,
    min: int | None = None,
    max: int | None = None,
    allowed: str | None = None,
    numpy: bool = False,
) -> int:
    """``value`` as an int, if it is one (not a bool) within ``[min, max]``.

    Args:
        name: The setting's name, as the caller knows it (first word of the message).
        value: What was given.
        min: Smallest allowed value (``None``: no lower bound).
        max: Largest allowed value (``None``: no upper bound).
        allowed: What is allowed, in words, when the generated ``"an int >= 1"`` says it
            less well (``"a positive int"``).
        numpy: Accept NumPy integers too (returned as a Python int).

    Returns:
        ``value`` (a Python int).

    Raises:
        ValueError: ``"{name} must be {allowed}, got {value!r}"``.
    """
    kinds: tuple[type, ...] = (numbers.Integral,) if numpy else (int,)
    if (
        isinstance(value, bool)
        or not isinstance(value, kinds)
        or (min is not None and value < min)  # type: ignore[operator]
        or (max is not None and value > max)  # type: ignore[operator]
    ):
        what = allowed or describe_range("an int", min, max)
        raise ValueError(f"{name} must be {what}, got {shown(value)}")
    return int(value)  # type: ignore[call-overload]


def check_float(
    name: str,
    value: object,
    *,
    min: float | None = None,
    max: float | None = None,
    finite: bool = True,
    allowed: str | None = None,
) -> float:
    """``value`` as a float, if it is a real number (not a bool) within ``[min, max]``.

    Args:
        name: The setting's name.
        value: What was given (an int or a float; NumPy reals too).
        min: Smallest allowed value (``None``: no lower bound).
        max: Largest allowed value (``None``: no upper bound).
        finite: Refuse infinities and NaN (a NaN never satisfies a bound either).
        allowed: What is allowed, in words, instead of the generated ``"a number >= 0"``.

    Returns:
        ``float(value)``.

    Raises:
        ValueError: ``"{name} must be {allowed}, got {value!r}"``.
    """
    bad = isinstance(value, bool) or not isinstance(value, numbers.Real)
    if not bad:
        try:
            number = float(value)  # type: ignore[arg-type]
        except OverflowError:  # an int beyond the floats
            bad = True
        else:
            bad = (
                (finite and not math.isfinite(number))
                or math.isnan(number)
                or (min is not None and not number >= min)
                or (max is not None and not number <= max)
            )
    if bad:
        what = allowed or describe_range(
            "a finite number" if finite and min is None and max is None else "a number", min, max
        )
        raise ValueError(f"{name} must be {what}, got {shown(value)}")
    return number


def check_choice(name: str, value: T, choices: Iterable[T]) -> T:
    """``value``, if it is one of ``choices``.

    Raises:
        ValueError: ``"{name} must be one of a, b, c; got {value!r}"``.
    """
    options = list(choices)
    if value not in options:
        listed = ", ".join(str(c) for c in options)
        raise ValueError(f"{name} must be one of {listed}; got {shown(value)}")
    return value
