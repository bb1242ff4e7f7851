r"""Take recorded arena matches' games out of ``docs/results``, one results file a match.

Every record of a match (a folder whose ``summary.json`` holds a ``match``) keeps its games as
``results.jsonl.gz``: in the checkout, or, where the checkout's 8 MB made them leave, in git
at the commit its ``games-in-git.json`` names (``docs/records.md``, "Records kept in git
only"). This script writes each match's games to ``OUT/<record path, / as __>/results.jsonl.gz``
whichever way they are kept, for ``gomcts train teach --arena OUT/*`` (``docs/nets.md``,
"Teaching a network arena games") or any reader of arena results::

    python scripts/recorded_games.py docs/results/strength docs/results/nets/gnugo-taught \
        --opponent 'gnugo --mode gtp --level 10' --out runs/gnugo-games \
        --exclude seed2053 held-s7002

``--opponent TEXT`` keeps the matches whose agent B's spec contains ``TEXT``; ``--exclude
TEXT ...`` leaves out the records whose path contains any ``TEXT``; ``--lost-only`` keeps of
each match the games agent A lost (a match with none is left out), which ``gomcts train teach
--arena`` can name more than once to weigh them more. It prints one line a
match (its games and where they came from) and refuses a record whose games are neither in
the checkout nor in a commit git has here (a shallow clone: fetch the history first).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

from agents.matches.games_in_git import GamesInGitError, stored_bytes

RESULTS = "results.jsonl.gz"


def match_records(repo: Path, roots: list[str]) -> list[Path]:
    """The record folders of matches under ``roots`` (paths relative to ``repo``), sorted."""
    found = set()
    for root in roots:
        base = repo / root
        if not base.is_dir():
            raise SystemExit(f"{root}: no such folder under {repo}")
        for summary in base.rglob("summary.json"):
            if isinstance(json.loads(summary.read_text(encoding="utf-8")).get("match"), dict):
                found.add(summary.parent)
    return sorted(found)


def stored_games(repo: Path, record: Path) -> tuple[bytes, str]:
    """A record's ``results.jsonl.gz`` bytes and where they came from (the checkout or a commit).

    Raises:
        SystemExit: When the checkout lacks them and no note, or no commit git has, holds them.
    """
    try:
        return stored_bytes(repo, (record / RESULTS).relative_to(repo))
    except GamesInGitError as exc:
        raise SystemExit(str(exc)) from None


Row = tuple[bytes, dict]
"""A results file's line and the record it holds."""


def rows_of(data: bytes) -> list[Row]:
    """The non-blank lines of a gzip results file, each with its parsed record."""
    lines = gzip.decompress(data).splitlines()
    return [(line, json.loads(line)) for line in lines if line.strip()]


def opponent(rows: list[Row]) -> str:
    """Agent B's spec from a results file's header line."""
    return str(rows[0][1].get("match", {}).get("agent_b", "")) if rows else ""


def lost_only(rows: list[Row]) -> list[Row]:
    """The header and the games agent A lost (score_a 0) of a results file's rows."""
    return [row for row in rows if row[1].get("kind") != "game" or row[1].get("score_a") == 0]


def packed(rows: list[Row]) -> bytes:
    """Rows as the bytes of a gzip results file."""
    return gzip.compress(b"\n".join(line for line, _ in rows) + b"\n", mtime=0)


def main(argv: list[str] | None = None) -> int:
    """Write the matches' games (module docstring); 0 when any was written, 1 when none."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", help="folders of records, relative to --repo")
    parser.add_argument("--out", required=True, help="folder to write one folder a match into")
    parser.add_argument("--opponent", default="", help="keep matches whose agent B contains it")
    parser.add_argument("--exclude", nargs="*", default=[], help="leave out paths containing")
    parser.add_argument("--repo", default=".", help="the repository (default: here)")
    parser.add_argument("--lost-only", action="store_true", help="only the games A lost")
    args = parser.parse_args(argv)
    repo, out = Path(args.repo).resolve(), Path(args.out)
    kept = 0
    for record in match_records(repo, args.roots):
        path = record.relative_to(repo).as_posix()
        if any(text in path for text in args.exclude):
            continue
        data, source = stored_games(repo, record)
        rows = rows_of(data)
        if args.opponent not in opponent(rows):
            continue
        if args.lost_only:
            rows = lost_only(rows)
            data = packed(rows)
        games = sum(entry.get("kind") == "game" for _, entry in rows)
        if not games:  # every game won, with --lost-only
            continue
        name = path.removeprefix("docs/results/").replace("/", "__")
        (out / name).mkdir(parents=True, exist_ok=True)
        (out / name / RESULTS).write_bytes(data)
        print(f"{name}: {games} games ({source})")
        kept += 1
    print(f"{kept} matches written to {out}")
    return 0 if kept else 1


if __name__ == "__main__":
    sys.exit(main())
