"""Balanced opening books: short seeded random openings that a value network rates as even.

An arena plays every opening twice with colours swapped (:mod:`agents.matches.openings`), so an
opening's luck cancels within a pair only in expectation: an opening that decides the game
(one side already clearly ahead) gives a 1-1 pair whatever the agents do, and carries no
information about them. A **balanced** opening is one whose final position the network rates
close to even, ``|v| < threshold`` for the player to move, so that the two games of a pair are
decided by the agents rather than by the opening.

Candidate ``i`` of a book seeded with ``seed``:

1. its length ``k`` is uniform in ``[min_moves, max_moves]``, drawn from ``(seed, i)``;
2. its moves are :func:`agents.matches.openings.random_opening` of ``k`` moves for ``(seed, i)``
   (uniform legal points that are not an own eye and leave no self-atari);
3. the network evaluates the final position averaged over the 8 board symmetries (AlphaGo
   Zero's evaluation of final networks; deterministic, so a book does not depend on any other
   random draw);
4. it is kept when ``|v| < threshold`` and its final position, up to the 8 symmetries and with
   the same player to move, is not already in the book (nor in an excluded book).

Candidates are tried in index order until ``count`` are kept, so a book is a pure function of
its parameters and the network, and a longer book starts with the shorter one.

This is the balanced-opening method of the reproduction of Li & Lim (issue 19,
``docs/reproduction.md``); the paper does not say how its games were diversified
(``docs/protocol.md#open-choices``: where the games differ is a choice the paper leaves open).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np

from agents._moved import moved_name
from agents.matches.openings import random_opening
from go_env.coords import to_gtp
from go_env.rules import Rules
from go_env.state import GoState

__all__ = [
    "BalancedBook",
    "BookEntry",
    "ValueFn",
    "canonical_key",
    "draw_balanced_book",
    "opening_position",
    "write_book",
]

_LENGTH_STREAM = 0xBA1A  # separates the opening-length draws from other uses of the seed

ValueFn = Callable[[Sequence[GoState]], np.ndarray]
"""Values of positions for the player to move, in ``[-1, 1]``."""


@dataclass(frozen=True)
class BookEntry:
    """One accepted opening: its candidate index, moves (action indices) and value."""

    candidate: int
    moves: tuple[int, ...]
    value: float


@dataclass
class BalancedBook:
    """The result of :func:`draw_balanced_book`.

    Attributes:
        entries: The accepted openings, in candidate order.
        tried: Candidates evaluated.
        rejected_value: Candidates rejected because ``|v| >= threshold``.
        rejected_duplicate: Candidates rejected because their position was already taken.
        values: The value of every evaluated candidate (for the acceptance statistics).
    """

    entries: list[BookEntry] = field(default_factory=list)
    tried: int = 0
    rejected_value: int = 0
    rejected_duplicate: int = 0
    values: list[float] = field(default_factory=list)

    @property
    def acceptance(self) -> float:
        """Share of the evaluated candidates that were accepted."""
        return len(self.entries) / self.tried if self.tried else 0.0


def opening_position(rules: Rules, moves: Iterable[int]) -> GoState:
    """The position after playing ``moves`` from the start."""
    state = GoState(rules)
    for move in moves:
        state.play(int(move))
    return state


def canonical_key(state: GoState) -> bytes:
    """A key equal for positions that are the same up to the 8 board symmetries.

    The player to move is part of the key (the same stones with the other side to move is
    another position).
    """
    board = state.board
    variants = []
    for flipped in (board, board.T):
        for turns in range(4):
            variants.append(np.ascontiguousarray(np.rot90(flipped, turns)).tobytes())
    return bytes([int(state.to_play)]) + min(variants)


def _length(seed: int, candidate: int, min_moves: int, max_moves: int) -> int:
    rng = np.random.default_rng([_LENGTH_STREAM, seed, candidate])
    return int(rng.integers(min_moves, max_moves + 1))


def draw_balanced_book(
    rules: Rules,
    value_fn: ValueFn,
    *,
    count: int,
    seed: int,
    min_moves: int = 2,
    max_moves: int = 4,
    threshold: float = 0.15,
    exclude: Iterable[Sequence[int]] = (),
    max_candidates: int | None = None,
    batch: int = 64,
    progress: Callable[[BalancedBook], None] | None = None,
) -> BalancedBook:
    """Draw a balanced opening book (module docstring).

    Args:
        rules: The rules of the games (the network must be built for their board size).
        value_fn: Values of positions for the player to move, given by the caller (the
            ``gomcts book`` command passes :func:`agents.nets.evaluator.net_value_fn`, so this
            module never imports the networks).
        count: Openings wanted.
        seed: The book's seed.
        min_moves: Shortest opening.
        max_moves: Longest opening.
        threshold: Openings are kept when ``|v| < threshold``.
        exclude: Openings whose positions may not be used (e.g. another book, to draw a
            disjoint one).
        max_candidates: Give up after this many candidates (default ``200 * count``).
        batch: Candidates evaluated per call of ``value_fn``.
        progress: Called after each batch with the book so far.

    Returns:
        The book; it has fewer than ``count`` entries only when ``max_candidates`` ran out.

    Raises:
        ValueError: For a non-positive count, bad move bounds or a threshold outside (0, 1].
    """
    if count <= 0:
        raise ValueError(f"count must be > 0, got {count}")
    if not 0 <= min_moves <= max_moves:
        raise ValueError(
            f"need 0 <= min_moves <= max_moves, got min_moves={min_moves}, max_moves={max_moves}"
        )
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    if batch <= 0:
        raise ValueError(f"batch must be > 0, got {batch}")
    limit = 200 * count if max_candidates is None else max_candidates
    taken = {canonical_key(opening_position(rules, moves)) for moves in exclude}
    book = BalancedBook()
    candidate = 0
    while len(book.entries) < count and candidate < limit:
        todo: list[tuple[int, tuple[int, ...], GoState, bytes]] = []
        pending: set[bytes] = set()
        while len(todo) < batch and candidate < limit:
            k = _length(seed, candidate, min_moves, max_moves)
            moves = random_opening(rules, k, seed, candidate)
            state = opening_position(rules, moves)
            key = canonical_key(state)
            book.tried += 1
            if key in taken or key in pending:
                book.rejected_duplicate += 1
            else:
                pending.add(key)
                todo.append((candidate, moves, state, key))
            candidate += 1
        if not todo:
            continue
        values = np.asarray(value_fn([state for _, _, state, _ in todo]), dtype=np.float64)
        for (index, moves, _, key), value in zip(todo, values, strict=True):
            book.values.append(float(value))
            if len(book.entries) >= count:
                book.tried -= 1  # evaluated beyond the count: not part of the statistics
                book.values.pop()
                continue
            if abs(value) < threshold:
                book.entries.append(BookEntry(index, moves, float(value)))
                taken.add(key)
            else:
                book.rejected_value += 1
        if progress is not None:
            progress(book)
    return book


def write_book(
    path: str | PathLike[str],
    book: BalancedBook,
    rules: Rules,
    *,
    header: Sequence[str] = (),
) -> None:
    """Write ``book`` as an opening book of GTP vertices (read by :func:`load_book`).

    Each line is one opening followed by a comment with its candidate index and value; the
    ``header`` lines are written first as ``#`` comments.
    """
    lines = [f"# {line}" if line else "#" for line in header]
    for entry in book.entries:
        vertices = " ".join(to_gtp(move, rules.size) for move in entry.moves)
        lines.append(f"{vertices}  # candidate {entry.candidate}, v = {entry.value:+.4f}")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")


def __getattr__(name: str) -> object:
    # net_value_fn and model_digest moved to agents.nets for one release (CHANGELOG.md): the
    # book needs no network, its caller passes one. agents._moved looks them up by name, so
    # that agents.matches has no import of agents.nets.
    return moved_name(__name__, name)
