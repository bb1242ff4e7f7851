"""A recorded match's opening book, kept once: in its results file's header.

A match's ``summary.json`` repeats its configuration, the opening book included
(``match.book``, one list of moves per opening: 1,000 openings take about 20 KB), and the
header line of its results file holds the same configuration. A recorded run
(:func:`agents.matches.records.record_run`) keeps the book in the compressed results file
only, and the summary names it::

    "book": {"openings": 1000, "sha256": "<hex>", "in": "results.jsonl.gz"}

``sha256`` is the hash of the book's canonical JSON (:func:`book_sha256`). The book is
replaced only when the results file's header holds exactly the same book
(:func:`refer_book`); :func:`read_summary` gives the summary back whole, the book read from
the header and checked against the hash, and :func:`recorded_book` gives the book alone.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from os import PathLike
from pathlib import Path
from typing import Any

from agents.matches.results import RESULTS_NAME, ResultsError, header_match, stored_results
from agents.stored import COMPRESSED_SUFFIX, is_compressed

__all__ = [
    "RECORDED_RESULTS",
    "SUMMARY_NAME",
    "BookReferenceError",
    "book_reference",
    "book_sha256",
    "is_book_reference",
    "read_summary",
    "recorded_book",
    "refer_book",
]

SUMMARY_NAME = "summary.json"
"""The file name of a match's summary."""

RECORDED_RESULTS = RESULTS_NAME + COMPRESSED_SUFFIX
"""The name a recorded run's results file has (``results.jsonl.gz``)."""

_REFERENCE_KEYS = frozenset({"openings", "sha256", "in"})


class BookReferenceError(ValueError):
    """A summary's book reference that does not resolve to the book it names."""


def book_sha256(book: list[Any]) -> str:
    """The SHA-256 (hex) of a book's canonical JSON: no spaces, ``[[47,28,68],[12,42]]``."""
    canonical = json.dumps(book, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def book_reference(book: list[Any], name: str = RECORDED_RESULTS) -> dict[str, Any]:
    """The reference that stands for ``book`` in a recorded summary.

    Args:
        book: The opening book as the summary holds it (a list of move lists).
        name: The results file whose header holds the book, in the run folder.
    """
    return {"openings": len(book), "sha256": book_sha256(book), "in": name}


def is_book_reference(value: Any) -> bool:
    """Whether a summary's ``match.book`` is a reference rather than the book itself."""
    return isinstance(value, dict) and set(value) == _REFERENCE_KEYS


def _header_match(path: Path) -> dict[str, Any] | None:
    """The ``match`` of a results file's header line (``None``: no arena header there)."""
    try:
        with gzip.open(path, "rb") if is_compressed(path) else path.open("rb") as handle:
            return header_match(handle)
    except OSError:
        return None


def _results_of(folder: Path, name: str = RESULTS_NAME) -> Path | None:
    """The results file stored in ``folder`` under either name (``None``: none, or both)."""
    try:
        return stored_results(folder / name)
    except ResultsError:
        return None


def refer_book(summary: Any, folder: str | PathLike[str]) -> dict[str, Any] | None:
    """The summary with its book replaced by a reference, when the results header holds it.

    Args:
        summary: A parsed ``summary.json``.
        folder: The run folder: its results file (``results.jsonl``, plain or compressed).

    Returns:
        A new summary whose ``match.book`` is :func:`book_reference` of the book, or ``None``
        when it stays as it is: it holds no book (or an empty one, shorter than any
        reference), there is no results file, or the results file's header does not hold
        exactly the same book.
    """
    if not isinstance(summary, dict) or not isinstance(summary.get("match"), dict):
        return None
    book = summary["match"].get("book")
    if not isinstance(book, list) or not book:
        return None
    results = _results_of(Path(folder))
    if results is None:
        return None
    header = _header_match(results)
    if header is None or header.get("book") != book:
        return None
    match = {**summary["match"], "book": book_reference(book)}
    return {**summary, "match": match}


def read_summary(run: str | PathLike[str]) -> dict[str, Any]:
    """A run's ``summary.json`` whole: a book reference replaced by the book it names.

    Args:
        run: The run folder, or its ``summary.json``.

    Returns:
        The summary; a summary without a reference comes back as it is stored.

    Raises:
        BookReferenceError: When the reference is malformed, its results file is missing or
            its header holds no book, or the header's book does not have the number of
            openings and the SHA-256 the reference names.
        FileNotFoundError: When there is no ``summary.json``.
        ValueError: When ``summary.json`` is not JSON.
    """
    path = Path(run)
    if path.is_dir():
        path = path / SUMMARY_NAME
    summary = json.loads(path.read_text(encoding="utf-8"))
    match = summary.get("match") if isinstance(summary, dict) else None
    reference = match.get("book") if isinstance(match, dict) else None
    if not isinstance(reference, dict):
        return summary
    if not is_book_reference(reference):
        raise BookReferenceError(
            f"{path}: match.book {reference!r} is neither a book (a list of openings) nor a "
            f"reference with exactly the keys {sorted(_REFERENCE_KEYS)}"
        )
    name = reference["in"]
    if not isinstance(name, str) or not name or Path(name).name != name:
        raise BookReferenceError(
            f"{path}: match.book names the results file {name!r}; it must be a file name in "
            "the run folder (e.g. 'results.jsonl.gz')"
        )
    try:
        results = stored_results(path.parent / name)
    except ResultsError as exc:
        raise BookReferenceError(f"{path}: its book's results file: {exc}") from None
    if results is None:
        raise BookReferenceError(
            f"{path}: match.book refers to {path.parent / name}, which is not there (nor its "
            "plain or compressed form); restore the run's results file"
        )
    header = _header_match(results)
    book = None if header is None else header.get("book")
    if not isinstance(book, list):
        raise BookReferenceError(
            f"{path}: match.book refers to {results}, whose header holds no opening book"
        )
    if len(book) != reference["openings"] or book_sha256(book) != reference["sha256"]:
        raise BookReferenceError(
            f"{path}: the book in {results}'s header ({len(book)} openings, sha256 "
            f"{book_sha256(book)}) is not the one the summary names ({reference['openings']} "
            f"openings, sha256 {reference['sha256']})"
        )
    return {**summary, "match": {**match, "book": book}}  # type: ignore[dict-item]


def recorded_book(run: str | PathLike[str]) -> list[list[int]]:
    """The opening book of a run's summary, resolved from its results file when referenced.

    Args:
        run: The run folder, or its ``summary.json``.

    Returns:
        The openings, each a list of moves (empty: the match played no book).

    Raises:
        BookReferenceError: When the summary has no ``match.book``, or as
            :func:`read_summary`.
    """
    summary = read_summary(run)
    match = summary.get("match")
    book = match.get("book") if isinstance(match, dict) else None
    if not isinstance(book, list):
        raise BookReferenceError(f"{run}: the summary has no match.book (not a match summary)")
    return book
