"""Calling a compiled kernel without numba's per-call type dispatch.

Calling a numba dispatcher works out the numba type of every argument and looks up the
matching compiled version before running it: about 50 ns per argument, more than the kernels
of the environment's hot path take for a small board. :func:`specialize` returns the compiled
version for one fixed list of argument types, which skips that work (a call with ten arguments
costs about half as much).

The price is that nothing checks the arguments any more: an array of another dtype, number of
dimensions or layout than the examples is read as if it had theirs (wrong values or a crash).
Use it only where every argument is made by this package with exactly the example's type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import typeof

__all__ = ["is_plain_int8", "specialize"]


def is_plain_int8(value: object, ndim: int) -> bool:
    """Whether ``value`` is a plain writeable C-contiguous ``int8`` array of ``ndim`` dimensions.

    The array type a :func:`specialize`-d kernel compiled for such an example accepts
    (subclasses, views of other layouts and read-only arrays are not).
    """
    return (
        type(value) is np.ndarray
        and value.dtype == np.int8
        and value.ndim == ndim
        and value.flags.c_contiguous
        and value.flags.writeable
    )


def specialize(dispatcher: Any, *examples: object) -> Callable[..., Any]:
    """The compiled function of ``dispatcher`` for the numba types of ``examples``.

    Compiles it (or loads it from numba's cache) if needed.

    Args:
        dispatcher: An ``@njit`` function.
        examples: One value per argument, of exactly the types of the later calls' arguments
            (for arrays: dtype, number of dimensions, layout and read-only flag).

    Returns:
        The compiled entry point; it must only be called with arguments of those types. The
        dispatcher itself when numba gives no entry point (a slower call, same results).
    """
    entry = dispatcher.compile(tuple(typeof(value) for value in examples))
    return entry if callable(entry) else dispatcher
