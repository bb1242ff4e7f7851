"""The compiled kernels of one simulation's descent: select, replay, expand, score.

:func:`descend` walks from the root to a leaf with the tree policy
(:func:`~agents.mcts.selection.select_child`), replaying each move on a copy of the root
position, and stops at a node that is terminal or not expanded. A leaf reached with at least
``expand_visits`` visits (the root always) is expanded there by :func:`expand`: one child per
legal move (suicide, simple ko and superko against the root's keys and the path's; with
``avoid_eyes``, none that fills one's own eye), uniform
priors with a pass weight, in a random order so that ties between equal scores are broken at
random. A finished leaf is scored once by :func:`score_finished` (Tromp-Taylor, or after
removing the dead stones judged by playout ownership, ``docs/decisions/011``) and the result is
cached in ``Tree.terminal``.

The kernels take the tree as one :class:`~agents.mcts.tree.TreeArrays`, the position's tables
as one :class:`Board`, the per-search buffers as one :class:`Scratch`, and the parameters as
the two vectors of :meth:`~agents.mcts.params.SearchParams.kernel_arrays`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from agents.mcts.params import (
    F_C,
    F_FPU,
    F_KOMI,
    F_PASS,
    I_DEAD,
    I_EXPAND,
    I_EYES,
    I_FPU,
    I_KO,
    I_LIMIT,
    I_POLICY,
    I_SOLVER,
    I_SUICIDE,
)
from agents.mcts.selection import select_child
from agents.mcts.tree import TreeArrays, init_child
from go_env.kernels import (
    H_HASH,
    H_MOVES,
    H_P,
    H_PASSES,
    H_TO_PLAY,
    LEGAL,
    area,
    area_without_dead,
    candidate_hash,
    check_local,
    is_own_eye,
    next_random,
    play,
)

__all__ = [
    "DRAWN",
    "EXPANDED",
    "LEAF",
    "LOST",
    "OVER",
    "TERMINAL",
    "WON",
    "Board",
    "Scratch",
    "descend",
    "expand",
    "score_finished",
]

# Status of a descent.
LEAF = 0  # evaluated, not expanded
EXPANDED = 1  # expanded now, then evaluated
TERMINAL = 2  # game over (or proven): exact value

# Tree.terminal codes: 0 not over, 1 over and not yet scored, then the cached exact value for
# the player to move at the node.
OVER, WON, LOST, DRAWN = 1, 2, 3, 4


class Board(NamedTuple):
    """The root position and the geometry tables the kernels replay moves with.

    Attributes:
        root: ``int64 (L,)`` compiled state vector of the root (read-only).
        nbr: Neighbour table of the board.
        diag: Diagonal table of the board.
        zob: Zobrist keys.
        side: Zobrist keys of the player to move (situational superko).
        keys: Sorted superko keys of the positions before the root (empty under simple ko).
    """

    root: np.ndarray
    nbr: np.ndarray
    diag: np.ndarray
    zob: np.ndarray
    side: np.ndarray
    keys: np.ndarray


class Scratch(NamedTuple):
    """Buffers a search reuses between descents.

    Attributes:
        path_keys: ``int64 (D,)`` superko keys of the positions along the path.
        legal: ``int64 (P+1,)`` moves of a new expansion.
        work: ``int64 (L,)`` state vector of the dead-stone playouts.
        owned: ``float64 (P,)`` ownership of the dead-stone playouts.
        out: ``float64 (1,)`` exact value of a terminal leaf.
        rng: ``uint64 (1,)`` generator state of the tie-breaking order and the playouts.
    """

    path_keys: np.ndarray
    legal: np.ndarray
    work: np.ndarray
    owned: np.ndarray
    out: np.ndarray
    rng: np.ndarray


@njit(cache=True)
def expand(t, node, size, s, board, scratch, depth, iparams, pass_weight):  # pragma: no cover
    """Give ``node`` (position ``s``) one child per legal move from index ``size``; new size."""
    points = s[H_P]
    color = s[H_TO_PLAY]
    ko_mode = iparams[I_KO]
    suicide = iparams[I_SUICIDE] != 0
    avoid_eyes = iparams[I_EYES] != 0
    nbr = board.nbr
    zob = board.zob
    root_keys = board.keys
    path_keys = scratch.path_keys
    legal = scratch.legal
    rng = scratch.rng
    side_after = board.side[3 - color] if ko_mode == 2 else 0
    count = 0
    for p in range(points):
        if check_local(s, nbr, p, color, suicide) != LEGAL:
            continue
        if avoid_eyes and is_own_eye(s, nbr, board.diag, p, color):
            continue
        if ko_mode != 0:
            key = candidate_hash(s, nbr, zob, p, color) ^ side_after
            i = np.searchsorted(root_keys, key)
            if i < root_keys.shape[0] and root_keys[i] == key:
                continue
            repeated = False
            for d in range(1, depth + 1):
                if path_keys[d] == key:
                    repeated = True
                    break
            if repeated:
                continue
        legal[count] = p
        count += 1
    legal[count] = points  # pass
    count += 1
    for i in range(count - 1, 0, -1):  # Fisher-Yates shuffle: random tie-breaking order
        j = np.int64((next_random(rng) * np.uint64(i + 1)) >> np.uint64(32))
        legal[i], legal[j] = legal[j], legal[i]
    total = (count - 1) + pass_weight
    point_prior = 1.0 / total if total > 0 else 0.0
    pass_prior = pass_weight / total if total > 0 else 1.0
    passes = s[H_PASSES]
    capped = s[H_MOVES] + 1 >= iparams[I_LIMIT]
    for k in range(count):
        m = legal[k]
        if m == points:
            init_child(t, size + k, node, m, pass_prior, 1 if (passes >= 1 or capped) else 0)
        else:
            init_child(t, size + k, node, m, point_prior, 1 if capped else 0)
    t.first_child[node] = size
    t.n_children[node] = count
    return size + count


@njit(cache=True)
def score_finished(s, board, scratch, iparams, fparams):  # pragma: no cover - compiled
    """The terminal code (``WON``, ``LOST``, ``DRAWN``) of the finished game ``s``.

    Counted by Tromp-Taylor, or, when ``iparams[I_DEAD]`` (the number of ownership playouts)
    is positive and the game ended by two passes, after removing the dead stones.
    """
    if iparams[I_DEAD] > 0 and s[H_PASSES] >= 2:
        black, white = area_without_dead(
            s,
            board.nbr,
            board.diag,
            board.zob,
            iparams[I_DEAD],
            scratch.rng,
            scratch.work,
            scratch.owned,
        )
    else:
        black, white = area(s, board.nbr)
    score = float(black - white) - fparams[F_KOMI]
    if s[H_TO_PLAY] == 2:
        score = -score
    return WON if score > 0 else (LOST if score < 0 else DRAWN)


@njit(cache=True)
def descend(
    t, size, limit, board, s, path, path_moves, scratch, iparams, fparams
):  # pragma: no cover - compiled
    """Select from the root to a leaf, replaying moves on ``s``; expand or score the leaf.

    Args:
        t: The tree (:class:`~agents.mcts.tree.TreeArrays`).
        size: Nodes in use.
        limit: Nodes the arrays may hold (no expansion beyond).
        board: The root position's :class:`Board`.
        s: ``int64 (L,)`` state vector, overwritten with the leaf's position.
        path: ``int64 (D,)`` nodes from the root to the leaf (written).
        path_moves: ``int64 (D,)`` moves from the root to the leaf (written).
        scratch: The search's :class:`Scratch`.
        iparams: Int parameters (slots ``I_*`` of :mod:`agents.mcts.params`).
        fparams: Float parameters (slots ``F_*``).

    Returns:
        ``(depth, size, status)``: the leaf is ``path[depth]``; ``size`` is the new tree size;
        ``status`` is ``LEAF``, ``EXPANDED`` or ``TERMINAL`` (the game is over at the leaf, or
        the solver proved it; ``scratch.out[0]`` then holds the exact value for the player to
        move there).
    """
    s[:] = board.root
    policy = iparams[I_POLICY]
    fpu_mode = iparams[I_FPU]
    solver = iparams[I_SOLVER] != 0
    ko_mode = iparams[I_KO]
    c = fparams[F_C]
    fpu_value = fparams[F_FPU]
    first_child, terminal, proven = t.first_child, t.terminal, t.proven
    path_keys = scratch.path_keys
    nbr, zob, side = board.nbr, board.zob, board.side
    node = 0
    depth = 0
    path[0] = 0
    while first_child[node] >= 0 and terminal[node] == 0 and not (solver and proven[node] != 0):
        node = select_child(t, node, policy, c, fpu_mode, fpu_value, solver)
        mv = t.move[node]
        play(s, nbr, zob, mv)
        path_moves[depth] = mv
        depth += 1
        path[depth] = node
        if ko_mode == 2:
            path_keys[depth] = s[H_HASH] ^ side[s[H_TO_PLAY]]
        elif ko_mode == 1:
            path_keys[depth] = s[H_HASH]
    out = scratch.out
    if terminal[node] != 0:
        if terminal[node] == OVER:
            terminal[node] = score_finished(s, board, scratch, iparams, fparams)
        code = terminal[node]
        out[0] = 1.0 if code == WON else (-1.0 if code == LOST else 0.0)
        return depth, size, TERMINAL
    if solver and proven[node] != 0:  # a proven node is a leaf with a known result
        out[0] = -float(proven[node])
        return depth, size, TERMINAL
    if (node == 0 or t.visits[node] >= iparams[I_EXPAND]) and size + s[H_P] + 1 <= limit:
        size = expand(t, node, size, s, board, scratch, depth, iparams, fparams[F_PASS])
        return depth, size, EXPANDED
    return depth, size, LEAF


@njit(cache=True)
def descend_packed(
    t, size, limit, board, s, path, path_moves, scratch, iparams, fparams
):  # pragma: no cover - compiled
    """:func:`descend` with the tree, the board and the scratch buffers as plain tuples.

    ``t``, ``board`` and ``scratch`` are ``tuple(TreeArrays)``, ``tuple(Board)`` and
    ``tuple(Scratch)``: the same arrays in field order, named again here in compiled code, where
    it costs nothing. The search calls this once per simulation because numba's dispatcher
    types a plain tuple argument about twice as fast as a ``NamedTuple`` (``descend``'s
    arguments: 2.1 against 4.3 us a call, ``docs/performance.md``).
    """
    return descend(
        TreeArrays(*t),
        size,
        limit,
        Board(*board),
        s,
        path,
        path_moves,
        Scratch(*scratch),
        iparams,
        fparams,
    )
