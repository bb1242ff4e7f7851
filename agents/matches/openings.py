"""Openings of arena games: seeded random openings and opening books.

An arena plays every opening twice, once with each agent as Black, so that the luck of the
opening cancels between the two games of a pair.

* A **random opening** of ``k`` moves is drawn from the match seed and the pair index alone, so
  a game's opening does not depend on which process plays it or on how many games the match
  has. Each move is uniform among the points that are legal, are not an eye of the player to
  move, and do not leave the new stone's chain with a single liberty (no self-atari).
* An **opening book** is a text file with one opening per line, written as GTP vertices
  separated by spaces or commas (``#`` starts a comment), or a directory of ``.sgf`` files,
  each giving the moves of its main line, or a recorded match's results file (a name ending in
  ``.jsonl`` or ``.jsonl.gz``, either form found), whose header holds the book that match
  played: its openings replay without being written out first. Pair ``p`` plays opening
  ``p mod len(book)``. Only regular files are read, a text book of at most
  :data:`MAX_BOOK_BYTES`, each SGF file of at most :data:`MAX_SGF_BYTES` and a results file of
  at most :data:`MAX_RESULTS_BOOK_BYTES` as stored: a FIFO, a device such as ``/dev/zero`` or a
  larger file is refused at once, before anything is read.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

from agents.matches.results import ResultsError, header_match, stored_results
from agents.regular_file import open_regular_file, read_regular_file
from agents.stored import is_compressed
from go_env.coords import from_gtp
from go_env.errors import IllegalMoveError
from go_env.rules import Rules
from go_env.sgf import SgfError, parse_sgf_bytes
from go_env.state import GoState

__all__ = [
    "MAX_BOOK_BYTES",
    "MAX_RESULTS_BOOK_BYTES",
    "MAX_SGF_BYTES",
    "check_opening",
    "load_book",
    "random_opening",
]

#: The largest text opening book read (bytes): some 300,000 openings of a few moves.
MAX_BOOK_BYTES = 16 << 20
#: The largest SGF file of a book folder read (bytes), as GTP's ``loadsgf`` reads.
MAX_SGF_BYTES = 1 << 20

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


def _read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path`` for the book, a regular file of at most ``limit`` bytes."""
    return read_regular_file(
        path,
        limit,
        name=f"the opening book {path}",
        hint=" (a FIFO, device or socket); give a text file or a folder of .sgf files",
    )


#: The file names read as a recorded match's results file rather than as a text book.
RESULTS_BOOK_SUFFIXES = (".jsonl", ".jsonl.gz")
#: The largest results file read for its book (bytes, as stored): some 50,000 games.
MAX_RESULTS_BOOK_BYTES = 256 << 20


def _results_header(source: Path) -> dict[str, Any]:
    """The match configuration in the header line of the results file ``source``."""
    try:
        stored = stored_results(source)
    except ResultsError as exc:
        raise ValueError(str(exc)) from None
    if stored is None:
        raise FileNotFoundError(f"no results file at {source} (nor its other form)")
    with open_regular_file(
        stored,
        MAX_RESULTS_BOOK_BYTES,
        name=f"the opening book {stored}",
        hint=" (a FIFO, device or socket); give a match's results file",
    ) as handle:
        stream = gzip.GzipFile(fileobj=handle) if is_compressed(stored) else handle
        match = header_match(stream, MAX_BOOK_BYTES)
    if match is None:
        raise ValueError(
            f"the opening book {stored} is not a match's results file (its first line is not "
            'the header {"kind": "header", ..., "match": {...}})'
        )
    return match


def _results_book(source: Path, rules: Rules) -> list[tuple[tuple[int, ...], str]]:
    """The openings a recorded match played, from its results file's header."""
    match = _results_header(source)
    played = match["rules"].get("size") if isinstance(match.get("rules"), dict) else None
    if played != rules.size:
        raise ValueError(
            f"the opening book {source} holds the openings of a {played}x{played} match, "
            f"this match is {rules.size}x{rules.size}"
        )
    openings = match.get("book")
    if not openings:
        raise ValueError(
            f"the opening book {source} holds no opening: its match played random openings "
            f"(seed {match.get('seed')}, {match.get('opening_moves')} moves); give --seed and "
            "--opening-moves for the same openings"
        )
    if not isinstance(openings, list) or not all(
        isinstance(opening, list)
        and all(isinstance(m, int) and not isinstance(m, bool) for m in opening)
        for opening in openings
    ):
        raise ValueError(f"the opening book {source}: its header's book is not lists of moves")
    return [(tuple(opening), f"{source}, opening {i}") for i, opening in enumerate(openings, 1)]


def load_book(path: str | PathLike[str], rules: Rules) -> tuple[tuple[int, ...], ...]:
    """Read an opening book (see the module docstring) and check every opening.

    Raises:
        ValueError: When the book is empty, a vertex is malformed, an opening is illegal
            (the message names the line, opening or file), a file is not a regular file or
            is too large (:data:`MAX_BOOK_BYTES`, :data:`MAX_SGF_BYTES`), or a results file
            is not one, is of another board size or played no book.
        OSError: When the file cannot be read.
    """
    source = Path(path)
    book: list[tuple[tuple[int, ...], str]] = []
    if source.name.endswith(RESULTS_BOOK_SUFFIXES) and not source.is_dir():
        book = _results_book(source, rules)
    elif source.suffix == ".json" and not source.is_dir():
        raise ValueError(
            f"the opening book {source} is a JSON file: give a text book, a folder of .sgf "
            "files, or a match's results file (its results.jsonl or results.jsonl.gz)"
        )
    elif source.is_dir():
        for sgf in sorted(source.glob("*.sgf")):
            try:
                record = parse_sgf_bytes(_read_regular(sgf, MAX_SGF_BYTES))
            except SgfError as exc:
                raise ValueError(f"{sgf}: {exc}") from None
            if record.size != rules.size:
                raise ValueError(
                    f"{sgf}: the game is {record.size}x{record.size}, the match "
                    f"{rules.size}x{rules.size}"
                )
            book.append((tuple(move for _, move in record.moves), str(sgf)))
    else:
        try:
            text = _read_regular(source, MAX_BOOK_BYTES).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"the opening book {source} is not UTF-8 text: {exc}") from None
        for number, raw in enumerate(text.splitlines(), 1):
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
