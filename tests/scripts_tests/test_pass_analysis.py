"""scripts/pass_analysis.py on the recorded strength match and on files that are not results."""

from __future__ import annotations

from functools import partial

from scripts_support import run_script

run = partial(run_script, "pass_analysis.py")


def test_classifies_the_recorded_network_match(tmp_path):
    book = tmp_path / "lost.txt"
    done = run("docs/results/strength/net1-800/results.jsonl", "--book", str(book))
    assert done.returncode == 0, done.stderr
    rows = [line.split("|") for line in done.stdout.splitlines()[1:]]
    table = {tuple(cell.strip() for cell in row[:3]): int(row[3]) for row in rows}
    assert sum(table.values()) == 100
    # docs/strength.md: A lost 78 games; when GNU Go first passed, every one of them was
    # already lost after dead-stone removal, 25 while the raw count showed A ahead.
    assert table[("A lost", "behind", "ahead")] == 25
    assert table[("A lost", "behind", "behind")] == 53
    assert not any(key[0] == "A lost" and key[1] == "ahead" for key in table)
    # the book: each lost game's moves to GNU Go's first pass, which ends the line
    lines = book.read_text().splitlines()
    assert len(lines) == 78 and all(line.split()[-1] == "pass" for line in lines)


def test_refuses_a_file_that_is_not_a_results_file(tmp_path):
    bogus = tmp_path / "notes.jsonl"
    bogus.write_text('{"kind": "game"}\n')
    done = run(str(bogus))
    assert done.returncode == 2 and "not an arena results file" in done.stderr
