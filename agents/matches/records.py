"""Recorded runs: a match's games as SGF on demand, and a run folder copied into the record.

A run's raw games live in its results file (:mod:`agents.matches.results`), move by move; a
recorded run (``docs/results/<topic>/<run>/``) keeps that file compressed and no SGF files.

* :func:`export_sgf` writes one SGF file per game of a results file, plain or compressed:
  the files ``gomcts arena --sgf``/``--out`` writes as it plays (:func:`game_record` is the
  record both write), so an exported game is byte for byte the SGF the arena saved.
* :func:`record_run` copies a run folder into the record: every results file compressed
  (:func:`agents.stored.compress`), a match's per-game times rounded to the millisecond
  (:func:`round_times`: a tenth of the compressed bytes were the noise digits of three
  timers), ``sgf/`` folders left out (they are exported on demand),
  a match's running-score plot (``winrate.png``) left out (:func:`draw_running_score` draws
  it again from the games; ``keep_plot`` keeps it, for a plot a page shows), other
  plots stored as palette PNGs (a palette plot as its writer made it, any other with 256
  colours: line plots whose few hundred colours are antialiasing shades; a third of the
  size, no visible change), JSON files with each list of numbers on
  one line (the same values), a match summary's opening book replaced by a reference to the
  same book in the results file's header (:mod:`agents.matches.summary_book`, which reads it
  back), everything else copied as it is.

The command line is ``gomcts sgf export RUN [--out DIR]``, ``gomcts plot RUN [--out FILE]`` and
``gomcts record RUN DEST [--keep-plot]`` (:mod:`agents.matches.records_cli`).
"""

from __future__ import annotations

import gzip
import io
import json
import re
import shutil
from collections.abc import Callable
from os import PathLike
from pathlib import Path
from typing import Any

from agents.matches.games_in_git import GAMES, left_file
from agents.matches.results import (
    TIMING_FIELDS,
    GameOutcome,
    ResultsError,
    read_results,
    stored_results,
)
from agents.matches.summary_book import SUMMARY_NAME, refer_book
from agents.stored import (
    StoredFileError,
    compress,
    is_compressed,
    pair_of,
    read_stored,
    write_compressed,
)
from go_env.rules import KoRule, Rules
from go_env.sgf import GameRecord, record_from_state, save_sgf
from go_env.state import GoState

__all__ = [
    "RUNNING_SCORE_PLOT",
    "RecordError",
    "draw_running_score",
    "export_sgf",
    "game_record",
    "is_results_file",
    "match_rules",
    "record_run",
    "round_times",
    "sgf_name",
]

Say = Callable[[str], None]

RUNNING_SCORE_PLOT = "winrate.png"
"""A match's running-score plot: the arena draws it beside its results file, the record
leaves it out (:func:`draw_running_score` draws it again)."""


class RecordError(ValueError):
    """A run folder or results file that cannot be exported or recorded."""


_TIME_VALUE = re.compile(
    rb'"(' + b"|".join(f.encode() for f in TIMING_FIELDS) + rb')":(\d+\.\d{4,}(?:[eE][-+]?\d+)?)'
)
"""A timing field of a results line with more than three decimals (a key inside an agent
spec string is escaped, ``\\"duration\\":``, and does not match)."""


def round_times(data: bytes) -> bytes:
    """A match results file's bytes with every game's times rounded to the millisecond.

    ``duration``, ``time_black`` and ``time_white`` (seconds, :data:`TIMING_FIELDS`) are
    the only fields that differ between identical runs; their digits below a millisecond are
    timer noise, and they were a tenth of a recorded file's compressed bytes. Every other
    byte is unchanged; rounding again changes nothing.
    """

    def ms(match: re.Match[bytes]) -> bytes:
        return b'"' + match[1] + b'":' + repr(round(float(match[2]), 3)).encode()

    return _TIME_VALUE.sub(ms, data)


def sgf_name(game: GameOutcome) -> str:
    """The SGF file name of a game: ``game-00012.sgf``."""
    return f"game-{game.index:05d}.sgf"


def match_rules(match: dict[str, Any]) -> Rules:
    """The rules of a results file's match configuration (its header's ``match``).

    Raises:
        RecordError: When the header holds no valid rules.
    """
    rules = match.get("rules")
    if not isinstance(rules, dict):
        raise RecordError("the results file's header has no 'rules'")
    try:
        return Rules(**{**rules, "ko": KoRule(rules.get("ko", KoRule.POSITIONAL.value))})
    except (TypeError, ValueError) as exc:
        raise RecordError(f"the results file's header has invalid rules {rules!r}: {exc}") from None


def game_record(rules: Rules, seed: int, game: GameOutcome) -> GameRecord:
    """The SGF record of an arena game (the arena saves it, :func:`export_sgf` rewrites it).

    Args:
        rules: The match's rules.
        seed: The match seed (named in the game comment).
        game: The game.

    Raises:
        go_env.errors.GoError: When a move of the game is illegal under ``rules``.
    """
    state = GoState(rules)
    for move in game.moves:
        state.play(move)
    comment = (
        f"arena game {game.index} (pair {game.pair}), match seed {seed}; "
        f"opening of {len(game.opening)} moves; ended by {game.ended_by}; "
        f"Tromp-Taylor score of the final board {game.raw_score:+g}"
    )
    if game.referee is not None:
        comment += f"; {len(game.dead)} dead stones removed by the referee {game.referee}"
    return record_from_state(
        state, black=game.black, white=game.white, result=game.result, game_comment=comment
    )


def export_sgf(
    run: str | PathLike[str], out: str | PathLike[str] | None = None, *, say: Say | None = None
) -> list[Path]:
    """Write one SGF file per game of a results file.

    Args:
        run: A run folder (its ``results.jsonl`` or ``results.jsonl.gz``) or a results file by
            either name.
        out: Folder of the SGF files (default: ``sgf/`` beside the results file).
        say: Receives a progress line every 500 games and at the end.

    Returns:
        The files written, in game order.

    Raises:
        RecordError: When there is no results file at ``run`` or a game does not replay.
        agents.matches.results.ResultsError: When the results file is corrupt.
    """
    path = stored_results(run)
    if path is None:
        raise RecordError(f"no results file at {run} (results.jsonl or results.jsonl.gz)")
    match, games = read_results(path)
    rules = match_rules(match)
    seed = match.get("seed", 0)
    folder = Path(out) if out is not None else path.parent / "sgf"
    if folder.exists() and not folder.is_dir():
        raise RecordError(f"--out {folder} is a file; give a folder for the SGF files")
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for number, index in enumerate(sorted(games), 1):
        game = games[index]
        try:
            record = game_record(rules, seed, game)
        except ValueError as exc:
            raise RecordError(f"{path}: game {index} does not replay: {exc}") from None
        target = folder / sgf_name(game)
        save_sgf(record, target)
        written.append(target)
        if say is not None and number % 500 == 0:
            say(f"[sgf] {number}/{len(games)} games")
    if say is not None:
        say(f"[sgf] {len(written)} SGF files in {folder}")
    return written


def draw_running_score(run: str | PathLike[str], out: str | PathLike[str] | None = None) -> Path:
    """Draw a match's running score (agent A's score rate with its 95% band) from its games.

    The plot ``gomcts arena`` draws when a match ends (:func:`agents.matches.plots.
    plot_running_score`), drawn again from the results file, plain or compressed: the same
    scores in game order, titled by the two agents of the file's header (a reproduction row's
    plot was titled by the row; the curve is the same).

    Args:
        run: A run folder or its results file (``results.jsonl`` or ``results.jsonl.gz``).
        out: The PNG file (default: ``winrate.png`` beside the results file).

    Returns:
        The file written.

    Raises:
        RecordError: When there is no results file at ``run``, it is not a match's, it
            holds no finished game, or ``out`` is a folder or not a ``.png`` file.
        agents.matches.results.ResultsError: When the results file is corrupt.
    """
    from agents.matches.plots import plot_running_score

    path = stored_results(run)
    if path is None:
        raise RecordError(f"no results file at {run} (results.jsonl or results.jsonl.gz)")
    match, games = read_results(path)
    if "agent_a" not in match or "agent_b" not in match:
        raise RecordError(f"{path} is not a match's results file (its header names no agents)")
    if not games:
        raise RecordError(f"{path} holds no finished game: there is no score to plot")
    target = Path(out) if out is not None else path.parent / RUNNING_SCORE_PLOT
    if target.is_dir() or target.suffix.lower() != ".png":
        raise RecordError(f"--out {target} is not a .png file; give the plot's file, e.g. w.png")
    target.parent.mkdir(parents=True, exist_ok=True)
    return plot_running_score(
        [games[i].score_a for i in sorted(games)],
        target,
        label="A",
        title=f"A: {match['agent_a']}  vs  B: {match['agent_b']}",
    )


def _is_running_score_plot(path: Path) -> bool:
    """Whether ``path`` is a match's running-score plot, beside the match's results file."""
    if path.name != RUNNING_SCORE_PLOT:
        return False
    results = stored_results(path.parent)
    # a record whose games are kept in git only has its games-in-git.json instead
    header = _header(results) if results else _header_of(left_file(path.parent / GAMES))
    return header is not None and isinstance(header.get("match"), dict)


def _header_of(data: bytes | None) -> dict[str, Any] | None:
    """:func:`_header` of a gzip results file's bytes (``None``: no bytes)."""
    return None if data is None else _first_object(gzip.GzipFile(fileobj=io.BytesIO(data)))


def _header(path: Path) -> dict[str, Any] | None:
    """The first line of a JSON-lines file (plain or gzip) as an object (``None``: not one)."""
    try:
        with gzip.open(path, "rb") if is_compressed(path) else path.open("rb") as handle:
            return _first_object(handle)
    except OSError:
        return None


def _first_object(handle: io.BufferedIOBase) -> dict[str, Any] | None:
    """The first line of a JSON-lines stream as an object (``None``: not one)."""
    try:
        value = json.loads(handle.readline(1 << 20))
    except (OSError, ValueError, EOFError):
        return None
    return value if isinstance(value, dict) else None


def is_results_file(path: str | PathLike[str]) -> bool:
    """Whether a ``.jsonl`` file is a resumable results file whose readers take ``.gz``.

    Arena matches and trap grids start with ``{"kind": "header", ...}``, the noise simulation
    with ``{"settings": ...}``; other JSON-lines files (training metrics) stay plain.
    """
    header = _header(Path(path))
    return header is not None and (header.get("kind") == "header" or "settings" in header)


def _small_png(data: bytes) -> bytes:
    """The plot as a 256-colour PNG when that is smaller (unchanged without Pillow).

    A palette PNG is kept as its writer made it (the project's plots are drawn with the
    palette :func:`agents.figures.save_figure` chose for them: 64 colours for line plots, 20
    for a match's running score, 256 for a heat map).
    """
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow comes with matplotlib
        return data
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.mode == "P":
                return data  # a palette already: its writer's choice
            if image.mode == "RGBA" and image.getchannel("A").getextrema() != (255, 255):
                return data  # transparency: keep it as it is
            palette = image.convert("RGB").quantize(
                256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
            )
            buffer = io.BytesIO()
            palette.save(buffer, "PNG", optimize=True)
    except (OSError, ValueError):
        return data  # not a PNG Pillow reads: keep it
    small = buffer.getvalue()
    return small if len(small) < len(data) else data


def _compact_json(data: bytes) -> bytes:
    """A JSON document indented by 2, each list of numbers and strings on one line.

    A match's opening book takes one line per opening, not one per move; the values are the
    same (checked). A file that is not JSON is returned unchanged.
    """
    try:
        value = json.loads(data)
    except ValueError:
        return data

    def dump(item: Any, depth: int) -> str:
        pad, inner = "  " * depth, "  " * (depth + 1)
        if isinstance(item, dict) and item:
            body = ",\n".join(
                f"{inner}{json.dumps(k)}: {dump(v, depth + 1)}" for k, v in item.items()
            )
            return "{\n" + body + "\n" + pad + "}"
        if isinstance(item, list) and any(isinstance(v, (dict, list)) for v in item):
            body = ",\n".join(f"{inner}{dump(v, depth + 1)}" for v in item)
            return "[\n" + body + "\n" + pad + "]"
        return json.dumps(item, separators=(", ", ": "))

    compact = (dump(value, 0) + "\n").encode("utf-8")
    return compact if json.loads(compact) == value and len(compact) < len(data) else data


_SQLITE_MAGIC = b"SQLite format 3\x00"
_DATABASE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def record_run(
    source: str | PathLike[str],
    dest: str | PathLike[str] | None = None,
    *,
    say: Say | None = None,
    keep_plot: bool = False,
) -> dict[str, int]:
    """Copy a run folder into the record (``docs/results/...``), in its recorded form.

    Results files are stored compressed (``results.jsonl.gz``, checked as results files
    first; a match's per-game times rounded to the millisecond, :func:`round_times`), and so
    are SQLite study databases (``study.db.gz``, read through
    :func:`tuning.studies.storage.recorded_storage_url`); ``sgf/`` folders are left out
    (:func:`export_sgf` writes them again), and so is a match's running-score plot
    (``winrate.png`` beside its results file; :func:`draw_running_score` draws it again)
    unless ``keep_plot``; other PNG plots are stored as palette PNGs (a palette PNG as it
    is, any other with 256 colours); a match's ``summary.json`` keeps its opening
    book as a reference when the results file's header holds the same book
    (:func:`agents.matches.summary_book.refer_book`; the book stays otherwise); every other
    file is copied as it is. A file of the destination with the same name is replaced, a
    compressed results file by a newer plain
    one and the other way round.

    Args:
        source: The run folder (e.g. ``runs/arena/...``).
        dest: The folder of the record (created). ``None`` records the folder in place.
        say: Receives one line per results file and a last line with the counts.
        keep_plot: Keep the matches' running-score plots (for a plot a page shows).

    Returns:
        Counts: ``files`` copied, ``compressed`` results files, ``plots``, ``sgf_left_out``,
        ``plots_left_out``,
        ``books`` (summaries whose book became a reference), and
        ``bytes_before``/``bytes_after`` (the source's files, the record's files).

    Raises:
        RecordError: When ``source`` is not a folder, ``dest`` lies inside it, or a results
            file is corrupt (nothing of that file is recorded).
    """
    src = Path(source)
    if not src.is_dir():
        raise RecordError(f"{src} is not a run folder")
    dst = src if dest is None else Path(dest)
    if dst.exists() and not dst.is_dir():
        raise RecordError(f"{dst} is a file; give the folder of the record")
    if dst.resolve() != src.resolve() and dst.resolve().is_relative_to(src.resolve()):
        raise RecordError(f"{dst} lies inside {src}; record it somewhere else")
    counts = dict.fromkeys(
        (
            "files",
            "compressed",
            "plots",
            "sgf_left_out",
            "plots_left_out",
            "books",
            "bytes_before",
            "bytes_after",
        ),
        0,
    )
    files = sorted(p for p in src.rglob("*") if p.is_file())
    for path in files:
        relative = path.relative_to(src)
        counts["bytes_before"] += path.stat().st_size
        if "sgf" in relative.parts[:-1] and path.suffix == ".sgf":
            counts["sgf_left_out"] += 1
            if dst == src:
                path.unlink()
            continue
        target = dst / relative
        if not keep_plot and _is_running_score_plot(path):
            counts["plots_left_out"] += 1
            target.unlink(missing_ok=True)  # the source in place, else an older copy
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".jsonl" and is_results_file(path):
            _check_results(path)
            size = path.stat().st_size
            plain, packed = pair_of(target)
            try:
                write_compressed(packed, round_times(path.read_bytes()))
            except StoredFileError as exc:
                raise RecordError(f"not recorded: {exc}") from None
            plain.unlink(missing_ok=True)  # the source when recorded in place, else an old copy
            counts["compressed"] += 1
            counts["bytes_after"] += packed.stat().st_size
            if say is not None:
                say(f"[record] {relative}: {size:,} -> {packed.stat().st_size:,} bytes (gzip)")
            continue
        if path.suffix in _DATABASE_SUFFIXES and path.read_bytes()[:16] == _SQLITE_MAGIC:
            size = path.stat().st_size
            if target != path:
                shutil.copyfile(path, target)
                stale = target.with_name(target.name + ".gz")
                if stale.exists():
                    stale.unlink()  # an older compressed copy in the record
            packed = compress(target)
            counts["compressed"] += 1
            counts["bytes_after"] += packed.stat().st_size
            if say is not None:
                say(f"[record] {relative}: {size:,} -> {packed.stat().st_size:,} bytes (gzip)")
            continue
        if is_compressed(path) and path.name.endswith((".jsonl.gz", ".db.gz")):
            plain = target.with_name(target.name[: -len(".gz")])
            if plain.exists() and plain != path:
                plain.unlink()  # an older plain copy in the record
            if path.name.endswith(".jsonl.gz"):  # a recorded results file: its times rounded
                try:
                    stored = read_stored(path)
                    rounded = round_times(stored)
                    if target != path or rounded != stored:
                        write_compressed(target, rounded)
                except StoredFileError as exc:
                    raise RecordError(f"not recorded: {exc}") from None
                counts["files"] += 1
                counts["bytes_after"] += target.stat().st_size
                continue
        data = path.read_bytes()
        if path.suffix == ".png":
            data = _small_png(data)
            counts["plots"] += 1
        elif path.suffix == ".json":
            if path.name == SUMMARY_NAME:
                data, referred = _refer_book(data, path.parent)
                if referred:
                    counts["books"] += 1
                    if say is not None:
                        say(f"[record] {relative}: the opening book is kept in the results file")
            data = _compact_json(data)
        if target != path or data != path.read_bytes():
            target.write_bytes(data)
        counts["files"] += 1
        counts["bytes_after"] += len(data)
    if dst == src:
        for folder in sorted((p for p in src.rglob("sgf") if p.is_dir()), reverse=True):
            if not any(folder.iterdir()):
                folder.rmdir()
    if say is not None:
        say(
            f"[record] {dst}: {counts['files'] + counts['compressed']} files "
            f"({counts['compressed']} results files compressed, {counts['plots']} plots), "
            f"{counts['sgf_left_out']} SGF files and {counts['plots_left_out']} running-score "
            f"plots left out; "
            f"{counts['bytes_before']:,} -> {counts['bytes_after']:,} bytes"
        )
    return counts


def _refer_book(data: bytes, folder: Path) -> tuple[bytes, bool]:
    """A summary's bytes with its book as a reference (``True``) or as they are (``False``)."""
    try:
        summary = json.loads(data)
    except ValueError:
        return data, False
    referred = refer_book(summary, folder)
    if referred is None:
        return data, False
    return (json.dumps(referred, indent=2) + "\n").encode("utf-8"), True


def _check_results(path: Path) -> None:
    """Refuse a corrupt arena results file before it goes into the record."""
    header = _header(path)
    if header is None or "match" not in header:
        return  # a trap grid or a simulation: its own reader checks it
    try:
        read_results(path)
    except ResultsError as exc:
        raise RecordError(f"not recorded: {exc}") from None
