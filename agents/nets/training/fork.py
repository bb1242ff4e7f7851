"""Forking a self-play run: a copy that goes on with other self-play settings.

A run's search and training settings are fixed for its life (resuming with others is
refused, :meth:`SelfPlayConfig.check_resume`), so that its Elo curve measures one recipe. To
ask whether another recipe would do better *from here* (say PUCT instead of Gumbel after ten
CPU-hours, when a pilot from random weights has only measured the first hour), fork it:
:func:`fork_run` copies the run folder whole (games, networks, trainer state with its
optimizer, book, gate and ladder results, manifest) into a new folder and changes the named
settings there. Both runs then resume from the same state, each with its own recipe, and
their best networks can meet at equal compute since the fork.

Only settings that leave the copied state valid may change (:data:`FORK_FIELDS`): the
self-play search, the replay window and minibatch, the learning rate and weight decay (the
copied optimizer keeps its moment estimates and takes the new values from its next step:
a step down of the learning rate, as in AlphaGo Zero's schedule, where a run has stopped
improving), the seed, and the runtime fields any start may change. The network, the rules,
the book and the fixed N and PUCT constant of the gate and ladder (which would make the new
run's ladder incomparable with its past) stay. The one change to the network a fork may make
is its ownership head (``ownership_weight``, an auxiliary training target that play never
uses): a head switched on starts from fresh weights at the next training, one switched off
is dropped there.

The copy's manifest keeps the parent's starts and generations, so its cost and curves count
from the first game, and records the fork in ``forks`` (where from, after which start, at
which generation and phase, the changes). A generation in progress keeps the games already
played with the old settings; its other games, and every later generation, use the new ones.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from os import PathLike
from pathlib import Path
from typing import Any

from agents.nets.training.manifest import Manifest
from agents.nets.training.selfplay_config import RUNTIME_FIELDS, SelfPlayConfig

__all__ = ["FORK_FIELDS", "fork_run"]

FORK_FIELDS = frozenset(
    {
        "search",
        "sims",
        "fast_sims",
        "full_share",
        "considered",
        "c_visit",
        "c_scale",
        "noise_alpha",
        "noise_weight",
        "temperature_moves",
        "fpu",
        "fpu_reduction",
        "window",
        "batch_size",
        "lr",
        "weight_decay",
        "ownership_weight",
        "seed",
        "evaluator",
    }
    | RUNTIME_FIELDS
)
"""The settings a fork may change (see the module docstring)."""


def fork_run(
    source: str | PathLike[str],
    out: str | PathLike[str],
    changes: Mapping[str, Any],
    *,
    force: bool = False,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Copy the self-play run ``source`` to ``out`` with the settings ``changes``.

    ``force``: copy even though the last start of ``source`` is recorded as running (it was
    killed without closing its row; never fork a start that is still alive, as its files are
    being written). Returns the fork's record, as added to the copy's manifest.

    Raises:
        ValueError: ``source`` holds no run, ``out`` exists and is not empty, a change names a
            setting a fork may not change or gives it an invalid value, or the last start of
            ``source`` is running and ``force`` is not given.
    """
    source, out = Path(source), Path(out)
    path = source / "manifest.json"
    if not path.is_file():
        raise ValueError(f"{source} holds no self-play run (no manifest.json)")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"{out} exists and is not empty; a fork needs a new folder")
    if out.resolve() == source.resolve() or source.resolve() in out.resolve().parents:
        raise ValueError(f"{out} is inside the run {source}; give the fork a folder of its own")
    refused = sorted(set(changes) - FORK_FIELDS)
    if refused:
        raise ValueError(
            f"a fork may not change {', '.join(refused)} (the copied state depends on it); "
            f"it may change {', '.join(sorted(FORK_FIELDS))}"
        )
    manifest = Manifest.load(path)
    starts = manifest.data.get("starts", [])
    if starts and starts[-1].get("status") == "running" and not force:
        raise ValueError(
            f"the last start of {source} is recorded as running: stop it before forking "
            "(Ctrl-C), or pass force if it was killed without closing its row"
        )
    saved = SelfPlayConfig.from_dict(manifest.data["config"])
    new = dataclasses.replace(saved, **changes)  # checks the values
    before, after = saved.to_dict(), new.to_dict()
    changed = {k: [before[k], after[k]] for k in sorted(changes) if before[k] != after[k]}
    record: dict[str, Any] = {
        "from": str(source.resolve()),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "after_start": len(starts),
        "generation": manifest.generation,
        "phase": manifest.phase,
        "changes": changed,
    }
    if log:
        log(f"copying {source} to {out} (generation {manifest.generation}, {manifest.phase})")
    shutil.copytree(source, out, dirs_exist_ok=True)
    copy = Manifest(out / "manifest.json", manifest.data)  # the run's, as read above
    copy.data["config"] = after
    copy.data.setdefault("forks", []).append(record)
    copy.save()
    if log:
        said = ", ".join(f"{k} {old!r} -> {now!r}" for k, (old, now) in changed.items())
        log(f"forked: {said or 'no setting changed'}")
    return record
