r"""Pack what a self-play run needs to resume on another machine: all but the old games.

A run's folder grows by a generation's games every generation (the paper-9x9 run's was
577 MB at 21 generations), more than a borrowed machine's transfer takes (64 MiB for the
project's GPU machines). A resumed start reads only the games of its replay window, the last
``window`` generations up to the current one (``agents/nets/training/selfplay.py``); the
totals come from the manifest, not from the files. So the pack holds every file of the run
but the games of the generations before the window: the manifest, the trainer's state, the
book, every network (the ladder's anchors among them), the gate's and ladder's results, the
metrics and plots, and ``games/gen-NNNN.jsonl`` from ``generation - window + 1`` to
``generation``.

Usage::

    python scripts/selfplay_burst_pack.py /work/selfplay-runs/paper-9x9 .burst/paper-9x9.tgz

On the borrowed machine, unpack it and resume there with ``scripts/selfplay_burst.sh``
(``docs/nets.md``, "A burst on a bigger machine")::

    mkdir -p /tmp/runs && tar xzf .burst/paper-9x9.tgz -C /tmp/runs
    RUN=/tmp/runs/paper-9x9 MINUTES=7 PACK=$OUT bash scripts/selfplay_burst.sh ...

The pack that comes back holds the files that changed; unpacked over the folder at home
(which still has the old games), the run goes on. A run whose last start is recorded as
running is refused (a live start's files are not a state to resume from); ``--force`` packs
one that was killed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.nets.training.manifest import Manifest  # noqa: E402

__all__ = ["main", "pack_run", "packed_files"]


def packed_files(run: Path, force: bool = False) -> list[Path]:
    """The files of ``run`` that a resumed start needs, sorted.

    Raises:
        ValueError: When ``run`` has no self-play manifest, or its last start is recorded as
            running and ``force`` is not given.
    """
    manifest = run / "manifest.json"
    if not manifest.is_file():
        raise ValueError(f"not a self-play run folder: {run} (it has no manifest.json)")
    data = Manifest.load(manifest).data  # refuses another format or version
    starts = data.get("starts", [])
    if starts and starts[-1].get("status") == "running" and not force:
        raise ValueError(
            f"the last start of {run} is recorded as running: stop it before packing (--force "
            "packs a start that was killed)"
        )
    generation, window = int(data["generation"]), int(data["config"]["window"])
    wanted = {f"gen-{k:04d}.jsonl" for k in range(max(1, generation - window + 1), generation + 1)}
    files = []
    for path in run.rglob("*"):
        if not path.is_file():
            continue
        relative = path.relative_to(run)
        if relative.parts[0] == "games" and relative.name not in wanted:
            continue
        files.append(path)
    return sorted(files)


def pack_run(run: Path, out: Path, force: bool = False) -> dict[str, int]:
    """Write the gzip tar ``out`` of :func:`packed_files`, rooted at the run folder's name.

    Returns:
        ``{"files", "bytes_in", "bytes_out"}``.
    """
    files = packed_files(run, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    with tarfile.open(partial, "w:gz") as tar:
        for path in files:
            tar.add(path, arcname=str(Path(run.name) / path.relative_to(run)), recursive=False)
    partial.replace(out)
    return {
        "files": len(files),
        "bytes_in": sum(p.stat().st_size for p in files),
        "bytes_out": out.stat().st_size,
    }


def main(argv: list[str] | None = None) -> int:
    """The command line: pack RUN into OUT; 0, or 2 with the error on standard error."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="the self-play run's folder (only read)")
    parser.add_argument("out", type=Path, help="the pack to write, e.g. .burst/NAME.tgz")
    parser.add_argument("--force", action="store_true", help="pack a start killed mid-run")
    args = parser.parse_args(argv)
    try:
        answer = pack_run(args.run, args.out, args.force)
    except (ValueError, OSError) as exc:
        print(f"selfplay_burst_pack: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"out": str(args.out), **answer}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
