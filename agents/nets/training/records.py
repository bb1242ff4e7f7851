"""Self-play game records and the append-only file that keeps each generation's games.

A :class:`GameRecord` holds a game's moves, the policy targets of the positions whose search
was recorded (a *full* search under playout cap randomisation), the result and what the game
cost. Input planes are not stored: they are computed again from the moves when the replay
window is built (:mod:`agents.nets.training.window`), so a record is a few kilobytes and a
network with other input planes can learn from the same games.

:class:`GameFile` appends one JSON line per finished game and flushes it to disk
(``fsync``) before the next, so a run killed at any moment keeps every game that finished. A
line cut short by the kill is dropped when the file is read and cut off before the next
append; a game index seen twice keeps its first record (a resumed generation plays only the
indices missing from the file, so this does not happen unless two runs write one folder).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["GameFile", "GameRecord", "PolicyTarget", "generation_games", "sparse_policy"]

_MIN_PROB = 1e-4  # policy entries below this are left out of a record (then renormalised)


@dataclass(frozen=True)
class PolicyTarget:
    """The search's policy at one position of a game.

    Attributes:
        move_number: Moves played before the position.
        actions: Actions with probability at least 1e-4.
        probs: Their probabilities (summing to 1).
    """

    move_number: int
    actions: tuple[int, ...]
    probs: tuple[float, ...]

    def dense(self, n_actions: int) -> np.ndarray:
        """``float32 (n_actions,)`` the distribution."""
        out = np.zeros(n_actions, dtype=np.float32)
        out[list(self.actions)] = self.probs
        return out


def sparse_policy(move_number: int, policy: np.ndarray) -> PolicyTarget:
    """A :class:`PolicyTarget` of a dense distribution (tiny entries dropped, renormalised).

    Raises:
        ValueError: When ``policy`` has no mass.
    """
    p = np.asarray(policy, dtype=np.float64)
    keep = np.flatnonzero(p >= _MIN_PROB)
    if keep.size == 0:
        keep = np.flatnonzero(p > 0)
    if keep.size == 0:
        raise ValueError("a policy target needs some probability mass")
    probs = p[keep] / p[keep].sum()
    return PolicyTarget(
        move_number, tuple(int(a) for a in keep), tuple(round(float(x), 6) for x in probs)
    )


@dataclass(frozen=True)
class GameRecord:
    """One finished self-play game.

    Attributes:
        index: The game's index in its generation.
        seed: Its seed.
        moves: Every move (action indices; ``N*N`` is pass).
        targets: Policy targets of the recorded positions.
        winner: ``1`` Black won, ``-1`` White won, ``0`` a draw (Tromp-Taylor area).
        result: The result string, e.g. ``"B+3.5"``.
        full_searches: Moves chosen by a full search (their targets are recorded).
        fast_searches: Moves chosen by a fast search (not recorded).
        simulations: Simulations of all the game's searches.
        evaluations: Positions sent to the evaluator (cache hits included).
        seconds: Wall time from the game's first move to its end (shared with the games
            played at the same time).
        cpu_seconds: CPU time of the worker process since its previous finished game (so the
            records of a worker add up to its CPU time).
    """

    index: int
    seed: int
    moves: tuple[int, ...]
    targets: tuple[PolicyTarget, ...]
    winner: int
    result: str
    full_searches: int
    fast_searches: int
    simulations: int
    evaluations: int
    seconds: float
    cpu_seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def positions(self) -> int:
        """Positions recorded for training."""
        return len(self.targets)

    def to_json(self) -> str:
        """One JSON line (no newline)."""
        data = asdict(self)
        data["targets"] = [[t.move_number, list(t.actions), list(t.probs)] for t in self.targets]
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> GameRecord:
        """The record of :meth:`to_json`'s line.

        Raises:
            ValueError: For a line that is not a record.
        """
        data = json.loads(line)
        if not isinstance(data, dict) or "moves" not in data:
            raise ValueError("not a game record")
        data["moves"] = tuple(data["moves"])
        data["targets"] = tuple(
            PolicyTarget(int(m), tuple(a), tuple(p)) for m, a, p in data["targets"]
        )
        return cls(**data)


class GameFile:
    """The append-only JSON-lines file of one generation's games (module docstring).

    Args:
        path: The file (created on the first append).
    """

    def __init__(self, path: str | PathLike[str]) -> None:
        self.path = Path(path)

    def read(self) -> dict[int, GameRecord]:
        """The complete records in the file by index (a torn last line is left out)."""
        games: dict[int, GameRecord] = {}
        if not self.path.exists():
            return games
        for line in self.path.read_text(encoding="utf-8").split("\n"):
            if not line.strip():
                continue
            try:
                record = GameRecord.from_json(line)
            except (ValueError, TypeError, KeyError):
                continue  # a line cut short by a kill (only the last can be)
            games.setdefault(record.index, record)
        return games

    def _repair(self) -> None:
        """Cut a torn last line, so that the next append starts a line of its own."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            with self.path.open("r+b") as handle:
                handle.truncate(cut)

    def append(self, records: Iterable[GameRecord]) -> None:
        """Append records, each flushed to disk before the next."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._repair()
        with self.path.open("a", encoding="utf-8") as handle:
            for record in records:
                handle.write(record.to_json() + "\n")
                handle.flush()
                os.fsync(handle.fileno())


def generation_games(run: str | PathLike[str], generation: int) -> GameFile:
    """The file of a self-play run's games of ``generation`` (``games/gen-NNNN.jsonl``)."""
    return GameFile(Path(run) / "games" / f"gen-{generation:04d}.jsonl")
