"""The recorded runs under docs/results: their tables regenerate from what the record keeps.

A recorded run keeps its games in ``results.jsonl.gz`` and no SGF files
(``docs/records.md``); these tests rebuild the reproduction's table from the record and
compare it with the committed one, and export a recorded run's SGF files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAN = ROOT / "experiments" / "li-lim-9x9.toml"


def test_the_reproduction_table_regenerates_from_the_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("optuna")
    monkeypatch.chdir(ROOT)  # the table names its plan file relative to the repository
    from tuning.plan import load_plan
    from tuning.repro_table import BEGIN, END, results_table, to_markdown
    from tuning.reproduce import study_so_far

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
    assert not list(results.rglob("*.jsonl")), "record runs with gomcts record"
    assert len(list(results.rglob("results.jsonl.gz"))) >= 30
