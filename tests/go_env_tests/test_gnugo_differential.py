"""Differential test of the rules engine against GNU Go 3.8 over GTP.

Random legal games are played into both our GoState (simple ko, suicide illegal: GNU Go's
rules) and GNU Go. After every move the stones and the prisoner counts must agree; every few
moves the legality of every point for the player to move must agree (occupied points, suicides
and ko recaptures included). A failure prints the size, the seed and the moves as GTP vertices,
which is a complete reproduction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import numpy as np
import pytest
from gnugo_support import COLOR_NAMES as NAMES
from gnugo_support import gnugo_board

from agents.gtp import GtpProcess
from go_env.coords import from_gtp, to_gtp
from go_env.errors import IllegalReason
from go_env.rules import KoRule, Rules
from go_env.state import Color, GoState

pytestmark = pytest.mark.gnugo

# (size, games, check every k moves): 42 games in all.
PLAN = [(5, 14, 1), (7, 12, 2), (9, 10, 4), (13, 6, 8)]
PASS_RATE = 0.04


def reproduction(size: int, seed: int, state: GoState) -> str:
    moves = " ".join(to_gtp(m, size) for _, m in state.history)
    return f"size {size}, seed {seed}, moves (Black first): {moves}"


def check_legality(
    engine: GtpProcess,
    state: GoState,
    size: int,
    seed: int,
    seen: Counter[str],
    moves: Iterable[int] | None = None,
) -> None:
    """Our is_legal equals GNU Go's is_legal for the player to move (all points by default)."""
    color = NAMES[state.to_play]
    for move in range(size * size) if moves is None else moves:
        ours = state.is_legal(move)
        theirs = engine.send(f"is_legal {color} {to_gtp(move, size)}") == "1"
        reason = state.illegal_reason(move)
        assert ours == theirs, (
            f"is_legal {color} {to_gtp(move, size)}: ours {ours} ({reason}), GNU Go {theirs}; "
            + reproduction(size, seed, state)
        )
        seen[reason.value if reason is not None else "legal"] += 1


def play_random_game(
    engine: GtpProcess, size: int, seed: int, check_every: int, seen: Counter[str]
) -> GoState:
    rng = np.random.default_rng(seed)
    state = GoState(Rules(size=size, komi=0, ko=KoRule.SIMPLE, suicide=False))
    engine.send(f"boardsize {size}")
    engine.send("clear_board")
    while not state.is_over:
        if state.move_number % check_every == 0:
            check_legality(engine, state, size, seed, seen)
        if state.ko_point is not None:  # the ko recapture, every time there is one
            ko = state.ko_point
            answer = engine.send(f"is_legal {NAMES[state.to_play]} {to_gtp(ko, size)}")
            assert state.illegal_reason(ko) == IllegalReason.KO and answer == "0", (
                f"ko at {to_gtp(ko, size)}: GNU Go is_legal {answer}; "
                + reproduction(size, seed, state)
            )
            seen["ko point"] += 1
        legal = state.legal_moves()
        points = legal[legal != state.pass_move]
        if len(points) and rng.random() >= PASS_RATE:
            move = int(rng.choice(points))
        else:
            move = state.pass_move
        color = NAMES[state.to_play]
        before = state.board
        state.play(move)
        engine.send(f"play {color} {to_gtp(move, size)}")
        ours, theirs = state.board, gnugo_board(engine, size)
        assert np.array_equal(ours, theirs), (
            f"boards differ after {color} {to_gtp(move, size)}\nours:\n{state.to_ascii()}\n"
            f"GNU Go:\n{engine.send('showboard')}\n" + reproduction(size, seed, state)
        )
        for c in (Color.BLACK, Color.WHITE):
            theirs_captured = int(engine.send(f"captures {NAMES[c]}"))
            assert state.captures(c) == theirs_captured, (
                f"{NAMES[c]} prisoners: ours {state.captures(c)}, GNU Go {theirs_captured}; "
                + reproduction(size, seed, state)
            )
        emptied = np.flatnonzero((before != 0).ravel() & (ours == 0).ravel())
        if emptied.size and not state.is_over:  # after a capture, where kos and suicides arise
            check_legality(engine, state, size, seed, seen, (int(p) for p in emptied))
    return state


@pytest.mark.parametrize(("size", "games", "check_every"), PLAN, ids=[f"{s}x{s}" for s, *_ in PLAN])
def test_random_games_agree_with_gnugo(
    gnugo_engine: GtpProcess,
    size: int,
    games: int,
    check_every: int,
) -> None:
    seen: Counter[str] = Counter()
    captured = 0
    for game in range(games):
        state = play_random_game(gnugo_engine, size, 1000 * size + game, check_every, seen)
        captured += state.captures(Color.BLACK) + state.captures(Color.WHITE)
    # The games must have reached the interesting cases, or the agreement proves little.
    assert captured > 10 * games
    assert seen["ko"] > 0 and seen["ko point"] > 0
    assert seen["suicide"] > 0
    assert seen["occupied"] > 0 and seen["legal"] > 0


def test_known_ko_and_suicide_position(gnugo_engine: GtpProcess) -> None:
    """A hand-made ko with a suicide point beside it, checked on both sides.

    After the moves below (5x5), White to play::

          A B C D E
        5 . X O . .
        4 X . X O .      B4 is the ko recapture (illegal now), A5 is suicide for White.
        3 . X O . .
    """
    size = 5
    gnugo_engine.send(f"boardsize {size}")
    gnugo_engine.send("clear_board")
    state = GoState(Rules(size=size, komi=0, ko=KoRule.SIMPLE))

    def play(vertex: str) -> None:
        color = NAMES[state.to_play]
        state.play(from_gtp(vertex, size))
        gnugo_engine.send(f"play {color} {vertex}")
        assert np.array_equal(state.board, gnugo_board(gnugo_engine, size))

    for vertex in ["B5", "C5", "A4", "D4", "B3", "C3", "pass", "B4", "C4"]:
        play(vertex)
    assert state.captures(Color.BLACK) == int(gnugo_engine.send("captures black")) == 1
    assert state.illegal_reason(from_gtp("B4", size)) == IllegalReason.KO
    assert state.illegal_reason(from_gtp("A5", size)) == IllegalReason.SUICIDE
    assert gnugo_engine.send("is_legal white B4") == "0"
    assert gnugo_engine.send("is_legal white A5") == "0"
    seen: Counter[str] = Counter()
    check_legality(gnugo_engine, state, size, -1, seen)
    assert seen["ko"] == 1 and seen["suicide"] >= 1
    play("E1")  # a ko threat elsewhere and its answer lift the ko ban
    play("E5")
    assert state.is_legal(from_gtp("B4", size))
    assert gnugo_engine.send("is_legal white B4") == "1"
    play("B4")  # retakes the ko
    assert state.captures(Color.WHITE) == int(gnugo_engine.send("captures white")) == 1
