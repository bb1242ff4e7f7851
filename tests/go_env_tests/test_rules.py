"""Rules of Go as played by GoState: captures, suicide, ko, superko, scoring, game end."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from game_support import play

from go_env.coords import from_gtp
from go_env.errors import GoError, IllegalMoveError, IllegalReason
from go_env.handicap import fixed_handicap_points
from go_env.rules import KoRule, Rules
from go_env.state import Color, GoState

BoardFactory = Callable[..., GoState]


def reason(state: GoState, vertex: str) -> IllegalReason | None:
    return state.illegal_reason(from_gtp(vertex, state.size))


def rendered(text: str) -> str:
    """An ASCII board as ``GoState.to_ascii`` renders it."""
    return GoState.from_ascii(text).to_ascii()


def refused(state: GoState, vertex: str) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as info:
        play(state, vertex)
    return info.value


# ----------------------------------------------------------------------------- captures
def test_single_stone_capture_in_the_centre(board: BoardFactory) -> None:
    s = board("""
        . . . . .
        . . X . .
        . X O X .
        . . . . .
        . . . . .
    """)
    play(s, "C2")
    assert s.to_ascii() == rendered("""
        . . . . .
        . . X . .
        . X . X .
        . . X . .
        . . . . .
    """)
    assert s.captures(Color.BLACK) == 1
    assert s.captures(Color.WHITE) == 0
    assert s.color_at(from_gtp("C3", 5)) is Color.EMPTY


def test_one_move_captures_four_chains_at_once(board: BoardFactory) -> None:
    s = board("""
        . X O X .
        X O . O X
        . X O X .
        . . X . .
        . . . . .
    """)
    play(s, "C4")
    assert s.to_ascii() == rendered("""
        . X . X .
        X . X . X
        . X . X .
        . . X . .
        . . . . .
    """)
    assert s.captures(Color.BLACK) == 4
    assert s.liberties(from_gtp("C4", 5)) == 4
    assert s.ko_point is None  # four stones taken: no ko


def test_edge_and_corner_captures(board: BoardFactory) -> None:
    s = board("""
        . X O X .
        . . . . .
        . . . . .
        . . . . .
        O X . . .
    """)
    play(s, "C4")  # edge: the white stone on C5 loses its last liberty
    assert s.color_at(from_gtp("C5", 5)) is Color.EMPTY
    play(s, "pass", "A2")  # corner: A1 had one liberty left
    assert s.to_ascii() == rendered("""
        . X . X .
        . . X . .
        . . . . .
        X . . . .
        . X . . .
    """)
    assert s.captures(Color.BLACK) == 2
    assert s.captures(Color.WHITE) == 0


def test_capturing_a_large_chain(board: BoardFactory) -> None:
    s = board("""
        O O O O X
        O O O O X
        X X X . X
        . . . X .
        . . . . .
    """)
    assert s.liberties(from_gtp("A5", 5)) == 1
    assert len(s.chain(from_gtp("A5", 5))) == 8
    play(s, "D3")
    assert s.to_ascii() == rendered("""
        . . . . X
        . . . . X
        X X X X X
        . . . X .
        . . . . .
    """)
    assert s.captures(Color.BLACK) == 8
    assert s.score() == pytest.approx(25 - 7.5)  # the whole board is Black's area


def test_capture_beats_suicide_when_the_last_liberty_is_shared(board: BoardFactory) -> None:
    s = board("""
        . O X .
        O X . .
        X . . .
        . . . .
    """)
    assert reason(s, "A4") is None  # no liberty of its own, but it captures A3 and B4 first
    play(s, "A4")
    assert s.to_ascii() == rendered("""
        X . X .
        . X . .
        X . . .
        . . . .
    """)
    assert s.captures(Color.BLACK) == 2
    assert s.liberties(from_gtp("A4", 4)) == 2


# ------------------------------------------------------------------------------ suicide
SINGLE_SUICIDE = """
    . O . .
    O . . .
    . . . .
    . . . .
"""
MULTI_SUICIDE = """
    X . O .
    X O . .
    O . . .
    . . . .
"""


def test_single_stone_suicide_is_illegal_by_default(board: BoardFactory) -> None:
    s = board(SINGLE_SUICIDE)
    err = refused(s, "A4")
    assert err.reason is IllegalReason.SUICIDE
    assert err.move == 0
    assert "suicide" in str(err) and "A4" in str(err)
    assert not s.legal_mask()[0]
    assert s.move_number == 0 and s.to_play is Color.BLACK  # nothing happened


def test_multi_stone_suicide_is_illegal_by_default(board: BoardFactory) -> None:
    s = board(MULTI_SUICIDE)
    assert reason(s, "B4") is IllegalReason.SUICIDE
    assert reason(s, "B4") is IllegalReason.SUICIDE  # asking twice changes nothing
    assert not s.is_legal(from_gtp("B4", 4))


def test_multi_stone_suicide_allowed_removes_the_chain(board: BoardFactory) -> None:
    s = board(MULTI_SUICIDE, suicide=True)
    play(s, "B4")
    assert s.to_ascii() == rendered("""
        . . O .
        . O . .
        O . . .
        . . . .
    """)
    assert s.captures(Color.WHITE) == 3  # the prisoners go to the opponent
    assert s.captures(Color.BLACK) == 0
    assert s.to_play is Color.WHITE
    assert s.history == ((Color.BLACK, from_gtp("B4", 4)),)


@pytest.mark.parametrize("ko", [KoRule.SIMPLE, KoRule.SITUATIONAL])
def test_single_stone_suicide_allowed_leaves_the_board_unchanged(
    board: BoardFactory, ko: KoRule
) -> None:
    s = board(SINGLE_SUICIDE, suicide=True, ko=ko)
    before = s.board
    play(s, "A4")
    np.testing.assert_array_equal(s.board, before)
    assert s.captures(Color.WHITE) == 1
    assert s.to_play is Color.WHITE
    assert s.consecutive_passes == 0  # a suicide is a move, not a pass


def test_single_stone_suicide_repeats_the_position_under_positional_superko(
    board: BoardFactory,
) -> None:
    """Positional superko forbids it (same board); situational allows it (other player to move)."""
    s = board(SINGLE_SUICIDE, suicide=True, ko=KoRule.POSITIONAL)
    assert refused(s, "A4").reason is IllegalReason.SUPERKO


# ----------------------------------------------------------------------------------- ko
KO = """
    . . . . .
    . X O . .
    X O . O .
    . X O . .
    . . . . .
"""


@pytest.mark.parametrize("ko", list(KoRule))
def test_simple_ko_recapture_refused_then_allowed_after_a_threat(
    board: BoardFactory, ko: KoRule
) -> None:
    s = board(KO, ko=ko)
    play(s, "C3")  # Black takes the ko
    assert s.ko_point == from_gtp("B3", 5)
    err = refused(s, "B3")
    assert err.reason is IllegalReason.KO
    assert "ko" in str(err) and "B3" in str(err)
    assert not s.legal_mask()[from_gtp("B3", 5)]
    play(s, "E1", "E2")  # a ko threat and its answer
    assert s.ko_point is None
    play(s, "B3")  # White takes back
    assert s.to_ascii() == rendered("""
        . . . . .
        . X O . .
        X O . O .
        . X O . X
        . . . . O
    """)
    assert s.color_at(from_gtp("C3", 5)) is Color.EMPTY
    assert s.color_at(from_gtp("B3", 5)) is Color.WHITE
    assert s.captures(Color.BLACK) == 1 and s.captures(Color.WHITE) == 1
    assert s.ko_point == from_gtp("C3", 5)  # and now Black may not retake at once


def test_ko_point_is_cleared_by_a_pass(board: BoardFactory) -> None:
    s = board(KO, ko=KoRule.SIMPLE)
    play(s, "C3", "pass")
    assert s.ko_point is None
    play(s, "pass")  # Black passes too: the game is over
    assert s.is_terminal


def test_capturing_one_stone_with_a_connected_stone_is_not_a_ko(board: BoardFactory) -> None:
    s = board("""
        . . . . .
        . X O . .
        X O . O .
        . X X . .
        . . . . .
    """)
    play(s, "C3")  # C3 joins C2: the capturing chain has two stones
    assert s.ko_point is None
    assert reason(s, "B3") is IllegalReason.SUICIDE


# ----------------------------------------------------------------------- superko cycles
TRIPLE_KO = """
    . X O . . . O X .
    X O . O . O X . X
    . X O . . . O X .
    . . . . . . . . .
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""
# Black takes ko 1, White ko 2, Black ko 3; then each takes back in turn: no move is an
# immediate recapture, and White's last move recreates the starting position.
TRIPLE_KO_CYCLE = ("C8", "H8", "C4", "B8", "G8")


@pytest.mark.parametrize("ko", [KoRule.POSITIONAL, KoRule.SITUATIONAL])
def test_triple_ko_cycle_is_refused_under_superko(board: BoardFactory, ko: KoRule) -> None:
    s = board(TRIPLE_KO, ko=ko)
    start = s.board
    seen = {s.zobrist}
    for vertex in TRIPLE_KO_CYCLE:
        play(s, vertex)
        assert s.zobrist not in seen  # five new positions
        seen.add(s.zobrist)
    assert s.ko_point == from_gtp("H8", 9)  # not B4: B4 is no simple-ko recapture
    err = refused(s, "B4")
    assert err.reason is IllegalReason.SUPERKO
    assert "superko" in str(err)
    assert not s.legal_mask()[from_gtp("B4", 9)]
    assert s.legal_mask()[s.pass_move]
    assert not np.array_equal(s.board, start)


def test_triple_ko_cycle_is_allowed_under_simple_ko(board: BoardFactory) -> None:
    s = board(TRIPLE_KO, ko=KoRule.SIMPLE)
    start = s.board
    start_hash = s.zobrist
    play(s, *TRIPLE_KO_CYCLE, "B4")
    np.testing.assert_array_equal(s.board, start)
    assert s.zobrist == start_hash
    assert s.to_play is Color.BLACK
    assert s.captures(Color.BLACK) == 3 and s.captures(Color.WHITE) == 3
    play(s, *TRIPLE_KO_CYCLE)  # and round again
    assert s.move_number == 11


def test_positional_and_situational_superko_differ_after_a_pass() -> None:
    """A real 2x2 game: a board seen with Black to move comes back with White to move.

    After 1. B2 2. A1 the board is ``.X/O.`` with Black to move. Black later recreates that
    board by playing B2 again, which leaves White to move: a repetition of the board
    (positional superko forbids it) but not of the situation (situational superko allows it).
    """
    for ko, expected in (
        (KoRule.POSITIONAL, IllegalReason.SUPERKO),
        (KoRule.SITUATIONAL, None),
        (KoRule.SIMPLE, None),
    ):
        s = GoState(Rules(size=2, ko=ko))
        play(s, "B2", "A1", "B1", "pass", "A2")  # A2 captures A1
        assert s.to_ascii() == rendered("X X\n. X")
        play(s, "A1")  # White's A1 takes the whole black chain
        assert s.to_ascii() == rendered(". .\nO .")
        assert s.to_play is Color.BLACK
        assert reason(s, "B2") is expected, ko
        if expected is None:
            play(s, "B2")
            assert s.to_ascii() == rendered(". X\nO .")


# ------------------------------------------------------------------------------ snapback
def test_snapback_recaptures_the_larger_chain(board: BoardFactory) -> None:
    s = board("""
        X O . . X . .
        X O O O X . .
        X X X X . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """)
    play(s, "C7")  # the throw-in: one stone in atari, White's chain too
    assert s.liberties(from_gtp("B7", 7)) == 1
    play(s, "D7")  # White takes the stone...
    assert s.captures(Color.WHITE) == 1
    assert s.ko_point is None
    assert s.liberties(from_gtp("D7", 7)) == 1
    play(s, "C7")  # ...and Black takes back five
    assert s.to_ascii() == rendered("""
        X . X . X . .
        X . . . X . .
        X X X X . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """)
    assert s.captures(Color.BLACK) == 5


# ------------------------------------------------------------------------------ scoring
def test_seki_shared_liberties_are_neutral(board: BoardFactory) -> None:
    text = """
        X . O . X
        X O O O X
        X X X X X
        O O O O O
        . . . . .
    """
    s = board(text, komi=0)
    # Black: 9 stones. White: 9 stones + 5 points of row 1. B5 and D5 touch both: neutral.
    assert s.score() == 9 - 14
    play(s, "pass", "pass")
    assert s.winner is Color.WHITE and s.result() == "W+5"
    # Why it is seki: whoever fills a shared liberty puts their own chain in atari.
    s = board(text, komi=0)
    play(s, "B5")
    assert s.liberties(from_gtp("A5", 5)) == 1
    play(s, "D5")
    assert s.captures(Color.WHITE) == 10


def test_seki_with_eyes_under_tromp_taylor(board: BoardFactory) -> None:
    """Eyes of groups in seki are area of their owner; the shared liberty C7 is neutral."""
    text = """
        . X . O . O X
        X X X O O O X
        O O O X X X X
        O O O X X X X
        O . O X . X .
        O O O X X X X
        . O O X . X .
    """
    s = board(text, komi=0)
    assert s.score() == (22 + 5) - (18 + 3)
    assert board(text, komi=6).result() == "0"
    play(s, "C7")  # filling the shared liberty is self-atari
    play(s, "A7")
    assert s.captures(Color.WHITE) == 5


def test_empty_board_and_lone_stone_scores() -> None:
    s = GoState(Rules(size=5, komi=7.5))
    assert s.score() == -7.5  # empty board: nobody's area
    play(s, "C3")
    assert s.score() == 25 - 7.5  # every empty point reaches Black only
    play(s, "D3")
    assert s.score() == -7.5  # every empty region reaches both colours


def test_area_owners_give_each_point_to_its_stone_or_its_regions_only_colour() -> None:
    s = GoState.from_ascii(
        """
        . X O . .
        X X O . .
        . X O O .
        X . X O .
        . X . O .
        """,
        Rules(size=5, komi=0.5),
    )
    expected = """
        X X O O O
        X X O O O
        X X O O O
        X X X O O
        X X . O O
    """  # C1 touches both colours: neither's
    owners = s.area_owners().reshape(5, 5)
    rows = [line.split() for line in expected.strip().splitlines()]
    assert owners.tolist() == [[{"X": 1, "O": -1, ".": 0}[ch] for ch in row] for row in rows]
    assert int(owners.sum()) == s.score() + 0.5


HALVES = """
    . X O .
    . X O .
    . X O .
    . X O .
"""


@pytest.mark.parametrize(
    ("komi", "winner", "result"),
    [
        (0, Color.EMPTY, "0"),
        (0.0, Color.EMPTY, "0"),
        (2, Color.WHITE, "W+2"),
        (0.5, Color.WHITE, "W+0.5"),
        (-0.5, Color.BLACK, "B+0.5"),
    ],
)
def test_komi_and_draws(board: BoardFactory, komi: float, winner: Color, result: str) -> None:
    s = board(HALVES, komi=komi)
    assert s.winner is None  # not over yet
    play(s, "pass", "pass")
    assert s.score() == -komi
    assert s.winner is winner
    assert s.result() == result


# ------------------------------------------------------------------------ game end
def test_two_consecutive_passes_end_the_game() -> None:
    s = GoState(Rules(size=5))
    play(s, "pass")
    assert s.consecutive_passes == 1 and not s.is_terminal and not s.is_over
    play(s, "pass")
    assert s.is_terminal and s.is_over and not s.is_truncated
    assert s.consecutive_passes == 2
    assert not s.legal_mask().any()
    assert s.legal_moves().size == 0
    for move in (0, 12, s.pass_move):
        assert s.illegal_reason(move) is IllegalReason.GAME_OVER
        with pytest.raises(IllegalMoveError, match="game over") as info:
            s.play(move)
        assert info.value.reason is IllegalReason.GAME_OVER
    assert s.move_number == 2


def test_a_move_after_a_pass_resets_the_pass_count() -> None:
    s = GoState(Rules(size=5))
    play(s, "pass", "C3")
    assert s.consecutive_passes == 0
    play(s, "pass", "D3", "pass")
    assert not s.is_over
    play(s, "pass")
    assert s.is_terminal
    assert [m for _, m in s.history].count(s.pass_move) == 4


def test_move_cap_truncates_the_game() -> None:
    s = GoState(Rules(size=5, max_moves=4, komi=0.5))
    play(s, "C3", "D3", "C2")
    assert not s.is_over and s.winner is None
    play(s, "D2")
    assert s.is_truncated and not s.is_terminal and s.is_over
    assert not s.legal_mask().any()
    assert s.illegal_reason(s.pass_move) is IllegalReason.GAME_OVER
    with pytest.raises(IllegalMoveError) as info:
        play(s, "A1")
    assert info.value.reason is IllegalReason.GAME_OVER
    assert s.winner is Color.WHITE  # equal areas (neither side has empty area), komi 0.5


def test_two_passes_at_the_move_cap_are_terminal_not_truncated() -> None:
    s = GoState(Rules(size=3, max_moves=3))
    play(s, "B2", "pass", "pass")
    assert s.is_terminal and not s.is_truncated and s.is_over


def test_default_move_cap_is_two_n_squared() -> None:
    s = GoState(Rules(size=2))
    assert s.rules.move_limit == 8
    moves = 0
    while not s.is_over:
        s.play(int(s.legal_moves()[0]))  # lowest legal point: never passes while it can play
        moves += 1
    assert moves <= 8
    assert s.move_number == moves


# ----------------------------------------------------------------------------- handicap
@pytest.mark.parametrize(
    ("size", "stones"),
    [(9, 2), (9, 5), (9, 9), (13, 4), (13, 7), (19, 3), (19, 6), (19, 8), (19, 9)],
)
def test_handicap_stones_are_placed_and_white_plays_first(size: int, stones: int) -> None:
    s = GoState(Rules(size=size, handicap=stones))
    points = fixed_handicap_points(size, stones)
    assert len(set(points)) == stones
    assert np.flatnonzero(s.board.ravel() == Color.BLACK).tolist() == sorted(points)
    assert int((s.board == Color.WHITE).sum()) == 0
    assert s.to_play is Color.WHITE
    assert s.move_number == 0 and s.history == ()
    assert s.captures(Color.BLACK) == s.captures(Color.WHITE) == 0
    for p in points:
        assert s.illegal_reason(p) is IllegalReason.OCCUPIED
    s.play(0)  # White moves
    assert s.history == ((Color.WHITE, 0),)
    assert s.to_play is Color.BLACK


def test_handicap_nine_on_19x19_is_the_nine_star_points() -> None:
    s = GoState(Rules(size=19, handicap=9))
    expected = {
        from_gtp(v, 19) for v in ("D4", "K4", "Q4", "D10", "K10", "Q10", "D16", "K16", "Q16")
    }
    assert set(np.flatnonzero(s.board.ravel()).tolist()) == expected


@pytest.mark.parametrize(
    ("size", "handicap"),
    [
        (9, 1),
        (9, 10),
        (9, -1),
        (19, 10),
        (10, 5),
        (8, 5),
        (7, 5),
        (6, 2),
        (5, 2),
        (2, 2),
        (9, True),
        (9, 2.0),
    ],
)
def test_bad_handicap_values_raise(size: int, handicap: object) -> None:
    with pytest.raises(ValueError, match="handicap"):
        Rules(size=size, handicap=handicap)  # type: ignore[arg-type]


# ------------------------------------------------------------------------ board sizes
@pytest.mark.parametrize("size", [2, 3])
@pytest.mark.parametrize("ko", list(KoRule))
def test_tiny_boards_play_to_the_end(size: int, ko: KoRule) -> None:
    rng = random.Random(size * 10 + len(ko.value))
    for _ in range(20):
        s = GoState(Rules(size=size, ko=ko))
        while not s.is_over:
            legal = s.legal_moves()
            points = legal[legal != s.pass_move]
            move = (
                int(rng.choice(points.tolist()))
                if points.size and rng.random() < 0.9
                else s.pass_move
            )
            s.play(move)
        assert s.move_number <= s.rules.move_limit
        assert s.winner in (Color.BLACK, Color.WHITE)
        assert abs(s.score() + s.rules.komi) <= size * size


def test_two_by_two_opening() -> None:
    s = GoState(Rules(size=2, komi=0))
    play(s, "A1")
    assert s.score() == 4
    play(s, "B2")
    assert s.score() == 0
    assert reason(s, "A2") is None and reason(s, "B1") is None
    play(s, "A2")  # takes B2's... no: B2 still has B1
    assert s.color_at(from_gtp("B2", 2)) is Color.WHITE
    play(s, "B1")  # White's B1 captures the black pair A1-A2
    assert s.to_ascii() == rendered(". O\n. O")
    assert s.captures(Color.WHITE) == 2


def test_every_size_from_2_to_25_lives_in_one_process() -> None:
    states = {n: GoState(Rules(size=n)) for n in range(2, 26)}
    for n, s in states.items():
        s.play(n * n - 1)  # bottom-right corner
    for n, s in states.items():  # playing on one board touched no other
        assert s.size == n and s.pass_move == n * n
        assert s.board.shape == (n, n)
        assert int(np.count_nonzero(s.board)) == 1 and s.board[n - 1, n - 1] == Color.BLACK
        assert s.legal_mask().shape == (n * n + 1,)
        assert s.legal_moves().size == n * n  # all other points, plus pass
        assert s.score() == n * n - s.rules.komi
        s.play(0)
        assert s.board[0, 0] == Color.WHITE


@pytest.mark.parametrize("size", [1, 26, 0, -3])
def test_board_size_out_of_range(size: int) -> None:
    with pytest.raises(ValueError, match="size"):
        Rules(size=size)


# ------------------------------------------------------------------------- bad input
def test_off_board_moves_are_refused_with_a_reason() -> None:
    s = GoState(Rules(size=9))
    for move in (-1, 82, 1000):
        assert s.illegal_reason(move) is IllegalReason.OFF_BOARD
        assert not s.is_legal(move)
        with pytest.raises(IllegalMoveError) as info:
            s.play(move)
        err = info.value
        assert err.reason is IllegalReason.OFF_BOARD
        assert err.move == move
        assert str(move) in str(err) and "off-board" in str(err)
        assert isinstance(err, ValueError) and isinstance(err, GoError)
    assert s.move_number == 0


def test_occupied_point_is_refused_with_a_reason() -> None:
    s = GoState(Rules(size=9))
    play(s, "E5")
    err = refused(s, "E5")
    assert err.reason is IllegalReason.OCCUPIED
    assert err.move == 40
    assert str(err) == "illegal move 40 (E5): occupied"
    assert s.to_play is Color.WHITE and s.move_number == 1


@pytest.mark.parametrize(
    "move", [1.0, 40.0, "E5", None, True, False, np.bool_(True), np.float64(3.0), [3], (3,)]
)
def test_moves_must_be_ints(move: object) -> None:
    s = GoState(Rules(size=9))
    for method in (s.play, s.illegal_reason, s.is_legal):
        with pytest.raises(TypeError, match="int action index"):
            method(move)  # type: ignore[arg-type]
    assert s.move_number == 0


@pytest.mark.parametrize("move", [np.int64(40), np.int32(40), np.uint8(40)])
def test_numpy_integers_are_moves(move: object) -> None:
    s = GoState(Rules(size=9))
    s.play(move)  # type: ignore[arg-type]
    assert s.history == ((Color.BLACK, 40),)
    assert type(s.history[0][1]) is int


# ------------------------------------------------------------------------ Rules values
def test_rules_defaults_and_move_limit() -> None:
    rules = Rules()
    assert (rules.size, rules.komi, rules.ko, rules.suicide) == (9, 7.5, KoRule.POSITIONAL, False)
    assert (rules.max_moves, rules.handicap, rules.move_limit) == (None, 0, 162)
    assert Rules(size=19, max_moves=5).move_limit == 5
    assert Rules(ko="situational").ko is KoRule.SITUATIONAL  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size": 9.0}, "size must be an int"),
        ({"size": True}, "size must be an int"),
        ({"komi": float("nan")}, "komi must be finite"),
        ({"komi": float("inf")}, "komi must be finite"),
        ({"komi": "7.5"}, "komi must be a number"),
        ({"komi": True}, "komi must be a number"),
        ({"ko": "super"}, "ko must be one of simple, positional, situational"),
        ({"suicide": 1}, "suicide must be True or False"),
        ({"max_moves": 0}, "max_moves must be a positive int or None"),
        ({"max_moves": -5}, "max_moves must be a positive int"),
        ({"max_moves": 10.0}, "max_moves must be a positive int"),
        ({"max_moves": True}, "max_moves must be a positive int"),
    ],
)
def test_bad_rules_values_name_the_argument(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Rules(**kwargs)  # type: ignore[arg-type]


def test_rules_are_frozen_values() -> None:
    rules = Rules(size=5)
    with pytest.raises(AttributeError):
        rules.size = 7  # type: ignore[misc]
    assert rules == Rules(size=5) and hash(rules) == hash(Rules(size=5))
    with pytest.raises(TypeError):
        Rules(5)  # type: ignore[call-arg]  # keyword-only
