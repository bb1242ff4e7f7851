"""Balanced opening books (agents/matches/balanced.py, `gomcts book`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from agents.cli import main
from agents.matches.balanced import canonical_key, draw_balanced_book, opening_position
from agents.matches.openings import load_book
from go_env.coords import from_gtp
from go_env.rules import Rules
from go_env.state import GoState

RULES = Rules(size=9, komi=7.5)


def _fake_values(states: Sequence[GoState]) -> np.ndarray:
    """A deterministic stand-in for the network: the stone count's parity decides the value."""
    return np.array([0.0 if int((s.board > 0).sum()) % 2 == 0 else 0.5 for s in states])


def test_book_keeps_only_positions_under_the_threshold_and_is_reproducible() -> None:
    book = draw_balanced_book(RULES, _fake_values, count=20, seed=3, min_moves=2, max_moves=3)
    assert len(book.entries) == 20
    assert all(len(e.moves) == 2 for e in book.entries)  # odd stone counts are rejected
    assert book.rejected_value > 0
    assert book.tried == len(book.entries) + book.rejected_value + book.rejected_duplicate
    again = draw_balanced_book(RULES, _fake_values, count=20, seed=3, min_moves=2, max_moves=3)
    assert [e.moves for e in again.entries] == [e.moves for e in book.entries]
    longer = draw_balanced_book(RULES, _fake_values, count=25, seed=3, min_moves=2, max_moves=3)
    assert [e.moves for e in longer.entries[:20]] == [e.moves for e in book.entries]


def test_positions_are_distinct_up_to_symmetry_and_exclusion_gives_a_disjoint_book() -> None:
    first = draw_balanced_book(RULES, _fake_values, count=30, seed=1)
    keys = {canonical_key(opening_position(RULES, e.moves)) for e in first.entries}
    assert len(keys) == 30
    second = draw_balanced_book(
        RULES, _fake_values, count=30, seed=1, exclude=[e.moves for e in first.entries]
    )
    other = {canonical_key(opening_position(RULES, e.moves)) for e in second.entries}
    assert not keys & other  # same seed, yet no shared position


def test_canonical_key_identifies_symmetric_positions() -> None:
    a = opening_position(RULES, [from_gtp("C3", 9), from_gtp("E5", 9)])
    b = opening_position(RULES, [from_gtp("G7", 9), from_gtp("E5", 9)])  # rotated 180 degrees
    c = opening_position(RULES, [from_gtp("C3", 9), from_gtp("E6", 9)])
    assert canonical_key(a) == canonical_key(b) != canonical_key(c)


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="count"):
        draw_balanced_book(RULES, _fake_values, count=0, seed=0)
    with pytest.raises(ValueError, match="min_moves"):
        draw_balanced_book(RULES, _fake_values, count=1, seed=0, min_moves=3, max_moves=2)
    with pytest.raises(ValueError, match="threshold"):
        draw_balanced_book(RULES, _fake_values, count=1, seed=0, threshold=0.0)


def test_command_writes_a_book_the_arena_reads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "book.txt"
    assert main(["book", "--out", str(out), "--count", "12", "--seed", "5"]) == 0
    book = load_book(out, RULES)
    assert len(book) == 12
    text = out.read_text()
    assert "sha256" in text and "12 accepted of" in text
    values = [
        float(line.split("v = ")[1]) for line in text.splitlines() if not line.startswith("#")
    ]
    assert len(values) == 12 and max(abs(v) for v in values) < 0.15
    fresh = tmp_path / "fresh.txt"
    assert main(["book", "--out", str(fresh), "--count", "12", "--exclude", str(out)]) == 0
    assert not set(load_book(fresh, RULES)) & set(book)
