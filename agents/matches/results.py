"""Game outcomes of an arena match and the results file that makes a match resumable.

The results file is JSON lines: a header ``{"kind": "header", "format": 1, "match": {...}}``
with the match configuration (everything that decides the games, not their number), then one
``{"kind": "game", ...}`` line per finished game, appended, flushed and ``fsync``-ed as soon
as the game ends, in the order games finish. Reading it back:

* a header that differs from the current match refuses the file (the error names the
  differing keys), so that games of another match are never mixed in;
* a last line cut short by an interruption is dropped (and cut off the file before anything is
  appended);
* a game index seen twice keeps its first line.

:func:`read_results` reads a finished or running match's file without writing to it (for
analyses such as :mod:`agents.matches.paired`).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from os import PathLike
from pathlib import Path
from typing import Any

__all__ = ["TIMING_FIELDS", "GameOutcome", "ResultsError", "ResultsFile", "read_results"]

FORMAT = 1

TIMING_FIELDS = ("duration", "time_black", "time_white")
"""Fields of :class:`GameOutcome` that measure time and so differ between identical runs."""


class ResultsError(ValueError):
    """A results file that cannot be used for this match."""


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
            ResultsError: When a field is missing.
        """
        names = [f.name for f in fields(cls)]
        missing = [name for name in names if name not in data]
        if missing:
            raise ResultsError(f"a game record lacks the fields {missing}")
        values = {name: data[name] for name in names}
        for key in ("opening", "moves", "dead"):
            values[key] = tuple(int(v) for v in values[key])
        return cls(**values)

    def deterministic(self) -> dict[str, Any]:
        """:meth:`to_dict` without the timing fields: equal for identical runs."""
        out = self.to_dict()
        for key in TIMING_FIELDS:
            del out[key]
        return out


class ResultsFile:
    """The results file of one match.

    Args:
        path: The file (created with its parent folders when missing).
        match: The match configuration written in the header (JSON-ready).
    """

    def __init__(self, path: str | PathLike[str], match: dict[str, Any]) -> None:
        self.path = Path(path)
        self.match = json.loads(json.dumps(match))  # the form it has once read back

    def load(self) -> dict[int, GameOutcome]:
        """Open the file for this match and return the games already in it, by index.

        A missing or empty file gets its header. A partial last line is cut off.

        Raises:
            ResultsError: When the file belongs to another match or is not a results file.
        """
        if not self.path.exists() or self.path.stat().st_size == 0:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._append({"kind": "header", "format": FORMAT, "match": self.match})
            return {}
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):  # an interrupted write: drop the partial line
            with self.path.open("r+b") as handle:
                handle.truncate(end)
            data = data[:end]
        lines = data.decode("utf-8").splitlines()
        self._check_match(_match_of(self.path, lines))
        return _games_of(self.path, lines)

    def append(self, game: GameOutcome) -> None:
        """Append one game and make it durable (flush and fsync)."""
        self._append({"kind": "game", **game.to_dict()})

    def _append(self, entry: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, separators=(",", ":")) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def _check_match(self, theirs: dict[str, Any]) -> None:
        if theirs != self.match:
            keys = sorted(k for k in {*theirs, *self.match} if theirs.get(k) != self.match.get(k))
            detail = "; ".join(
                f"{k}: file has {theirs.get(k)!r}, this match has {self.match.get(k)!r}"
                for k in keys
            )
            raise ResultsError(
                f"{self.path} holds the results of a different match ({detail}); use another "
                "results file, or the same settings to resume it"
            )


def read_results(path: str | PathLike[str]) -> tuple[dict[str, Any], dict[int, GameOutcome]]:
    """The match configuration and the games of a results file, by index, read only.

    A last line without its newline (a game being written) is ignored, as
    :meth:`ResultsFile.load` would cut it off.

    Raises:
        ResultsError: When the file is not an arena results file of this format.
        OSError: When it cannot be read.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    if lines and not text.endswith("\n"):
        lines.pop()
    return _match_of(path, lines), _games_of(path, lines)


def _match_of(path: Path, lines: list[str]) -> dict[str, Any]:
    """The match configuration in the header line of a results file's lines."""
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("kind") != "header":
        raise ResultsError(f"{path} is not an arena results file (no header line)")
    if header.get("format") != FORMAT:
        raise ResultsError(
            f"{path} has format {header.get('format')!r}; this version reads format {FORMAT}"
        )
    match = header.get("match", {})
    return match if isinstance(match, dict) else {}


def _games_of(path: Path, lines: list[str]) -> dict[int, GameOutcome]:
    """The games after the header line, by index (the first line of an index counts)."""
    games: dict[int, GameOutcome] = {}
    for number, line in enumerate(lines[1:], 2):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ResultsError(f"{path}, line {number}: not JSON ({exc})") from None
        if entry.get("kind") != "game":
            raise ResultsError(f"{path}, line {number}: not a game record")
        game = GameOutcome.from_dict(entry)
        games.setdefault(game.index, game)
    return games
