"""The Python API of GoState: queries, histories, ASCII, set-up stones, errors."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest
from game_support import play, random_game

from go_env.coords import from_gtp
from go_env.errors import IllegalReason
from go_env.rules import KoRule, Rules
from go_env.state import Color, GoState

BoardFactory = Callable[..., GoState]


# ------------------------------------------------------------------------------ basics
def test_defaults() -> None:
    s = GoState()
    assert s.rules == Rules(size=9, komi=7.5, ko=KoRule.POSITIONAL, suicide=False)
    assert s.size == 9 and s.pass_move == 81
    assert s.to_play is Color.BLACK
    assert s.move_number == 0 and s.history == ()
    assert s.zobrist == 0  # no stones
    assert s.ko_point is None and s.consecutive_passes == 0
    assert not (s.is_terminal or s.is_truncated or s.is_over)
    assert s.winner is None
    assert s.board.dtype == np.int8 and s.board.shape == (9, 9) and not s.board.any()


def test_rules_must_be_rules() -> None:
    with pytest.raises(TypeError, match=r"rules must be a go_env\.rules\.Rules"):
        GoState({"size": 9})  # type: ignore[arg-type]


def test_color_opponent() -> None:
    assert Color.BLACK.opponent is Color.WHITE
    assert Color.WHITE.opponent is Color.BLACK
    assert Color.EMPTY.opponent is Color.EMPTY


def test_board_is_a_copy() -> None:
    s = GoState(Rules(size=5))
    b = s.board
    b[2, 2] = Color.WHITE
    assert s.color_at(12) is Color.EMPTY
    assert s.is_legal(12)


def test_history_and_move_number_include_passes() -> None:
    s = GoState(Rules(size=5))
    play(s, "C3", "pass", "D4")
    assert s.history == ((Color.BLACK, 12), (Color.WHITE, 25), (Color.BLACK, 8))
    assert all(type(c) is Color and type(m) is int for c, m in s.history)
    assert s.move_number == 3
    assert s.to_play is Color.WHITE


def test_captures_count_prisoners_per_player() -> None:
    s = GoState.from_ascii(
        """
        . X O .
        X O . O
        . X O .
        . . . .
        """,
        Rules(size=4, ko=KoRule.SIMPLE),
    )
    play(s, "C3")
    assert (s.captures(Color.BLACK), s.captures(Color.WHITE)) == (1, 0)
    play(s, "D1", "C1", "B3")
    assert (s.captures(Color.BLACK), s.captures(Color.WHITE)) == (1, 1)


def test_liberties_and_chain() -> None:
    s = GoState.from_ascii("""
        X X . .
        . X O .
        . . O .
        . . . .
    """)
    a4 = from_gtp("A4", 4)
    assert s.chain(a4) == sorted(from_gtp(v, 4) for v in ("A4", "B4", "B3"))
    assert s.liberties(a4) == 3  # A3 (next to two stones, counted once), C4, B2
    assert s.liberties(from_gtp("C3", 4)) == 5  # C4, D3, B2, D2, C1
    assert s.chain(from_gtp("C2", 4)) == [from_gtp("C3", 4), from_gtp("C2", 4)]
    with pytest.raises(ValueError, match="no stone at 3 \\(D4\\)"):
        s.liberties(from_gtp("D4", 4))
    with pytest.raises(ValueError, match="not a point of the 4x4 board"):
        s.chain(16)
    with pytest.raises(ValueError, match="not a point"):
        s.color_at(-1)


# ------------------------------------------------------------------------ recent_boards
def test_recent_boards_newest_first_and_padded_with_empty_boards() -> None:
    s = GoState(Rules(size=3))
    play(s, "B2", "A1")
    boards = s.recent_boards(5)
    assert boards.dtype == np.int8 and boards.shape == (5, 3, 3)
    np.testing.assert_array_equal(boards[0], s.board)
    assert boards[1].tolist() == [[0, 0, 0], [0, 1, 0], [0, 0, 0]]
    assert not boards[2:].any()  # the start, then positions before the game
    play(s, "pass")
    boards = s.recent_boards(2)
    np.testing.assert_array_equal(boards[0], boards[1])  # a pass repeats the board
    assert s.recent_boards(1).shape == (1, 3, 3)


def test_recent_boards_follow_captures() -> None:
    s = GoState(Rules(size=2, komi=0))
    play(s, "A1", "B2", "A2", "B1")  # White's B1 captures A1-A2
    boards = s.recent_boards(3)
    assert boards[0].tolist() == [[0, 2], [0, 2]]
    assert boards[1].tolist() == [[1, 2], [1, 0]]
    assert boards[2].tolist() == [[0, 2], [1, 0]]


def test_recent_boards_are_copies_and_reject_bad_k() -> None:
    s = GoState(Rules(size=3))
    play(s, "B2")
    boards = s.recent_boards(2)
    boards[:] = 2
    assert s.recent_boards(2)[1].sum() == 0 and s.recent_boards(2)[0].sum() == 1
    for k in (0, -1):
        with pytest.raises(ValueError, match="k must be at least 1"):
            s.recent_boards(k)


def test_recent_boards_of_a_handicap_game() -> None:
    s = GoState(Rules(size=9, handicap=2))
    boards = s.recent_boards(2)
    assert int(boards[0].sum()) == 2
    assert not boards[1].any()


# ---------------------------------------------------------------------------- legality
def test_legal_moves_mask_and_reasons_agree() -> None:
    s = GoState.from_ascii(
        """
        . O X .
        O . O X
        X O . .
        . X . .
        """,
        Rules(size=4),
    )
    mask = s.legal_mask()
    assert mask.dtype == np.bool_ and mask.shape == (17,)
    np.testing.assert_array_equal(s.legal_moves(), np.flatnonzero(mask))
    for move in range(17):
        assert mask[move] == s.is_legal(move) == (s.illegal_reason(move) is None)
    assert s.illegal_reason(from_gtp("A4", 4)) is IllegalReason.SUICIDE
    assert s.illegal_reason(from_gtp("B3", 4)) is IllegalReason.SUICIDE  # no white chain in atari
    assert s.illegal_reason(from_gtp("B4", 4)) is IllegalReason.OCCUPIED
    assert s.illegal_reason(from_gtp("D4", 4)) is None  # connects C4 to D3
    assert mask[16]  # pass


def test_legal_mask_is_read_only_and_refreshed_after_a_move() -> None:
    s = GoState(Rules(size=3))
    mask = s.legal_mask()
    with pytest.raises(ValueError):
        mask[0] = False
    play(s, "A3")
    assert mask[0]  # the old array is unchanged...
    assert not s.legal_mask()[0]  # ...and the new one is up to date
    assert s.legal_moves().tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_legal_moves_are_sorted_ints_with_pass_last() -> None:
    s = random_game(7, 3, moves=20)
    moves = s.legal_moves()
    assert np.issubdtype(moves.dtype, np.integer)
    assert moves.tolist() == sorted(moves.tolist())
    assert moves[-1] == s.pass_move


# ----------------------------------------------------------------------------- zobrist
def test_zobrist_depends_on_stones_only() -> None:
    a = GoState(Rules(size=5))
    play(a, "C3", "D3", "C4")
    b = GoState(Rules(size=5))
    play(b, "C4", "D3", "C3")
    assert a.zobrist == b.zobrist
    c = GoState(Rules(size=5))
    play(c, "C4", "D3", "pass", "pass")
    assert c.zobrist != a.zobrist
    d = GoState(Rules(size=5))
    play(d, "D3", "C3", "C4")  # same points, colours swapped
    assert d.zobrist != a.zobrist


def test_zobrist_returns_after_a_capture_and_differs_across_sizes() -> None:
    s = GoState(Rules(size=2, komi=0))
    play(s, "A1", "B2", "A2", "B1")
    t = GoState(Rules(size=2))
    play(t, "pass", "B2", "pass", "B1")
    assert s.zobrist == t.zobrist  # same stones, reached differently
    u = GoState(Rules(size=3))
    u.play(0)
    v = GoState(Rules(size=4))
    v.play(0)
    assert u.zobrist != v.zobrist


# ------------------------------------------------------------------------------- clone
def test_clone_is_independent() -> None:
    s = random_game(6, 1, moves=15)
    snapshot = (s.board, s.history, s.zobrist, s.to_play, s.legal_mask().copy())
    c = s.clone()
    c.play(int(c.legal_moves()[0]))
    c.play(c.pass_move)
    assert (s.board.tolist(), s.history, s.zobrist, s.to_play) == (
        snapshot[0].tolist(),
        snapshot[1],
        snapshot[2],
        snapshot[3],
    )
    np.testing.assert_array_equal(s.legal_mask(), snapshot[4])
    assert c.move_number == s.move_number + 2
    assert c.rules == s.rules


# ---------------------------------------------------------------------- ASCII round trip
@pytest.mark.parametrize("size", range(2, 26))
def test_ascii_round_trip(size: int) -> None:
    s = random_game(size, size, moves=2 * size)
    text = s.to_ascii()
    t = GoState.from_ascii(text, Rules(size=size))
    np.testing.assert_array_equal(t.board, s.board)
    assert t.to_ascii() == text
    assert t.zobrist == s.zobrist
    lines = text.splitlines()
    assert len(lines) == size + 1
    assert lines[0].split() == list("ABCDEFGHJKLMNOPQRSTUVWXYZ"[:size])
    assert lines[1].split()[0] == str(size) and lines[-1].split()[0] == "1"


def test_to_ascii_layout() -> None:
    s = GoState(Rules(size=3))
    play(s, "A3", "C1")
    assert s.to_ascii() == "  A B C\n3 X . .\n2 . . .\n1 . . O"


def test_from_ascii_accepts_labels_and_alternative_characters() -> None:
    text = """
          A B C D
        4 x + . #   4
        3 . @ o .   3
        2 . . . .   2
        1 O . . .   1
          A B C D
    """
    s = GoState.from_ascii(text)
    assert s.to_ascii() == ("  A B C D\n4 X . . X\n3 . X O .\n2 . . . .\n1 O . . .")
    assert s.to_play is Color.BLACK
    assert s.move_number == 0 and s.history == ()
    assert s.rules == Rules(size=4)
    assert s.zobrist != 0


def test_from_ascii_without_spaces() -> None:
    s = GoState.from_ascii("X.O\n...\n.X.")
    assert s.board.tolist() == [[1, 0, 2], [0, 0, 0], [0, 1, 0]]


def test_from_ascii_to_play_and_rules() -> None:
    rules = Rules(size=3, komi=0.5, ko=KoRule.SITUATIONAL, suicide=True, max_moves=7)
    s = GoState.from_ascii("X . .\n. . .\n. . O", rules, to_play=Color.WHITE)
    assert s.to_play is Color.WHITE
    assert s.rules == rules
    play(s, "B2")
    assert s.color_at(4) is Color.WHITE


def test_from_ascii_ignores_the_handicap_of_the_rules() -> None:
    empty9 = "\n".join([". " * 9] * 9)
    t = GoState.from_ascii(empty9, Rules(size=9, handicap=4))
    assert not t.board.any()  # the text decides the stones
    assert t.to_play is Color.BLACK


@pytest.mark.parametrize(
    ("text", "rules", "message"),
    [
        (". .\n. . .", None, "not a square board: row lengths \\[2, 3\\]"),
        (". . .\n. . .", None, "not a square board"),
        ("", None, "not a square board"),
        ("\n \n", None, "not a square board"),
        (".", None, "size must be from 2 to 25, got 1"),
        ("\n".join(["." * 26] * 26), None, "size must be from 2 to 25, got 26"),
        (". .\n. Z", None, "unexpected character 'Z' in board row '. Z'"),
        (". .\n. 1 .", None, "unexpected character '1'"),
        (". .\n. .", Rules(size=3), "holds a 2x2 board but rules.size is 3"),
        ("X O\nO X", None, "without liberties"),
        ("X O .\nO . .\n. . .", None, "without liberties"),
        ("O X .\nX . .\n. . .", None, "without liberties"),
        ("X X O\nO O O\n. . .", None, "without liberties"),
    ],
)
def test_from_ascii_errors(text: str, rules: Rules | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GoState.from_ascii(text, rules)


@pytest.mark.parametrize("to_play", [Color.EMPTY, 0, 3, "white"])
def test_from_ascii_refuses_a_bad_player_to_move(to_play: object) -> None:
    with pytest.raises(ValueError, match=r"to_play must be Color\.BLACK or Color\.WHITE"):
        GoState.from_ascii(". .\n. .", to_play=to_play)  # type: ignore[arg-type]


def test_from_ascii_accepts_plain_int_players() -> None:
    assert GoState.from_ascii(". .\n. .", to_play=2).to_play is Color.WHITE  # type: ignore[arg-type]


# ------------------------------------------------------------------------ place_stones
def test_place_stones_sets_up_without_playing() -> None:
    s = GoState(Rules(size=5))
    s.place_stones([0, 1], [24])
    assert s.board.ravel().tolist()[:2] == [1, 1] and s.color_at(24) is Color.WHITE
    assert s.move_number == 0 and s.history == () and s.to_play is Color.BLACK
    assert not s.legal_mask()[0] and not s.legal_mask()[24]
    assert s.recent_boards(1)[0].tolist() == s.board.tolist()
    play(s, "C3")
    assert (
        s.recent_boards(2)[1].tolist()
        == GoState.from_ascii(
            "X X . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . O"
        ).board.tolist()
    )


@pytest.mark.parametrize(
    ("black", "white", "error", "message"),
    [
        ([25], [], ValueError, "set-up point 25 is off the 5x5 board"),
        ([-1], [], ValueError, "set-up point -1 is off the 5x5 board"),
        ([3], [3], ValueError, "set-up point 3 \\(D5\\) is already taken"),
        ([7, 7], [], ValueError, "already taken"),
        ([12], [], ValueError, "already taken"),  # C3 holds a stone already
        ([0], [1, 5], ValueError, "without liberties"),  # white A4 would capture A5
        ([1, 5], [0], ValueError, "without liberties"),  # white A5 would be a suicide
        ([1.5], [], TypeError, "int action index"),
        (["A1"], [], TypeError, "int action index"),
    ],
)
def test_place_stones_errors_leave_the_state_unchanged(
    black: list[object], white: list[object], error: type[Exception], message: str
) -> None:
    s = GoState(Rules(size=5))
    play(s, "C3")
    before = (s.board.tolist(), s.zobrist, s.recent_boards(2).tolist(), s.legal_mask().tolist())
    with pytest.raises(error, match=message):
        s.place_stones(black, white)  # type: ignore[arg-type]
    after = (s.board.tolist(), s.zobrist, s.recent_boards(2).tolist(), s.legal_mask().tolist())
    assert after == before


# ------------------------------------------------------------------------------ result
def test_result_strings() -> None:
    s = GoState(Rules(size=3, komi=0.5))
    assert s.result() == "W+0.5"
    play(s, "B2")
    assert s.result() == "B+8.5"
    t = GoState(Rules(size=3, komi=9))
    play(t, "B2")
    assert t.result() == "0" and t.score() == 0.0


def test_repr_shows_the_board() -> None:
    s = GoState(Rules(size=2))
    text = repr(s)
    assert text.startswith("GoState(size=2, to_play=BLACK, move_number=0)")
    assert s.to_ascii() in text


# ---------------------------------------------------------------------------- playouts
def test_random_playout_accepts_numpy_integer_seeds() -> None:
    s = GoState(Rules(size=5))
    assert s.random_playout(np.int64(7)) == s.random_playout(7)
    assert s.random_playout(np.uint32(7)) == s.random_playout(7)


def test_random_playout_refuses_a_float_seed() -> None:
    with pytest.raises(TypeError):
        GoState(Rules(size=5)).random_playout(3.5)  # type: ignore[arg-type]


def test_random_playout_without_seed_varies() -> None:
    s = GoState(Rules(size=9))
    scores = {s.random_playout() for _ in range(20)}
    assert len(scores) > 1
    assert all(abs(x + s.rules.komi) <= 81 for x in scores)


# ---------------------------------------------------------------------------- compiled
@pytest.mark.parametrize("ko", list(KoRule))
def test_compiled_snapshot_lists_the_key_of_every_position(ko: KoRule) -> None:
    rules = Rules(size=2, ko=ko, suicide=True)
    moves = ["A1", "pass", "A2", "pass", "B1", "pass"]
    replay = GoState(rules)
    side = replay.compiled().geometry.side
    keys = set()
    for vertex in [*moves, None]:
        situation = int(side[replay.to_play]) if ko is KoRule.SITUATIONAL else 0
        keys.add(replay.zobrist ^ situation)
        if vertex is not None:
            play(replay, vertex)
    s = GoState(rules)
    play(s, *moves)
    compiled = s.compiled()
    assert compiled.situational == (ko is KoRule.SITUATIONAL)
    assert compiled.suicide and compiled.move_limit == 8 and compiled.komi == 7.5
    if ko is KoRule.SIMPLE:
        assert compiled.superko_keys.size == 0
    else:
        if ko is KoRule.POSITIONAL:
            assert 0 in keys  # the empty board's stones hash to 0...
        assert compiled.superko_keys.tolist() == sorted(keys)  # ...and the key 0 is listed
    if ko is KoRule.POSITIONAL:  # filling the board is a suicide that recreates the empty board
        assert s.illegal_reason(from_gtp("B2", 2)) is IllegalReason.SUPERKO


def test_compiled_vector_is_a_copy() -> None:
    s = GoState(Rules(size=3))
    play(s, "B2")
    compiled = s.compiled()
    compiled.vector[:] = 0
    assert s.color_at(4) is Color.BLACK and s.to_play is Color.WHITE


# ----------------------------------------------------------------------------- memory
def test_a_huge_move_cap_allocates_nothing_up_front() -> None:
    """A cap of a million moves must not reserve history for a million positions."""
    tracemalloc.start()
    try:
        s = GoState(Rules(size=9, max_moves=1_000_000))
        s.play(40)
        clone = s.clone()
        clone.play(41)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, f"{peak / 2**20:.0f} MiB"


def test_captures_needs_a_player() -> None:
    import pytest

    from go_env.state import Color, GoState

    state = GoState()
    assert state.captures(Color.BLACK) == 0
    with pytest.raises(ValueError, match="needs a player"):
        state.captures(Color.EMPTY)
