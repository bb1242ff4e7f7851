"""Property tests: random legal games agree with the pure-Python reference after every move."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_go import (
    BLACK,
    EMPTY,
    WHITE,
    RefGo,
    area,
    chain_of,
    liberties_of,
    neighbours,
)

from go_env import kernels
from go_env.errors import IllegalReason
from go_env.handicap import max_handicap
from go_env.rules import KoRule, Rules
from go_env.state import Color, GoState


def budget(examples: int) -> settings:
    """Hypothesis settings: ``examples`` games, no per-example deadline."""
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


PASS_ONE_IN = 16  # a choice divisible by this passes: games mostly fill the board


@dataclass(frozen=True)
class Game:
    rules: Rules
    choices: tuple[int, ...]


@st.composite
def games(draw: Any, max_len: int = 200, max_size: int = 13) -> Game:
    """Rules (size 2..13, any ko rule, suicide on/off, komi, cap, handicap) and move choices."""
    size = draw(st.one_of(st.integers(2, 5), st.integers(2, max_size)))
    rules = Rules(
        size=size,
        komi=draw(st.sampled_from([0, 0.5, 6, 7.5])),
        ko=draw(st.sampled_from(list(KoRule))),
        suicide=draw(st.booleans()),
        max_moves=draw(st.none() | st.integers(1, 3 * size * size)),
        handicap=draw(st.sampled_from([0, *range(2, max_handicap(size) + 1)])),
    )
    # Long games on small boards, shorter ones on large boards (the reference is slow there).
    length = draw(st.integers(0, min(rules.move_limit, max_len, 12_000 // size**2)))
    choices = draw(st.lists(st.integers(0, 2**20), min_size=length, max_size=length))
    return Game(rules, tuple(choices))


def pick(legal: np.ndarray | list[int], pass_move: int, choice: int) -> int:
    points = [int(m) for m in legal if m != pass_move]
    if not points or choice % PASS_ONE_IN == 0:
        return pass_move
    return points[choice % len(points)]


def reference_for(state: GoState) -> RefGo:
    """A reference game starting from the position of ``state`` (before any move)."""
    r = state.rules
    return RefGo(
        r.size,
        komi=r.komi,
        ko=r.ko.value,
        suicide=r.suicide,
        max_moves=r.max_moves,
        board=state.board.ravel().tolist(),
        to_play=int(state.to_play),
    )


def zobrist_of(board: np.ndarray) -> int:
    table = kernels.geometry(board.shape[0]).zobrist
    key = 0
    for p, color in enumerate(board.ravel().tolist()):
        if color:
            key ^= int(table[p, color])
    return key


def chains(board: list[int], size: int) -> list[set[int]]:
    seen: set[int] = set()
    out = []
    for p, color in enumerate(board):
        if color != EMPTY and p not in seen:
            chain = chain_of(board, size, p)
            seen |= chain
            out.append(chain)
    return out


def assert_agrees(state: GoState, ref: RefGo) -> None:
    """Everything observable about ``state`` equals the reference."""
    n = state.size
    board = state.board
    assert board.ravel().tolist() == ref.board
    assert int(state.to_play) == ref.to_play
    assert state.move_number == ref.moves
    assert state.consecutive_passes == ref.passes
    assert state.ko_point == ref.ko_point
    assert state.is_over == ref.is_over
    assert state.is_terminal == (ref.passes >= 2)
    assert state.captures(Color.BLACK) == ref.captures[BLACK]
    assert state.captures(Color.WHITE) == ref.captures[WHITE]
    assert state.score() == ref.score()
    assert state.zobrist == zobrist_of(board)
    expected = [ref.illegal_reason(move) for move in range(n * n + 1)]
    got = [state.illegal_reason(move) for move in range(n * n + 1)]
    assert [r.value if r else None for r in got] == expected
    assert state.legal_mask().tolist() == [r is None for r in expected]
    assert state.legal_moves().tolist() == [m for m, r in enumerate(expected) if r is None]
    for move in (-1, n * n + 1):
        assert state.illegal_reason(move) is IllegalReason.OFF_BOARD
    for chain in chains(ref.board, n):
        libs = len(liberties_of(ref.board, n, chain))
        assert libs > 0  # no chain without liberties stays on the board
        head = min(chain)
        assert state.chain(head) == sorted(chain)
        assert state.liberties(head) == libs


def snapshot(state: GoState) -> tuple[object, ...]:
    return (
        state.board.tolist(),
        state.history,
        state.zobrist,
        state.to_play,
        state.move_number,
        state.ko_point,
        state.consecutive_passes,
        state.captures(Color.BLACK),
        state.captures(Color.WHITE),
        state.legal_mask().tolist(),
        state.recent_boards(3).tolist(),
        state.score(),
        state.is_over,
    )


# ------------------------------------------------------------------ agreement with reference
@budget(200)
@given(games())
def test_random_games_agree_with_the_reference(game: Game) -> None:
    state = GoState(game.rules)
    ref = reference_for(state)
    assert_agrees(state, ref)
    for choice in game.choices:
        if state.is_over:
            break
        move = pick(state.legal_moves(), state.pass_move, choice)
        stones = int(np.count_nonzero(state.board))
        taken = state.captures(Color.BLACK) + state.captures(Color.WHITE)
        state.play(move)
        ref.play(move)
        removed = state.captures(Color.BLACK) + state.captures(Color.WHITE) - taken
        added = 0 if move == state.pass_move else 1
        assert int(np.count_nonzero(state.board)) == stones + added - removed
        assert state.history[-1][1] == move
        assert_agrees(state, ref)


def test_reference_agreement_exercises_every_rule() -> None:
    """Seeded games on small boards, with a bias towards captures so that kos come up often.

    Asserts that the comparisons really met every reason a move can be refused for, and
    every kind of move (capture, suicide, ko capture, superko refusals under both rules).
    """
    seen: Counter[tuple[str, str]] = Counter()
    rng = random.Random(2026)
    for game in range(120):
        size = (2, 3, 3, 4, 4, 5)[game % 6]
        ko = list(KoRule)[game % 3]
        rules = Rules(size=size, komi=0.5, ko=ko, suicide=game % 7 < 3)
        state = GoState(rules)
        ref = reference_for(state)
        while not state.is_over:
            for move in range(state.pass_move):
                reason = state.illegal_reason(move)
                assert (reason.value if reason else None) == ref.illegal_reason(move)
                seen[(ko.value, reason.value if reason else "legal")] += 1
            legal = ref.legal_moves()
            captures = [m for m in legal[:-1] if ref.after_move(m, ref.to_play)[1]]
            if captures and rng.random() < 0.7:
                move = rng.choice(captures)
            else:
                move = pick(legal, state.pass_move, rng.randrange(2**20))
            before = state.captures(state.to_play.opponent)
            state.play(move)
            ref.play(move)
            if state.captures(state.to_play) > before:
                seen[("any", "suicide played")] += 1
            if state.ko_point is not None:
                seen[("any", "ko capture")] += 1
            assert state.board.ravel().tolist() == ref.board
            assert state.ko_point == ref.ko_point
    for needed in [
        ("simple", "ko"),
        ("positional", "ko"),
        ("situational", "ko"),
        ("positional", "superko"),
        ("situational", "superko"),
        ("simple", "suicide"),
        ("positional", "occupied"),
        ("any", "suicide played"),
        ("any", "ko capture"),
    ]:
        assert seen[needed] > 0, needed
    assert seen[("simple", "superko")] == 0


@pytest.mark.parametrize(
    ("size", "ko"), [(2, KoRule.SIMPLE), (3, KoRule.POSITIONAL), (3, KoRule.SITUATIONAL)]
)
def test_long_games_beyond_the_default_cap_agree_with_the_reference(size: int, ko: KoRule) -> None:
    """Games far longer than 2*N*N moves: the history (boards, superko keys) keeps growing."""
    rng = random.Random(size)
    longest = 0
    for _ in range(40):
        state = GoState(Rules(size=size, ko=ko, suicide=True, max_moves=40 * size * size))
        ref = reference_for(state)
        clones = []
        while not state.is_over:
            move = pick(state.legal_moves(), state.pass_move, rng.randrange(2**20) | 1)
            state.play(move)
            ref.play(move)
            assert state.legal_mask().tolist() == [
                ref.illegal_reason(m) is None for m in range(state.pass_move + 1)
            ]
            if state.move_number % 7 == 0:
                clones.append(state.clone())
        depth = state.move_number + 2
        for s in [state, *clones]:
            fresh = GoState(s.rules)
            for _, move in s.history:
                fresh.play(move)
            assert s.recent_boards(depth).tolist() == fresh.recent_boards(depth).tolist()
            assert s.compiled().superko_keys.tolist() == fresh.compiled().superko_keys.tolist()
        longest = max(longest, state.move_number)
        if longest > 8 * size * size:
            break
    assert longest > 8 * size * size


@budget(100)
@given(games(max_len=150, max_size=9))
def test_advance_equals_play(game: Game) -> None:
    """The environment's fast path ``advance`` leaves the same state as ``play``."""
    played = GoState(game.rules)
    advanced = GoState(game.rules)
    for choice in game.choices:
        if played.is_over:
            break
        move = pick(played.legal_moves(), played.pass_move, choice)
        played.play(move)
        score, number, status = advanced.advance(move)
        assert snapshot(advanced) == snapshot(played)
        assert score == played.score()
        assert number == played.move_number
        assert status == (1 if played.is_terminal else 2 if played.is_truncated else 0)
    depth = played.move_number + 2
    assert advanced.recent_boards(depth).tolist() == played.recent_boards(depth).tolist()
    assert advanced.compiled().superko_keys.tolist() == played.compiled().superko_keys.tolist()


# --------------------------------------------------------------------------- clones
@budget(60)
@given(
    games(max_len=60, max_size=9),
    st.integers(0, 60),
    st.lists(st.integers(0, 2**20), max_size=30),
)
def test_clones_are_independent(game: Game, split: int, others: list[int]) -> None:
    state = GoState(game.rules)
    for i, choice in enumerate(game.choices):
        if state.is_over or i == split:
            break
        state.play(pick(state.legal_moves(), state.pass_move, choice))
    clone = state.clone()
    before = snapshot(state)
    assert snapshot(clone) == before
    for choice in others:  # mutate the clone: the original must not move
        if clone.is_over:
            break
        clone.play(pick(clone.legal_moves(), clone.pass_move, choice))
    assert snapshot(state) == before
    clone_now = snapshot(clone)
    for choice in reversed(others):  # and the other way round
        if state.is_over:
            break
        state.play(pick(state.legal_moves(), state.pass_move, choice))
    assert snapshot(clone) == clone_now


@budget(60)
@given(
    games(max_len=30, max_size=7),
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 2**20), st.booleans()), max_size=80),
)
def test_clone_families_match_fresh_replays(game: Game, steps: list[tuple[int, int, bool]]) -> None:
    """Clones of clones, played in any order, each equal a fresh replay of their own history.

    Clones share their history arrays until one of them writes, so this checks that no write
    leaks into a relative (boards for ``recent_boards``, keys for superko).
    """
    family = [GoState(game.rules)]
    for choice in game.choices:
        if family[0].is_over:
            break
        family[0].play(pick(family[0].legal_moves(), family[0].pass_move, choice))
    for index, choice, make_clone in steps:
        state = family[index % len(family)]
        if make_clone:
            family.append(state.clone())
        elif not state.is_over:
            move = pick(state.legal_moves(), state.pass_move, choice)
            if choice & 32:  # either way of playing must respect the sharing
                state.advance(move)
            else:
                state.play(move)
    for state in family:
        fresh = GoState(game.rules)
        for _, move in state.history:
            fresh.play(move)
        assert snapshot(state) == snapshot(fresh)
        depth = state.move_number + 2
        assert state.recent_boards(depth).tolist() == fresh.recent_boards(depth).tolist()
        assert state.compiled().superko_keys.tolist() == fresh.compiled().superko_keys.tolist()


# -------------------------------------------------------------------------- playouts
def is_playout_eye(board: list[int], size: int, p: int, color: int) -> bool:
    """The playout policy's eye: all neighbours own stones, few opponent diagonals."""
    if any(board[q] != color for q in neighbours(p, size)):
        return False
    r, c = divmod(p, size)
    edge = r in (0, size - 1) or c in (0, size - 1)
    diagonals = [
        (r + dr) * size + c + dc
        for dr in (-1, 1)
        for dc in (-1, 1)
        if 0 <= r + dr < size and 0 <= c + dc < size
    ]
    bad = sum(board[q] == 3 - color for q in diagonals)
    return bad + edge < 2


def playable(board: list[int], size: int, color: int) -> list[int]:
    """Empty points that ``color`` may play in a playout: no suicide, no own eye."""
    ref = RefGo(size, board=board, to_play=color, ko="simple")
    return [
        p
        for p in range(size * size)
        if board[p] == EMPTY
        and not ref.after_move(p, color)[2]
        and not is_playout_eye(board, size, p, color)
    ]


@budget(100)
@given(games(max_len=40), st.integers(-(2**70), 2**70))
def test_random_playout_is_deterministic_and_leaves_the_state_alone(game: Game, seed: int) -> None:
    state = GoState(game.rules)
    for choice in game.choices:
        if state.is_over:
            break
        state.play(pick(state.legal_moves(), state.pass_move, choice))
    before = snapshot(state)
    n = state.size
    komi = float(state.rules.komi)
    score = state.random_playout(seed)
    assert state.random_playout(seed) == score
    assert snapshot(state) == before
    assert abs(score + komi) <= n * n
    assert float(score + komi).is_integer()
    if state.is_over:
        assert score == state.score()

    # The same playout through the compiled kernels, to look at its final position.
    compiled = state.compiled()
    geo = compiled.geometry
    vector = compiled.vector
    black, white = kernels.random_playout(
        vector, geo.nbr, geo.diag, geo.zobrist, compiled.move_limit, kernels.seed_rng(seed)
    )
    assert float(black - white) - komi == score
    final = vector[kernels.HEADER : kernels.HEADER + n * n].tolist()
    assert area(final, n) == (black, white)
    for chain in chains(final, n):
        assert liberties_of(final, n, chain)
    passes = int(vector[kernels.H_PASSES])
    assert passes >= 2 or int(vector[kernels.H_MOVES]) >= compiled.move_limit
    assert int(vector[kernels.H_HASH]) == zobrist_of(np.array(final).reshape(n, n))
    played = int(vector[kernels.H_MOVES]) - state.move_number
    if passes >= 2 and not state.is_over:
        to_play = int(vector[kernels.H_TO_PLAY])
        last = 3 - to_play  # passed last, with no ko point: nothing left to play
        assert playable(final, n, last) == []
        if played >= 2:  # the first pass was the playout's too: at most a ko point was left
            left = playable(final, n, to_play)
            assert len(left) <= 1
            for p in left:
                _, captured, _ = RefGo(n, board=final, to_play=to_play).after_move(p, to_play)
                assert captured == 1


def test_random_playout_seeds_matter() -> None:
    state = GoState(Rules(size=9))
    assert len({state.random_playout(seed) for seed in range(30)}) > 1


# --------------------------------------------------------------------------- scoring
def setup_board(cells: list[int], n: int) -> list[int]:
    """``cells`` without its chains that have no liberty (the others only gain liberties)."""
    board = list(cells)
    for chain in chains(cells, n):
        if not liberties_of(cells, n, chain):
            for p in chain:
                board[p] = EMPTY
    return board


def boards(max_size: int) -> st.SearchStrategy[list[int]]:
    return st.integers(2, max_size).flatmap(
        lambda n: st.lists(st.sampled_from([0, 1, 2]), min_size=n * n, max_size=n * n)
    )


@budget(150)
@given(boards(9))
def test_score_and_owners_of_any_setup_position_match_the_reference(cells: list[int]) -> None:
    n = round(len(cells) ** 0.5)
    board = setup_board(cells, n)
    text = "\n".join("".join(".XO"[c] for c in board[r * n : (r + 1) * n]) for r in range(n))
    state = GoState.from_ascii(text, Rules(size=n, komi=0.5))
    black, white = area(board, n)
    assert state.score() == black - white - 0.5
    owners = state.area_owners()  # the points that area counts, each with its colour
    assert owners.dtype == np.int8 and owners.shape == (n * n,)
    assert (int((owners == 1).sum()), int((owners == -1).sum())) == (black, white)
    stones = np.array(board)
    assert (owners[stones == BLACK] == 1).all() and (owners[stones == WHITE] == -1).all()
    assert state.zobrist == zobrist_of(state.board)
    state.play(state.pass_move)
    state.play(state.pass_move)
    assert state.winner is (Color.BLACK if black > white else Color.WHITE)
    assert state.illegal_reason(0) is IllegalReason.GAME_OVER


@budget(150)
@given(
    boards(7),
    st.sampled_from([Color.BLACK, Color.WHITE]),
    st.sampled_from(list(KoRule)),
    st.booleans(),
    st.integers(0, 60).flatmap(lambda k: st.lists(st.integers(0, 2**20), min_size=k, max_size=k)),
)
def test_games_from_any_setup_position_agree_with_the_reference(
    cells: list[int], to_play: Color, ko: KoRule, suicide: bool, choices: list[int]
) -> None:
    """``from_ascii`` starts a game whose first position (and player) counts for superko."""
    n = round(len(cells) ** 0.5)
    board = setup_board(cells, n)
    text = "\n".join("".join(".XO"[c] for c in board[r * n : (r + 1) * n]) for r in range(n))
    state = GoState.from_ascii(text, Rules(size=n, ko=ko, suicide=suicide), to_play=to_play)
    ref = reference_for(state)
    assert ref.board == board and ref.to_play == to_play
    assert_agrees(state, ref)
    for choice in choices:
        if state.is_over:
            break
        move = pick(state.legal_moves(), state.pass_move, choice)
        state.play(move)
        ref.play(move)
        assert_agrees(state, ref)
