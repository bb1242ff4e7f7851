"""The compact record of a self-play run, and its summary (``gomcts train report``).

A self-play run's folder (:mod:`agents.nets.training.selfplay`) holds tens of megabytes of
games and networks; its record is small: ``manifest.json`` (settings, starts, costs),
``metrics.jsonl`` (one row per generation), ``ladder.jsonl`` (the Elo ladder) and the plots.
:func:`write_report` copies that record into a folder of its own (e.g. one under
``docs/results``), gzip-compressed as a recorded match's results are (``manifest.json.gz``
...: :mod:`agents.stored`; a sixth of the bytes), draws the plots again from the copies with
the functions self-play uses (:mod:`agents.nets.training.plots`), and writes ``summary.md``:
the run's settings, a table of its starts and a table of its generations.

``summary.md`` is a pure function of the folder's own ``manifest.json``, ``metrics.jsonl`` and
``ladder.jsonl``, each read plain or compressed (:func:`render_summary`), and of the same files
of its earlier parts where the run continues another (``earlier/``,
:mod:`agents.nets.training.lineage`): the same files give the same bytes, so the summary
committed beside a record can be checked by rendering it again, without the run. A continued
run's summary, tables and plots show its whole line, numbered as the line is.

The gate's verdict is the SPRT's (Abraham Wald, *Sequential Tests of Statistical Hypotheses*,
1945; :mod:`agents.nets.training.gating`); a ladder score is the best network's against an
anchor, its Elo the logistic Elo of that score with the Wilson interval mapped to Elo
(:func:`agents.matches.stats.estimate`). A saturated score (every game won, or every game lost)
has no finite Elo, only the bound of its interval, written ``≥ +X Elo`` or ``≤ -X Elo``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from os import PathLike
from pathlib import Path
from typing import Any

from agents.nets.training.lineage import Part, copy_earlier, line_of, line_rows
from agents.nets.training.record_files import RECORD_FILES, load_manifest
from agents.stored import pair_of, read_stored, stored_file, write_compressed

__all__ = [
    "PLOTS",
    "RECORD_FILES",
    "gate_cells",
    "ladder_cell",
    "render_summary",
    "write_report",
]

PLOTS = ("elo.png", "gate.png", "losses.png")
"""The plots, drawn again from the copies (copied from the run where they cannot be drawn)."""

_PLOT_TITLES = {
    "elo.png": "Elo of the best network against each ladder anchor",
    "gate.png": "gate: each candidate's score against the best",
    "losses.png": "training losses",
}


def _check_destination(run: Path, to: Path) -> None:
    """Refuse a destination that is the run folder or lies inside it."""
    run_real, to_real = run.resolve(), to.resolve()
    if to_real == run_real or run_real in to_real.parents:
        raise ValueError(
            f"--to {to} is the run folder {run} or inside it; give a folder outside the run "
            "(e.g. a folder of the project's docs)"
        )
    if to.exists() and not to.is_dir():
        raise ValueError(f"--to {to} is a file; give a folder, new or existing")


def write_report(
    run: str | PathLike[str],
    to: str | PathLike[str],
    *,
    log: Callable[[str], None] | None = None,
) -> Path:
    """Copy a self-play run's compact record into ``to`` and write its ``summary.md``.

    Copies :data:`RECORD_FILES` gzip-compressed (a file the run does not have yet is removed
    from ``to``, and so is a plain copy an older report left, so the folder never mixes two
    states), draws :data:`PLOTS` again from the copies (or copies the run's own where
    matplotlib is missing), and writes :func:`render_summary` of ``to``. Never copies the
    games, the networks or the trainer's state.

    Args:
        run: The run's folder (``gomcts train selfplay --out``), or another record (its
            files compressed): a record is drawn again elsewhere; only read.
        to: The record's folder, created if needed; outside ``run``.
        log: Called with one line per file written.

    Returns:
        The path of ``summary.md``.

    Raises:
        ValueError: ``run`` is not a self-play run folder, ``to`` is ``run`` or inside it, or
            a copied file does not parse.
    """
    run, to = Path(run), Path(to)
    load_manifest(run)
    _check_destination(run, to)
    to.mkdir(parents=True, exist_ok=True)
    say = log if log is not None else (lambda line: None)
    for name in RECORD_FILES:
        source = stored_file(run / name)  # plain in a run, compressed in a record
        plain, packed = pair_of(to / name)
        if plain.exists():
            plain.unlink()
        if source is not None:
            write_compressed(packed, read_stored(source))  # one read: a file replaced is whole
            say(f"copied {packed}")
        elif packed.exists():
            packed.unlink()
            say(f"removed {packed} (the run has no {name})")
    copy_earlier(run, to, say)
    parts = line_of(to)
    metrics, ladder = line_rows(parts)
    _draw_plots(run, to, metrics, ladder, say)
    summary = to / "summary.md"
    summary.write_text(_render(to, parts), encoding="utf-8")
    say(f"wrote {summary}")
    return summary


def _draw_plots(
    run: Path,
    to: Path,
    metrics: list[dict[str, Any]],
    ladder: list[dict[str, Any]],
    say: Callable[[str], None],
) -> None:
    """Draw the plots into ``to`` as self-play does; copy the run's where none is drawn."""
    from agents.nets.training.plots import plot_elo, plot_gate, plot_losses

    drawn = {
        "losses.png": plot_losses(metrics, to / "losses.png"),
        "gate.png": plot_gate(metrics, to / "gate.png"),
        "elo.png": plot_elo(ladder, to / "elo.png"),
    }
    for name in PLOTS:
        target = to / name
        if drawn[name] is not None:
            say(f"drew {target}")
        elif (run / name).exists():
            shutil.copyfile(run / name, target)
            say(f"copied {target}")
        elif target.exists():
            target.unlink()
            say(f"removed {target} (nothing to plot)")


# ---------------------------------------------------------------------- formatting
def _count(n: Any) -> str:
    """An integer with thousands separated by commas; ``-`` when missing."""
    return "-" if n is None else f"{int(n):,}"


def _number(x: Any) -> str:
    """A setting's number without trailing zeros (``0``, ``50``, ``0.25``); as is otherwise."""
    return f"{x:g}" if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)


def _elo(x: float) -> str:
    """A signed whole Elo (never ``-0``)."""
    value = round(x)
    return f"{value:+d}" if value else "0"


def _wins(score: float, games: int) -> str:
    """Score points out of ``games``: ``34 of 40``, ``20.5 of 40``."""
    points = score * games
    whole = round(points)
    text = f"{whole}" if abs(points - whole) < 1e-6 else f"{points:.1f}"
    return f"{text} of {games}"


def ladder_cell(row: dict[str, Any] | None) -> str:
    """One ladder result: ``34 of 40, +301 Elo``, or a bound when saturated; ``-`` for none."""
    if row is None:
        return "-"
    text = _wins(float(row["score"]), int(row["games"]))
    elo, low, high = row.get("elo"), row.get("elo_low"), row.get("elo_high")
    if elo is not None:
        return f"{text}, {_elo(elo)} Elo"
    if low is not None and high is None:
        return f"{text}, ≥ {_elo(low)} Elo"
    if high is not None and low is None:
        return f"{text}, ≤ {_elo(high)} Elo"
    return text


def gate_cells(row: dict[str, Any]) -> tuple[str, str]:
    """The gate's verdict and its score with the 95% interval."""
    games = row.get("gate_games")
    if not games:
        return "-", "-"
    decision = row.get("gate_decision")
    if decision in ("H1", "H0"):
        verdict = f"{decision} after {games} games"
    else:
        kept = "promoted" if row.get("gate_promoted") else "best kept"
        verdict = f"undecided, {kept} after {games} games"
    score, low, high = row.get("gate_score"), row.get("gate_low"), row.get("gate_high")
    if score is None:
        return verdict, "-"
    if low is None or high is None:
        return verdict, f"{score:.3f}"
    return verdict, f"{score:.3f} [{low:.3f}, {high:.3f}]"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _settings(config: dict[str, Any], data: dict[str, Any]) -> str:
    """One line on the run's settings."""
    net = config.get("net", {})
    shape = f"b{net.get('blocks')}c{net.get('filters')}"
    parts = [
        f"Network {shape} ({net.get('blocks')} blocks, {net.get('filters')} filters, "
        f"{net.get('history')} positions of history"
        + (", tactical planes" if net.get("tactical") else "")
        + ")",
    ]
    origin = data.get("origin") or (
        f"from {config['init']}" if config.get("init") else "tabula rasa"
    )
    parts[0] += f", {origin}"
    board = f"{net.get('size')}x{net.get('size')}, komi {config.get('komi')}"
    if config.get("max_moves"):
        board += f", at most {config['max_moves']} moves"
    parts.append(board)
    search = str(config.get("search"))
    play = (
        f"self-play: {search} search, {config.get('sims')} simulations "
        f"({config.get('fast_sims')} fast, full share {config.get('full_share')})"
    )
    if search == "gumbel":
        play += f", m = {config.get('considered')}"
    if config.get("fpu") == "parent":  # runs from before the field had 0 (not named)
        play += f", unvisited children at the parent's value - {config.get('fpu_reduction')}"
    elif "fpu" in config:
        play += ", unvisited children at 0"
    parts.append(play)
    parts.append(
        f"{_count(config.get('games'))} games a generation, window of {config.get('window')} "
        f"generations, {_count(config.get('train_steps'))} training steps of "
        f"{config.get('batch_size')}"
    )
    parts.append(
        f"gate: at most {config.get('gate_games')} games at N = {config.get('gate_sims')}, "
        f"SPRT Elo {_number(config.get('gate_elo0'))} against "
        f"{_number(config.get('gate_elo1'))}"
    )
    ladder = (
        f"ladder: {config.get('ladder_games')} games an anchor at N = {config.get('gate_sims')}"
    )
    if config.get("ladder_anchors"):
        ladder += f", extra anchors {config['ladder_anchors']}"
    parts.append(ladder)
    parts.append(f"evaluator `{config.get('evaluator') or 'net'}`")
    return "; ".join(parts) + "."


def _started(text: str) -> str:
    """An ISO time as ``YYYY-MM-DD HH:MM`` in UTC."""
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return str(text)
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M")


def _starts_table(data: dict[str, Any], finished: int) -> list[str]:
    rows = []
    for number, start in enumerate(data.get("starts", []), 1):
        machine = str(start.get("machine", "-"))
        if start.get("ray"):
            machine += f", games on the Ray cluster {start['ray']}"
        rows.append(
            [
                str(number),
                _started(start.get("started", "-")),
                machine,
                f"{start.get('workers')} x {start.get('games_per_worker')}",
                f"{start.get('wall_seconds', 0.0) / 60:.1f}",
                f"{start.get('cpu_seconds', 0.0) / 60:.1f}",
                _count(start.get("games")),
                _count(start.get("positions")),
                str(start.get("status", "-")),
            ]
        )
    totals = data.get("totals", {})
    games = int(totals.get("games", 0))
    positions = int(totals.get("positions", 0))
    extra_games = sum(int(s.get("games", 0)) for s in data.get("starts", [])) - games
    extra_positions = sum(int(s.get("positions", 0)) for s in data.get("starts", [])) - positions
    in_progress = data.get("generation")
    games_cell = f"{games:,} in {finished} generations"
    positions_cell = f"{positions:,}"
    if extra_games > 0:
        games_cell += f", +{extra_games:,} of generation {in_progress}"
    if extra_positions > 0:
        positions_cell += f", +{extra_positions:,}"
    cpu = float(totals.get("cpu_seconds", 0.0))
    rows.append(
        [
            "all",
            "",
            "",
            "",
            f"{float(totals.get('wall_seconds', 0.0)) / 60:.1f}",
            f"{cpu / 60:.1f} ({cpu / 3600:.1f} CPU-hours)",
            games_cell,
            positions_cell,
            "",
        ]
    )
    header = [
        "start",
        "began (UTC)",
        "machine",
        "workers x games",
        "wall min",
        "CPU min",
        "games",
        "positions",
        "status",
    ]
    return _table(header, rows)


def _generations_table(metrics: list[dict[str, Any]], ladder: list[dict[str, Any]]) -> list[str]:
    anchors = list(dict.fromkeys(str(r["anchor"]) for r in ladder))
    results: dict[tuple[int, str], dict[str, Any]] = {}
    for row in ladder:  # a later row of the same generation and anchor replaces an earlier
        results[(int(row["generation"]), str(row["anchor"]))] = row
    header = ["generation", "games", "positions", "moves a game", "gate (SPRT)"]
    header.append("gate score vs the best [95%]")
    header += [("ladder vs " if i == 0 else "vs ") + name for i, name in enumerate(anchors)]
    header.append("CPU-h of the generation")
    rows = []
    for row in metrics:
        g = int(row["generation"])
        verdict, score = gate_cells(row)
        moves = row.get("mean_moves")
        # before run_cpu_seconds existed, cpu_seconds held the start's running total
        cpu = row.get("cpu_seconds") if "run_cpu_seconds" in row else None
        rows.append(
            [
                str(g),
                _count(row.get("games")),
                _count(row.get("positions")),
                "-" if moves is None else f"{moves:.1f}",
                verdict,
                score,
                *(ladder_cell(results.get((g, name))) for name in anchors),
                "-" if cpu is None else f"{cpu / 3600:.2f}",
            ]
        )
    return _table(header, rows)


def _said(changes: dict[str, list[Any]]) -> str:
    """Settings changed, name -> ``[before, now]``, as ``` `name` before -> now ```."""
    return ", ".join(f"`{name}` {old!r} -> {new!r}" for name, (old, new) in changes.items())


def _changes(data: dict[str, Any]) -> list[str]:
    """One line for each start that changed a runtime setting, and one for each fork."""
    lines = []
    for k, start in enumerate(data.get("starts", []), 1):
        changed = start.get("changed") or {}
        if changed:
            lines.append(f"Start {k} changed {_said(changed)}.")
    for fork in data.get("forks", []):
        lines.append(
            f"Forked after start {fork['after_start']} from `{Path(fork['from']).name}`, at "
            f"generation {fork['generation']} (phase {fork['phase']}): "
            f"{_said(fork['changes']) or 'no setting changed'}."
        )
    return ["", *lines] if lines else []


def _state(part: Part) -> str:
    """The line on the generation in progress and the best network, in the line's numbering."""
    data = part.data
    generation = int(data.get("generation", 0)) + part.offset
    best = int(data.get("best_generation") or 0)
    where = f"Generation {generation} in progress (phase {data.get('phase')}); "
    if best:
        return where + f"the best network is generation {best + part.offset}."
    if part.started_from is not None:
        return where + (
            f"the best network is generation {part.started_from}, the one this run started from."
        )
    return where + "the best network is the initial one."


def _cost(data: dict[str, Any]) -> tuple[int, int, float]:
    """Games and positions of a part's finished generations, and its CPU seconds."""
    totals = data.get("totals", {})
    return (
        int(totals.get("games", 0)),
        int(totals.get("positions", 0)),
        float(totals.get("cpu_seconds", 0.0)),
    )


def _line_table(parts: list[Part]) -> list[str]:
    """One row per part of the line (its generations, where it began, its cost), and all."""
    rows = []
    for part in parts:
        first, last = part.offset + 1, part.offset + part.last_generation
        games, positions, cpu = _cost(part.data)
        init = part.data.get("config", {}).get("init")
        if part.started_from is not None:
            began = f"generation {part.started_from}"
        elif init:
            began = str(part.data.get("origin") or init)
        else:
            began = "random weights"
        rows.append(
            [
                f"`{part.name}`",
                f"{first}-{last}" if last >= first else "none finished",
                began,
                str(len(part.data.get("starts", []))),
                f"{games:,}",
                f"{positions:,}",
                f"{cpu / 3600:.1f}",
            ]
        )
    games, positions, cpu = (sum(x) for x in zip(*(_cost(p.data) for p in parts), strict=True))
    rows.append(["all", "", "", "", f"{games:,}", f"{positions:,}", f"{cpu / 3600:.1f}"])
    header = [
        "run",
        "generations of the line",
        "began from",
        "starts",
        "games",
        "positions",
        "CPU-hours",
    ]
    return _table(header, rows)


def _starts_section(parts: list[Part]) -> list[str]:
    """The starts table of a run, or one per part (with its settings) for a line."""
    note = (
        "Wall and CPU time in minutes (CPU: the process and its workers; with Ray, the cluster "
        "workers' too). The last row's games and positions are those of the finished "
        "generations, then those played so far of the generation in progress."
    )
    if len(parts) == 1:
        part = parts[0]
        return [*_starts_table(part.data, len(part.metrics)), "", note, *_changes(part.data)]
    lines: list[str] = []
    for part in parts:
        lines += [f"### `{part.name}`", ""]
        lines += [_settings(part.data.get("config", {}), part.data), ""]
        lines += [*_starts_table(part.data, len(part.metrics)), *_changes(part.data), ""]
    return [*lines, note + " Generations in each part's own numbering."]


def render_summary(folder: str | PathLike[str]) -> str:
    """``summary.md`` of a record folder, from its own manifest, metrics and ladder files.

    Deterministic: the same files (the folder's, and its earlier parts' for a continued run)
    give the same text. Links the plots found in ``folder``.

    Raises:
        ValueError: ``folder`` has no self-play manifest, or a JSON-lines file or a lineage
            file does not parse.
    """
    folder = Path(folder)
    return _render(folder, line_of(folder))


def _render(folder: Path, parts: list[Part]) -> str:
    """:func:`render_summary` of ``folder``, whose line was read as ``parts``."""
    own = parts[-1]
    metrics, ladder = line_rows(parts)
    lines = [
        f"# Self-play run `{folder.name}`",
        "",
        _settings(own.data.get("config", {}), own.data),
        "",
        _state(own),
        "",
    ]
    if len(parts) > 1:
        lines += [
            "## Line",
            "",
            f"This run continues an earlier one: its generation g is generation "
            f"{own.offset} + g of the line, and it started from generation "
            f"{own.started_from}'s network (the earlier run's folder was not carried on). "
            "The tables and plots number the line; the replay window and the trainer's "
            "optimizer began again with each part.",
            "",
            *_line_table(parts),
            "",
        ]
    lines += ["## Starts", "", *_starts_section(parts), "", "## Generations", ""]
    if metrics:
        lines += _generations_table(metrics, ladder)
        lines += [
            "",
            "Ladder: the best network's points against each anchor, and the logistic Elo of "
            "that score; when every game was won (or lost) only the bound of its 95% interval "
            "(≥, ≤). `-`: no ladder match that generation.",
        ]
    else:
        lines.append("No generation finished yet.")
    plots = [name for name in PLOTS if (folder / name).exists()]
    if plots:
        lines += ["", "## Plots", ""]
        lines += [f"- [{_PLOT_TITLES[name]}]({name})" for name in plots]
    sources = "`manifest.json`, `metrics.jsonl` and `ladder.jsonl` in this folder"
    if len(parts) > 1:
        sources += " and in `earlier/`"
    lines += [
        "",
        f"Written by `gomcts train report` from {sources}; regenerate it rather than editing it.",
    ]
    return "\n".join(lines) + "\n"
