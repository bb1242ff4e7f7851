"""A run's matches resumed after its folder moved (a burst on another machine, a copied run).

The gate and the ladder name their networks by path (``net:<run>/nets/gen-0007.pt``), and an
arena results file resumes only the match it was written for, its agents' specs included
(:meth:`agents.matches.results.ResultsFile.load`). A run resumes across machines: a burst on a
borrowed machine runs it in ``/tmp/runs/NAME`` and the folder goes home to another path
(``docs/nets.md``, "A burst on a bigger machine"). A gate that the burst left half-played
then names networks under a folder that is not the run's any more, and the resumed start
stopped with "holds the results of a different match".

:func:`adopt_moved_results` lets the run take such a file over: when the file's match and
this one differ only in the folder before ``/nets/`` in their network paths, that folder is
renamed to the run's in the header and in every game line (the networks are the run's own
files, by the same names), and the games are kept. Any other difference still refuses the
file, as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.atomic_file import write_atomically
from agents.matches.results import comparable_match

__all__ = ["adopt_moved_results"]

_NETS = "/nets/"


def _escaped(text: str) -> str:
    """``text`` as it stands inside a JSON string of a results file (``json.dumps``' escapes)."""
    return json.dumps(text)[1:-1]


def _old_folder(theirs: str, ours: str, out: str) -> str | None:
    """The folder that ``theirs`` names where ``ours`` names ``out``, or ``None``."""
    where = ours.find(out + _NETS)
    if where < 0:
        return None
    prefix, suffix = ours[:where], ours[where + len(out) :]
    if not (theirs.startswith(prefix) and theirs.endswith(suffix)):
        return None
    old = theirs[len(prefix) : len(theirs) - len(suffix)]
    if not old or old == out or '"' in old or "," in old:
        return None
    return old


def adopt_moved_results(results: Path, identity: dict[str, Any], out: Path) -> str | None:
    """Rename the run folder in ``results`` when it was written before the run moved.

    Args:
        results: A gate's or ladder's results file (plain; a missing one is left alone).
        identity: This match's configuration, as its header will hold it
            (:meth:`agents.matches.arena.MatchConfig.identity`).
        out: The run's folder now.

    Returns:
        The folder the file named, when it was renamed; ``None`` when nothing was changed
        (no file, the same match, or a difference other than the folder).
    """
    if not results.is_file():
        return None
    with results.open("rb") as handle:
        first = handle.readline()  # the header; the games are read only to be rewritten
    try:
        header = json.loads(first)
    except ValueError:
        return None
    theirs = header.get("match") if isinstance(header, dict) else None
    if not isinstance(theirs, dict):
        return None
    ours = comparable_match(json.loads(json.dumps(identity)), theirs)
    if theirs == ours:
        return None
    folder = str(out)
    old = None
    for key in ("agent_a", "agent_b"):
        if isinstance(theirs.get(key), str) and isinstance(ours.get(key), str):
            old = old or _old_folder(theirs[key], ours[key], folder)
    if old is None:
        return None
    before, after = _escaped(old + _NETS), _escaped(folder + _NETS)
    renamed = json.loads(json.dumps(theirs).replace(before, after))
    if renamed != ours:
        return None
    text = results.read_text(encoding="utf-8")
    write_atomically(results, text.replace(before, after))
    return old
