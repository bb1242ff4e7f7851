"""scripts/superko_turns.py on recorded matches (the counts docs/strength.md quotes)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from scripts_support import run_script

run = partial(run_script, "superko_turns.py")


def test_counts_the_turns_of_the_recorded_matches() -> None:
    done = run(
        "docs/results/strength/net2-3200-reuse/results.jsonl",
        "docs/results/strength/net3-3200-reuse/results.jsonl",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith("strength/net2-3200-reuse/results.jsonl: 3 turns in games [44, 72]")
    assert "  game 72, move 73: forbidden only by superko: J2" in lines
    assert lines[-1].endswith("strength/net3-3200-reuse/results.jsonl: 0 turns in games []")


def test_a_file_that_is_not_a_results_file_is_refused(tmp_path: Path) -> None:
    note = tmp_path / "note.jsonl"
    note.write_text('{"kind": "note"}\n', encoding="utf-8")
    done = run(str(note))
    assert done.returncode == 2 and "not an arena results file" in done.stderr
