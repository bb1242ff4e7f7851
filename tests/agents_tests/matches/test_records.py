"""``gomcts sgf export``, ``gomcts plot`` and ``gomcts record``: a run's SGF files and running
score from its results file, and a run folder copied into the record."""

from __future__ import annotations

import dataclasses
import gzip
from pathlib import Path

import pytest

from agents.matches.arena import MatchConfig, run_match
from agents.matches.plots import plot_running_score
from agents.matches.records import (
    RecordError,
    draw_running_score,
    export_sgf,
    record_run,
    round_times,
)
from agents.matches.records_cli import register_plot, register_record, register_sgf
from agents.matches.results import TIMING_FIELDS, read_results
from go_env.rules import Rules


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("run")
    config = MatchConfig(agent_a="random", agent_b="random", games=4, rules=Rules(size=5), seed=3)
    run_match(config, results=folder / "results.jsonl", workers=1, sgf_dir=folder / "sgf")
    (folder / "summary.json").write_text('{"games": 4}\n')
    trials = folder / "games" / "study"
    trials.mkdir(parents=True)
    (trials / "trial-00000.jsonl").write_bytes((folder / "results.jsonl").read_bytes())
    (folder / "metrics.jsonl").write_text('{"step": 1}\n')
    return folder


def test_export_writes_the_sgf_files_the_arena_saved(run: Path, tmp_path: Path) -> None:
    written = export_sgf(run, tmp_path / "out")
    saved = sorted((run / "sgf").glob("*.sgf"))
    assert (
        [p.name for p in written]
        == [p.name for p in saved]
        == [f"game-{i:05d}.sgf" for i in range(4)]
    )
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(written, saved, strict=True))


def test_record_compresses_results_drops_sgf_and_exports_the_same_games(
    run: Path, tmp_path: Path
) -> None:
    dest = tmp_path / "record"
    lines: list[str] = []
    counts = record_run(run, dest, say=lines.append)
    assert counts["compressed"] == 2 and counts["sgf_left_out"] == 4
    assert (dest / "results.jsonl.gz").exists() and not (dest / "results.jsonl").exists()
    assert not (dest / "sgf").exists()
    assert (dest / "games" / "study" / "trial-00000.jsonl.gz").exists()
    assert (dest / "metrics.jsonl").read_text() == '{"step": 1}\n'  # not a results file
    assert (dest / "summary.json").read_bytes() == (run / "summary.json").read_bytes()
    assert gzip.decompress((dest / "results.jsonl.gz").read_bytes()) == round_times(
        (run / "results.jsonl").read_bytes()
    )
    (header, recorded), (header_played, played) = (
        read_results(dest / "results.jsonl"),
        read_results(run),
    )
    assert header == header_played and recorded.keys() == played.keys()
    for i, game in played.items():  # the same games, their times to the millisecond
        times = {k: round(getattr(game, k), 3) for k in TIMING_FIELDS}
        assert recorded[i] == dataclasses.replace(game, **times)
    exported = export_sgf(dest)
    assert [p.read_bytes() for p in exported] == [
        p.read_bytes() for p in sorted((run / "sgf").glob("*.sgf"))
    ]
    assert (run / "results.jsonl").exists()  # the source is left as it was
    assert lines[-1].startswith(f"[record] {dest}: ")
    record_run(run, dest)  # recording again replaces the record's files
    assert (dest / "results.jsonl.gz").exists() and not (dest / "results.jsonl").exists()


def test_round_times_rounds_the_timers_only_and_once() -> None:
    line = (
        b'{"kind":"game","black":"mcts:backup=\\"duration\\":1.23456789","score":0.123456,'
        b'"time_black":15.997597259971371,"time_white":1.5,"duration":2.0004999,"x":1e-05}\n'
    )
    rounded = round_times(line)
    assert rounded == (
        b'{"kind":"game","black":"mcts:backup=\\"duration\\":1.23456789","score":0.123456,'
        b'"time_black":15.998,"time_white":1.5,"duration":2.0,"x":1e-05}\n'
    )
    assert round_times(rounded) == rounded


def test_recording_an_old_record_again_rounds_its_times(run: Path, tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    full = (run / "results.jsonl").read_bytes()
    (old / "results.jsonl.gz").write_bytes(gzip.compress(full))  # recorded before rounding
    record_run(old)
    assert gzip.decompress((old / "results.jsonl.gz").read_bytes()) == round_times(full)
    stamp = (old / "results.jsonl.gz").stat().st_mtime_ns
    record_run(old)  # nothing left to round: the file is not rewritten
    assert (old / "results.jsonl.gz").stat().st_mtime_ns == stamp


def test_record_in_place_and_refusals(run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    record_run(run, copy)
    export_sgf(copy)
    assert (copy / "sgf").is_dir()
    record_run(copy)  # in place: the SGF folder goes, the compressed file stays
    assert not (copy / "sgf").exists() and (copy / "results.jsonl.gz").exists()
    with pytest.raises(RecordError, match="inside"):
        record_run(run, run / "sub")
    with pytest.raises(RecordError, match="not a run folder"):
        record_run(tmp_path / "missing", tmp_path / "x")
    with pytest.raises(RecordError, match="no results file"):
        export_sgf(tmp_path / "missing")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "results.jsonl").write_bytes((run / "results.jsonl").read_bytes() + b"[1]\n")
    with pytest.raises(RecordError, match=r"not recorded: .*line 6: a list"):
        record_run(bad, tmp_path / "bad-record")
    cut = tmp_path / "cut"
    cut.mkdir()
    packed = gzip.compress((run / "results.jsonl").read_bytes())
    (cut / "results.jsonl.gz").write_bytes(packed[: len(packed) // 2])  # a copy cut short
    with pytest.raises(RecordError, match=r"not recorded: .*results\.jsonl\.gz is not a readable"):
        record_run(cut, tmp_path / "cut-record")


def test_the_commands_parse_and_run(run: Path, tmp_path: Path) -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="gomcts")
    sub = parser.add_subparsers(dest="command", required=True)
    register_sgf(sub)
    register_record(sub)
    register_plot(sub)
    args = parser.parse_args(["record", str(run), str(tmp_path / "rec")])
    assert args.func(args) == 0
    args = parser.parse_args(["plot", str(tmp_path / "rec"), "--out", str(tmp_path / "w.png")])
    assert args.func(args) == 0
    assert (tmp_path / "w.png").read_bytes().startswith(b"\x89PNG")
    args = parser.parse_args(["record", "--keep-plot", str(run), str(tmp_path / "kept")])
    assert args.keep_plot
    args = parser.parse_args(["sgf", "export", str(tmp_path / "rec"), "--out", str(tmp_path / "s")])
    assert args.func(args) == 0
    assert len(list((tmp_path / "s").glob("*.sgf"))) == 4


def test_a_plot_is_recorded_with_256_colours_and_a_palette_plot_as_it_is(tmp_path: Path) -> None:
    import numpy as np
    from PIL import Image

    run = tmp_path / "run"
    run.mkdir()
    rng = np.random.default_rng(0)
    noisy = rng.integers(0, 255, size=(40, 60, 3), dtype=np.uint8)  # 2,400 colours
    Image.fromarray(noisy).save(run / "rgb.png")
    Image.fromarray(noisy).quantize(16).save(run / "palette.png")
    record_run(run, tmp_path / "rec")
    with Image.open(tmp_path / "rec" / "rgb.png") as image:
        assert image.mode == "P" and len(image.getcolors(1 << 16) or []) <= 256
    assert (tmp_path / "rec" / "palette.png").read_bytes() == (run / "palette.png").read_bytes()


def _match_with_plot(run: Path, folder: Path) -> Path:
    """A copy of ``run``'s match folder with the running-score plot the arena draws."""
    folder.mkdir()
    (folder / "results.jsonl").write_bytes((run / "results.jsonl").read_bytes())
    _, games = read_results(run)
    scores = [games[i].score_a for i in sorted(games)]
    plot_running_score(scores, folder / "winrate.png", label="A", title="a title")
    return folder


def test_record_leaves_the_running_score_out_and_plot_draws_it_again(
    run: Path, tmp_path: Path
) -> None:
    from PIL import Image

    source = _match_with_plot(run, tmp_path / "match")
    (source / "other.png").write_bytes((source / "winrate.png").read_bytes())  # not a match's
    dest = tmp_path / "rec"
    counts = record_run(source, dest)
    assert counts["plots_left_out"] == 1 and counts["plots"] == 1
    assert not (dest / "winrate.png").exists() and (dest / "other.png").exists()
    drawn = draw_running_score(dest)  # from the compressed games
    assert drawn == dest / "winrate.png"
    with Image.open(drawn) as image, Image.open(source / "winrate.png") as original:
        assert image.size == original.size
    # the same curve: the arena's plot with the title the header gives is the same image
    _, games = read_results(run)
    again = plot_running_score(
        [games[i].score_a for i in sorted(games)],
        tmp_path / "again.png",
        label="A",
        title="A: random  vs  B: random",
    )
    assert again.read_bytes() == drawn.read_bytes()
    record_run(source, dest)  # recording again removes the plot drawn in the record
    assert not (dest / "winrate.png").exists()
    kept = record_run(source, tmp_path / "kept", keep_plot=True)
    assert kept["plots_left_out"] == 0 and (tmp_path / "kept" / "winrate.png").exists()
    record_run(tmp_path / "kept")  # in place: the plot goes
    assert not (tmp_path / "kept" / "winrate.png").exists()


def test_a_winrate_png_that_is_not_a_matchs_is_recorded(run: Path, tmp_path: Path) -> None:
    folder = tmp_path / "grid"
    folder.mkdir()
    (folder / "results.jsonl").write_text('{"kind": "header", "grid": {"n": 1}}\n')
    (folder / "winrate.png").write_bytes(b"\x89PNG not a match's")
    (tmp_path / "lone").mkdir()
    (tmp_path / "lone" / "winrate.png").write_bytes(b"\x89PNG no results beside it")
    for name in ("grid", "lone"):
        counts = record_run(tmp_path / name, tmp_path / f"{name}-rec")
        assert counts["plots_left_out"] == 0
        assert (tmp_path / f"{name}-rec" / "winrate.png").exists()


def test_plot_refuses_what_it_cannot_draw(run: Path, tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="no results file"):
        draw_running_score(tmp_path / "missing")
    grid = tmp_path / "grid"
    grid.mkdir()
    (grid / "results.jsonl").write_text('{"kind": "header", "format": 1, "grid": {}}\n')
    with pytest.raises(RecordError, match="not a match's results file"):
        draw_running_score(grid)
    empty = tmp_path / "empty"
    empty.mkdir()
    header = (run / "results.jsonl").read_text().splitlines()[0]
    (empty / "results.jsonl").write_text(header + "\n")
    with pytest.raises(RecordError, match="no finished game"):
        draw_running_score(empty)
    for out in (tmp_path, tmp_path / "w.svg"):
        with pytest.raises(RecordError, match=r"is not a \.png file"):
            draw_running_score(run, out)
