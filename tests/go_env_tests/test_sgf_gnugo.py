"""SGF written by go_env.sgf is read by GNU Go (``loadsgf``) into the same position, and SGF
files read by both programs give the same position."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from game_support import random_moves
from gnugo_support import COLOR_NAMES as NAMES
from gnugo_support import gnugo_board

from agents.gtp import GtpProcess
from go_env.coords import from_gtp
from go_env.rules import Rules
from go_env.sgf import load_sgf, record_from_state, save_sgf, state_from_record
from go_env.state import Color, GoState

pytestmark = pytest.mark.gnugo

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sgf"


def gnugo_position(engine: GtpProcess, size: int) -> np.ndarray:
    assert int(engine.send("query_boardsize")) == size
    return gnugo_board(engine, size)


def assert_gnugo_loads(engine: GtpProcess, path: Path, state: GoState) -> None:
    to_move = engine.send(f"loadsgf {path}")
    np.testing.assert_array_equal(gnugo_position(engine, state.size), state.board)
    assert to_move == NAMES[state.to_play]
    assert int(engine.send("captures black")) == state.captures(Color.BLACK)
    assert int(engine.send("captures white")) == state.captures(Color.WHITE)
    assert float(engine.send("get_komi")) == state.rules.komi


@pytest.mark.parametrize(("size", "seed"), [(5, 11), (9, 12), (13, 13), (19, 14)])
def test_our_games_load_in_gnugo(
    gnugo_engine: GtpProcess,
    tmp_path: Path,
    size: int,
    seed: int,
) -> None:
    state = random_moves(
        GoState(Rules(size=size, komi=6.5)), seed, moves=size * size, pass_rate=0.03
    )
    assert state.captures(Color.BLACK) + state.captures(Color.WHITE) > 0
    path = tmp_path / "game.sgf"
    save_sgf(record_from_state(state, black="random", white="random"), path)
    assert_gnugo_loads(gnugo_engine, path, state)


@pytest.mark.parametrize(("size", "handicap"), [(9, 4), (13, 5), (19, 9)])
def test_handicap_games_load_in_gnugo(
    gnugo_engine: GtpProcess,
    tmp_path: Path,
    size: int,
    handicap: int,
) -> None:
    state = random_moves(
        GoState(Rules(size=size, komi=0.5, handicap=handicap)), size, moves=40, pass_rate=0.03
    )
    record = record_from_state(state)
    assert record.handicap == handicap and len(record.setup_black) == handicap
    path = tmp_path / "handicap.sgf"
    save_sgf(record, path)
    text = path.read_text()
    assert f"HA[{handicap}]" in text and "AB[" in text
    assert_gnugo_loads(gnugo_engine, path, state)


def test_set_up_position_with_white_to_play_loads_in_gnugo(
    gnugo_engine: GtpProcess,
    tmp_path: Path,
) -> None:
    state = GoState.from_ascii(
        """
        . . . . . . .
        . X X O . . .
        . X O . O . .
        . . X O . . .
        . . . . . . .
        . . . . . . .
        . . . . . O X
        """,
        Rules(size=7, komi=2.0),
        to_play=Color.WHITE,
    )
    path = tmp_path / "position.sgf"
    save_sgf(record_from_state(state), path)
    assert "PL[W]" in path.read_text()
    assert_gnugo_loads(gnugo_engine, path, state)
    state.play(from_gtp("G2", 7))  # captures the black stone at G1
    assert state.captures(Color.WHITE) == 1
    save_sgf(record_from_state(state), path)
    assert_gnugo_loads(gnugo_engine, path, state)


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.sgf")), ids=lambda p: p.name)
def test_fixtures_read_the_same_by_both(gnugo_engine: GtpProcess, path: Path) -> None:
    record = load_sgf(path)
    state = state_from_record(record)
    to_move = gnugo_engine.send(f"loadsgf {path}")
    np.testing.assert_array_equal(gnugo_position(gnugo_engine, record.size), state.board)
    assert to_move == NAMES[state.to_play]
    assert int(gnugo_engine.send("captures black")) == state.captures(Color.BLACK)
    assert int(gnugo_engine.send("captures white")) == state.captures(Color.WHITE)
