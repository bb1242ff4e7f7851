"""scripts/book_choices.py: how often agents' searches play marked moves at a book's positions."""

from __future__ import annotations

from types import ModuleType

import pytest
from script_support import load_script
from scripts_support import run_script


@pytest.fixture(scope="module")
def choices() -> ModuleType:
    return load_script("book_choices")


def test_the_positions_are_the_lines_without_their_marked_move(choices) -> None:
    marks = {"a": [(40,), (40, 41, 30)], "b": [(50,), (40, 41, 31)]}
    positions, marked = choices.read_marks(marks)
    assert positions == [(), (40, 41)]  # the first line's position is the empty board
    assert marked == [{"a": 40, "b": 50}, {"a": 30, "b": 31}]


def test_books_that_disagree_are_refused(choices) -> None:
    with pytest.raises(ValueError, match="b: 1 lines where the first book has 2"):
        choices.read_marks({"a": [(40,), (40, 41)], "b": [(50,)]})
    with pytest.raises(ValueError, match="b: line 2 does not play the first book's moves"):
        choices.read_marks({"a": [(40,), (40, 41, 30)], "b": [(50,), (40, 42, 31)]})


def test_the_command_counts_the_marked_moves(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("E5\nE5 D4 C3\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("C3\nE5 D4 F6\n", encoding="utf-8")
    result = run_script(
        "book_choices.py",
        "--agent",
        "mcts:sims=8,batch=4",
        "--seeds",
        "2",
        "--mark",
        f"a={tmp_path / 'a.txt'}",
        "--mark",
        f"b={tmp_path / 'b.txt'}",
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("position   1: a ") and lines[1].startswith("position   2: a ")
    assert lines[3].startswith("  a: ") and "of 4 searches" in lines[3]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seeds", "0", "--mark", "a=x", "--mark", "b=y"], "--seeds must be >= 1"),
        (["--mark", "a=x"], "give two or more --mark books"),
        (["--mark", "ax", "--mark", "b=y"], "--mark must be NAME=BOOK"),
    ],
)
def test_bad_arguments_are_refused(args, message) -> None:
    result = run_script("book_choices.py", "--agent", "mcts:sims=8", *args)
    assert result.returncode == 2 and message in result.stderr
