"""The compact record of a self-play run and its summary (``gomcts train report``)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from agents.cli import main as gomcts
from agents.nets.training.lineage import line_of, line_rows
from agents.nets.training.report import (
    PLOTS,
    RECORD_FILES,
    gate_cells,
    ladder_cell,
    render_summary,
    write_report,
)
from agents.stored import pair_of

NETS_RESULTS = Path(__file__).resolve().parents[3] / "docs" / "results" / "nets"
COMMITTED_RUNS = sorted(
    folder.name
    for folder in NETS_RESULTS.iterdir()
    if (folder / "manifest.json.gz").exists() and (folder / "summary.md").exists()
)
"""The self-play runs recorded in ``docs/results/nets/`` (by ``gomcts train report``)."""

CONFIG: dict[str, Any] = {
    "net": {
        "size": 9,
        "blocks": 2,
        "filters": 8,
        "history": 3,
        "tactical": False,
        "value_hidden": 16,
        "policy_channels": 2,
        "value_channels": 1,
    },
    "komi": 7.5,
    "max_moves": None,
    "generations": 10,
    "games": 1200,
    "search": "gumbel",
    "sims": 32,
    "fast_sims": 8,
    "full_share": 0.25,
    "considered": 8,
    "c_visit": 50.0,
    "c_scale": 0.1,
    "c": 1.0,
    "noise_alpha": 0.15,
    "noise_weight": 0.25,
    "temperature_moves": 8,
    "window": 2,
    "train_steps": 1500,
    "batch_size": 32,
    "lr": 0.001,
    "weight_decay": 0.0001,
    "gate_sims": 16,
    "gate_games": 60,
    "gate_elo0": 0.0,
    "gate_elo1": 50.0,
    "gate_alpha": 0.05,
    "gate_beta": 0.1,
    "book_size": 10,
    "ladder_games": 20,
    "ladder_every": 2,
    "ladder_gnugo": "",
    "ladder_anchors": "gen-0001",
    "init": None,
    "evaluator": "net:precision=int8",
    "seed": 0,
    "workers": 2,
    "games_per_worker": 4,
    "device": "cpu",
    "threads": 1,
}

METRICS: list[dict[str, Any]] = [
    {
        "generation": 1,
        "games": 1200,
        "positions": 30500,
        "mean_moves": 25.4,
        "step": 1500,
        "train_policy": 3.9,
        "train_value": 0.8,
        "gate_promoted": True,
        "gate_decision": "H1",
        "gate_games": 24,
        "gate_score": 0.875,
        "gate_low": 0.6899,
        "gate_high": 0.95656,
        "best_generation": 1,
        "cpu_seconds": 28.9,  # recorded before run_cpu_seconds: a running total, not shown
    },
    {
        "generation": 2,
        "games": 1200,
        "positions": 31020,
        "mean_moves": 25.85,
        "step": 3000,
        "train_policy": 3.5,
        "train_value": 0.7,
        "gate_promoted": False,
        "gate_decision": "H0",
        "gate_games": 36,
        "gate_score": 0.41666,
        "gate_low": 0.2697,
        "gate_high": 0.5797,
        "best_generation": 1,
        "cpu_seconds": 1890.0,
        "run_cpu_seconds": 5000.0,
    },
    {
        "generation": 3,
        "games": 1200,
        "positions": 29999,
        "mean_moves": 25.0,
        "step": 4500,
        "train_policy": 3.2,
        "train_value": 0.6,
        "gate_promoted": False,
        "gate_decision": None,
        "gate_games": 60,
        "gate_score": 0.5,
        "gate_low": 0.3773,
        "gate_high": 0.6227,
        "best_generation": 1,
        "cpu_seconds": 1746.0,
        "run_cpu_seconds": 6746.0,
    },
]

LADDER: list[dict[str, Any]] = [
    {"generation": 1, "anchor": "supervised", "games": 20, "score": 0.0, "elo": None,
     "elo_low": None, "elo_high": -315.2, "best_generation": 1},
    {"generation": 1, "anchor": "initial", "games": 20, "score": 0.85, "elo": 301.33,
     "elo_low": 100.0, "elo_high": 500.0, "best_generation": 1},
    {"generation": 2, "anchor": "supervised", "games": 20, "score": 0.05, "elo": -511.7,
     "elo_low": -800.0, "elo_high": -250.0, "best_generation": 1},
    {"generation": 2, "anchor": "initial", "games": 20, "score": 1.0, "elo": None,
     "elo_low": 315.2, "elo_high": None, "best_generation": 1},
    {"generation": 2, "anchor": "gen-0001", "games": 20, "score": 0.525, "elo": 17.4,
     "elo_low": -190.0, "elo_high": 225.0, "best_generation": 1},
]  # fmt: skip

STARTS: list[dict[str, Any]] = [
    {"started": "2026-11-26T09:25:17+00:00", "machine": "box (2 CPUs, x86_64)", "workers": 2,
     "games_per_worker": 4, "wall_seconds": 2040.6, "cpu_seconds": 3157.2, "games": 2500,
     "positions": 63000, "status": "budget"},
    {"started": "2026-11-26T11:41:20+01:00", "machine": "big (16 CPUs, x86_64)", "workers": 14,
     "games_per_worker": 4, "wall_seconds": 240.6, "cpu_seconds": 2678.6, "games": 1300,
     "positions": 29000, "status": "budget", "ray": "10.0.0.1:6379",
     "changed": {"train_steps": [1000, 4000], "workers": [2, 14]}},
]  # fmt: skip


def _make_run(folder: Path) -> Path:
    """A run folder as ``gomcts train selfplay`` leaves it, games and networks included."""
    folder.mkdir(parents=True)
    manifest = {
        "format": "gomcts-selfplay",
        "version": 1,
        "config": CONFIG,
        "generation": 4,
        "phase": "selfplay",
        "best": "nets/gen-0001.pt",
        "best_generation": 1,
        "generations": METRICS,
        "starts": STARTS,
        "totals": {
            "games": 3600,
            "positions": 91519,
            "cpu_seconds": 5835.8,
            "wall_seconds": 2281.2,
        },
        "origin": "tabula rasa (random weights)",
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in METRICS))
    (folder / "ladder.jsonl").write_text("".join(json.dumps(r) + "\n" for r in LADDER))
    for name in ("games", "nets", "gate", "ladder"):
        (folder / name).mkdir()
    (folder / "games" / "gen-0001.jsonl").write_text("{}\n")
    (folder / "nets" / "gen-0001.pt").write_bytes(b"net")
    (folder / "state.pt").write_bytes(b"state")
    (folder / "best.pt").write_bytes(b"best")
    (folder / "book.json").write_text("[]")
    return folder


def _table(text: str, heading: str) -> list[str]:
    """The rows of the table under ``## heading``, header and rule included."""
    lines = text.splitlines()
    start = lines.index(f"## {heading}") + 2
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return lines[start:end]


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return _make_run(tmp_path / "runs" / "tiny")


def test_the_report_copies_the_record_and_never_the_games_or_nets(run: Path, tmp_path: Path):
    to = tmp_path / "record" / "tiny"
    summary = write_report(run, to)
    assert summary == to / "summary.md"
    packed = [f"{name}.gz" for name in RECORD_FILES]
    assert sorted(p.name for p in to.iterdir()) == sorted([*packed, *PLOTS, "summary.md"])
    for name in RECORD_FILES:  # compressed, the bytes of the run's own
        assert gzip.decompress((to / f"{name}.gz").read_bytes()) == (run / name).read_bytes()
    assert summary.read_text(encoding="utf-8") == render_summary(to)
    assert all((to / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for name in PLOTS)
    assert "## Plots" not in render_summary(run)  # the fake run has none: no link
    text = summary.read_text(encoding="utf-8")
    assert "- [training losses](losses.png)" in text
    assert "- [Elo of the best network against each ladder anchor](elo.png)" in text


def test_the_starts_table_has_one_row_a_start_and_the_totals(run: Path):
    rows = _table(render_summary(run), "Starts")
    assert rows[0] == (
        "| start | began (UTC) | machine | workers x games | wall min | CPU min | games | "
        "positions | status |"
    )
    assert rows[2:] == [
        "| 1 | 2026-11-26 09:25 | box (2 CPUs, x86_64) | 2 x 4 | 34.0 | 52.6 | 2,500 | 63,000 "
        "| budget |",
        # 11:41 at UTC+1 is 10:41 UTC
        "| 2 | 2026-11-26 10:41 | big (16 CPUs, x86_64), games on the Ray cluster 10.0.0.1:6379 "
        "| 14 x 4 | 4.0 | 44.6 | 1,300 | 29,000 | budget |",
        "| all |  |  |  | 38.0 | 97.3 (1.6 CPU-hours) | 3,600 in 3 generations, +200 of "
        "generation 4 | 91,519, +481 |  |",
    ]
    assert "\nStart 2 changed `train_steps` 1000 -> 4000, `workers` 2 -> 14.\n" in render_summary(
        run
    )


def test_the_generations_table_has_one_row_a_generation_and_a_column_an_anchor(run: Path):
    rows = _table(render_summary(run), "Generations")
    assert rows[0] == (
        "| generation | games | positions | moves a game | gate (SPRT) | gate score vs the best "
        "[95%] | ladder vs supervised | vs initial | vs gen-0001 | CPU-h of the generation |"
    )
    assert rows[1] == "|" + "---|" * 10
    assert rows[2:] == [
        "| 1 | 1,200 | 30,500 | 25.4 | H1 after 24 games | 0.875 [0.690, 0.957] | "
        "0 of 20, ≤ -315 Elo | 17 of 20, +301 Elo | - | - |",
        "| 2 | 1,200 | 31,020 | 25.9 | H0 after 36 games | 0.417 [0.270, 0.580] | "
        "1 of 20, -512 Elo | 20 of 20, ≥ +315 Elo | 10.5 of 20, +17 Elo | 0.53 |",
        "| 3 | 1,200 | 29,999 | 25.0 | undecided, best kept after 60 games | "
        "0.500 [0.377, 0.623] | - | - | - | 0.48 |",
    ]


def test_the_settings_line_names_the_search_gate_ladder_and_evaluator(run: Path):
    text = render_summary(run)
    assert text.startswith("# Self-play run `tiny`\n\nNetwork b2c8 (2 blocks, 8 filters, 3 ")
    for part in (
        "tabula rasa (random weights)",
        "9x9, komi 7.5",
        "gumbel search, 32 simulations (8 fast, full share 0.25), m = 8;",
        "1,200 games a generation",
        "gate: at most 60 games at N = 16, SPRT Elo 0 against 50",
        "ladder: 20 games an anchor at N = 16, extra anchors gen-0001",
        "evaluator `net:precision=int8`",
        "Generation 4 in progress (phase selfplay); the best network is generation 1.",
    ):
        assert part in text


@pytest.mark.parametrize(
    ("row", "cell"),
    [
        (None, "-"),
        ({"games": 40, "score": 1.0, "elo": None, "elo_low": 407.03, "elo_high": None},
         "40 of 40, ≥ +407 Elo"),
        ({"games": 40, "score": 0.0, "elo": None, "elo_low": None, "elo_high": -407.03},
         "0 of 40, ≤ -407 Elo"),
        ({"games": 40, "score": 0.025, "elo": -636.4, "elo_low": -940.8, "elo_high": -332.1},
         "1 of 40, -636 Elo"),
        ({"games": 40, "score": 0.5, "elo": -0.3, "elo_low": -100.0, "elo_high": 100.0},
         "20 of 40, 0 Elo"),
        ({"games": 40, "score": 0.5125, "elo": 8.7, "elo_low": -100.0, "elo_high": 100.0},
         "20.5 of 40, +9 Elo"),
        ({"games": 0, "score": 0.0, "elo": None, "elo_low": None, "elo_high": None}, "0 of 0"),
    ],
)  # fmt: skip
def test_a_ladder_cell_gives_the_elo_or_the_bound_of_a_saturated_score(row, cell: str):
    assert ladder_cell(row) == cell


def test_a_generation_without_a_gate_match_has_dashes():
    assert gate_cells({"generation": 1, "gate_games": 0}) == ("-", "-")
    assert gate_cells({"generation": 1}) == ("-", "-")


def test_the_summary_is_the_same_bytes_from_the_same_files(run: Path, tmp_path: Path):
    first = write_report(run, tmp_path / "a" / "rec").read_bytes()
    second = write_report(run, tmp_path / "b" / "rec").read_bytes()
    assert first == second
    again = write_report(run, tmp_path / "a" / "rec").read_bytes()  # over its own record
    assert again == first


def test_a_record_is_drawn_again_from_another_record(run: Path, tmp_path: Path):
    """A record as the source (its files compressed) gives the same record elsewhere, and
    the destination's files are kept (before, a record as the source emptied it)."""
    first = write_report(run, tmp_path / "a" / "rec")
    second = write_report(first.parent, tmp_path / "b" / "rec")
    assert second.read_bytes() == first.read_bytes()
    for name in RECORD_FILES:
        packed = pair_of(tmp_path / "b" / "rec" / name)[1]
        assert packed.read_bytes() == pair_of(first.parent / name)[1].read_bytes()


def test_a_file_the_run_lacks_is_removed_from_the_record(run: Path, tmp_path: Path):
    to = tmp_path / "rec"
    write_report(run, to)
    (run / "ladder.jsonl").unlink()
    text = write_report(run, to).read_text(encoding="utf-8")
    assert not (to / "ladder.jsonl.gz").exists() and not (to / "ladder.jsonl").exists()
    assert "vs initial" not in text
    assert "| 2 | 1,200 | 31,020 | 25.9 | H0 after 36 games | 0.417 [0.270, 0.580] | 0.53 |" in text


def test_an_older_plain_record_is_read_and_rewritten_compressed(run: Path, tmp_path: Path):
    to = tmp_path / "rec"
    to.mkdir()
    for name in RECORD_FILES:  # a record as reports wrote them before: plain copies
        (to / name).write_bytes((run / name).read_bytes())
    plain_summary = render_summary(to)
    write_report(run, to)
    assert not any((to / name).exists() for name in RECORD_FILES)
    for name in PLOTS:  # the plain record had none
        (to / name).unlink()
    assert render_summary(to) == plain_summary


def test_a_folder_without_a_manifest_is_refused(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"not a self-play run folder: .*empty .*no manifest"):
        write_report(tmp_path / "empty", tmp_path / "rec")
    assert not (tmp_path / "rec").exists()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "manifest.json").write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match=r"not a self-play run folder: .*format"):
        write_report(tmp_path / "other", tmp_path / "rec")


@pytest.mark.parametrize("inside", [".", "docs", "docs/results"])
def test_a_record_folder_in_the_run_is_refused(run: Path, inside: str):
    to = run / inside
    with pytest.raises(ValueError, match=r"is the run folder .* or inside it"):
        write_report(run, to)
    assert not (run / "docs").exists()


def test_a_torn_last_line_is_dropped_and_a_damaged_line_is_named(run: Path, tmp_path: Path):
    metrics = run / "metrics.jsonl"
    whole = metrics.read_text()
    metrics.write_text(whole + '{"generation": 4, "ga')  # an append cut short by a kill
    write_report(run, tmp_path / "rec")
    copied = gzip.decompress((tmp_path / "rec" / "metrics.jsonl.gz").read_bytes()).decode()
    assert copied.startswith(whole)
    metrics.write_text(whole + '{"generation": 4, "ga\n{"generation": 5}\n')
    with pytest.raises(ValueError, match=r"metrics.jsonl, line 4: not JSON"):
        write_report(run, tmp_path / "rec2")


def test_the_command_writes_the_record_and_reports_errors(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    to = tmp_path / "rec"
    assert gomcts(["train", "report", "--out", str(run), "--to", str(to), "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "summary": str(to / "summary.md"),
        "to": str(to),
    }
    assert (to / "summary.md").read_text(encoding="utf-8") == render_summary(to)
    assert gomcts(["train", "report", "--out", str(run), "--to", str(run / "rec")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gomcts train report: error: --to ")
    assert "outside the run" in err
    assert gomcts(["train", "report", "--out", str(tmp_path), "--to", str(to)]) == 2
    assert "not a self-play run folder" in capsys.readouterr().err


def test_the_runs_of_the_docs_are_recorded():
    assert {"paper-9x9", "strong-9x9"} <= set(COMMITTED_RUNS)


@pytest.mark.parametrize("run", COMMITTED_RUNS)
def test_the_committed_record_renders_a_row_per_generation(run: str):
    committed = NETS_RESULTS / run
    metrics, _ = line_rows(line_of(committed))  # a continued run: its whole line, numbered
    rows = _table(render_summary(committed), "Generations")
    assert [row.split(" | ")[0] for row in rows[2:]] == [
        "| " + str(row["generation"]) for row in metrics
    ]


@pytest.mark.parametrize("run", COMMITTED_RUNS)
def test_the_committed_summary_is_what_its_record_renders(run: str):
    committed = NETS_RESULTS / run
    assert (committed / "summary.md").read_text(encoding="utf-8") == render_summary(committed), (
        f"docs/results/nets/{run}/summary.md is stale: regenerate it with gomcts train report"
    )
