"""Game outcomes of an arena match and the results file that makes a match resumable.

The results file is JSON lines: a header ``{"kind": "header", "format": 1, "match": {...}}``
with the match configuration (everything that decides the games, not their number), then one
``{"kind": "game", ...}`` line per finished game, appended, flushed and ``fsync``-ed as soon
as the game ends, in the order games finish. Reading it back:

* a header that differs from the current match refuses the file (the error names the
  differing keys), so that games of another match are never mixed in;
* a last line cut short by an interruption is dropped (and cut off the file before anything is
  appended), but only once the rest of the file has been read as a results file: a file that
  is not one (a file of NUL bytes, another program's output) is refused and left as it is;
* a game index seen twice keeps its first line;
* a line that is not a game record (not UTF-8, not a JSON object, a field of the wrong type)
  is refused with the file and the line number.

A finished match's file may be stored compressed, ``results.jsonl.gz`` (gzip, as
``gomcts record`` stores the runs recorded under ``docs/results/``, see
:mod:`agents.matches.records`). Every reader takes either form: :func:`stored_results` finds
the one a path or folder holds, :func:`read_results` reads it, and :class:`ResultsFile`
resumes from it, turning it back into the plain file only when it appends a game
(:mod:`agents.stored`).

:func:`read_results` reads a finished or running match's file without writing to it (for
analyses such as :mod:`agents.matches.paired`).
"""

from __future__ import annotations

import json
import math
import os
import zlib
from dataclasses import asdict, dataclass, fields
from os import PathLike
from pathlib import Path
from typing import Any, Protocol

from agents.stored import (
    COMPRESSED_SUFFIX,
    StoredFileError,
    expand,
    is_compressed,
    pair_of,
    read_stored,
    stored_file,
)

__all__ = [
    "COMPRESSED_SUFFIX",
    "RESULTS_NAME",
    "TIMING_FIELDS",
    "GameOutcome",
    "ResultsError",
    "ResultsFile",
    "comparable_match",
    "header_match",
    "read_results",
    "stored_results",
]

FORMAT = 1

RESULTS_NAME = "results.jsonl"
"""Name of a match's results file in its output folder."""

TIMING_FIELDS = ("duration", "time_black", "time_white")
"""Fields of :class:`GameOutcome` that measure time and so differ between identical runs."""


class ResultsError(ValueError):
    """A results file that cannot be used for this match."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def _is_moves(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(v) and v >= 0 for v in value)


_FIELD_CHECKS: dict[str, tuple[Any, str]] = {
    "index": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "pair": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "a_black": (lambda v: isinstance(v, bool), "true or false"),
    "black": (lambda v: isinstance(v, str), "a string"),
    "white": (lambda v: isinstance(v, str), "a string"),
    "opening": (_is_moves, "a list of action indices (integers >= 0)"),
    "moves": (_is_moves, "a list of action indices (integers >= 0)"),
    "result": (lambda v: isinstance(v, str), "a string"),
    "score": (_is_number, "a finite number"),
    "raw_score": (_is_number, "a finite number"),
    "dead": (_is_moves, "a list of action indices (integers >= 0)"),
    "referee": (lambda v: v is None or isinstance(v, str), "a string or null"),
    "ended_by": (lambda v: isinstance(v, str), "a string"),
    "score_a": (lambda v: _is_number(v) and v in (0, 0.5, 1), "0, 0.5 or 1"),
    "seed_black": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "seed_white": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "moves_black": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "moves_white": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "time_black": (lambda v: _is_number(v) and v >= 0, "a number >= 0"),
    "time_white": (lambda v: _is_number(v) and v >= 0, "a number >= 0"),
    "duration": (lambda v: _is_number(v) and v >= 0, "a number >= 0"),
}
"""For each field of a game record: its check and what it allows (for the error)."""


@dataclass(frozen=True)
class GameOutcome:
    """One finished arena game.

    Attributes:
        index: Game index (0-based); games ``2p`` and ``2p + 1`` form pair ``p``.
        pair: The pair index.
        a_black: Whether agent A played Black (true in even games).
        black: Spec of the agent that played Black.
        white: Spec of the agent that played White.
        opening: The opening moves (action indices), part of ``moves``.
        moves: Every move of the game, opening included (action indices; ``N*N`` is pass).
        result: The result after the referee, e.g. ``"B+3.5"``, ``"W+12"``, ``"0"``, or
            ``"W+R"`` when Black resigned.
        score: Black's area minus White's minus komi, after the referee (for a resignation:
            of the board as it stands).
        raw_score: The Tromp-Taylor score of the final board as it stands.
        dead: Stones the referee removed (action indices).
        referee: Who judged dead stones (``None`` when the board was scored as it stands).
        ended_by: ``"passes"``, ``"move cap"`` or ``"resignation"``.
        score_a: Agent A's game score: 1 (win), 0.5 (draw) or 0 (loss).
        seed_black: Seed given to Black's agent.
        seed_white: Seed given to White's agent.
        moves_black: Moves Black's agent chose (opening excluded).
        moves_white: Moves White's agent chose (opening excluded).
        time_black: Seconds Black's agent spent choosing its moves.
        time_white: Seconds White's agent spent choosing its moves.
        duration: Seconds the whole game took.
    """

    index: int
    pair: int
    a_black: bool
    black: str
    white: str
    opening: tuple[int, ...]
    moves: tuple[int, ...]
    result: str
    score: float
    raw_score: float
    dead: tuple[int, ...]
    referee: str | None
    ended_by: str
    score_a: float
    seed_black: int
    seed_white: int
    moves_black: int
    moves_white: int
    time_black: float
    time_white: float
    duration: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples become lists)."""
        out = asdict(self)
        for key in ("opening", "moves", "dead"):
            out[key] = list(out[key])
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameOutcome:
        """The outcome written by :meth:`to_dict`.

        Raises:
            ResultsError: When a field is missing or has a value of the wrong type (the
                message names the field, the value and what it allows).
        """
        names = [f.name for f in fields(cls)]
        missing = [name for name in names if name not in data]
        if missing:
            raise ResultsError(f"a game record lacks the fields {missing}")
        values = {name: data[name] for name in names}
        for name in names:
            check, allowed = _FIELD_CHECKS[name]
            if not check(values[name]):
                shown = repr(values[name])
                if len(shown) > 60:
                    shown = shown[:57] + "..."
                raise ResultsError(f"field {name!r} is {shown}; it must be {allowed}")
        for key in ("opening", "moves", "dead"):
            values[key] = tuple(values[key])
        return cls(**values)

    def deterministic(self) -> dict[str, Any]:
        """:meth:`to_dict` without the timing fields: equal for identical runs."""
        out = self.to_dict()
        for key in TIMING_FIELDS:
            del out[key]
        return out


def stored_results(path: str | PathLike[str]) -> Path | None:
    """The results file that ``path`` stands for, as it is stored; ``None`` when there is none.

    Args:
        path: A results file by its plain name (``results.jsonl``) or its compressed one
            (``results.jsonl.gz``), or a match's output folder (its ``results.jsonl``).
            Either name finds the file stored under the other.

    Raises:
        ResultsError: When both the plain and the compressed file hold games (two copies that
            may disagree: keep one). An empty plain file beside a compressed one is ignored.
    """
    path = Path(path)
    if path.is_dir():
        path = path / RESULTS_NAME
    try:
        return stored_file(path)
    except StoredFileError as exc:
        raise ResultsError(str(exc)) from None


def _read_stored(path: Path) -> bytes:
    try:
        return read_stored(path)
    except StoredFileError as exc:
        raise ResultsError(str(exc)) from None


class ResultsFile:
    """The results file of one match.

    Args:
        path: The file (created with its parent folders when missing). When only its
            compressed form ``<path>.gz`` exists, :meth:`load` reads that, and the first
            :meth:`append` writes it out as ``path`` (then removes the ``.gz``) before adding
            the game: a finished match resumed from its record writes nothing.
        match: The match configuration written in the header (JSON-ready).
    """

    def __init__(self, path: str | PathLike[str], match: dict[str, Any]) -> None:
        self.path = Path(path)
        if is_compressed(self.path):
            self.path = pair_of(self.path)[0]
        self.match = json.loads(json.dumps(match))  # the form it has once read back
        self._packed: Path | None = None  # the .gz that holds the games, until expanded
        self._lock: Any = None  # the open file that holds this match's lock

    def close(self) -> None:
        """Release the file's lock (taken by :meth:`load`); the games written stay."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def _take_lock(self, target: Path) -> None:
        """Hold an exclusive advisory lock on ``target`` until :meth:`close`.

        Two processes appending the same games to one file would each resume from what the
        file held when it started and write the same games twice; the second is refused.

        Raises:
            ResultsError: When another process holds the lock.
        """
        try:
            import fcntl
        except ImportError:  # no advisory locks here (Windows): one writer is the user's care
            return
        handle = target.open("rb" if is_compressed(target) else "ab")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise ResultsError(
                f"{target} is being written by another process (a gomcts arena, tune or "
                "reproduce on the same folder); wait for it to end, or give this match "
                "another output folder"
            ) from None
        self.close()
        self._lock = handle

    def load(self) -> dict[int, GameOutcome]:
        """Open the file for this match and return the games already in it, by index.

        A missing or empty file gets its header. A partial last line is cut off, once the
        complete lines before it have been read as this match's results.

        Raises:
            ResultsError: When the file belongs to another match or is not a results file
                (the file is then left as it is).
        """
        stored = stored_results(self.path)
        if stored is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._take_lock(stored if stored is not None else self.path)
        if stored is not None and is_compressed(stored):
            match, games = read_results(stored)
            self._check_match(match, stored)
            self._packed = stored
            return games
        if stored is None or stored.stat().st_size == 0:
            self._append({"kind": "header", "format": FORMAT, "match": self.match})
            return {}
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end == 0 and self._header_line().startswith(data):
            # the header itself was cut short: nothing of a game was written yet
            with self.path.open("r+b") as handle:
                handle.truncate(0)
            self._append({"kind": "header", "format": FORMAT, "match": self.match})
            return {}
        match, games = _parse(self.path, data[:end])
        self._check_match(match, self.path)
        if end < len(data):  # an interrupted write: drop the partial line
            with self.path.open("r+b") as handle:
                handle.truncate(end)
        return games

    def append(self, game: GameOutcome) -> None:
        """Append one game and make it durable (flush and fsync)."""
        if self._packed is not None:
            try:
                expand(self._packed)
            except StoredFileError as exc:
                raise ResultsError(str(exc)) from None
            self._packed = None
            self._take_lock(self.path)  # the games now live in the plain file
        self._append({"kind": "game", **game.to_dict()})

    def _header_line(self) -> bytes:
        entry = {"kind": "header", "format": FORMAT, "match": self.match}
        return (json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8")

    def _append(self, entry: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, separators=(",", ":")) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def _check_match(self, theirs: dict[str, Any], where: Path) -> None:
        ours = comparable_match(self.match, theirs)
        if theirs != ours:
            keys = sorted(k for k in {*theirs, *ours} if theirs.get(k) != ours.get(k))
            detail = "; ".join(
                f"{k}: file has {theirs.get(k)!r}, this match has {ours.get(k)!r}" for k in keys
            )
            raise ResultsError(
                f"{where} holds the results of a different match ({detail}); use another "
                "results file, or the same settings to resume it"
                + (" and the networks it began with" if "networks" in keys else "")
            )


def comparable_match(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """``ours`` as a header written before networks' digests were kept would hold it.

    Without ``networks`` when ``theirs`` (a header read back) has none, so that such a file
    still resumes; else ``ours`` unchanged.
    """
    if "networks" in theirs:
        return ours
    return {k: v for k, v in ours.items() if k != "networks"}


class _Lines(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...


def header_match(stream: _Lines, limit: int = -1) -> dict[str, Any] | None:
    """The ``match`` of the header line ``stream`` starts with (``None``: no arena header).

    Reads that line only, at most ``limit`` bytes of it (-1: all of it).
    """
    try:
        header = json.loads(stream.readline(limit))
    except (OSError, EOFError, zlib.error, ValueError, RecursionError):
        return None
    if not isinstance(header, dict) or header.get("kind") != "header":
        return None
    match = header.get("match")
    return match if isinstance(match, dict) else None


def read_results(path: str | PathLike[str]) -> tuple[dict[str, Any], dict[int, GameOutcome]]:
    """The match configuration and the games of a results file, by index, read only.

    Args:
        path: The file, plain or compressed (``.gz``), by either name, or a match's output
            folder (see :func:`stored_results`).

    A last line without its newline (a game being written) is ignored, as
    :meth:`ResultsFile.load` would cut it off.

    Raises:
        ResultsError: When the file is not an arena results file of this format (the message
            names the file and the line).
        FileNotFoundError: When there is no results file at ``path``.
        OSError: When it cannot be read.
    """
    given = Path(path)
    stored = stored_results(given)
    if stored is None:
        raise FileNotFoundError(f"no results file at {given} (nor {pair_of(given)[1]})")
    data = _read_stored(stored)
    end = data.rfind(b"\n") + 1
    return _parse(stored, data[:end])


def _parse(path: Path, data: bytes) -> tuple[dict[str, Any], dict[int, GameOutcome]]:
    """The match and the games of a results file's complete lines."""
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return _match_of(path, lines), _games_of(path, lines)


def _decode(path: Path, number: int, line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResultsError(
            f"{path}, line {number}: not UTF-8 text (byte {line[exc.start]:#04x} at column "
            f"{exc.start + 1}); a results file is JSON lines in UTF-8"
        ) from None


def _match_of(path: Path, lines: list[bytes]) -> dict[str, Any]:
    """The match configuration in the header line of a results file's lines."""
    header: Any = None
    if lines:
        try:
            header = json.loads(lines[0].decode("utf-8"))
        except (ValueError, RecursionError):  # not UTF-8, not JSON
            header = None
    if not isinstance(header, dict) or header.get("kind") != "header":
        raise ResultsError(
            f"{path} is not an arena results file (its first line is not the header "
            '{"kind": "header", "format": 1, "match": {...}})'
        )
    if header.get("format") != FORMAT:
        raise ResultsError(
            f"{path} has format {header.get('format')!r}; this version reads format {FORMAT}"
        )
    match = header.get("match", {})
    if not isinstance(match, dict):
        raise ResultsError(f"{path}, line 1: the header's 'match' is not a JSON object")
    return match


def _games_of(path: Path, lines: list[bytes]) -> dict[int, GameOutcome]:
    """The games after the header line, by index (the first line of an index counts)."""
    games: dict[int, GameOutcome] = {}
    for number, raw in enumerate(lines[1:], 2):
        line = _decode(path, number, raw)
        try:
            entry = json.loads(line)
        except ValueError as exc:  # JSONDecodeError, or an integer too long to convert
            raise ResultsError(f"{path}, line {number}: not JSON ({exc})") from None
        except RecursionError:
            raise ResultsError(f"{path}, line {number}: JSON nested too deeply") from None
        if not isinstance(entry, dict):
            raise ResultsError(
                f"{path}, line {number}: a {type(entry).__name__}, not a JSON object; every "
                'line after the header is a game record {"kind": "game", ...}'
            )
        if entry.get("kind") != "game":
            raise ResultsError(
                f"{path}, line {number}: not a game record (kind {entry.get('kind')!r}, "
                "expected 'game')"
            )
        try:
            game = GameOutcome.from_dict(entry)
        except ResultsError as exc:
            raise ResultsError(f"{path}, line {number}: {exc}") from None
        games.setdefault(game.index, game)
    return games
