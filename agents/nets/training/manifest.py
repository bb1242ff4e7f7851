"""The manifest of a self-play run: its state and what it cost, in one JSON file.

``manifest.json`` in the run folder is the run's state: the config, the generation in
progress and its phase (``selfplay``, ``train``, ``gate``, ``ladder``), the best network, one
row per finished generation, and one row per *start* of the run (each invocation of
``gomcts train selfplay``, possibly on another machine) with its wall time, CPU time (this
process and its finished worker processes; with Ray, also the cluster workers' CPU time up to
their last finished game, as the games report it), games and positions. It is always written whole
to a temporary file that replaces the old one (``os.replace`` is atomic), so a kill leaves
either the old or the new manifest, never a torn one.

The games themselves are the source of truth for the game counts: a kill between a game's
append and the next manifest write loses no game, and when a generation ends its games and
positions are counted from its file (:meth:`Manifest.count_games` sets the totals from the
finished generations' rows), so the totals do not depend on where earlier starts stopped.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from os import PathLike
from pathlib import Path
from typing import Any

from agents.atomic_file import write_atomically

__all__ = ["FORMAT", "Manifest", "StartClock", "cpu_seconds_so_far"]

FORMAT = "gomcts-selfplay"
VERSION = 1


def cpu_seconds_so_far() -> float:
    """CPU seconds (user + system) of this process and of its children that have ended."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@dataclass
class StartClock:
    """The wall and CPU clocks of one start of the run."""

    wall0: float = field(default_factory=time.monotonic)
    cpu0: float = field(default_factory=cpu_seconds_so_far)
    remote: float = 0.0
    """CPU seconds spent elsewhere (Ray workers), added by the caller as games report them."""

    def wall(self) -> float:
        """Seconds since the start."""
        return time.monotonic() - self.wall0

    def cpu(self) -> float:
        """CPU seconds since the start (worker processes counted once they have ended)."""
        return cpu_seconds_so_far() - self.cpu0 + self.remote


@dataclass
class Manifest:
    """The run's state (see the module docstring).

    Attributes:
        path: ``manifest.json``.
        data: The JSON object.
    """

    path: Path
    data: dict[str, Any]

    @classmethod
    def create(cls, path: str | PathLike[str], config: dict[str, Any]) -> Manifest:
        """A new manifest at generation 1, phase ``selfplay`` (not written yet)."""
        return cls(
            Path(path),
            {
                "format": FORMAT,
                "version": VERSION,
                "config": config,
                "generation": 1,
                "phase": "selfplay",
                "best": "nets/gen-0000.pt",
                "best_generation": 0,
                "generations": [],
                "starts": [],
                "totals": {"games": 0, "positions": 0, "cpu_seconds": 0.0, "wall_seconds": 0.0},
            },
        )

    @classmethod
    def load(cls, path: str | PathLike[str]) -> Manifest:
        """The manifest at ``path``.

        Raises:
            ValueError: When the file is not a self-play manifest.
        """
        path = Path(path)
        return cls.parse(path, path.read_text(encoding="utf-8"))

    @classmethod
    def parse(cls, path: str | PathLike[str], text: str) -> Manifest:
        """The manifest whose JSON is ``text``, to be saved at ``path`` (a record's copy).

        Raises:
            ValueError: When the text is not a self-play manifest (``json.JSONDecodeError``
                when it is not JSON).
        """
        path = Path(path)
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{path} is not a self-play manifest (format {FORMAT!r})")
        if data.get("version") != VERSION:
            raise ValueError(f"{path} has manifest version {data.get('version')}; expected 1")
        return cls(path, data)

    def save(self) -> None:
        """Write the manifest atomically."""
        write_atomically(self.path, json.dumps(self.data, indent=1) + "\n")

    # ------------------------------------------------------------------ starts and costs
    def begin_start(
        self,
        workers: int,
        games_per_worker: int,
        *,
        ray: str | None = None,
        changed: dict[str, list[Any]] | None = None,
    ) -> int:
        """Add a row for this start (status ``running``); its index.

        A previous start still recorded as ``running`` never ended (SIGKILL, a machine given
        back): it becomes ``killed``, its cost that of its last save.

        ``ray``: the cluster address the self-play games of this start are played on (the
        row's ``ray`` field; absent when they are played on this machine). ``changed``: the
        settings this start changed, name -> ``[before, now]`` (the row's ``changed`` field;
        absent when none changed).
        """
        row: dict[str, Any] = {
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": f"{platform.node()} ({os.cpu_count()} CPUs, {platform.machine()})",
            "workers": workers,
            "games_per_worker": games_per_worker,
            "wall_seconds": 0.0,
            "cpu_seconds": 0.0,
            "games": 0,
            "positions": 0,
            "status": "running",
        }
        if ray is not None:
            row["ray"] = ray
        if changed:
            row["changed"] = changed
        for earlier in self.data["starts"]:
            if earlier.get("status") == "running":
                earlier["status"] = "killed"
        self.data["starts"].append(row)
        return len(self.data["starts"]) - 1

    def update_start(
        self, index: int, clock: StartClock, *, games: int = 0, positions: int = 0
    ) -> None:
        """Add games to this start's row and refresh its clocks and the totals."""
        row = self.data["starts"][index]
        row["wall_seconds"] = round(clock.wall(), 1)
        row["cpu_seconds"] = round(clock.cpu(), 1)
        row["games"] += games
        row["positions"] += positions
        totals = self.data["totals"]
        totals["wall_seconds"] = round(sum(s["wall_seconds"] for s in self.data["starts"]), 1)
        totals["cpu_seconds"] = round(sum(s["cpu_seconds"] for s in self.data["starts"]), 1)

    def end_start(self, index: int, clock: StartClock, status: str) -> None:
        """Close this start's row with ``status`` (``"done"``, ``"budget"``...)."""
        self.update_start(index, clock)
        self.data["starts"][index]["status"] = status

    def count_games(self, games: int, positions: int) -> None:
        """Set the totals of games and positions (counted from the game files)."""
        self.data["totals"]["games"] = games
        self.data["totals"]["positions"] = positions

    # ------------------------------------------------------------------ state
    @property
    def generation(self) -> int:
        """The generation in progress."""
        return int(self.data["generation"])

    @property
    def phase(self) -> str:
        """Its phase."""
        return str(self.data["phase"])

    def advance(self, phase: str) -> None:
        """Move the generation in progress to ``phase``."""
        self.data["phase"] = phase

    def generation_cost(self) -> dict[str, float | None]:
        """What the generation in progress has cost so far, over all its starts.

        ``cpu_seconds`` and ``wall_seconds`` since the previous generation ended (``None`` in a
        run whose manifest predates this record), and the run's totals at this point
        (``run_cpu_seconds``, ``run_wall_seconds``). Worker processes count once they end.
        """
        totals = self.data["totals"]
        since = self.data.get("generation_began")
        if since is None and not self.data["generations"]:
            since = {"cpu_seconds": 0.0, "wall_seconds": 0.0}  # the run's first generation
        cost: dict[str, float | None] = {}
        for clock in ("cpu_seconds", "wall_seconds"):
            cost[clock] = None if since is None else round(totals[clock] - since[clock], 1)
            cost[f"run_{clock}"] = totals[clock]
        return cost

    def finish_generation(self, row: dict[str, Any]) -> None:
        """Record a finished generation and start the next one."""
        totals = self.data["totals"]
        self.data["generation_began"] = {
            "cpu_seconds": totals["cpu_seconds"],
            "wall_seconds": totals["wall_seconds"],
        }
        self.data["generations"].append(row)
        self.data["generation"] = self.generation + 1
        self.data["phase"] = "selfplay"
