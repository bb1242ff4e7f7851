"""The Elo ladder of a self-play run: the best network against fixed anchors, at a fixed N.

Gate results are relative to the previous best and are not additive (each measures a
different pair, and only promoted candidates are kept, which biases the chained sum
upwards). The ladder therefore measures each generation's best network against **anchors
that never change**, with the same fixed-N PUCT agent as the gate
(:meth:`~agents.nets.training.selfplay_config.SelfPlayConfig.agent_spec`), in paired games on
the run's book:

* ``supervised``: the shipped supervised network (9x9 only), in the same search: Li & Lim's
  question, "is the self-play network at least as strong?";
* ``initial``: the run's generation-0 network (any board size; a floor);
* ``gnugo``: a GTP engine, when ``ladder_gnugo`` names one (e.g. GNU Go level 10);
* then the extra anchors of ``ladder_anchors``, in the order given: the run's own frozen
  ``gen-NNNN`` networks and the supervised network at another N
  (:mod:`agents.nets.training.ladder_anchors`), to measure progress between anchors that a
  run has saturated (every game won, or lost: the Elo is then only a bound).

Each anchor's match is an arena results file (``ladder/gen-NNNN-ANCHOR.jsonl``), resumable.
The Elo of a generation is the logistic Elo of its score against the anchor, with the Wilson
interval mapped to Elo (:func:`agents.matches.stats.estimate`). Rows of ``ladder.jsonl`` are
kept sorted by generation, then by anchor in the order above (:func:`write_ladder_rows`).

**Backfill** (:func:`backfill_ladder`, ``gomcts train ladder``): anchors added to a run later
are measured for the past generations too: for each generation whose ladder was measured (it
has rows), the best network of then (the rows' ``best_generation``) plays every anchor that
has no row yet; resumable (each match is its results file), it rewrites ``ladder.jsonl`` and
``elo.png`` after each generation. It takes no lock on the run folder (self-play has none):
never run it beside a live ``gomcts train selfplay`` start on the same folder, whose ladder
phase rewrites ``ladder.jsonl`` too.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from agents.matches.match import MatchResult
from agents.nets.checkpoint import shipped_model_path
from agents.nets.training.gating import load_or_draw_book, play_run_match
from agents.nets.training.jsonl import read_rows, write_rows
from agents.nets.training.selfplay_config import SelfPlayConfig

__all__ = [
    "anchors",
    "backfill_ladder",
    "parse_generations",
    "run_ladder",
    "write_ladder_rows",
]

Log = Callable[[str], None]
PROGRESS_EVERY = 10
"""Games between progress lines of a backfilled match."""


def anchors(config: SelfPlayConfig, out: Path) -> dict[str, str]:
    """The ladder's anchors in the order they are played: name -> agent spec.

    Raises:
        ValueError: When an extra anchor's checkpoint ``nets/gen-NNNN.pt`` is not in ``out``,
            or ``supervised@SIMS`` is named and the shipped supervised network is missing.
    """
    found: dict[str, str] = {}
    has_supervised = config.net.size == 9 and shipped_model_path().exists()
    if has_supervised:  # "default": portable
        found["supervised"] = config.agent_spec("default", "supervised")
    found["initial"] = config.agent_spec(str(out / "nets" / "gen-0000.pt"), "initial")
    if config.ladder_gnugo:
        command = config.ladder_gnugo.replace('"', "'")
        found["gnugo"] = f'gtp:cmd="{command}",name=gnugo'
    for extra in config.extra_anchors():
        if extra.generation is None:
            if not has_supervised:
                raise ValueError(
                    f"ladder anchor {extra.text}: the shipped supervised network "
                    f"{shipped_model_path()} is missing (reinstall gomcts with its nets)"
                )
            model = "default"
        else:
            path = out / "nets" / f"gen-{extra.generation:04d}.pt"
            if not path.exists():
                raise ValueError(
                    f"ladder anchor {extra.text}: {path} does not exist; a gen-NNNN anchor "
                    "must be a checkpoint the run has already trained (its nets/ folder)"
                )
            model = str(path)
        found[extra.name] = config.agent_spec(model, extra.name, sims=extra.sims)
    return found


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def run_ladder(
    best: Path,
    generation: int,
    config: SelfPlayConfig,
    out: Path,
    *,
    deadline: float = float("inf"),
    only: Collection[str] | None = None,
    on_game: Callable[[str, MatchResult], None] | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    """Play the best network against every anchor (or the anchors named in ``only``).

    Args:
        best: The best network's checkpoint.
        generation: The generation (names the results files, seeds the matches).
        config: The run.
        out: The run folder.
        deadline: ``time.monotonic()`` at which to stop (the games played are kept).
        only: Anchor names to play (``None``: all of :func:`anchors`).
        on_game: Called with the anchor's name and the match so far after each game.

    Returns:
        ``(rows, interrupted)``: one row per anchor finished (``generation``, ``anchor``,
        ``games``, ``score``, ``elo``, ``elo_low``, ``elo_high``), and whether the time
        budget cut it short (rerun to finish).
    """
    book = load_or_draw_book(out, config)
    rows: list[dict[str, Any]] = []
    for name, spec in anchors(config, out).items():
        if only is not None and name not in only:
            continue
        result, stopped = play_run_match(
            config,
            book,
            agent_a=config.agent_spec(str(best), f"gen{generation}"),
            agent_b=spec,
            games=config.ladder_games,
            seed=config.seed * 1000 + generation + 500_000,
            results=out / "ladder" / f"gen-{generation:04d}-{name}.jsonl",
            deadline=deadline,
            on_game=None if on_game is None else functools.partial(on_game, name),
            run=out,
        )
        if stopped and len(result.games) < config.ladder_games:
            return rows, True
        est = result.estimate
        rows.append(
            {
                "generation": generation,
                "anchor": name,
                "games": len(result.games),
                "score": est.rate,
                "elo": _finite(est.elo),
                "elo_low": _finite(est.elo_low),
                "elo_high": _finite(est.elo_high),
            }
        )
    return rows, False


def write_ladder_rows(
    path: Path, rows: Sequence[dict[str, Any]], order: Sequence[str]
) -> list[dict[str, Any]]:
    """Write ``ladder.jsonl`` atomically, sorted by generation, then anchor; the rows written.

    Anchors are ordered as in ``order`` (the run's :func:`anchors`), then any others (no
    longer named) by name. A later row of the same generation and anchor replaces an earlier.
    """
    latest: dict[tuple[int, str], dict[str, Any]] = {}
    for row in rows:
        latest[(row["generation"], row["anchor"])] = row
    rank = {name: i for i, name in enumerate(order)}
    ordered = sorted(
        latest.values(),
        key=lambda r: (r["generation"], rank.get(r["anchor"], len(rank)), r["anchor"]),
    )
    write_rows(path, ordered)
    return ordered


def parse_generations(text: str | None) -> tuple[int, int]:
    """``A-B`` (or ``A``) as an inclusive range of generations; ``None``: all.

    Raises:
        ValueError: When ``text`` is not ``A-B`` or ``A`` with integers ``1 <= A <= B``.
    """
    if text is None:
        return 1, 2**31
    parts = text.split("-")
    ok = 1 <= len(parts) <= 2 and all(p.strip().isdigit() for p in parts)
    low, high = (int(parts[0]), int(parts[-1])) if ok else (0, 0)
    if not ok or not 1 <= low <= high:
        raise ValueError(
            f"--generations must be A-B or A with integers 1 <= A <= B (e.g. 1-8), got {text!r}"
        )
    return low, high


def backfill_ladder(
    out: str | Path,
    config: SelfPlayConfig,
    *,
    generations: tuple[int, int] = (1, 2**31),
    budget_minutes: float | None = None,
    log: Log | None = None,
) -> str:
    """Play the missing ladder matches of a run's past generations (module docstring).

    Args:
        out: The run folder (its ``manifest.json`` gives the past generations).
        config: The run's settings, with the anchors to measure (``ladder_anchors``) and
            the workers to play on.
        generations: The inclusive range of generations to fill.
        budget_minutes: Stop cleanly after this many minutes (rerun to continue).
        log: Where one-line progress messages go.

    Returns:
        ``"done"``, or ``"budget"`` when the budget stopped it (rerun to continue).

    Raises:
        ValueError: When ``out`` holds no self-play run, an anchor is not allowed or its
            checkpoint is missing, or a ladder row has no ``best_generation``.
    """
    from agents.nets.training.manifest import Manifest
    from agents.nets.training.plots import plot_elo

    say = log or (lambda message: None)
    if budget_minutes is not None and not budget_minutes > 0:
        raise ValueError(f"budget_minutes must be > 0, got {budget_minutes}")
    deadline = float("inf") if budget_minutes is None else time.monotonic() + budget_minutes * 60
    folder = Path(out)
    if not (folder / "manifest.json").exists():
        raise ValueError(f"{folder} holds no self-play run (no manifest.json)")
    manifest = Manifest.load(folder / "manifest.json")
    current = int(manifest.data["generation"])
    order = list(anchors(config, folder))
    path = folder / "ladder.jsonl"
    rows = read_rows(path)
    measured: dict[int, int] = {}
    for row in rows:
        g = int(row["generation"])
        if not generations[0] <= g <= generations[1] or g >= current:
            continue  # out of range, or the generation in progress (its start plays it)
        if row.get("best_generation") is None:
            raise ValueError(f"{path}: the row of generation {g} has no best_generation")
        measured[g] = int(row["best_generation"])
    done = {(int(r["generation"]), r["anchor"]) for r in rows}
    todo = {g: [a for a in order if (g, a) not in done] for g in sorted(measured)}
    matches = sum(len(v) for v in todo.values())
    say(
        f"ladder backfill of {folder}: {len(measured)} measured generations in range, "
        f"{matches} matches of {config.ladder_games} games to play against {', '.join(order)}"
    )
    started = time.monotonic()
    finished = 0
    for g, missing in todo.items():
        if not missing:
            continue
        if time.monotonic() >= deadline:
            say(f"time budget reached before generation {g}; rerun the command to continue")
            return "budget"
        best = folder / "nets" / f"gen-{measured[g]:04d}.pt"
        if not best.exists():
            raise ValueError(f"generation {g}: its best network {best} is missing")

        def progress(name: str, result: MatchResult, g: int = g) -> None:
            nonlocal finished
            n = len(result.games)
            if n % PROGRESS_EVERY and n < config.ladder_games:
                return
            est = result.estimate
            line = (
                f"generation {g} vs {name}: {n}/{config.ladder_games} games, score {est.rate:.3f}"
            )
            if n >= config.ladder_games:
                finished += 1
                rate = finished / max(time.monotonic() - started, 1e-9)
                eta = (matches - finished) / rate / 60
                line += (
                    f", Elo {est.elo:+.0f} [{est.elo_low:+.0f}, {est.elo_high:+.0f}]; "
                    f"{finished}/{matches} matches, ETA {eta:.1f} min"
                )
            say(line)

        say(f"generation {g} (best: generation {measured[g]}): vs {', '.join(missing)}")
        new, interrupted = run_ladder(
            best, g, config, folder, deadline=deadline, only=missing, on_game=progress
        )
        for row in new:
            row["best_generation"] = measured[g]
        rows = write_ladder_rows(path, [*read_rows(path), *new], order)
        plot_elo(rows, folder / "elo.png")
        if interrupted:
            say(f"time budget reached at generation {g}; rerun the command to continue")
            return "budget"
    return "done"
