"""A recorded summary's opening book as a reference to its results header, and back."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from agents.matches.arena import MatchConfig, run_match
from agents.matches.records import record_run
from agents.matches.summary_book import (
    BookReferenceError,
    book_reference,
    book_sha256,
    is_book_reference,
    read_summary,
    recorded_book,
    refer_book,
)
from go_env.rules import Rules

BOOK = ((0,), (1, 7), (12, 3, 4))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 5x5 match of 4 random games on a 3-opening book, with its summary as the CLI writes."""
    folder = tmp_path_factory.mktemp("book-run")
    config = MatchConfig(
        agent_a="random", agent_b="random", games=4, rules=Rules(size=5), seed=3, book=BOOK
    )
    result = run_match(config, results=folder / "results.jsonl", workers=1)
    (folder / "summary.json").write_text(json.dumps(result.summary(), indent=2) + "\n")
    return folder


def _summary(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "summary.json").read_text())  # type: ignore[no-any-return]


def test_the_hash_is_of_the_canonical_json() -> None:
    book = [[0], [1, 7]]
    assert book_sha256(book) == hashlib.sha256(b"[[0],[1,7]]").hexdigest()
    assert book_sha256(book) != book_sha256([[0], [7, 1]])
    reference = book_reference(book)
    assert reference == {"openings": 2, "sha256": book_sha256(book), "in": "results.jsonl.gz"}
    assert is_book_reference(reference) and not is_book_reference(book)
    assert not is_book_reference({"openings": 2})


def test_record_replaces_the_book_the_header_holds(run: Path, tmp_path: Path) -> None:
    dest = tmp_path / "record"
    lines: list[str] = []
    counts = record_run(run, dest, say=lines.append)
    stored = _summary(dest)
    book = [list(o) for o in BOOK]
    assert stored["match"]["book"] == book_reference(book)
    assert counts["books"] == 1 and any("opening book" in line for line in lines)
    assert read_summary(dest) == _summary(run)  # nothing lost
    assert recorded_book(dest) == recorded_book(run) == book
    header = json.loads(gzip.decompress((dest / "results.jsonl.gz").read_bytes()).split(b"\n")[0])
    assert header["match"]["book"] == book  # the results file is not changed
    again = record_run(dest)  # recording in place again changes nothing
    assert again["books"] == 0 and _summary(dest) == stored


def test_record_keeps_a_book_the_header_does_not_hold(run: Path, tmp_path: Path) -> None:
    differs = tmp_path / "differs"
    differs.mkdir()
    (differs / "results.jsonl").write_bytes((run / "results.jsonl").read_bytes())
    summary = _summary(run)
    summary["match"]["book"] = [[0], [1, 7], [12, 3, 5]]  # one move differs
    (differs / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    assert refer_book(summary, differs) is None
    assert record_run(differs, tmp_path / "differs-record")["books"] == 0
    assert _summary(tmp_path / "differs-record") == summary

    alone = tmp_path / "alone"  # a summary without its results file
    alone.mkdir()
    (alone / "summary.json").write_text(json.dumps(_summary(run), indent=2) + "\n")
    assert refer_book(_summary(run), alone) is None
    assert record_run(alone, tmp_path / "alone-record")["books"] == 0
    assert _summary(tmp_path / "alone-record") == _summary(run)

    empty = {"match": {"book": []}}  # an empty book is shorter than a reference
    assert refer_book(empty, run) is None
    assert refer_book({"games": 4}, run) is None


def test_a_reference_that_does_not_resolve_is_refused(run: Path, tmp_path: Path) -> None:
    folder = tmp_path / "record"
    record_run(run, folder)
    stored = _summary(folder)

    def write(book: Any) -> None:
        (folder / "summary.json").write_text(json.dumps({**stored, "match": {"book": book}}))

    reference = stored["match"]["book"]
    write({**reference, "sha256": "0" * 64})
    with pytest.raises(BookReferenceError, match="is not the one the summary names"):
        read_summary(folder)
    write({**reference, "openings": 4})
    with pytest.raises(BookReferenceError, match="3 openings"):
        recorded_book(folder)
    write({**reference, "in": "../results.jsonl.gz"})
    with pytest.raises(BookReferenceError, match="a file name in the run folder"):
        read_summary(folder)
    write({**reference, "in": "other.jsonl.gz"})
    with pytest.raises(BookReferenceError, match="not there"):
        read_summary(folder)
    write({"openings": 3})
    with pytest.raises(BookReferenceError, match="neither a book"):
        read_summary(folder)
    (folder / "summary.json").write_text('{"games": 4}')
    with pytest.raises(BookReferenceError, match=r"no match\.book"):
        recorded_book(folder)


def test_a_recorded_match_resumes_and_records_again(run: Path, tmp_path: Path) -> None:
    """The arena resumes from the results header; the summary's reference plays no part."""
    dest = tmp_path / "record"
    record_run(run, dest)
    config = MatchConfig(
        agent_a="random", agent_b="random", games=6, rules=Rules(size=5), seed=3, book=BOOK
    )
    result = run_match(config, results=dest / "results.jsonl", workers=1)
    assert len(result.games) == 6 and (dest / "results.jsonl").exists()
    (dest / "summary.json").write_text(json.dumps(result.summary(), indent=2) + "\n")
    assert recorded_book(dest) == [list(o) for o in BOOK]
    assert record_run(dest)["books"] == 1  # recorded again: the book a reference again
    assert is_book_reference(_summary(dest)["match"]["book"])
    assert read_summary(dest)["games"] == 6
