"""Openings of arena games: seeded random openings and opening books.

An arena plays every opening twice, once with each agent as Black, so that the luck of the
opening cancels between the two games of a pair.

* A **random opening** of ``k`` moves is drawn from the match seed and the pair index alone, so
  a game's opening does not depend on which process plays it or on how many games the match
  has. Each move is uniform among the points that are legal, are not an eye of the player to
  move, and do not leave the new stone's chain with a single liberty (no self-atari).
* An **opening book** is a text file with one opening per line, written as GTP vertices
  separated by spaces or commas (``#`` starts a comment), or a directory of ``.sgf`` files,
  each giving the moves of its main line. Pair ``p`` plays opening ``p mod len(book)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from pathlib import Path

import numpy as np

from go_env.coords import from_gtp
from go_env.errors import IllegalMoveError
from go_env.rules import Rules
from go_env.sgf import load_sgf
from go_env.state import GoState

__all__ = ["check_opening", "load_book", "random_opening"]

_OPENING_STREAM = 0x0BE7  # separates the opening generator from other uses of the match seed


def random_opening(rules: Rules, moves: int, seed: int, pair: int) -> tuple[int, ...]:
    """The random opening of pair ``pair`` of a match seeded with ``seed``.

    Args:
        rules: The rules of the games (size, handicap).
        moves: Number of opening moves; fewer when no acceptable move is left.
        seed: The match seed.
        pair: The pair index.

    Returns:
        The moves as action indices, played alternately from the first player.
    """
    if moves < 0:
        raise ValueError(f"the number of opening moves must be >= 0, got {moves}")
    rng = np.random.default_rng([_OPENING_STREAM, seed, pair])
    state = GoState(rules)
    played: list[int] = []
    for _ in range(moves):
        mask = state.legal_mask()[:-1] & ~state.own_eye_mask()
        candidates = np.flatnonzero(mask)
        rng.shuffle(candidates)
        for point in candidates:
            trial = state.clone()
            trial.play(int(point))
            if trial.liberties(int(point)) >= 2:
                state = trial
                played.append(int(point))
                break
        else:
            break
    return tuple(played)


def check_opening(rules: Rules, opening: Sequence[int]) -> None:
    """Check that ``opening`` can be played from the start under ``rules``.

    Raises:
        ValueError: Naming the first illegal move, or when the opening ends the game.
    """
    state = GoState(rules)
    for i, move in enumerate(opening):
        try:
            state.play(int(move))
        except (IllegalMoveError, TypeError) as exc:
            raise ValueError(f"opening move {i + 1} ({move!r}) is illegal: {exc}") from None
    if state.is_over:
        raise ValueError("the opening ends the game")


def _parse_line(line: str, size: int, where: str) -> tuple[int, ...]:
    moves = []
    for token in line.replace(",", " ").split():
        try:
            moves.append(from_gtp(token, size))
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
    return tuple(moves)


def load_book(path: str | PathLike[str], rules: Rules) -> tuple[tuple[int, ...], ...]:
    """Read an opening book (see the module docstring) and check every opening.

    Raises:
        ValueError: When the book is empty, a vertex is malformed, or an opening is illegal
            (the message names the line or file).
        OSError: When the file cannot be read.
    """
    source = Path(path)
    book: list[tuple[tuple[int, ...], str]] = []
    if source.is_dir():
        for sgf in sorted(source.glob("*.sgf")):
            record = load_sgf(sgf)
            if record.size != rules.size:
                raise ValueError(
                    f"{sgf}: the game is {record.size}x{record.size}, the match "
                    f"{rules.size}x{rules.size}"
                )
            book.append((tuple(move for _, move in record.moves), str(sgf)))
    else:
        for number, raw in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if line:
                where = f"{source}, line {number}"
                book.append((_parse_line(line, rules.size, where), where))
    if not book:
        raise ValueError(f"the opening book {source} holds no opening")
    for opening, where in book:
        try:
            check_opening(rules, opening)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
    return tuple(opening for opening, _ in book)
