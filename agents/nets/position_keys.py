"""128-bit keys of network inputs, for the evaluator's cache: one compiled pass over the rows.

A network's output for a position depends on its input planes and legal mask only (up to the
symmetry drawn), so :class:`~agents.nets.evaluator.NetEvaluator` caches results under a key of
those bytes. :func:`row_keys` computes the keys of a whole batch in one compiled call: two
independent 64-bit lanes, each mixing the row (the planes' bytes, then the mask's, each
padded with zeros to whole words) 8 bytes at a time with a multiply-rotate step and ending
with the SplitMix64 finaliser (Sebastiano Vigna, *Further scramblings of
Marsaglia's xorshift generators*, 2017), the length mixed in. Two rows with different bytes
share a key with probability about ``2**-128`` per pair, far below any cache's reach.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["row_keys"]

_P1 = np.uint64(0x9E3779B97F4A7C15)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)
_P3 = np.uint64(0x165667B19E3779F9)
_P4 = np.uint64(0xD6E8FEB86659FD93)
_S1 = np.uint64(0x243F6A8885A308D3)
_S2 = np.uint64(0x13198A2E03707344)


@njit(cache=True, inline="always")
def _rotl(x, r):  # pragma: no cover - compiled
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@njit(cache=True, inline="always")
def _finish(h):  # pragma: no cover - compiled
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return h


@njit(cache=True, inline="always")
def _word(row, i):  # pragma: no cover - compiled
    """Bytes ``row[i : i + 8]`` as one little-endian word."""
    w = np.uint64(0)
    for j in range(8):
        w |= np.uint64(row[i + j]) << np.uint64(8 * j)
    return w


@njit(cache=True, inline="always")
def _mix(h1, h2, w):  # pragma: no cover - compiled
    return _rotl(h1 ^ (w * _P1), 31) * _P2, _rotl(h2 ^ (w * _P3), 29) * _P4


@njit(cache=True, inline="always")
def _absorb(h1, h2, row):  # pragma: no cover - compiled
    """Mix the bytes of ``row`` into both lanes, 8 at a time, the last word zero-padded."""
    n = row.shape[0]
    full = n - n % 8
    for i in range(0, full, 8):
        h1, h2 = _mix(h1, h2, _word(row, i))
    tail = np.uint64(0)
    for i in range(full, n):
        tail |= np.uint64(row[i]) << np.uint64(8 * (i - full))
    return _mix(h1, h2, tail)


@njit(cache=True)
def _keys(planes, masks, out):  # pragma: no cover - compiled
    """``out[b] = (lane 1, lane 2)`` of the bytes of ``planes[b]`` then ``masks[b]``."""
    m = planes.shape[1]
    a = masks.shape[1]
    for b in range(planes.shape[0]):
        h1, h2 = _absorb(_S1, _S2, planes[b])
        h1, h2 = _absorb(h1, h2, masks[b])
        out[b, 0] = _finish(h1 ^ np.uint64(m + a))
        out[b, 1] = _finish(h2 ^ np.uint64(m + a))


def row_keys(planes: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``uint64 (B, 2)``: the key of each row of ``planes (B, ...)`` (int8) and ``masks (B, A)``.

    Raises:
        ValueError: When the two disagree on the number of rows.
    """
    count = planes.shape[0]
    if masks.shape[0] != count:
        raise ValueError(f"{count} rows of planes but {masks.shape[0]} rows of masks")
    out = np.empty((count, 2), dtype=np.uint64)
    _keys(
        np.ascontiguousarray(planes).reshape(count, -1).view(np.uint8),
        np.ascontiguousarray(masks).view(np.uint8).reshape(count, -1),
        out,
    )
    return out
