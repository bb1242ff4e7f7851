"""Input planes and legal masks of search leaves, straight from the compiled root positions.

A tree search knows each leaf as its root position plus the moves down to it. The planes of
:mod:`go_env.features` and :mod:`go_env.tactical_features` and the legal mask of
:meth:`GoState.legal_mask <go_env.state.GoState.legal_mask>` are computed here for many
leaves in one compiled call, without building a :class:`~go_env.state.GoState` per leaf:
each leaf's moves are replayed on a copy of its root's state vector, keeping the last ``k``
boards (history planes) and the superko keys of the positions along the way (legal mask).
The results are bit-identical to the Python path (``tests/go_env_tests/test_leaf_features.py``):

* planes ``0 .. 2k``: :func:`go_env.features.history_planes` of the leaf, perspective the
  player to move there;
* with ``tactical``: then the 24 planes of :func:`go_env.tactical_features.tactical_planes`;
* the mask: :meth:`GoState.legal_mask` (suicide, simple ko, positional or situational
  superko against the root's keys and the positions after each move of the path; all False
  once the game is over).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from go_env._core.board import LEGAL, candidate_hash, check_local, play
from go_env._core.layout import H_HASH, H_MOVES, H_PASSES, H_TO_PLAY, HEADER
from go_env.features import PLANE_DTYPE
from go_env.features import num_planes as history_plane_count
from go_env.rules import KoRule
from go_env.tactical_features import TACTICAL_PLANES, _bin
from go_env.validation import check_int

if TYPE_CHECKING:
    from go_env.state import GoState

__all__ = ["LeafRoots", "leaf_inputs"]


@njit(cache=True)
def _in_sorted(keys, start, stop, key):  # pragma: no cover - compiled
    """Whether ``key`` is in the sorted run ``keys[start:stop]``."""
    lo, hi = start, stop
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo < stop and keys[lo] == key


@njit(cache=True)
def _tactical(board, nbr, to_play, legal, last, out, work):  # pragma: no cover - compiled
    """The 24 planes of :func:`go_env.tactical_features.tactical_planes` into ``out (24, P)``.

    The same planes as :func:`go_env.tactical_features._fill` (tested against it), without
    a board copy per legal point: the chains are labelled once with their stones listed,
    and the liberties after a move are the distinct empty or captured points next to the
    move or to the own chains it joins.

    Args:
        board: ``(P,)`` colours.
        nbr: Neighbour table.
        to_play: The player to move (1 or 2).
        legal: ``bool (P,)`` legal points.
        last: The last move's point, or -1.
        out: ``int8 (24, P)`` output, zeroed here.
        work: ``int64 (8, P)`` scratch.
    """
    points = board.shape[0]
    opp = 3 - to_play
    out[:] = 0
    chain_of = work[0]
    libs = work[1]  # per chain representative
    size = work[2]
    members = work[3]  # the stones of each chain, contiguous from start[rep]
    start = work[4]
    mark = work[5]  # liberty / chain stamps
    stack = work[6]
    chain_of[:] = -1
    mark[:] = 0
    stamp = 0
    filled = 0
    for p in range(points):
        if board[p] == 0:
            out[0, p] = 1
            continue
        if chain_of[p] >= 0:
            continue
        colour = board[p]
        stamp += 1
        start[p] = filled
        chain_of[p] = p
        stack[0] = p
        top = 1
        count = 0
        lib = 0
        while top > 0:
            top -= 1
            q = stack[top]
            members[filled + count] = q
            count += 1
            for d in range(4):
                r = nbr[q, d]
                if r < 0:
                    continue
                v = board[r]
                if v == 0:
                    if mark[r] != stamp:
                        mark[r] = stamp
                        lib += 1
                elif v == colour and chain_of[r] < 0:
                    chain_of[r] = p
                    stack[top] = r
                    top += 1
        filled += count
        libs[p] = lib
        size[p] = count
    for p in range(points):
        if board[p] != 0:
            _bin(out, 3, p, libs[chain_of[p]])
    if 0 <= last < points:
        out[1, last] = 1
    seen = work[7]  # per move: the chains next to it (captured, own joined), stamped
    seen[:] = 0
    for p in range(points):
        if not legal[p]:
            continue
        out[2, p] = 1
        stamp += 1
        captured = 0
        for d in range(4):
            q = nbr[p, d]
            if q >= 0 and board[q] == opp:
                h = chain_of[q]
                if libs[h] == 1 and seen[h] != stamp:
                    seen[h] = stamp
                    captured += size[h]
        _bin(out, 17, p, captured)
        # Liberties after the move: empty or captured points next to p or to an own chain
        # that p joins (p itself excluded), counted once each.
        lib_stamp = stamp
        stamp += 1
        joined = stamp
        lib = 0
        for d in range(-1, 4):
            if d < 0:
                first, n = -1, 1  # p itself
            else:
                q = nbr[p, d]
                if q < 0 or board[q] != to_play:
                    continue
                h = chain_of[q]
                if seen[h] == joined:
                    continue
                seen[h] = joined
                first, n = start[h], size[h]
            for i in range(n):
                s = p if first < 0 else members[first + i]
                for e in range(4):
                    r = nbr[s, e]
                    if r < 0 or r == p or mark[r] == joined:
                        continue
                    v = board[r]
                    if v == 0 or (v == opp and seen[chain_of[r]] == lib_stamp):
                        mark[r] = joined
                        lib += 1
        _bin(out, 10, p, lib)


@njit(cache=True)
def leaf_inputs(
    roots,
    recent,
    keys,
    key_start,
    last,
    rules,
    root_of,
    moves,
    depths,
    nbr,
    zob,
    side,
    tactical,
    planes,
    masks,
    given,
):  # pragma: no cover - compiled
    """Planes and legal masks of ``B`` leaves (module docstring).

    Args:
        roots: ``int64 (R, L)`` state vectors of the roots.
        recent: ``int8 (R, k, P)`` each root's last ``k`` boards, newest first (empty boards
            before the start of the game), as :meth:`GoState.recent_boards`.
        keys: ``int64`` the roots' sorted superko keys, one run per root, concatenated.
        key_start: ``int64 (R + 1,)`` root ``r``'s keys are ``keys[key_start[r]:key_start[r+1]]``.
        last: ``int64 (R,)`` each root's last move (``P`` or -1 when none marks a point).
        rules: ``int64 (R, 3)`` each root's ko mode (0 simple, 1 positional superko,
            2 situational superko), suicide allowed (0/1) and move cap.
        root_of: ``int64 (B,)`` the root of each leaf.
        moves: ``int64 (B, D)`` moves from the root to each leaf.
        depths: ``int64 (B,)`` number of moves to each leaf.
        nbr: Neighbour table of the board size.
        zob: Zobrist keys of the board size.
        side: Zobrist keys of the player to move.
        tactical: Whether to append the 24 tactical planes.
        planes: ``int8 (B, C, P)`` output (the planes ``(B, C, N, N)``, points flat),
            ``C = 2k + 1 (+ 24)``.
        masks: ``bool (B, P + 1)`` output; the rows with ``given[b]`` are input: that leaf's
            legal mask, known (a search's expansion of the leaf lists its legal moves).
        given: ``bool (B,)`` which rows of ``masks`` are given.
    """
    count = depths.shape[0]
    k = recent.shape[1]
    points = recent.shape[2]
    length = roots.shape[1]
    s = np.empty(length, dtype=np.int64)
    hist = np.zeros((k, points), dtype=np.int8)
    path_keys = np.empty(moves.shape[1] + 1, dtype=np.int64)
    board = np.empty(points, dtype=np.int8)
    legal = np.empty(points, dtype=np.bool_)
    extra = np.zeros((24, points), dtype=np.int8)  # TACTICAL_PLANES
    work = np.empty((8, points), dtype=np.int64)
    for b in range(count):
        r = root_of[b]
        depth = depths[b]
        ko_mode = rules[r, 0]
        suicide = rules[r, 1] != 0
        move_limit = rules[r, 2]
        s[:] = roots[r]
        for d in range(depth):
            play(s, nbr, zob, moves[b, d])
            if ko_mode == 2:
                path_keys[d] = s[H_HASH] ^ side[s[H_TO_PLAY]]
            else:
                path_keys[d] = s[H_HASH]
            t = depth - 1 - d  # this position is t moves before the leaf
            if t < k:
                for p in range(points):
                    hist[t, p] = s[HEADER + p]
        for t in range(depth, k):
            for p in range(points):
                hist[t, p] = recent[r, t - depth, p]
        own = s[H_TO_PLAY]
        opp = 3 - own
        colour = 1 if own == 1 else 0
        out = planes[b]
        for t in range(k):
            for p in range(points):
                v = hist[t, p]
                out[t, p] = v == own
                out[k + t, p] = v == opp
        for p in range(points):
            out[2 * k, p] = colour
        # The legal mask, as fill_legal_mask of a GoState that played these moves (or the
        # one given: a search that just expanded the leaf has its legal moves).
        over = s[H_PASSES] >= 2 or s[H_MOVES] >= move_limit
        if given[b]:
            for p in range(points):
                legal[p] = masks[b, p]
        else:
            for p in range(points):
                ok = False
                if not over and check_local(s, nbr, p, own, suicide) == LEGAL:
                    ok = True
                    if ko_mode != 0:
                        key = candidate_hash(s, nbr, zob, p, own)
                        if ko_mode == 2:
                            key ^= side[opp]
                        if _in_sorted(keys, key_start[r], key_start[r + 1], key):
                            ok = False
                        else:
                            for d in range(depth):
                                if path_keys[d] == key:
                                    ok = False
                                    break
                legal[p] = ok
                masks[b, p] = ok
            masks[b, points] = not over
        if not tactical:
            continue
        mark = last[r]
        if depth > 0:
            mark = moves[b, depth - 1]
        if mark >= points:
            mark = -1
        for p in range(points):
            board[p] = s[HEADER + p]
        _tactical(board, nbr, own, legal, mark, extra, work)
        first = 2 * k + 1
        for j in range(24):
            for p in range(points):
                out[first + j, p] = extra[j, p]


class LeafRoots:
    """Root positions in slots, and the planes and masks of leaves below them.

    Each slot holds what :func:`leaf_inputs` needs of one root (its state vector, last ``k``
    boards, superko keys, last move and rules); :meth:`fill` then computes the planes and
    masks of leaves given as ``(slot, moves, depth)``. One board size per instance.

    Args:
        size: Board size N.
        history: Positions of history ``k`` of the planes (``2k + 1`` planes).
        tactical: Whether the 24 tactical planes follow.
        slots: Number of root slots.

    Raises:
        ValueError: For a history below 1 or no slot.
    """

    def __init__(self, size: int, history: int, tactical: bool, slots: int = 1) -> None:
        from go_env.kernels import geometry

        check_int("history", history, min=1, allowed="an int >= 1 (positions)")
        check_int("slots", slots, min=1)
        self.size = size
        self.history = history
        self.tactical = bool(tactical)
        self.channels = history_plane_count(history) + (TACTICAL_PLANES if tactical else 0)
        self.points = size * size
        self._geo = geometry(size)
        self._roots: np.ndarray | None = None  # (slots, L), sized at the first root
        self._recent = np.zeros((slots, history, self.points), dtype=PLANE_DTYPE)
        self._slot_keys: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * slots
        self._keys = np.empty(0, dtype=np.int64)
        self._key_start = np.zeros(slots + 1, dtype=np.int64)
        self._keys_stale = False
        self._last = np.full(slots, -1, dtype=np.int64)
        self._rules = np.zeros((slots, 3), dtype=np.int64)
        self.slots = slots
        self._no_given: dict[int, np.ndarray] = {}

    def set_root(self, slot: int, state: GoState) -> None:
        """Put ``state`` (read, not kept) in ``slot``.

        Raises:
            ValueError: For a state of another board size.
        """
        if state.size != self.size:
            raise ValueError(
                f"these leaf planes are for {self.size}x{self.size} boards, got a "
                f"{state.size}x{state.size} position"
            )
        compiled = state.compiled()
        vector = compiled.vector
        if self._roots is None or self._roots.shape[1] != vector.shape[0]:
            self._roots = np.zeros((self.slots, vector.shape[0]), dtype=np.int64)
        self._roots[slot] = vector
        self._recent[slot] = state.recent_boards(self.history).reshape(self.history, -1)
        history = state.history
        self._last[slot] = history[-1][1] if history else -1
        ko = state.rules.ko
        mode = 0 if ko is KoRule.SIMPLE else (2 if ko is KoRule.SITUATIONAL else 1)
        self._rules[slot] = (mode, int(state.rules.suicide), state.rules.move_limit)
        self._slot_keys[slot] = compiled.superko_keys
        self._keys_stale = True

    def fill(
        self,
        root_of: np.ndarray,
        moves: np.ndarray,
        depths: np.ndarray,
        planes: np.ndarray | None = None,
        masks: np.ndarray | None = None,
        given: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(planes int8 (B, C, N, N), masks bool (B, N*N + 1))`` of ``B`` leaves.

        Args:
            root_of: ``int64 (B,)`` the slot of each leaf's root.
            moves: ``int64 (B, D)`` the moves from the root to each leaf.
            depths: ``int64 (B,)`` how many of them.
            planes: ``int8 (B, C, N, N)`` output (a new array by default).
            masks: ``bool (B, N*N + 1)`` output (a new array by default).
            given: ``bool (B,)``: the leaves whose row of ``masks`` already holds their legal
                mask (exactly :meth:`GoState.legal_mask`, e.g. the moves a search's expansion
                gave the leaf); ``None``: none, every mask is computed.

        Raises:
            ValueError: When no root was set.
        """
        if self._roots is None:
            raise ValueError("no root position was set (set_root)")
        if self._keys_stale:
            lengths = [len(k) for k in self._slot_keys]
            self._key_start[1:] = np.cumsum(lengths)
            self._keys = (
                np.concatenate(self._slot_keys) if sum(lengths) else np.empty(0, dtype=np.int64)
            )
            self._keys_stale = False
        count = int(depths.shape[0])
        if planes is None:
            planes = np.empty((count, self.channels, self.size, self.size), dtype=PLANE_DTYPE)
        if masks is None:
            masks = np.empty((count, self.points + 1), dtype=np.bool_)
        if given is None:
            given = self._no_given.get(count)
            if given is None:
                given = self._no_given[count] = np.zeros(count, dtype=np.bool_)
        geo = self._geo
        leaf_inputs(
            self._roots,
            self._recent,
            self._keys,
            self._key_start,
            self._last,
            self._rules,
            root_of,
            moves,
            depths,
            geo.nbr,
            geo.zobrist,
            geo.side,
            self.tactical,
            planes.reshape(count, self.channels, self.points),
            masks,
            given,
        )
        return planes, masks
