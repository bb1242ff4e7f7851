"""The heavy playout policy (go_env._core.heavy_playout): tactics, self-atari, seki, validity."""

from __future__ import annotations

import numpy as np
import pytest
from game_support import SEKI
from reference_go import area, chain_of, liberties_of

from go_env import kernels
from go_env._core.board import fills_nakade, is_self_atari, liberties_after
from go_env._core.heavy_playout import tactical_moves
from go_env._core.playout import uniform_move
from go_env.rules import Rules
from go_env.state import Color, GoState


def after_last_move(text: str, last: tuple[int, int], mover: Color = Color.WHITE) -> GoState:
    """The position of ``text`` after ``mover`` plays ``last`` (row, column): the last move."""
    state = GoState.from_ascii(text, to_play=mover)
    state.play(last[0] * state.size + last[1])
    return state


def tactics(state: GoState) -> set[int]:
    compiled = state.compiled()
    out = np.empty(64, dtype=np.int64)
    n = tactical_moves(compiled.vector, compiled.geometry.nbr, compiled.geometry.diag, out)
    return set(out[:n].tolist())


def point(state: GoState, row: int, column: int) -> int:
    return row * state.size + column


def test_the_last_move_in_atari_is_captured() -> None:
    state = after_last_move(
        """
        . X . . .
        . . X . .
        . X . . .
        . . . . .
        . . . . .
        """,
        (1, 1),
    )
    assert tactics(state) == {point(state, 1, 0)}


def test_a_chain_put_in_atari_escapes_where_it_gains_liberties() -> None:
    state = after_last_move(
        """
        . . . . .
        . . O . .
        . O X . .
        . . . . .
        . . . . .
        """,
        (3, 2),
    )
    assert tactics(state) == {point(state, 2, 3)}


def test_no_escape_where_the_extension_keeps_one_liberty() -> None:
    state = after_last_move(
        """
        X . . O .
        . O O . .
        . . . . .
        . . . . .
        . . . . .
        """,
        (1, 0),
    )
    assert tactics(state) == set()


def test_a_chain_in_atari_is_saved_by_capturing_its_attacker_too() -> None:
    state = after_last_move(
        """
        . O X . .
        O X . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        (2, 1),
    )
    assert tactics(state) == {point(state, 0, 0), point(state, 1, 2)}


def test_nothing_answers_a_pass_or_a_quiet_move() -> None:
    state = GoState(Rules(size=5))
    assert tactics(state) == set()
    state.play(point(state, 2, 2))
    assert tactics(state) == set()
    state.play(state.pass_move)
    assert tactics(state) == set()


def liberties_and_self_atari(text: str, move: tuple[int, int], colour: Color) -> tuple[int, bool]:
    state = GoState.from_ascii(text)
    compiled = state.compiled()
    nbr, s = compiled.geometry.nbr, compiled.vector
    p = point(state, *move)
    return liberties_after(s, nbr, p, colour.value), is_self_atari(s, nbr, p, colour.value)


def test_joining_into_one_shared_liberty_is_a_self_atari() -> None:
    # Black (1,1) joins (0,1) and (1,0): their one liberty left is (0,0), which both touch.
    board = """
        . X O . .
        X . O . .
        O O . . .
        . . . . .
        . . . . .
        """
    assert liberties_and_self_atari(board, (1, 1), Color.BLACK) == (1, True)


def test_a_single_stone_with_one_liberty_is_a_throw_in_not_a_self_atari() -> None:
    board = """
        . . X . .
        X X X . .
        . . . . .
        . . . . .
        . . . . .
        """
    assert liberties_and_self_atari(board, (0, 0), Color.WHITE) == (1, False)


def test_a_capture_is_not_a_self_atari() -> None:
    board = """
        . X O . .
        X X O . .
        O O . . .
        . . . . .
        . . . . .
        """
    assert liberties_and_self_atari(board, (0, 0), Color.WHITE) == (2, False)


def final_board(state: GoState, playout: object, seed: int, *nakade: bool) -> list[int]:
    compiled = state.compiled()
    geo = compiled.geometry
    vector = compiled.vector
    rng = kernels.seed_rng(seed)
    playout(vector, geo.nbr, geo.diag, geo.zobrist, compiled.move_limit, rng, *nakade)
    n = state.size
    return vector[kernels.HEADER : kernels.HEADER + n * n].tolist()


@pytest.mark.parametrize("nakade", [False, True])
def test_heavy_playouts_keep_a_seki_that_light_playouts_break(nakade: bool) -> None:
    state = GoState.from_ascii(SEKI)
    seki = [point(state, 0, 1), point(state, 0, 4)]
    colours = [state.color_at(p).value for p in seki]
    light_broken = 0
    for seed in range(100):
        heavy = final_board(state, kernels.heavy_playout, seed, nakade)
        assert [heavy[p] for p in seki] == colours, f"seed {seed}"
        assert heavy[point(state, 0, 3)] == 0
        light = final_board(state, kernels.random_playout, seed)
        light_broken += [light[p] for p in seki] != colours
    assert light_broken > 0


@pytest.mark.parametrize(
    "flags",
    [(False,), (True,), (False, True), (False, True, True)],
    ids=["heavy", "nakade", "patterns", "lowlib"],
)
@pytest.mark.parametrize("seed", range(40))
def test_a_heavy_playout_ends_in_a_legal_position_and_repeats_with_its_seed(
    seed: int, flags: tuple[bool, ...]
) -> None:
    size = 5 + seed % 5
    rng = np.random.default_rng(seed)
    state = GoState(Rules(size=size, komi=0.5))
    for _ in range(int(rng.integers(0, 2 * size * size))):
        if state.is_over:
            break
        state.play(int(rng.choice(state.legal_moves())))
    compiled = state.compiled()
    geo = compiled.geometry
    outcomes = []
    for _ in range(2):
        vector = compiled.vector.copy()
        rng = kernels.seed_rng(seed)
        black, white = kernels.heavy_playout(
            vector, geo.nbr, geo.diag, geo.zobrist, compiled.move_limit, rng, *flags
        )
        outcomes.append((black, white, vector.tolist()))
    assert outcomes[0] == outcomes[1]
    black, white, final_vector = outcomes[0]
    board = final_vector[kernels.HEADER : kernels.HEADER + size * size]
    assert area(board, size) == (black, white)
    for p, colour in enumerate(board):
        if colour:
            assert liberties_of(board, size, chain_of(board, size, p)), f"chain at {p}"
    assert final_vector[kernels.H_PASSES] >= 2 or final_vector[kernels.H_MOVES] >= (
        compiled.move_limit
    )


def nakade_fill(text: str, row: int, column: int) -> tuple[bool, bool]:
    """Black at (row, column) of ``text``: (a self-atari, and a killing fill)."""
    state = GoState.from_ascii(text)
    compiled = state.compiled()
    p = point(state, row, column)
    nbr = compiled.geometry.nbr
    return (
        bool(is_self_atari(compiled.vector, nbr, p, 1)),
        bool(fills_nakade(compiled.vector, nbr, p, 1)),
    )


# Each board is 7x7; Black's move (row, column) is a self-atari of two or more stones.
FILLS = {
    # Captured, the two stones leave a two-point eye: one eye.
    "three-space eye filled to two stones": (
        """
        . . . . . . .
        . O O O O O .
        . O X . . O .
        . O O O O O .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        (2, 3),
        True,
    ),
    # Captured, the square of four leaves a dead square.
    "bulky five filled to a square": (
        """
        . . . . . . .
        . O O O O O .
        . O X . . O .
        . O X X O O .
        . O O O O . .
        . . . . . . .
        . . . . . . .
        """,
        (2, 3),
        True,
    ),
    # Captured, four stones in a row leave a straight four: two eyes for the defender.
    "straight five filled to four": (
        """
        . . . . . . .
        O O O O O O O
        O X X X . . O
        O O O O O O O
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        (2, 4),
        False,
    ),
    # The liberty opens onto an empty point: no enclosed eye space.
    "liberty open to the board": (
        """
        . . . . . . .
        . O O O . O .
        . O X . . O .
        . O O O O O .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        (2, 3),
        False,
    ),
    # Six stones: larger than any shape a fill kills.
    "six stones": (
        """
        O O O O O O O
        O X X X . . O
        O X X O O O O
        O O O O . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        (1, 4),
        False,
    ),
}


@pytest.mark.parametrize("name", FILLS)
def test_a_self_atari_is_a_killing_fill_only_into_a_dead_shape(name: str) -> None:
    board, (row, column), kills = FILLS[name]
    assert nakade_fill(board, row, column) == (True, kills)


def test_only_the_nakade_rule_lets_the_killing_fill_through() -> None:
    # Black's only moves: a throw-in at (1, 3), or the fill at (1, 2) that kills the space.
    state = GoState.from_ascii(
        """
        O O O O O
        O X . . O
        O O O O O
        O . O . O
        O O O O O
        """
    )
    compiled = state.compiled()
    geo = compiled.geometry
    chosen = {False: set(), True: set()}
    for nakade in (False, True):
        for seed in range(40):
            vector = compiled.vector.copy()
            rng = kernels.seed_rng(seed)
            chosen[nakade].add(int(uniform_move(vector, geo.nbr, geo.diag, rng, True, nakade)))
    assert chosen[False] == {point(state, 1, 3)}
    assert chosen[True] == {point(state, 1, 2), point(state, 1, 3)}
