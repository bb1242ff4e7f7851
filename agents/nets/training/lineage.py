"""A line of self-play runs: a run that goes on from another run's network.

A run resumes from its own folder (:mod:`agents.nets.training.selfplay`). When that folder is
lost (the machine it lived on was given back before the folder was copied), what survives is
the run's record (``gomcts train report``) and the networks that were shipped; the replay
window, the trainer's optimizer and the candidate line are gone. The run then goes on as a new
run started from the surviving network (``gomcts train selfplay --init NETWORK``), and
:func:`attach_earlier` (``gomcts train lineage RUN --earlier RECORD --generation G``) says so:
it copies the earlier record's manifest, metrics and ladder into ``RUN/earlier/NAME/``
(compressed, with the earlier record's own earlier parts, so a line may span many machines)
and writes ``RUN/earlier/lineage.json``. The report copies ``earlier/`` into the record and
draws the whole line (:func:`line_of`, :func:`line_rows`): the earlier generations first, this
run's numbered on after them, and what every part cost.

Numbering: the line's generation numbers are unique. A part's generation ``g`` is generation
``offset + g`` of the line, where ``offset`` is the last generation the earlier parts finished
(a rejected candidate of the earlier run is a dead end of the line, but it was paid for and
keeps its number). The ladder's built-in ``initial`` anchor of a continued part is the earlier
network it started from, so it is named by that network's line generation (``gen-0026``); the
part's own ``gen-NNNN`` anchors are renumbered the same way, and so are its training steps.
The generation a run starts from (``--generation``, ``generation`` in ``lineage.json``) is
numbered as the line is, as the earlier record's summary shows it, and is one of the networks
of the line's last run (its initial network or a finished generation).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from os import PathLike
from pathlib import Path
from typing import Any

from agents.atomic_file import write_atomically
from agents.nets.training.record_files import RECORD_FILES, load_manifest, read_rows
from agents.stored import read_stored, stored_file, write_compressed

__all__ = [
    "EARLIER",
    "LINEAGE",
    "Part",
    "attach_earlier",
    "copy_earlier",
    "line_of",
    "line_rows",
]

EARLIER = "earlier"
"""The folder of a run (or record) that holds the earlier parts of its line."""

LINEAGE = "lineage.json"
"""The file in :data:`EARLIER` that says which earlier part this one continues, and where."""

_FORMAT = "gomcts-lineage"
_GEN_ANCHOR = re.compile(r"^gen-(\d{4,})(.*)$")


@dataclass(frozen=True)
class Part:
    """One run of a line, with what it recorded.

    Attributes:
        name: The run's name (its folder's, when the part was attached).
        offset: The line's generation of this part's generation 0: its generation ``g`` is
            the line's ``offset + g``.
        started_from: The line's generation of the network the part started from; ``None``
            for the line's first part.
        data: The part's manifest.
        metrics: Its generations' rows, in its own numbering.
        ladder: Its ladder rows, in its own numbering.
    """

    name: str
    offset: int
    started_from: int | None
    data: dict[str, Any]
    metrics: list[dict[str, Any]]
    ladder: list[dict[str, Any]]

    @property
    def last_generation(self) -> int:
        """The part's last finished generation (its own numbering; 0: none finished)."""
        return max((int(row["generation"]) for row in self.metrics), default=0)

    @property
    def last_step(self) -> int:
        """The training steps the part's last finished generation had reached."""
        return max((int(row.get("step") or 0) for row in self.metrics), default=0)


def _read_lineage(folder: Path) -> dict[str, Any] | None:
    """``folder/earlier/lineage.json``, checked; ``None`` when the folder continues nothing.

    Raises:
        ValueError: When the file is not a lineage file or names no earlier folder.
    """
    path = folder / EARLIER / LINEAGE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON ({exc})") from exc
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise ValueError(f"{path} is not a lineage file (format {_FORMAT!r})")
    earlier = data.get("earlier")
    generation = data.get("generation")
    if not isinstance(earlier, str) or not (folder / EARLIER / earlier).is_dir():
        raise ValueError(f"{path} names the earlier part {earlier!r}, which {folder} lacks")
    if isinstance(generation, bool) or not isinstance(generation, int) or generation < 0:
        raise ValueError(f"{path}: generation must be an integer >= 0, got {generation!r}")
    return data


def line_of(folder: str | PathLike[str]) -> list[Part]:
    """The parts of the line that ends with ``folder`` (a run or a record), earliest first.

    A folder without ``earlier/lineage.json`` is a line of one part.

    Raises:
        ValueError: A part has no valid manifest, a lineage file is not valid, or a part
            starts from a generation its earlier part never finished.
    """
    folder = Path(folder)
    data = load_manifest(folder).data
    metrics = read_rows(folder, "metrics.jsonl")
    ladder = read_rows(folder, "ladder.jsonl")
    lineage = _read_lineage(folder)
    if lineage is None:
        return [Part(folder.name, 0, None, data, metrics, ladder)]
    earlier = line_of(folder / EARLIER / lineage["earlier"])
    last = earlier[-1]
    generation = int(lineage["generation"])
    first, final = _span(last)
    if not first <= generation <= final:
        raise ValueError(
            f"{folder / EARLIER / LINEAGE}: starts from generation {generation} of the line, "
            f"not one of {last.name}'s ({first} to {final})"
        )
    own = Part(
        str(lineage.get("run") or folder.name),
        final,
        generation,
        data,
        metrics,
        ladder,
    )
    return [*earlier, own]


def _span(part: Part) -> tuple[int, int]:
    """The line's generations whose networks ``part`` holds: its start to its last finished."""
    start = part.offset if part.started_from is None else part.started_from
    return start, part.offset + part.last_generation


def _anchor_in_line(anchor: str, part: Part) -> str:
    """A part's ladder anchor named in the line's numbering."""
    if part.started_from is None:
        return anchor
    if anchor == "initial":
        return f"gen-{part.started_from:04d}"
    match = _GEN_ANCHOR.match(anchor)
    if match:
        return f"gen-{int(match.group(1)) + part.offset:04d}{match.group(2)}"
    return anchor


def line_rows(parts: list[Part]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The metrics and ladder rows of every part, in the line's numbering, earliest first.

    Generations (and ``best_generation``) are shifted by each part's offset, training steps
    by the steps of the parts before it, and ladder anchors renamed (:func:`_anchor_in_line`).
    """
    metrics: list[dict[str, Any]] = []
    ladder: list[dict[str, Any]] = []
    steps = 0
    for part in parts:
        for row in sorted(part.metrics, key=lambda r: int(r["generation"])):
            moved = {**row, "generation": int(row["generation"]) + part.offset}
            if "best_generation" in row and part.started_from is not None:
                best = int(row["best_generation"])
                moved["best_generation"] = best + part.offset if best else part.started_from
            if row.get("step") is not None:
                moved["step"] = int(row["step"]) + steps
            metrics.append(moved)
        for row in part.ladder:
            moved = {**row, "generation": int(row["generation"]) + part.offset}
            moved["anchor"] = _anchor_in_line(str(row["anchor"]), part)
            ladder.append(moved)
        steps += part.last_step
    return metrics, ladder


def _digest(path: Path) -> str | None:
    """The SHA-256 of a plain file's bytes; ``None`` when there is no such file."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def _line_value(field: str, value: Any) -> Any:
    """A manifest's ``field`` as the line compares it: a network's fields with their defaults.

    A run written before a network field existed (``ownership``, say) has no key for it, and
    is the same network as one that records the field's default.
    """
    if field != "net" or not isinstance(value, dict):
        return value
    from agents.nets.model import NetConfig

    try:
        return NetConfig(**value).to_dict()
    except (TypeError, ValueError):
        return value


def attach_earlier(
    run: str | PathLike[str],
    earlier: str | PathLike[str],
    generation: int,
    *,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Record that ``run`` goes on from generation ``generation`` of ``earlier``'s line.

    Copies ``earlier``'s manifest, metrics and ladder (and its own earlier parts) into
    ``run/earlier/NAME/`` compressed, and writes ``run/earlier/lineage.json`` last. Only reads
    ``earlier``; writes nothing else in ``run``, so it may run beside a live start.

    Args:
        run: A self-play run started with ``--init`` (from ``earlier``'s network).
        earlier: The earlier run's folder or record (``gomcts train report``).
        generation: The generation whose network ``run`` started from, numbered as the
            earlier record's line is (as its summary numbers it): one of its last run's.
        log: Called with one line per file written.

    Returns:
        The lineage file's contents.

    Raises:
        ValueError: ``run`` started from random weights, already continues a run, or has
            another network shape or rules than ``earlier``; ``earlier`` is ``run``; or
            ``generation`` is not one of the networks of ``earlier``'s last run.
    """
    run, earlier = Path(run), Path(earlier)
    say = log if log is not None else (lambda line: None)
    config = load_manifest(run).data.get("config", {})
    before = load_manifest(earlier).data.get("config", {})
    if run.resolve() == earlier.resolve():
        raise ValueError(f"--earlier {earlier} is the run itself; give the run it continues")
    if not config.get("init"):
        raise ValueError(
            f"{run} started from random weights (no --init): it continues no run; start the "
            "new run with --init NETWORK (the earlier run's network) to continue one"
        )
    for field in ("net", "komi"):
        if _line_value(field, config.get(field)) != _line_value(field, before.get(field)):
            raise ValueError(
                f"{run} has {field} {config.get(field)!r} and {earlier} has "
                f"{before.get(field)!r}: a line keeps its network shape, inputs and rules"
            )
    first, final = _span(line_of(earlier)[-1])
    if isinstance(generation, bool) or not isinstance(generation, int):
        raise ValueError(f"--generation must be an integer, got {generation!r}")
    if not first <= generation <= final:
        raise ValueError(
            f"--generation {generation} is not a generation of {earlier}'s last run, numbered "
            f"as its line is ({first} to {final})"
        )
    folder = run / EARLIER
    if (folder / LINEAGE).exists():
        raise ValueError(
            f"{run} already continues a run ({folder / LINEAGE}); remove {folder} to attach another"
        )
    if folder.exists():  # an attach cut short before its lineage file: start again
        shutil.rmtree(folder)
    part = folder / earlier.name
    part.mkdir(parents=True)
    for name in RECORD_FILES:
        source = stored_file(earlier / name)  # plain in a run, compressed in a record
        if source is not None:
            say(f"copied {write_compressed(part / f'{name}.gz', read_stored(source))}")
    if (earlier / EARLIER / LINEAGE).exists():
        shutil.copytree(earlier / EARLIER, part / EARLIER)
        say(f"copied {part / EARLIER} (the earlier run's own earlier parts)")
    lineage = {
        "format": _FORMAT,
        "version": 1,
        "run": run.name,
        "earlier": earlier.name,
        "generation": generation,
        "init": config["init"],
        "initial_sha256": _digest(run / "nets" / "gen-0000.pt"),
        "attached": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    write_atomically(folder / LINEAGE, json.dumps(lineage, indent=1) + "\n")
    say(f"wrote {folder / LINEAGE}")
    line_of(run)  # the line reads back whole
    return lineage


def copy_earlier(run: Path, to: Path, say: Callable[[str], None]) -> None:
    """Make ``to/earlier`` a copy of ``run/earlier`` (removed where ``run`` has none)."""
    source, target = run / EARLIER, to / EARLIER
    if target.exists():
        shutil.rmtree(target)
    if (source / LINEAGE).exists():
        shutil.copytree(source, target)
        say(f"copied {target}")
