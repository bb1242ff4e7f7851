"""``gomcts record --games-to-git``: a committed record's games leave the tree for git, with a
note naming the commit, and every reader gets the same bytes back (docs/records.md)."""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
from pathlib import Path

import pytest

from agents.matches.games_in_git import (
    NOTE,
    WHY,
    GamesInGitError,
    leave_in_git,
    left_file,
    stored_bytes,
)
from agents.matches.records_cli import register_record

RECORD = Path("docs", "results", "strength", "t99-example")
"""Where the fake repository's record lies (a built path: the docs' link check reads none)."""


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _games(count: int) -> bytes:
    rows = [{"kind": "header"}, *({"kind": "game", "index": i} for i in range(count))]
    return gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode(), mtime=0)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with one committed record: a match and a screen of two matches."""
    top = tmp_path / "repo"
    (top / RECORD / "screen" / "s1").mkdir(parents=True)
    (top / RECORD / "screen" / "s2").mkdir()
    _git(top, "init", "-q")
    _git(top, "config", "user.email", "t@example.org")
    _git(top, "config", "user.name", "t")
    (top / RECORD / "results.jsonl.gz").write_bytes(_games(3))
    (top / RECORD / "summary.json").write_text('{"match": {}, "games": 3}\n')
    (top / RECORD / "screen" / "s1" / "results.jsonl.gz").write_bytes(_games(1))
    (top / RECORD / "screen" / "s2" / "results.jsonl.gz").write_bytes(_games(2))
    _git(top, "add", "-A")
    _git(top, "commit", "-qm", "record")
    return top


def test_the_games_leave_the_tree_and_come_back_from_the_commit(repo: Path) -> None:
    before = {p: p.read_bytes() for p in (repo / RECORD).rglob("results.jsonl.gz")}
    head = _git(repo, "rev-parse", "HEAD")
    left = leave_in_git(repo / RECORD)
    assert left.commit == head
    assert left.paths == tuple(
        (RECORD / name).as_posix()
        for name in ("results.jsonl.gz", "screen/s1/results.jsonl.gz", "screen/s2/results.jsonl.gz")
    )
    assert left.size == sum(len(data) for data in before.values())
    assert left.citations()[0] == f"{head[:7]}:{RECORD.as_posix()}/results.jsonl.gz"
    assert not any(path.exists() for path in before)
    assert (repo / RECORD / "summary.json").exists()  # only the games leave
    note = json.loads((repo / RECORD / NOTE).read_text())
    assert note["commit"] == head
    assert note["left_out"] == [
        "results.jsonl.gz",
        "screen/s1/results.jsonl.gz",
        "screen/s2/results.jsonl.gz",
    ]
    assert note["why"].startswith(WHY) and "git show COMMIT:" in note["why"]
    staged = _git(repo, "status", "--porcelain").splitlines()
    assert sorted(staged) == sorted(
        [f"D  {path}" for path in left.paths] + [f"A  {RECORD.as_posix()}/{NOTE}"]
    )
    _git(repo, "commit", "-qm", "games to git")
    for path, data in before.items():
        assert stored_bytes(repo, path.relative_to(repo)) == (data, f"git {head[:12]}")
    kept = repo / RECORD / "summary.json"
    assert stored_bytes(repo, kept) == (kept.read_bytes(), "checkout")


def test_left_file_reads_back_what_left_and_nothing_else(repo: Path) -> None:
    games = repo / RECORD / "results.jsonl.gz"
    data = games.read_bytes()
    assert left_file(games) is None  # still in the tree
    leave_in_git(repo / RECORD)
    assert left_file(games) == data
    assert left_file(repo / RECORD / "nothing.jsonl.gz") is None  # not in the commit
    assert left_file(repo / "README") is None  # no note above it


def test_a_named_folder_leaves_whole_and_the_note_says_it_is_a_folder(repo: Path) -> None:
    left = leave_in_git(repo / RECORD, leave=["screen"], why="a screen's games are many")
    assert len(left.paths) == 2
    assert (repo / RECORD / "results.jsonl.gz").exists()
    note = json.loads((repo / RECORD / NOTE).read_text())
    assert note["left_out"] == ["screen/"]
    assert note["why"].startswith("a screen's games are many; git show COMMIT:PATH")


def test_an_older_commit_holding_the_same_bytes_is_named(repo: Path) -> None:
    first = _git(repo, "rev-parse", "HEAD")
    (repo / "README").write_text("later\n")
    _git(repo, "add", "README")
    _git(repo, "commit", "-qm", "later")
    assert leave_in_git(repo / RECORD, commit=first[:10]).commit == first


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("modified", "differs from commit"),
        ("untracked", "git tracks nothing there"),
        ("noted", "already left for"),
        ("bad-commit", "is no commit of this repository"),
        ("not-in-commit", "is not in commit"),
        ("outside", "not under the record"),
        ("missing", "no such file or folder"),
        ("no-games", "no results.jsonl.gz under it"),
        ("no-why", "why is empty"),
    ],
)
def test_refusals_say_what_is_wrong_and_change_nothing(repo: Path, change: str, said: str) -> None:
    record = repo / RECORD
    kwargs: dict = {}
    if change == "modified":
        (record / "results.jsonl.gz").write_bytes(_games(4))
    elif change == "untracked":
        (record / "new").mkdir()
        (record / "new" / "results.jsonl.gz").write_bytes(_games(1))
        kwargs["leave"] = ["new"]
    elif change == "noted":
        (record / NOTE).write_text(json.dumps({"commit": "a" * 40}))
    elif change == "bad-commit":
        kwargs["commit"] = "no-such-rev"
    elif change == "not-in-commit":
        first = _git(repo, "rev-parse", "HEAD")
        (record / "later.jsonl.gz").write_bytes(_games(1))
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "later")
        kwargs.update(leave=["later.jsonl.gz"], commit=first)
    elif change == "outside":
        kwargs["leave"] = ["../../other"]
    elif change == "missing":
        kwargs["leave"] = ["nothing.jsonl.gz"]
    elif change == "no-games":
        (repo / "docs" / "elsewhere").mkdir()
        record = repo / "docs" / "elsewhere"
    elif change == "no-why":
        kwargs["why"] = "  "
    status = _git(repo, "status", "--porcelain")
    with pytest.raises(GamesInGitError, match=said):
        leave_in_git(record, **kwargs)
    assert _git(repo, "status", "--porcelain") == status
    assert (repo / RECORD / "results.jsonl.gz").exists()


def test_outside_a_repository_and_a_missing_folder_are_refused(tmp_path: Path) -> None:
    with pytest.raises(GamesInGitError, match="not in a git work tree"):
        leave_in_git(tmp_path)
    with pytest.raises(GamesInGitError, match="no such folder"):
        leave_in_git(tmp_path / "nowhere")
    with pytest.raises(GamesInGitError, match=r"no games-in-git\.json above it"):
        stored_bytes(tmp_path, Path("docs", "results.jsonl.gz"))


def test_a_shallow_clone_without_the_commit_is_told_to_fetch(repo: Path) -> None:
    leave_in_git(repo / RECORD)
    note = repo / RECORD / NOTE
    note.write_text(json.dumps({"commit": "0" * 40, "left_out": ["results.jsonl.gz"]}))
    with pytest.raises(GamesInGitError, match="git fetch --unshallow"):
        stored_bytes(repo, RECORD / "results.jsonl.gz")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gomcts")
    register_record(parser.add_subparsers(dest="command", required=True))
    return parser


def test_the_command_leaves_the_games_and_prints_the_citations(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _parser().parse_args(["record", "--games-to-git", str(repo / RECORD)])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    head = _git(repo, "rev-parse", "HEAD")
    assert "3 file(s)" in out and f"left the tree for {head[:12]}" in out
    assert f"`{head[:7]}:{RECORD.as_posix()}/screen/s2/results.jsonl.gz`" in out
    assert (repo / RECORD / NOTE).is_file()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--games-to-git", "REC", "dest"], "takes the record's folder alone"),
        (["--games-to-git", "--keep-plot", "REC"], "takes the record's folder alone"),
        (["REC", "--leave", "x"], "--leave: only with --games-to-git"),
        (["--commit", "HEAD~1", "--why", "w", "REC"], "--why, --commit: only with"),
        (["--games-to-git", "--commit", "nope", "REC"], "is no commit of this repository"),
    ],
)
def test_the_command_refuses_options_out_of_place(repo: Path, argv: list[str], said: str) -> None:
    argv = [str(repo / RECORD) if word == "REC" else word for word in argv]
    args = _parser().parse_args(["record", *argv])
    with pytest.raises(ValueError, match=said):  # gomcts prints it as "gomcts record: error: ..."
        args.func(args)
    assert (repo / RECORD / "results.jsonl.gz").exists()
