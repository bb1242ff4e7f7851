"""Compiled leaf planes and masks equal the Python features of the replayed positions.

:class:`go_env.leaf_features.LeafRoots` computes a search leaf's input planes and legal mask
from its root's compiled state and the moves down to it. Compared here, bit for bit, with
:func:`agents.nets.features.input_planes` and :meth:`GoState.legal_mask` of the same leaf
built as a :class:`GoState`, on many random positions: board sizes, history lengths, with
and without the tactical planes, every ko rule, suicide allowed or not, handicap, leaves at
the root and below, finished games.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.nets.features import input_planes
from go_env.leaf_features import LeafRoots
from go_env.rules import KoRule, Rules
from go_env.state import GoState


def _random_game(rng: np.random.Generator, rules: Rules, moves: int) -> GoState:
    state = GoState(rules)
    for _ in range(moves):
        if state.is_over:
            break
        legal = state.legal_moves()
        # mostly points, now and then a pass (never two in a row from here)
        points = legal[:-1]
        if len(points) and rng.random() > 0.05:
            state.play(int(rng.choice(points)))
        else:
            state.play(state.pass_move)
    return state


def _leaves(
    rng: np.random.Generator, root: GoState, count: int, deepest: int
) -> list[tuple[GoState, list[int]]]:
    out = []
    for _ in range(count):
        state = root.clone()
        path: list[int] = []
        for _ in range(int(rng.integers(0, deepest + 1))):
            if state.is_over:
                break
            legal = state.legal_moves()
            move = int(rng.choice(legal)) if rng.random() > 0.1 else state.pass_move
            state.play(move)
            path.append(move)
        out.append((state, path))
    return out


CASES = [
    (5, KoRule.POSITIONAL, False, 0),
    (5, KoRule.SITUATIONAL, True, 0),
    (5, KoRule.SIMPLE, True, 0),
    (7, KoRule.POSITIONAL, False, 2),
    (9, KoRule.SITUATIONAL, False, 0),
    (9, KoRule.POSITIONAL, False, 0),
]


@pytest.mark.parametrize(("size", "ko", "suicide", "handicap"), CASES)
@pytest.mark.parametrize(("history", "tactical"), [(1, False), (5, True), (3, True), (8, False)])
def test_leaf_planes_and_masks_equal_the_python_features(
    size: int, ko: KoRule, suicide: bool, handicap: int, history: int, tactical: bool
) -> None:
    rng = np.random.default_rng([size, history, int(tactical), len(ko.value), handicap])
    rules = Rules(size=size, ko=ko, suicide=suicide, handicap=handicap, max_moves=3 * size * size)
    roots = LeafRoots(size, history, tactical, slots=3)
    compared = 0
    for trial in range(4):
        games = [_random_game(rng, rules, int(rng.integers(0, 3 * size * size))) for _ in range(3)]
        games = [g if not g.is_over else GoState(rules) for g in games]
        leaves: list[tuple[int, GoState, list[int]]] = []
        for slot, game in enumerate(games):
            roots.set_root(slot, game)
            leaves += [(slot, s, p) for s, p in _leaves(rng, game, 6, 2 * history + 3)]
        depth = max(len(p) for _, _, p in leaves) + 1
        moves = np.zeros((len(leaves), depth), dtype=np.int64)
        for b, (_, _, path) in enumerate(leaves):
            moves[b, : len(path)] = path
        root_of = np.array([slot for slot, _, _ in leaves], dtype=np.int64)
        depths = np.array([len(p) for _, _, p in leaves], dtype=np.int64)
        planes, masks = roots.fill(root_of, moves, depths)
        for b, (_, state, _) in enumerate(leaves):
            want = input_planes(state, history, tactical)
            assert planes[b].dtype == want.dtype
            np.testing.assert_array_equal(planes[b], want, err_msg=f"trial {trial} leaf {b}")
            np.testing.assert_array_equal(masks[b], state.legal_mask())
            compared += 1
    assert compared == 4 * 18


def test_superko_masks_are_those_of_the_game() -> None:
    """A position where superko forbids a recapture that simple ko allows."""
    rng = np.random.default_rng(3)
    differ = 0
    for ko in (KoRule.POSITIONAL, KoRule.SITUATIONAL):
        rules = Rules(size=4, ko=ko, max_moves=200)
        simple = Rules(size=4, ko=KoRule.SIMPLE, max_moves=200)
        roots = LeafRoots(4, 1, False, slots=1)
        for _ in range(60):
            game = _random_game(rng, rules, int(rng.integers(10, 60)))
            if game.is_over:
                continue
            roots.set_root(0, game)
            for state, path in _leaves(rng, game, 4, 6):
                moves = np.array([[*path, 0]], dtype=np.int64)
                _, masks = roots.fill(
                    np.zeros(1, dtype=np.int64), moves, np.array([len(path)], dtype=np.int64)
                )
                np.testing.assert_array_equal(masks[0], state.legal_mask())
                replay = GoState(simple)
                for _, move in state.history:
                    replay.play_unsafe(move)
                differ += int(not np.array_equal(replay.legal_mask(), masks[0]))
    assert differ > 0  # the positions did exercise superko


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="history"):
        LeafRoots(9, 0, False)
    with pytest.raises(ValueError, match="slots"):
        LeafRoots(9, 1, False, slots=0)
    roots = LeafRoots(9, 1, False)
    with pytest.raises(ValueError, match="no root"):
        roots.fill(np.zeros(1, np.int64), np.zeros((1, 1), np.int64), np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="9x9"):
        roots.set_root(0, GoState(Rules(size=5)))
