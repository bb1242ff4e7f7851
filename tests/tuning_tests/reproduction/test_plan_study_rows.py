"""A plan's study rows take the settings of StudyConfig by name (tuning/reproduction/plan.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from tuning.reproduction.plan import SET_BY_PLAN, PlanError, StudyRow, load_plan, study_settings
from tuning.reproduction.runner import row_definition, run_plan, study_config
from tuning.studies.config import StudyConfig

HEAD = """
[plan]
name = "tiny"
out = "out"

[setting]
size = 5
komi = 2.5
sims = 4
agent = "mcts:sims={sims}"
"""

ROW = """
[[row]]
id = "bo"
kind = "study"
space = "softmax"
d = 1
trials = 1
startup_trials = 1
games = 2
batch = 2
seed = 0
sampler = "random"
"""

BOOK = ["C3 D4", "B2 C4", "D2 B3"]


def write_plan(folder: Path, extra: str = "") -> Path:
    path = folder / "plan.toml"
    path.write_text(HEAD + ROW + extra, encoding="utf-8")
    return path


def study_row(path: Path) -> StudyRow:
    row = load_plan(path).row("bo")
    assert isinstance(row, StudyRow)
    return row


def test_every_setting_of_a_study_that_the_plan_does_not_decide_is_a_row_key() -> None:
    names = {f.name for f in dataclasses.fields(StudyConfig)}
    assert names >= SET_BY_PLAN  # a renamed field shows here
    assert set(study_settings()) == names - SET_BY_PLAN
    assert {"games", "batch", "prune", "trials", "seed", "book", "prune_z"} <= set(study_settings())


def test_settings_reach_the_study_and_its_fingerprint(tmp_path: Path) -> None:
    plain = study_row(write_plan(tmp_path))
    assert plain.study.prune_z == StudyConfig.prune_z and plain.study.max_retry == 3
    assert plain.study.out == tmp_path / "out" / "bo" and plain.study.verify_games == 0
    row = study_row(write_plan(tmp_path, "prune_z = 3\nprune_min_games = 2\nmax_retry = 1\n"))
    assert row.study.prune_z == 3.0 and isinstance(row.study.prune_z, float)
    assert row.study.prune_min_games == 2 and row.study.max_retry == 1
    plan = load_plan(tmp_path / "plan.toml")
    definition = row_definition(plan, row)
    assert definition["prune_z"] == 3.0 and definition["prune_min_games"] == 2
    assert row_definition(plan, plain)["prune_z"] == StudyConfig.prune_z
    run = study_config(plan, row, workers=3, games_per_worker=2)
    assert run.jobs == 3 and run.games_per_worker == 2 and run.identity() == row.study.identity()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('prune = "yes"\n', r"row 'bo': prune must be true or false, got 'yes'"),
        ("prune_z = true\n", r"row 'bo': prune_z must be a number, got True"),
        ('max_retry = "3"\n', r"row 'bo': max_retry must be an int, got '3'"),
        ("x_ = 1\n", r"row 'bo': unknown key\(s\) x_;"),
        ("workers = 2\n", r"row 'bo': unknown key\(s\) workers; allowed: .*book.*prune_z"),
        ('out = "elsewhere"\n', r"row 'bo': unknown key\(s\) out;"),
        ('book = "missing.txt"\n', r"row 'bo': book 'missing.txt' is not a file .*plan's root"),
        ("book = 3\n", r"row 'bo': book must be a path \(a string\), got 3"),
        ("prune_min_games = 1\n", r"row 'bo': prune_min_games must be an int >= 2, got 1"),
        ("jobs = 0\n", r"row 'bo': jobs must be an int in \[1, 256\], got 0"),
        ("bounds = [1, 'x']\n", r"row 'bo': bounds must be \[LOW, HIGH\] \(two numbers\)"),
    ],
)
def test_bad_settings_are_refused_with_the_row_the_key_and_what_is_allowed(
    tmp_path: Path, extra: str, message: str
) -> None:
    with pytest.raises(PlanError, match=message):
        load_plan(write_plan(tmp_path, extra))


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("games = 2\n", "games = 3\n", r"row 'bo': games must be even"),
        ('sampler = "random"', 'sampler = "cma"', r"row 'bo': unknown sampler 'cma'; allowed: "),
        ("startup_trials = 1", "startup_trials = 0", r"startup_trials must be an int >= 1, got 0"),
        ("trials = 1\n", "trials = 0\n", r"row 'bo': trials must be a positive integer, got 0"),
        ("seed = 0", "seed = -1", r"row 'bo': seed must be an int >= 0, got -1"),
    ],
)
def test_a_study_rows_own_values_are_checked_too(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    path = tmp_path / "plan.toml"
    path.write_text(HEAD + ROW.replace(old, new), encoding="utf-8")
    with pytest.raises(PlanError, match=message):
        load_plan(path)


def test_a_study_row_plays_its_trials_on_a_book(tmp_path: Path) -> None:
    (tmp_path / "books").mkdir()
    (tmp_path / "books" / "book.txt").write_text("\n".join(BOOK) + "\n", encoding="utf-8")
    path = write_plan(tmp_path, 'book = "books/book.txt"\n')
    plan = load_plan(path)
    row = plan.row("bo")
    assert isinstance(row, StudyRow)
    assert Path(row.study.book or "").resolve() == tmp_path / "books" / "book.txt"
    definition = row_definition(plan, row)
    assert len(definition["book_sha256"]) == 64 and definition["book"] == row.study.book
    run_plan(plan, workers=1, say=lambda _: None)
    played = {
        tuple(json.loads(line)["opening"])
        for file in sorted((plan.folder(row) / "games").rglob("*.jsonl"))
        for line in file.read_text(encoding="utf-8").splitlines()[1:]
    }
    assert played == {row.study.openings()[0]}  # one pair: the book's first opening
    assert (plan.folder(row) / "study.json").exists()
