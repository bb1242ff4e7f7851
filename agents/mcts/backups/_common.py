"""Helpers shared by the built-in backup strategies: validation and cached binding."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from go_env.validation import check_float, check_int

__all__ = [
    "DEFAULT_BOARD_POINTS",
    "bound_copy",
    "check_knots",
    "check_number",
    "check_simulations",
    "require_bound",
]

DEFAULT_BOARD_POINTS = 81
"""Board points ``S`` assumed when neither a parameter nor the search gives them (9x9, [LL20])."""

S = TypeVar("S")


def check_number(
    owner: str,
    name: str,
    value: object,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
) -> float:
    """Validate a real-valued hyperparameter; return it as a float.

    Args:
        owner: The strategy's name, for the message (``"erwa"``).
        name: The parameter's name.
        value: The value given.
        low: Lower end of the allowed interval.
        high: Upper end of the allowed interval.
        low_open: Exclude ``low`` itself.
        high_open: Exclude ``high`` itself.
        allow_inf: Accept an infinite value when it lies inside the interval.

    Raises:
        ValueError: Naming the parameter, the value and the allowed range.
    """
    left = "(" if low_open else "["
    right = ")" if high_open else "]"
    allowed = f"{left}{low:g}, {high:g}{right}"
    number = check_float(
        f"{owner}: parameter {name!r}", value, finite=False, allowed=f"a number in {allowed}"
    )
    bad = (
        math.isnan(number)
        or (math.isinf(number) and not allow_inf)
        or number < low
        or number > high
        or (low_open and number == low)
        or (high_open and number == high)
    )
    if bad:
        finite = "" if allow_inf else " (finite)"
        raise ValueError(f"{owner}: parameter {name!r} must be in {allowed}{finite}, got {value!r}")
    return number


def check_knots(owner: str, name: str, knots: object) -> tuple[float, ...]:
    """Validate the knot heights ``(g_0, ..., g_d)`` of a function in ``G_d``.

    At least two knots (``d >= 1``); each a real number or ``-inf`` (``exp(g) = 0`` there).

    Raises:
        ValueError: Naming the parameter and the offending knot.
    """
    if isinstance(knots, (str, bytes)) or not hasattr(knots, "__iter__"):
        raise ValueError(
            f"{owner}: parameter {name!r} must be a sequence of at least 2 knot "
            f"heights, got {knots!r}"
        )
    values = tuple(knots)  # type: ignore[call-overload, unused-ignore]
    if len(values) < 2:
        raise ValueError(
            f"{owner}: parameter {name!r} needs at least 2 knot heights "
            f"(g_0..g_d with d >= 1), got {len(values)}"
        )
    out = []
    for index, item in enumerate(values):
        out.append(
            check_number(
                owner,
                f"{name}[{index}]",
                item,
                low=-math.inf,
                high=math.inf,
                high_open=True,
                allow_inf=True,
            )
        )
    return tuple(out)


def check_simulations(owner: str, n_simulations: object) -> int:
    """Validate the search budget ``N`` given to ``bind``."""
    return check_int(
        f"{owner}: bind(n_simulations)", n_simulations, min=1, allowed="a positive int"
    )


def bound_copy(strategy: S, key: Hashable, build: Callable[[], dict[str, Any]]) -> S:
    """A copy of a frozen strategy carrying precomputed attributes, cached per ``key``.

    ``build()`` returns the attributes (tables) to attach. Binding twice with the same key
    returns the same object, so a search that binds before every simulation pays once.
    The attributes live outside the dataclass fields, so equality, hashing and spec strings
    ignore them.
    """
    cache: dict[Hashable, Any] = strategy.__dict__.setdefault("_bind_cache", {})
    hit = cache.get(key)
    if hit is None:
        hit = copy.copy(strategy)
        hit.__dict__["_bind_cache"] = {key: hit}
        for attr, value in build().items():
            object.__setattr__(hit, attr, value)
        cache[key] = hit
    return hit


def require_bound(strategy: object, attr: str, owner: str) -> Any:
    """The bound attribute ``attr``; a clear error if ``bind`` was never called."""
    value = getattr(strategy, attr, None)
    if value is None:
        raise RuntimeError(
            f"{owner}: this backup depends on the simulation budget; call "
            f"strategy.bind(n_simulations) and use the strategy it returns"
        )
    return value
