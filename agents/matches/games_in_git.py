"""Records whose games are kept in git only (``docs/records.md``, "Records kept in git only").

The repository keeps its checkout under 8 MB, so a record's games (its compressed results
files, the largest part of it) may leave the tree once they are committed: git keeps every
byte, and a ``games-in-git.json`` note in the record names the commit that holds them::

    {"commit": "<40 hex digits>", "left_out": ["results.jsonl.gz"], "why": "..."}

``left_out`` names what left, relative to the note's folder (a name that ends in ``/`` is a
whole folder). :func:`leave_in_git` makes such a record out of a committed one (``gomcts
record --games-to-git RECORD``); :func:`stored_bytes` reads a file back, from the tree when it
is there and from the note's commit when it is not, as every reader of records does.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

__all__ = [
    "NOTE",
    "WHY",
    "GamesInGitError",
    "LeftGames",
    "leave_in_git",
    "left_file",
    "stored_bytes",
]

NOTE = "games-in-git.json"
"""The note a record keeps when its games left the tree."""

WHY = "the checkout's 8 MB (docs/records.md, 'Records kept in git only')"
"""The usual reason a record's games leave the tree (the note's ``why`` starts with it)."""

GAMES = "results.jsonl.gz"
"""The name of a match's games in a record (``gomcts record``), what leaves by default."""


class GamesInGitError(ValueError):
    """A record whose games cannot leave the tree, or a file that cannot be read back."""


@dataclass(frozen=True)
class LeftGames:
    """What :func:`leave_in_git` did.

    Attributes:
        note: The note it wrote (staged, not committed).
        commit: The full SHA of the commit that holds the files.
        paths: The files that left the tree (staged removals), relative to the repository.
        size: Their bytes, what the checkout saves.
    """

    note: Path
    commit: str
    paths: tuple[str, ...]
    size: int

    def citations(self) -> list[str]:
        """``SHORT:PATH`` of each file, the form ``docs/records.md`` cites them in."""
        return [f"{self.commit[:7]}:{path}" for path in self.paths]


def _git_bytes(repo: Path, *args: str) -> bytes:
    """Run git in ``repo``; its standard output, or a :class:`GamesInGitError` saying why not."""
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}"
        raise GamesInGitError(f"git {' '.join(args)}: {said}")
    return done.stdout


def _git(repo: Path, *args: str) -> str:
    """:func:`_git_bytes` as text, stripped."""
    return _git_bytes(repo, *args).decode().strip()


def _repository(folder: Path) -> Path:
    """The top folder of the git work tree that holds ``folder``."""
    try:
        return Path(_git(folder, "rev-parse", "--show-toplevel")).resolve()
    except GamesInGitError as exc:
        raise GamesInGitError(f"{folder} is not in a git work tree ({exc})") from None


def _tracked(repo: Path, path: Path) -> list[Path]:
    """The files git tracks at or under ``path`` (absolute), sorted."""
    listed = _git(repo, "ls-files", "-z", "--", path.relative_to(repo).as_posix())
    return sorted(repo / name for name in listed.split("\0") if name)


def _note_above(file: Path) -> Path | None:
    """The nearest ``games-in-git.json`` in a folder above ``file`` (``None``: none)."""
    return next((d / NOTE for d in file.parents if (d / NOTE).is_file()), None)


def _note_entry(record: Path, path: Path) -> str:
    """``path`` as the note names it: relative to the record, a folder with a trailing ``/``."""
    name = path.relative_to(record).as_posix()
    return f"{name}/" if path.is_dir() else name


def leave_in_git(
    record: str | PathLike[str],
    *,
    leave: list[str] | None = None,
    commit: str = "HEAD",
    why: str = WHY,
) -> LeftGames:
    """Take a committed record's games out of the tree, leaving a note that names the commit.

    The files are removed with ``git rm`` (the removal staged) and the note is written and
    staged beside them; committing both is the caller's step, so that nothing is lost before
    it has been looked at.

    Args:
        record: The record's folder, inside a git work tree; the note goes there.
        leave: What leaves, each a file or a folder relative to ``record``; by default every
            ``results.jsonl.gz`` under it (a match's games, or each of a screen's matches').
        commit: The commit that holds them (default ``HEAD``): each file must be there with
            exactly the bytes of the tree, so that the note's commit gives back what left.
        why: The reason the note gives; how ``git show COMMIT:PATH`` gives them back is added.

    Returns:
        What left and where it is kept.

    Raises:
        GamesInGitError: When the folder is not a record in a git work tree, already has a
            note, has nothing to leave, or a file is not committed as it is in the tree.
    """
    folder = Path(record).resolve()
    if not folder.is_dir():
        raise GamesInGitError(f"{record}: no such folder (give the record's folder)")
    repo = _repository(folder)
    note = folder / NOTE
    if note.exists():
        held = json.loads(note.read_text(encoding="utf-8")).get("commit", "?")
        raise GamesInGitError(
            f"{note.relative_to(repo)} exists: this record's games already left for {held[:12]};"
            " a record keeps one note (move the others by hand, or add them to that note)"
        )
    if not why.strip():
        raise GamesInGitError("why is empty: say why the games leave the tree")
    if leave:
        named = [folder / name for name in leave]
        for path in named:
            if folder not in path.resolve().parents:
                raise GamesInGitError(f"{path}: not under the record {folder}")
            if not path.exists():
                raise GamesInGitError(f"{path.relative_to(repo)}: no such file or folder")
    else:
        named = sorted(folder.rglob(GAMES))
        if not named:
            raise GamesInGitError(
                f"{folder.relative_to(repo)}: no {GAMES} under it; name what leaves with --leave"
            )
    files = []
    for path in named:
        tracked = _tracked(repo, path)
        if not tracked:
            raise GamesInGitError(
                f"{path.relative_to(repo)}: git tracks nothing there; commit the record first "
                "(gomcts record, git add, git commit), then leave its games"
            )
        files += tracked
    try:
        sha = _git(repo, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    except GamesInGitError:
        raise GamesInGitError(f"{commit!r} is no commit of this repository") from None
    paths = tuple(file.relative_to(repo).as_posix() for file in files)
    for name in paths:
        try:
            held_blob = _git(repo, "rev-parse", "--verify", "--quiet", f"{sha}:{name}")
        except GamesInGitError:
            raise GamesInGitError(
                f"{name} is not in commit {sha[:12]}: commit the record first, then leave its games"
            ) from None
        if held_blob != _git(repo, "hash-object", "--", name):
            raise GamesInGitError(
                f"{name} differs from commit {sha[:12]}'s: commit it as it is, then leave it"
            )
    size = sum(file.stat().st_size for file in files)
    entries = [_note_entry(folder, path) for path in named]  # before a folder is gone
    _git(repo, "rm", "-q", "--", *paths)
    back = (
        f"git show COMMIT:{paths[0]} gives the games back"
        if len(paths) == 1
        else f"git show COMMIT:PATH gives each of the {len(paths)} back (PATH: {paths[0]}, ...)"
    )
    text = {"commit": sha, "left_out": entries, "why": f"{why}; {back}"}
    note.write_text(json.dumps(text, indent=2) + "\n", encoding="utf-8")
    _git(repo, "add", "--", note.relative_to(repo).as_posix())
    return LeftGames(note=note, commit=sha, paths=paths, size=size)


def stored_bytes(repo: str | PathLike[str], path: str | PathLike[str]) -> tuple[bytes, str]:
    """A record's file and where it came from: ``"checkout"``, or ``"git <commit>"``.

    Args:
        repo: The repository's top folder.
        path: The file, relative to ``repo`` (or absolute, inside it).

    Raises:
        GamesInGitError: When the file is not in the tree and no note in a folder above it
            names a commit, or git has not that commit here (a shallow clone).
    """
    top = Path(repo).resolve()
    file = top / path
    if file.is_file():
        return file.read_bytes(), "checkout"
    name = file.relative_to(top).as_posix()
    note = _note_above(file)
    if note is None or top not in note.parents:
        raise GamesInGitError(f"{name}: not in the checkout, and no {NOTE} above it says where")
    commit = json.loads(note.read_text(encoding="utf-8"))["commit"]
    try:
        data = _git_bytes(top, "show", f"{commit}:{name}")
    except GamesInGitError as exc:
        raise GamesInGitError(
            f"{name}: git has no {commit[:12]} holding it here ({exc}); "
            "a shallow clone needs its history: git fetch --unshallow"
        ) from None
    return data, f"git {commit[:12]}"


def left_file(path: str | PathLike[str]) -> bytes | None:
    """A file that left the tree for git, read back from its note's commit.

    ``None`` when it is in the tree, no note above it names a commit, it is not in a git work
    tree, or git has not that commit here.
    """
    file = Path(path).resolve()
    note = _note_above(file)
    if file.exists() or note is None:
        return None
    try:
        top = _repository(note.parent)
        return stored_bytes(top, file.relative_to(top))[0]
    except (GamesInGitError, ValueError):
        return None
