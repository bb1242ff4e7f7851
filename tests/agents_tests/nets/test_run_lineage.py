"""A run that goes on from another run's network: the line, its numbering, its record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.cli import main as gomcts
from agents.nets.training.lineage import attach_earlier, line_of, line_rows
from agents.nets.training.report import render_summary, write_report

NET = {"size": 9, "blocks": 2, "filters": 8, "history": 3, "tactical": False}


def _run(
    folder: Path,
    *,
    generations: int,
    best: int,
    init: str | None = None,
    anchors: tuple[str, ...] = ("supervised", "initial"),
    cpu: float = 3600.0,
    net: dict[str, Any] | None = None,
) -> Path:
    """A run folder with ``generations`` finished ones, 1,000 steps and 100 games each."""
    folder.mkdir(parents=True)
    metrics = [
        {"generation": g, "games": 100, "positions": 2000, "step": 1000 * g,
         "train_policy": 3.0, "train_value": 0.5, "gate_games": 40, "gate_score": 0.6,
         "gate_low": 0.45, "gate_high": 0.74, "gate_decision": "H1" if g == best else "H0",
         "gate_promoted": g == best, "best_generation": best if g >= best else 0}
        for g in range(1, generations + 1)
    ]  # fmt: skip
    ladder = [
        {"generation": g, "anchor": a, "games": 20, "score": 0.5, "elo": 0.0,
         "elo_low": -150.0, "elo_high": 150.0, "best_generation": best}
        for g in range(1, generations + 1) for a in anchors
    ]  # fmt: skip
    manifest = {
        "format": "gomcts-selfplay",
        "version": 1,
        "config": {"net": NET if net is None else net, "komi": 7.5, "init": init, "games": 100},
        "generation": generations + 1,
        "phase": "selfplay",
        "best": f"nets/gen-{best:04d}.pt",
        "best_generation": best,
        "generations": metrics,
        "starts": [{"started": "2026-11-27T10:00:00+00:00", "machine": "m", "workers": 2,
                    "games_per_worker": 4, "wall_seconds": cpu / 2, "cpu_seconds": cpu,
                    "games": 100 * generations, "positions": 2000 * generations,
                    "status": "budget"}],
        "totals": {"games": 100 * generations, "positions": 2000 * generations,
                   "cpu_seconds": cpu, "wall_seconds": cpu / 2},
    }  # fmt: skip
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in metrics))
    (folder / "ladder.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ladder))
    (folder / "nets").mkdir()
    (folder / "nets" / "gen-0000.pt").write_bytes(b"initial")
    return folder


@pytest.fixture
def line(tmp_path: Path) -> tuple[Path, Path]:
    """An earlier run of 3 generations (best 2), recorded; a run of 2 from its generation 2."""
    first = _run(tmp_path / "runs" / "first", generations=3, best=2, cpu=7200.0)
    record = tmp_path / "docs" / "first"
    write_report(first, record)
    second = _run(
        tmp_path / "runs" / "second",
        generations=2,
        best=1,
        init="first.pt",
        anchors=("supervised", "initial", "gen-0001"),
    )
    attach_earlier(second, record, 2)
    return record, second


def test_the_line_numbers_the_continued_run_after_the_earlier_one(line: tuple[Path, Path]):
    _, second = line
    parts = line_of(second)
    assert [(p.name, p.offset, p.started_from) for p in parts] == [
        ("first", 0, None),
        ("second", 3, 2),
    ]
    metrics, ladder = line_rows(parts)
    assert [r["generation"] for r in metrics] == [1, 2, 3, 4, 5]
    assert [r["step"] for r in metrics] == [1000, 2000, 3000, 4000, 5000]
    # the second run's best is its generation 1 (line 4); before any promotion, the line's 2
    assert [r["best_generation"] for r in metrics] == [0, 2, 2, 4, 4]
    second_anchors = {r["anchor"] for r in ladder if r["generation"] > 3}
    assert second_anchors == {"supervised", "gen-0002", "gen-0004"}  # initial, gen-0001 renamed
    assert {r["anchor"] for r in ladder if r["generation"] <= 3} == {"supervised", "initial"}


def test_the_record_of_a_continued_run_shows_the_whole_line(
    line: tuple[Path, Path], tmp_path: Path
):
    _, second = line
    record = tmp_path / "docs" / "second"
    summary = write_report(second, record)
    assert (record / "earlier" / "lineage.json").exists()
    assert (record / "earlier" / "first" / "metrics.jsonl.gz").exists()
    text = summary.read_text(encoding="utf-8")
    assert text == render_summary(record)
    assert "Generation 6 in progress (phase selfplay); the best network is generation 4." in text
    assert "its generation g is generation 3 + g of the line" in text
    assert "| `first` | 1-3 | random weights | 1 | 300 | 6,000 | 2.0 |" in text
    assert "| `second` | 4-5 | generation 2 | 1 | 200 | 4,000 | 1.0 |" in text
    assert "| all |  |  |  | 500 | 10,000 | 3.0 |" in text
    assert "### `first`" in text and "### `second`" in text
    rows = [ln for ln in text.split("## Generations")[1].splitlines() if ln.startswith("| ")]
    assert [row.split(" | ")[0] for row in rows[1:]] == ["| " + str(g) for g in range(1, 6)]
    assert "vs gen-0002" in rows[0] and "vs initial" in rows[0]
    assert all((record / name).read_bytes()[:4] == b"\x89PNG" for name in ("elo.png",))


def test_a_line_spans_three_runs_through_a_record_of_a_continued_one(
    line: tuple[Path, Path], tmp_path: Path
):
    _, second = line
    record = tmp_path / "docs" / "second"
    write_report(second, record)
    third = _run(tmp_path / "runs" / "third", generations=1, best=1, init="second.pt")
    with pytest.raises(
        ValueError, match=r"a generation of .* last run, numbered as its line is \(2 to 5\)"
    ):
        attach_earlier(third, record, 1)  # the first run's: not the line's last run
    attach_earlier(third, record, 4)  # the line's 4: the second run's generation 1
    parts = line_of(third)
    assert [(p.name, p.offset, p.started_from) for p in parts] == [
        ("first", 0, None),
        ("second", 3, 2),
        ("third", 5, 4),
    ]
    assert "| all |  |  |  | 600 | 12,000 | 4.0 |" in render_summary(third)


def test_a_report_without_a_line_removes_an_old_earlier_folder(
    line: tuple[Path, Path], tmp_path: Path
):
    _, second = line
    record = tmp_path / "docs" / "second"
    write_report(second, record)
    first = tmp_path / "runs" / "first"
    write_report(first, record)  # the same folder now records a run of one part
    assert not (record / "earlier").exists()
    assert "## Line" not in render_summary(record)


def test_an_attach_cut_short_is_done_again(tmp_path: Path):
    first = _run(tmp_path / "first", generations=2, best=1)
    second = _run(tmp_path / "second", generations=1, best=0, init="x.pt")
    (second / "earlier" / "first").mkdir(parents=True)  # no lineage file: cut short
    assert attach_earlier(second, first, 1)["generation"] == 1
    assert line_of(second)[-1].started_from == 1


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("random", r"started from random weights \(no --init\)"),
        ("shape", "a line keeps its network shape"),
        ("too-late", "--generation 4 is not a generation"),
        ("itself", "is the run itself"),
        ("twice", "already continues a run"),
    ],
)
def test_a_line_that_cannot_be_is_refused(case: str, message: str, tmp_path: Path):
    first = _run(tmp_path / "first", generations=3, best=2)
    net = {**NET, "filters": 16} if case == "shape" else None
    init = None if case == "random" else "first.pt"
    second = _run(tmp_path / "second", generations=1, best=0, init=init, net=net)
    generation = 4 if case == "too-late" else 2
    if case == "twice":
        attach_earlier(second, first, 2)
    with pytest.raises(ValueError, match=message):
        attach_earlier(second, second if case == "itself" else first, generation)


def test_a_network_field_newer_than_the_earlier_run_is_its_default(tmp_path: Path):
    first = _run(tmp_path / "first", generations=2, best=1)  # written before "ownership"
    second = _run(tmp_path / "second", generations=1, best=0, init="first.pt",
                  net={**NET, "ownership": False})  # fmt: skip
    assert attach_earlier(second, first, 1)["generation"] == 1
    third = _run(tmp_path / "third", generations=1, best=0, init="first.pt",
                 net={**NET, "ownership": True})  # fmt: skip
    with pytest.raises(ValueError, match="a line keeps its network shape"):
        attach_earlier(third, first, 1)


def test_the_command_attaches_and_reports_errors(tmp_path: Path, capsys: pytest.CaptureFixture):
    first = _run(tmp_path / "first", generations=2, best=1)
    second = _run(tmp_path / "second", generations=1, best=0, init="first.pt")
    args = ["train", "lineage", str(second), "--earlier", str(first), "--quiet"]
    assert gomcts([*args, "--generation", "3"]) == 2
    assert "--generation 3 is not a generation" in capsys.readouterr().err
    assert gomcts([*args, "--generation", "1"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["earlier"], answer["generation"], answer["run"]) == ("first", 1, "second")
