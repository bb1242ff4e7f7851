"""The recorded runs under docs/results: their tables regenerate from what the record keeps.

A recorded run keeps its games in ``results.jsonl.gz`` and no SGF files
(``docs/records.md``); these tests rebuild the reproduction's table from the record and
compare it with the committed one, and export a recorded run's SGF files.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAN = ROOT / "experiments" / "li-lim-9x9.toml"


def test_the_reproduction_table_regenerates_from_the_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("optuna")
    monkeypatch.chdir(ROOT)  # the table names its plan file relative to the repository
    from tuning.reproduction.plan import load_plan
    from tuning.reproduction.runner import study_so_far
    from tuning.reproduction.table import BEGIN, END, results_table, to_markdown

    plan = load_plan(PLAN.relative_to(ROOT))
    table = results_table(plan, study_so_far)
    committed = json.loads((plan.out / "results.json").read_text(encoding="utf-8"))
    assert json.loads(json.dumps(table)) == committed
    markdown = to_markdown(table)
    assert markdown == (plan.out / "results.md").read_text(encoding="utf-8")
    assert plan.docs is not None
    assert f"{BEGIN}\n{markdown}{END}" in plan.docs.read_text(encoding="utf-8")


def test_the_record_holds_no_sgf_and_every_match_row_is_compressed() -> None:
    results = ROOT / "docs" / "results"
    assert not list(results.rglob("*.sgf"))
    from agents.matches.records import is_results_file

    plain = [str(p) for p in results.rglob("*.jsonl") if is_results_file(p)]
    assert not plain, f"results files not compressed (record them with gomcts record): {plain}"
    assert len(list(results.rglob("results.jsonl.gz"))) >= 30


def test_the_record_keeps_a_running_score_plot_only_where_a_page_shows_it() -> None:
    """``gomcts plot`` draws a match's running score from its games; the record keeps the
    plot only where a page of ``docs/`` shows it (``gomcts record --keep-plot``)."""
    from agents.matches.records import RUNNING_SCORE_PLOT, _is_running_score_plot

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("the record is what git tracks: no git checkout here")
    docs = ROOT / "docs"
    shown = {
        (page.parent / link).resolve()
        for page in docs.rglob("*.md")
        for link in re.findall(r"\]\(([^)\s]+\.png)\)", page.read_text(encoding="utf-8"))
    }
    tracked = subprocess.run(
        ["git", "ls-files", "--", f"docs/results/**/{RUNNING_SCORE_PLOT}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()  # a plot drawn with `gomcts plot` is not the record's (git ignores it)
    plots = [ROOT / p for p in tracked if _is_running_score_plot(ROOT / p)]
    assert plots, "the plot a page shows is kept"
    assert all(p.resolve() in shown for p in plots), [
        str(p.relative_to(ROOT)) for p in plots if p.resolve() not in shown
    ]


TRAP_RUNS = sorted(
    p.parent
    for p in (ROOT / "docs" / "results" / "traps").rglob("table.md")
    if (p.parent / "summary.json").exists()  # the heat map keeps tables only (below)
)
HEAT_MAP = ROOT / "docs" / "results" / "traps" / "heat-map"


@pytest.mark.parametrize("run", TRAP_RUNS, ids=lambda p: str(p.relative_to(ROOT / "docs")))
def test_a_trap_grid_table_regenerates_from_the_record(run: Path) -> None:
    from dataclasses import asdict

    from agents.traps import GridConfig, TrapTreeConfig
    from agents.traps.grid import read_grid
    from agents.traps.report import markdown_table, summarise

    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    setup = summary["setup"]
    if "candidate" in summary:  # a study's verification grid: the candidate against its baseline
        summary.update(
            backups=[summary["baseline"], summary["candidate"]],
            budgets=[summary["sims"]],
            n_trees=summary["trees"],
        )
    config = GridConfig(
        trees=TrapTreeConfig(**setup["trees"]),
        backups=tuple(summary["backups"]),
        budgets=tuple(summary["budgets"]),
        n_trees=summary["n_trees"],
        seed=setup["seed"],
        policy=setup["policy"],
        c=setup["c"],
        chunk=setup["chunk"],
    )
    summaries = summarise(read_grid(run / "results.jsonl", config))
    committed = (run / "table.md").read_text(encoding="utf-8")
    assert committed.endswith(markdown_table(summaries, config.backups[0]))
    cells = json.loads(json.dumps([asdict(s) for s in summaries]))
    assert _close(cells, summary["cells"])  # intervals to the last bits of a float


def _table_cells(text: str) -> dict[tuple[str, str], str]:
    """``(row label, column) -> cell`` of a markdown table with a header row."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    cells = {}
    for line in lines[2:]:
        row = [c.strip() for c in line.strip("|").split("|")]
        cells.update({(row[0], column): cell for column, cell in zip(header, row, strict=True)})
    return cells


def test_the_trap_heat_map_tables_replay_from_the_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The heat map keeps its tables and plots, not its 1.3 MB of results files: a slice of
    its cells (every kind of row, the two smaller budgets, both deceptive families) is played
    again by the script with the map's seed and must match the committed tables exactly."""
    from script_support import load_script

    heat_map = load_script("trap_heat_map")
    families = ["deceptive-k3", "deceptive-k5"]
    argv = ["--families", *families, "--budgets", "100", "300", "--g", "-1", "--p", "16"]
    argv += ["--tau", "100", "--workers", "1", "--out", str(tmp_path)]
    assert heat_map.main(argv) == 0
    capsys.readouterr()
    for family in families:
        again = _table_cells((tmp_path / family / "table.md").read_text(encoding="utf-8"))
        committed = _table_cells((HEAT_MAP / family / "table.md").read_text(encoding="utf-8"))
        assert len(again) == 4 * 3  # mean, g = -1, p = 16, tau(N) = 100 at two budgets
        for key, cell in again.items():
            assert committed[key] == cell, (family, key)
    for family in ("honest-k3", "honest-k5", *families):
        assert (HEAT_MAP / family / "heat.png").stat().st_size > 0


def _close(a: object, b: object) -> bool:
    """Equal, floats to 1e-12 relative (a t quantile's last bits differ between versions)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return a == b


def test_the_noise_simulation_table_regenerates_from_the_record() -> None:
    pytest.importorskip("optuna")
    from agents.stored import read_stored
    from tuning.samplers.simulation import format_table, summarize

    run = ROOT / "docs" / "results" / "tuning" / "noise-simulation"
    lines = read_stored(run / "results.jsonl.gz").decode("utf-8").splitlines()
    rows = summarize([json.loads(line) for line in lines[1:] if line.strip()])
    assert format_table(rows) + "\n" == (run / "table.md").read_text(encoding="utf-8")
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert _close(json.loads(json.dumps(rows)), summary["rows"])


MATCH_SUMMARIES = sorted(
    p
    for p in (ROOT / "docs" / "results").rglob("summary.json")
    if isinstance(json.loads(p.read_text(encoding="utf-8")).get("match"), dict)
)


GAMES_IN_GIT = "games-in-git.json"
"""A record's note that its games left the tree and which commit holds them (docs/records.md)."""


def _games_in_git(results: Path) -> bytes | None:
    """The bytes of a results file a record left in git, from the commit its note names.

    The record (a folder above ``results``) must hold a ``games-in-git.json`` note; ``None``
    when git has not that commit here (a shallow clone), so only the note is checked.
    """
    note = next((d / GAMES_IN_GIT for d in results.parents if (d / GAMES_IN_GIT).is_file()), None)
    assert note is not None, f"{results.relative_to(ROOT)} is missing and no record notes why"
    commit = json.loads(note.read_text(encoding="utf-8"))["commit"]
    assert re.fullmatch(r"[0-9a-f]{40}", commit), f"{note}: commit {commit!r}"
    shown = subprocess.run(
        ["git", "show", f"{commit}:{results.relative_to(ROOT).as_posix()}"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if shown.returncode != 0:
        has_commit = subprocess.run(
            ["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=ROOT, check=False
        )
        assert has_commit.returncode != 0, f"{commit} does not hold {results}"
        return None
    return shown.stdout


def test_every_recorded_book_is_a_reference_that_resolves_to_its_results_header() -> None:
    """A recorded summary keeps no book list (an empty one aside): a reference that resolves."""
    import gzip

    from agents.matches.summary_book import book_sha256, is_book_reference, recorded_book

    assert len(MATCH_SUMMARIES) >= 30
    referred = 0
    for path in MATCH_SUMMARIES:
        name = path.relative_to(ROOT)
        book = json.loads(path.read_text(encoding="utf-8"))["match"]["book"]
        if book == []:
            continue
        assert is_book_reference(book), f"{name}: a book list (record it with gomcts record)"
        results = path.parent / book["in"]
        in_tree = results.exists()
        packed = results.read_bytes() if in_tree else _games_in_git(results)
        if packed is None:
            continue
        with gzip.GzipFile(fileobj=io.BytesIO(packed)) as lines:
            header = json.loads(lines.readline())
        assert header["kind"] == "header"
        assert book["sha256"] == book_sha256(header["match"]["book"]), name
        assert book["openings"] == len(header["match"]["book"]), name
        if in_tree:
            assert recorded_book(path.parent) == header["match"]["book"]
        referred += 1
    assert referred >= 18
