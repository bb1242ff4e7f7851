from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from game_support import random_game, random_moves
from hypothesis import given, settings
from hypothesis import strategies as st

from go_env.errors import GoError
from go_env.handicap import fixed_handicap_points
from go_env.rules import KoRule, Rules
from go_env.sgf import (
    GameRecord,
    SgfError,
    dump_sgf,
    load_sgf,
    parse_sgf,
    record_from_state,
    rules_from_name,
    rules_name,
    save_sgf,
    state_from_record,
)
from go_env.state import Color, GoState

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sgf"
ALL_FIXTURES = sorted(FIXTURES.glob("*.sgf"))
B, W = Color.BLACK, Color.WHITE


def assert_same_state(a: GoState, b: GoState) -> None:
    assert a.rules.size == b.rules.size
    np.testing.assert_array_equal(a.board, b.board)
    assert a.history == b.history
    assert a.to_play == b.to_play
    assert a.captures(B) == b.captures(B)
    assert a.captures(W) == b.captures(W)
    assert a.ko_point == b.ko_point
    assert a.zobrist == b.zobrist
    assert a.is_over == b.is_over


# ------------------------------------------------------------------------------ fixtures


def test_fixture_folder_is_populated() -> None:
    assert len(ALL_FIXTURES) >= 12


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.name)
def test_fixture_round_trips(path: Path) -> None:
    record = load_sgf(path)
    text = dump_sgf(record)
    assert parse_sgf(text) == record
    assert dump_sgf(parse_sgf(text)) == text  # the writer is a fixed point


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.name)
def test_fixture_replays_and_survives_a_state_round_trip(path: Path) -> None:
    record = load_sgf(path)
    state = state_from_record(record)
    assert state.move_number == len(record.moves)
    assert state.history == tuple(record.moves)
    again = state_from_record(parse_sgf(dump_sgf(record_from_state(state))))
    assert_same_state(again, state)


def test_gnugo_selfplay_19x19() -> None:
    record = load_sgf(FIXTURES / "gnugo_19x19_selfplay.sgf")
    assert (record.size, record.komi, record.result) == (19, 6.5, "B+120.5")
    assert record.properties["AP"] == ["GNU Go:3.8"]
    assert len(record.moves) == 175
    assert record.moves[-2:] == [(W, 361), (B, 361)] or record.moves[-2:] == [(B, 361), (W, 361)]
    assert record.move_comments == {174: "Black wins by 120.5 points\n"}
    state = state_from_record(record)
    assert state.is_terminal
    assert state.captures(B) + state.captures(W) > 0


def test_gnugo_handicap_game_starts_with_white() -> None:
    record = load_sgf(FIXTURES / "gnugo_13x13_handicap3.sgf")
    assert record.handicap == 3
    assert record.setup_black == [3 * 13 + 3, 9 * 13 + 9, 9 * 13 + 3]  # dd jj dj
    assert record.to_play == W
    assert record.moves[0][0] == W
    state = state_from_record(record)
    assert state.rules.handicap == 0  # not the fixed points: placed as stones
    assert state.captures(B) + state.captures(W) > 0


def test_gnugo_printsgf_position() -> None:
    record = load_sgf(FIXTURES / "gnugo_9x9_position.sgf")
    assert record.moves == []
    assert record.rules == "Japanese"
    assert record.komi == 5.5
    assert record.handicap == 0
    assert sorted(record.setup_black) == [39, 40, 48, 58]  # de ee df eg
    assert sorted(record.setup_white) == [38, 47, 57]  # ce cf dg
    assert record.to_play == B
    state = state_from_record(record)
    assert state.rules.ko == KoRule.SIMPLE  # RU[Japanese]
    assert state.to_play == B
    assert state.color_at(40) == B and state.color_at(38) == W


def test_legacy_ff3_lowercase_identifiers_and_tt_passes() -> None:
    record = load_sgf(FIXTURES / "legacy_ff3_lowercase.sgf")
    assert record.size == 9
    assert record.komi == 5.5  # KoMi in the second node, before the first move
    assert (record.black, record.white, record.result) == ("Honinbo", "Meijin", "W+R")
    assert record.properties == {
        "CP": ["Copyright (C) 1998 Nobody"],
        "GN": ["Old style"],
        "DT": ["1998-07-01"],
    }
    assert record.moves == [(B, 40), (W, 81), (B, 20), (W, 60), (B, 81)]


def test_windows_line_endings_escapes_and_unicode() -> None:
    record = load_sgf(FIXTURES / "windows_crlf_comments.sgf")
    assert record.black == "Black ] Player"
    assert record.white == "White\\Player"
    assert record.game_comment == "A game comment:\nsecond line"
    assert record.comment == "Escapes: a ] bracket, a \\ backslash, a tab, and a softbreak."
    assert record.move_comments == {0: "黒番 — komi 6½ ✓", 2: "pass\nwith two lines"}
    assert record.moves == [(B, 40), (W, 38), (B, 81), (W, 24), (B, 42), (W, 81)]
    assert record.move_properties == {3: {"TR": ["ee", "ce"]}}
    assert record.properties == {"AP": ["HandWritten:1.0"]}
    assert "\r" not in dump_sgf(record)


def test_variations_are_skipped_for_the_main_line() -> None:
    record = load_sgf(FIXTURES / "variations.sgf")
    assert record.moves == [(B, 40), (W, 20), (B, 60), (W, 56), (B, 24)]
    assert record.move_comments == {3: "main"}
    assert record.komi == 7.0


def test_collection_reads_the_first_game() -> None:
    record = load_sgf(FIXTURES / "collection.sgf")
    assert record.size == 9
    assert record.properties == {"GN": ["first"]}
    assert record.moves == [(B, 40), (W, 21)]


def test_fixed_handicap_uses_the_rules_handicap() -> None:
    record = load_sgf(FIXTURES / "handicap_fixed_9x9.sgf")
    assert sorted(record.setup_black) == sorted(fixed_handicap_points(9, 4))
    state = state_from_record(record)
    assert state.rules.handicap == 4
    assert state.history[0] == (W, 40)
    assert record_from_state(state).setup_black == fixed_handicap_points(9, 4)


def test_free_handicap_is_set_up_as_stones() -> None:
    record = load_sgf(FIXTURES / "handicap_free_19x19.sgf")
    assert (record.handicap, record.rules) == (2, "Chinese")
    assert record.setup_black == [60, 300]
    assert record.moves == [(W, 288), (B, 72), (W, 111), (B, 361), (W, 70)]
    state = state_from_record(record)
    assert state.rules.handicap == 0
    assert state.color_at(60) == B and state.color_at(300) == B and state.color_at(288) == W
    assert state.to_play == B


def test_declared_charsets() -> None:
    latin = load_sgf(FIXTURES / "latin1_charset.sgf")
    assert (latin.black, latin.white, latin.comment) == ("Jérôme", "Søren", "Ça va")
    chinese = load_sgf(FIXTURES / "gb2312_charset.sgf")
    assert (chinese.black, chinese.white, chinese.result) == ("柯洁", "古力", "B+R")


def test_charset_fallbacks(tmp_path: Path) -> None:
    plain = tmp_path / "no_ca_utf8.sgf"
    plain.write_bytes("(;SZ[9]PB[Ōtake])".encode())
    assert load_sgf(plain).black == "Ōtake"
    latin = tmp_path / "no_ca_latin1.sgf"
    latin.write_bytes("(;SZ[9]PB[Jérôme])".encode("iso-8859-1"))
    assert load_sgf(latin).black == "Jérôme"
    unknown = tmp_path / "unknown_ca.sgf"
    unknown.write_bytes("(;CA[no-such-charset]SZ[9]PB[Ōtake])".encode())
    assert load_sgf(unknown).black == "Ōtake"
    bom = tmp_path / "bom.sgf"
    bom.write_bytes("\ufeff(;SZ[9]PB[x])".encode())
    assert load_sgf(bom).black == "x"


# -------------------------------------------------------------------- reader tolerance


def test_defaults_without_game_information() -> None:
    record = parse_sgf("(;B[dd])")
    assert (record.size, record.komi, record.handicap, record.rules) == (19, 0.0, 0, None)
    assert record.moves == [(B, 3 * 19 + 3)]  # a move in the root node


@pytest.mark.parametrize(
    ("value", "komi"), [("6.5", 6.5), ("0", 0.0), ("-3", -3.0), ("", 0.0), (" 5,5 ", 5.5)]
)
def test_komi_forms(value: str, komi: float) -> None:
    assert parse_sgf(f"(;SZ[9]KM[{value}])").komi == komi


def test_whitespace_anywhere_and_text_before_the_tree() -> None:
    text = "junk (header)\n ( \n ; SZ [ 9 ] KM\n[6.5]\n ; B [ee] \n\t; W\n[]\n ) trailing"
    record = parse_sgf(text)
    assert record.komi == 6.5
    assert record.moves == [(B, 40), (W, 81)]


def test_tt_is_a_point_above_19x19() -> None:
    assert parse_sgf("(;SZ[19];B[tt])").moves == [(B, 361)]
    assert parse_sgf("(;SZ[21];B[tt])").moves == [(B, 19 * 21 + 19)]


def test_setup_rectangles_duplicates_and_empty_points() -> None:
    record = parse_sgf("(;SZ[5]AB[aa:bb][aa]AW[ee]AE[bb])")
    assert record.setup_black == [0, 1, 5]
    assert record.setup_white == [24]


def test_repeated_property_in_a_node_is_merged() -> None:
    record = parse_sgf("(;SZ[9]AB[aa]AB[bb]C[one]C[two])")
    assert record.setup_black == [0, 10]
    assert record.comment == "one\ntwo"


def test_nodes_without_moves_annotate_the_previous_move() -> None:
    record = parse_sgf("(;SZ[9];B[ee];C[first]LB[ee:A];C[second];W[cc])")
    assert record.moves == [(B, 40), (W, 20)]
    assert record.move_comments == {0: "first\nsecond"}
    assert record.move_properties == {0: {"LB": ["ee:A"]}}


def test_pl_property_and_hand_written_white_first() -> None:
    record = parse_sgf("(;SZ[9]PL[W])")
    assert record.to_play == W
    state = state_from_record(record)
    assert state.to_play == W
    assert parse_sgf(dump_sgf(record)) == record


def test_ko_and_suicide_rules_from_ru() -> None:
    assert rules_from_name("Japanese") == (KoRule.SIMPLE, False)
    assert rules_from_name(" NZ ") == (KoRule.SITUATIONAL, True)
    assert rules_from_name("tromp-taylor") == (KoRule.POSITIONAL, True)
    assert rules_from_name("Something else") == (Rules().ko, Rules().suicide)
    assert rules_from_name(None) == (Rules().ko, Rules().suicide)
    for ko in KoRule:
        for suicide in (False, True):
            assert rules_from_name(rules_name(Rules(ko=ko, suicide=suicide))) == (ko, suicide)
    state = state_from_record(parse_sgf("(;SZ[9]RU[NZ]KM[7])"))
    assert (state.rules.ko, state.rules.suicide, state.rules.komi) == (
        KoRule.SITUATIONAL,
        True,
        7.0,
    )


# ------------------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    ("text", "words", "offset"),
    [
        ("SZ[9]", "no game tree", 0),
        ("(;SZ[9", "unterminated property value", 4),
        ("(;SZ[9];B[ee]", "not closed", 13),
        ("(;SZ;B[ee])", "has no value", 4),
        ("(;SZ[9];B[ee]W[cc])", "both a B and a W", 13),
        ("(;SZ[30])", "2..25", 2),
        ("(;SZ[9:13])", "rectangular", 2),
        ("(;GM[2])", "not a game of Go", 2),
        ("(;SZ[9]KM[six])", "KM[six] is not a valid float", 7),
        ("(;SZ[9]HA[two])", "HA[two] is not a valid int", 7),
        ("(;SZ[9];B[ee];AB[cc])", "setup property AB after move 1", 14),
        ("(;SZ[9];B[zz])", "off a 9x9 board", 8),
        ("(;SZ[9];B[EE])", "off a 9x9 board", 8),
        ("(;SZ[9];B[e])", "invalid SGF point", 8),
        ("(;SZ[9]AB[ee]AW[ee])", "both colours", 7),
        ("(;SZ[9]AB[])", "not a point", 7),
        ("(;SZ[9]PL[X])", "must be B or W", 7),
        ("(;SZ[9]!)", "unexpected character '!'", 7),
        ("(SZ[9])", "no game tree", 0),
        ("(;SZ[9](;B[aa])C[x])", "outside a node", 15),
        ("(;SZ[9](;B[aa]);W[bb])", "after the variations", 15),
        ("(;SZ[9]((;B[aa]))", "must start with a node", 8),
        ("(;SZ[9]copyright[x])", "no uppercase letter", 7),
        ("(;SZ[9]))", "", None),  # text after the first game tree is not read
    ],
)
def test_bad_input_names_the_problem_and_offset(text: str, words: str, offset: int | None) -> None:
    if offset is None:
        parse_sgf(text)
        return
    with pytest.raises(SgfError) as info:
        parse_sgf(text)
    assert words in str(info.value)
    assert info.value.offset == offset
    assert f"(at offset {offset})" in str(info.value)
    assert isinstance(info.value, GoError) and isinstance(info.value, ValueError)


def test_load_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.sgf"
    path.write_text("(;SZ[9];B[ee]")
    with pytest.raises(SgfError, match=r"broken\.sgf"):
        load_sgf(path)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("(;SZ[9];B[ee];W[ee])", "move 2 (W[ee]) is illegal: occupied"),
        ("(;SZ[9];B[ee];B[cc])", "move 2 (B[cc]): WHITE is to play; moves must alternate"),
        ("(;SZ[5]AB[ba][ab]AW[aa])", "not a legal position"),
        ("(;SZ[5];B[cc];W[ba];B[dd];W[ab];B[aa])", "move 5 (B[aa]) is illegal: suicide"),
        ("(;SZ[5];B[];W[];B[cc])", "move 3 (B[cc]) is illegal: game over"),
    ],
)
def test_replay_errors(text: str, words: str) -> None:
    with pytest.raises(SgfError) as info:
        state_from_record(parse_sgf(text))
    assert words in str(info.value)


def test_replay_rules_must_match() -> None:
    record = parse_sgf("(;SZ[9]AB[cc])")
    with pytest.raises(SgfError, match=r"rules\.size is 13"):
        state_from_record(record, Rules(size=13))
    with pytest.raises(SgfError, match="fixed handicap stones"):
        state_from_record(record, Rules(size=9, handicap=2))
    state = state_from_record(record, Rules(size=9, komi=2.5, ko=KoRule.SIMPLE))
    assert (state.rules.komi, state.rules.ko) == (2.5, KoRule.SIMPLE)


def test_long_records_get_a_larger_move_cap() -> None:
    state = random_moves(GoState(Rules(size=5, max_moves=120)), 7)
    assert state.move_number > 2 * 5 * 5  # longer than the default cap
    replayed = state_from_record(record_from_state(state))
    assert replayed.rules.max_moves == state.move_number
    np.testing.assert_array_equal(replayed.board, state.board)


def test_writer_rejects_bad_records() -> None:
    with pytest.raises(ValueError, match="size"):
        dump_sgf(GameRecord(size=30))
    with pytest.raises(ValueError, match="setup_black"):
        dump_sgf(GameRecord(size=9, setup_black=[81]))
    with pytest.raises(ValueError, match="move 0"):
        dump_sgf(GameRecord(size=9, moves=[(Color.EMPTY, 3)]))
    with pytest.raises(ValueError, match="'SZ'"):
        dump_sgf(GameRecord(size=9, properties={"SZ": ["9"]}))
    with pytest.raises(ValueError, match="'lb'"):
        dump_sgf(GameRecord(size=9, moves=[(B, 0)], move_properties={0: {"lb": ["x"]}}))
    with pytest.raises(
        ValueError, match=r"move_comments keyed by \[1\], but the record has 1 moves"
    ):
        dump_sgf(GameRecord(size=9, moves=[(B, 0)], move_comments={1: "x"}))
    with pytest.raises(ValueError, match="move_properties"):
        dump_sgf(GameRecord(size=9, move_properties={0: {"TR": ["aa"]}}))
    with pytest.raises(ValueError, match="no value"):
        dump_sgf(GameRecord(size=9, properties={"DT": []}))


# --------------------------------------------------------------------- states and records


@pytest.mark.parametrize(("size", "seed"), [(5, 1), (7, 2), (9, 3), (13, 4)])
def test_random_games_round_trip_through_sgf(size: int, seed: int, tmp_path: Path) -> None:
    state = random_game(size, seed, komi=5.5, pass_rate=0.02)
    assert state.is_over
    assert state.captures(B) + state.captures(W) > 0
    record = record_from_state(state, black="rand-b", white="rand-w", comments={0: "first"})
    assert record.result == state.result()
    path = tmp_path / "game.sgf"
    save_sgf(record, path)
    loaded = load_sgf(path)
    assert loaded == record
    assert_same_state(state_from_record(loaded), state)


def test_record_from_a_handicap_state() -> None:
    state = GoState(Rules(size=9, komi=0.5, handicap=3))
    for move in (40, 41, 31):
        state.play(move)
    record = record_from_state(state)
    assert record.handicap == 3
    assert record.setup_black == fixed_handicap_points(9, 3)
    assert record.moves[0] == (W, 40)
    assert record.result is None
    replayed = state_from_record(parse_sgf(dump_sgf(record)))
    assert replayed.rules.handicap == 3
    assert_same_state(replayed, state)


def test_record_from_a_set_up_position_with_white_to_play() -> None:
    state = GoState.from_ascii(
        """
        . . . . .
        . X O . .
        . . . . .
        . . . . .
        . . . . .
        """,
        Rules(size=5, komi=0),
        to_play=W,
    )
    record = record_from_state(state)
    assert (record.setup_black, record.setup_white) == ([6], [7])
    assert record.to_play == W
    assert_same_state(state_from_record(parse_sgf(dump_sgf(record))), state)
    state.play(12)
    record = record_from_state(state, comments={0: "white starts"})
    assert record.to_play is None  # the first move says who started
    assert_same_state(state_from_record(parse_sgf(dump_sgf(record))), state)


def test_record_from_state_checks_comment_keys() -> None:
    state = random_game(5, 0, moves=3, komi=5.5, pass_rate=0.02)
    with pytest.raises(ValueError, match=r"\[3\]"):
        record_from_state(state, comments={3: "no such move"})


def test_explicit_result_and_game_comment() -> None:
    state = random_game(5, 1, moves=4, komi=5.5, pass_rate=0.02)
    record = record_from_state(state, result="W+R", game_comment="resigned")
    assert parse_sgf(dump_sgf(record)).result == "W+R"
    assert parse_sgf(dump_sgf(record)).game_comment == "resigned"


# ---------------------------------------------------------------------- property tests

_TEXT_CHARS = st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp", "Zs")) | st.sampled_from(
    list(" \n]\\[:;()")
)
_SIMPLE_CHARS = st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp", "Zs")) | st.sampled_from(
    list(" ]\\[:;()")
)
_TEXT = st.text(_TEXT_CHARS, max_size=30)
_SIMPLE = st.text(_SIMPLE_CHARS, max_size=20)


@st.composite
def records(draw: st.DrawFn) -> GameRecord:
    size = draw(st.integers(2, 25))
    points = size * size
    setup = draw(st.lists(st.integers(0, points - 1), unique=True, max_size=min(points, 8)))
    split = draw(st.integers(0, len(setup)))
    moves = draw(st.lists(st.tuples(st.sampled_from([B, W]), st.integers(0, points)), max_size=30))
    indices = st.integers(0, max(len(moves) - 1, 0))
    ident = st.text(st.sampled_from("ABCDLMNTVXYZ"), min_size=1, max_size=3).filter(
        lambda s: s not in {"B", "W", "C", "AB", "AW", "AE", "CA"}
    )
    return GameRecord(
        size=size,
        komi=draw(st.integers(-40, 40)) / 4,
        rules=draw(st.none() | _SIMPLE),
        handicap=draw(st.integers(0, 9)),
        black=draw(st.none() | _SIMPLE),
        white=draw(st.none() | _SIMPLE),
        result=draw(st.none() | st.sampled_from(["B+3.5", "W+R", "0", "Void"])),
        game_comment=draw(st.none() | _TEXT),
        comment=draw(st.none() | _TEXT),
        setup_black=setup[:split],
        setup_white=setup[split:],
        to_play=draw(st.none() | st.sampled_from([B, W])),
        moves=moves,
        move_comments=draw(st.dictionaries(indices, _TEXT, max_size=3)) if moves else {},
        properties=draw(
            st.dictionaries(ident, st.lists(_TEXT, min_size=1, max_size=3), max_size=3)
        ),
        move_properties=(
            draw(
                st.dictionaries(
                    indices,
                    st.dictionaries(
                        ident, st.lists(_TEXT, min_size=1, max_size=2), min_size=1, max_size=2
                    ),
                    max_size=2,
                )
            )
            if moves
            else {}
        ),
    )


@settings(max_examples=150, deadline=None)
@given(records())
def test_parse_inverts_dump(record: GameRecord) -> None:
    assert parse_sgf(dump_sgf(record)) == record


@settings(max_examples=60, deadline=None)
@given(records(), st.sampled_from(["\r\n", "\n", " \t "]))
def test_line_endings_and_spacing_between_tokens_do_not_matter(
    record: GameRecord, gap: str
) -> None:
    text = dump_sgf(
        dataclasses.replace(
            record,
            rules=None,  # no free text: ';' and line breaks below must be between tokens
            black=None,
            white=None,
            comment=None,
            game_comment=None,
            move_comments={},
            properties={},
            move_properties={},
        )
    )
    spaced = text.replace(";", gap + ";" + gap).replace("\n", gap)
    assert parse_sgf(spaced) == parse_sgf(text)
