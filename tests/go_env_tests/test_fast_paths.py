"""The environment's fast paths agree with the plain API they replace.

``GoState.advance`` (one compiled call: check, play, record, next legal mask, score) against
``play`` + ``legal_mask`` + ``score``; the legal mask (empty points only, superko look-ups
skipped for moves reaching a new stone count) against ``illegal_reason`` point by point;
``HistoryPlanesHWC`` (planes shifted from the last ones) against ``history_planes_hwc``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from go_env.aec_env import AGENTS, raw_env
from go_env.coords import from_gtp
from go_env.errors import IllegalReason
from go_env.features import HistoryPlanesHWC, history_planes_hwc
from go_env.rules import KoRule, Rules
from go_env.state import Color, GoState


def random_move(state: GoState, rng: random.Random) -> int:
    """A random legal move; pass only when nothing else is legal or once in 20 moves."""
    legal = state.legal_moves()
    if len(legal) > 1 and rng.random() > 0.05:
        legal = legal[:-1]
    return int(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("ko", list(KoRule))
@pytest.mark.parametrize("suicide", [False, True])
def test_legal_mask_agrees_with_illegal_reason(ko: KoRule, suicide: bool) -> None:
    """Every point of every position of random games, small boards (many captures, superko)."""
    positions = captures = superko = 0
    games = [(2, seed) for seed in range(30)] + [(3, 0), (3, 1), (4, 2), (4, 3), (5, 4)]
    for size, seed in games:
        rng = random.Random(seed)
        state = GoState(Rules(size=size, ko=ko, suicide=suicide))
        while not state.is_over:
            reasons = [state.illegal_reason(move) for move in range(size * size + 1)]
            expected = [reason is None for reason in reasons]
            assert state.legal_mask().tolist() == expected, (size, seed, state.history)
            superko += reasons.count(IllegalReason.SUPERKO)
            positions += 1
            state.play(random_move(state, rng))
        captures += state.captures(Color.BLACK) + state.captures(Color.WHITE)
    assert positions > 100 and captures > 20
    assert superko > 0 if ko is not KoRule.SIMPLE else superko == 0


@pytest.mark.parametrize("ko", list(KoRule))
def test_advance_agrees_with_play(ko: KoRule) -> None:
    for size, seed in ((3, 5), (5, 6), (9, 7)):
        rng = random.Random(seed)
        fast = GoState(Rules(size=size, ko=ko, komi=5.5))
        slow = GoState(Rules(size=size, ko=ko, komi=5.5))
        mask = np.empty(size * size + 1, dtype=np.int8)
        while not slow.is_over:
            move = random_move(slow, rng)
            slow.play(move)
            own_mask = rng.random() < 0.5  # else the state keeps the mask for legal_mask()
            result = fast.advance(move, mask if own_mask else None)
            status = 1 if slow.is_terminal else 2 if slow.is_truncated else 0
            assert result == (slow.score(), slow.move_number, status)
            if own_mask:
                np.testing.assert_array_equal(mask, slow.legal_mask())
            np.testing.assert_array_equal(fast.legal_mask(), slow.legal_mask())
            assert not fast.legal_mask().flags.writeable
            assert fast.history == slow.history and fast.zobrist == slow.zobrist
            np.testing.assert_array_equal(fast.recent_boards(3), slow.recent_boards(3))


def test_advance_refuses_illegal_moves_and_changes_nothing() -> None:
    state = GoState(Rules(size=3))
    for vertex in ["C2", "C1", "B2", "A2", "A1", "B1", "A1"]:  # White's C1 next: superko
        state.play(from_gtp(vertex, 3))
    before = (state.history, state.zobrist, state.legal_mask().tolist())
    mask = np.full(10, 7, dtype=np.int8)
    for move, reason in (
        (from_gtp("C1", 3), IllegalReason.SUPERKO),
        (from_gtp("B2", 3), IllegalReason.OCCUPIED),
        (-1, IllegalReason.OFF_BOARD),
        (10, IllegalReason.OFF_BOARD),
    ):
        assert state.advance(move, mask) is None
        assert state.illegal_reason(move) is reason
    assert (state.history, state.zobrist, state.legal_mask().tolist()) == before
    assert (mask == 7).all()  # not written either
    with pytest.raises(ValueError, match="mask must have 10 entries"):
        state.advance(9, np.zeros(9, dtype=np.int8))
    assert state.advance(np.int64(9), mask) is not None  # numpy integers are moves too
    state.advance(9, mask)
    assert state.is_terminal and state.advance(9, mask) is None
    assert state.illegal_reason(9) is IllegalReason.GAME_OVER


def test_advance_after_clones_and_set_up() -> None:
    """Clones share the history arrays until one writes; set-up restarts the history."""
    state = GoState(Rules(size=5))
    mask = np.empty(26, dtype=np.int8)
    state.advance(12, mask)
    clone = state.clone()
    clone.advance(13, mask)
    state.advance(7, mask)
    assert [m for _, m in state.history] == [12, 7]
    assert [m for _, m in clone.history] == [12, 13]
    np.testing.assert_array_equal(state.recent_boards(2)[1], clone.recent_boards(2)[1])
    state.place_stones([0], [24])
    assert state.advance(1, mask) is not None
    np.testing.assert_array_equal(mask, state.legal_mask())
    assert state.recent_boards(3)[2].sum() == 0  # the set-up position is the first one


@pytest.mark.parametrize("k", [1, 2, 3, 8])
def test_history_planes_object_agrees_with_the_function(k: int) -> None:
    """Observed at every move, every other move, after gaps longer than k, and across games."""
    rng = random.Random(k)
    planes = {colour: HistoryPlanesHWC(5, k, colour) for colour in (Color.BLACK, Color.WHITE)}
    for game in range(3):
        state = GoState(Rules(size=5, max_moves=40))
        step = 0
        while not state.is_over:
            colour = (Color.BLACK, Color.WHITE)[rng.randrange(2)]
            if game == 0 or rng.random() < 0.4:
                got = planes[colour](state)
                np.testing.assert_array_equal(got, history_planes_hwc(state, k, colour))
                got[:] = 1  # a new array each time: changing it changes nothing kept
            state.play(random_move(state, rng))
            step += 1
        if game == 1:  # a clone continues the same history arrays
            clone = state.clone()
            for colour, maker in planes.items():
                np.testing.assert_array_equal(maker(clone), history_planes_hwc(clone, k, colour))


def test_history_planes_object_checks_the_size() -> None:
    maker = HistoryPlanesHWC(5, 2, Color.BLACK)
    with pytest.raises(ValueError, match="for 5x5 boards"):
        maker(GoState(Rules(size=6)))
    with pytest.raises(ValueError, match="perspective"):
        HistoryPlanesHWC(5, 2, Color.EMPTY)
    with pytest.raises(ValueError, match="positive int"):
        HistoryPlanesHWC(5, 0, Color.BLACK)


def test_env_mask_follows_a_state_changed_behind_its_back() -> None:
    """The state is documented as read-only; if it is played on anyway, masks stay true."""
    game = raw_env(board_size=5)
    game.reset()
    game.step(12)
    game.unwrapped.game_state.play(13)  # White's move, played on the state directly
    mask = game.observe(AGENTS[1])["action_mask"]  # white_0 is still the env's mover
    np.testing.assert_array_equal(mask, game.unwrapped.game_state.legal_mask())
    assert mask[13] == 0 and mask[12] == 0


def test_advance_takes_any_mask_array() -> None:
    """int8 arrays skip numba's type dispatch once checked; other arrays go through it."""
    masks = {
        "int8": np.empty(26, dtype=np.int8),
        "bool": np.empty(26, dtype=np.bool_),
        "int64": np.empty(26, dtype=np.int64),
        "strided": np.empty(52, dtype=np.int8)[::2],
    }
    for name, mask in masks.items():
        state = GoState(Rules(size=5))
        for move in (12, 13, 7, 25):  # the int8 mask is checked once, then trusted
            assert state.advance(move, mask) is not None
            np.testing.assert_array_equal(mask, state.legal_mask(), err_msg=name)


def test_specialized_kernels_are_compiled_entry_points() -> None:
    """``specialize`` really skips the dispatcher (else the fast paths silently are not)."""
    from go_env._core.fastcall import specialize
    from go_env._core.scoring import area
    from go_env.features import _fast_update
    from go_env.state import _specialize_advance

    state = GoState.from_ascii(
        """
        X X . O O
        . X . O .
        X X . O O
        . . . . .
        . . . . ."""
    )
    vector, nbr = state.compiled().vector, state.compiled().geometry.nbr
    fast = specialize(area, vector, nbr)
    assert fast is not area and fast(vector, nbr) == area(vector, nbr) == (6, 6)
    for entry in (_fast_update(), _specialize_advance(np.int8), _specialize_advance(np.bool_)):
        assert type(entry).__name__ == "builtin_function_or_method"
