"""scripts/recorded_games.py: every recorded match's games, from the checkout or from git."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

from scripts_support import run_script

STRENGTH = Path("docs", "results", "strength")
"""Where the fake repository's records lie (built, so the docs' link check reads no citation)."""


def _record(repo: Path, name: str, opponent: str, games: int) -> bytes:
    folder = repo / "docs" / "results" / name
    folder.mkdir(parents=True)
    header = {"kind": "header", "match": {"agent_a": "a", "agent_b": opponent}}
    rows = [header, *({"kind": "game", "index": i, "score_a": 1 - i % 2} for i in range(games))]
    data = gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode(), mtime=0)
    (folder / "results.jsonl.gz").write_bytes(data)
    (folder / "summary.json").write_text(json.dumps({"match": header["match"], "games": games}))
    return data


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_games_come_from_the_checkout_or_the_commit_a_note_names(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.org")
    _git(repo, "config", "user.name", "t")
    here = _record(repo, "strength/here", "gtp:cmd=gnugo --level 10", 3)
    gone = _record(repo, "strength/screen/gone", "gtp:cmd=gnugo --level 10", 2)
    _record(repo, "strength/other", "mcts:sims=10", 1)
    _record(repo, "strength/skip-me", "gtp:cmd=gnugo --level 10", 1)
    (repo / "docs" / "results" / "book").mkdir()
    (repo / "docs" / "results" / "book" / "summary.json").write_text('{"games": 4}')  # no match
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "records")
    commit = _git(repo, "rev-parse", "HEAD")
    _git(repo, "rm", "-q", (STRENGTH / "screen" / "gone" / "results.jsonl.gz").as_posix())
    note = {"commit": commit, "left_out": ["gone/results.jsonl.gz"], "why": "size"}
    (repo / STRENGTH / "screen" / "games-in-git.json").write_text(json.dumps(note))
    out = tmp_path / "out"
    args = [STRENGTH.as_posix(), "--repo", str(repo), "--out", str(out)]
    result = run_script("recorded_games.py", *args, "--opponent", "gnugo", "--exclude", "skip")
    assert result.returncode == 0, result.stderr
    assert "strength__here: 3 games (checkout)" in result.stdout
    assert f"strength__screen__gone: 2 games (git {commit[:12]})" in result.stdout
    assert "2 matches written" in result.stdout
    assert (out / "strength__here" / "results.jsonl.gz").read_bytes() == here
    assert (out / "strength__screen__gone" / "results.jsonl.gz").read_bytes() == gone
    assert not (out / "strength__other").exists() and not (out / "strength__skip-me").exists()
    lost = run_script("recorded_games.py", *args[:-1], str(tmp_path / "lost"), "--lost-only")
    assert lost.returncode == 0, lost.stderr
    assert "strength__here: 1 games (checkout)" in lost.stdout  # game 1 of 0-2
    assert "strength__other" not in lost.stdout  # its one game, 0, was won: left out
    kept = gzip.decompress((tmp_path / "lost" / "strength__here" / "results.jsonl.gz").read_bytes())
    assert [json.loads(line).get("index") for line in kept.splitlines()] == [None, 1]
    # a note naming a commit git does not have here (a shallow clone) is refused, clearly
    note["commit"] = "0" * 40
    (repo / STRENGTH / "screen" / "games-in-git.json").write_text(json.dumps(note))
    refused = run_script("recorded_games.py", *args)
    assert refused.returncode != 0 and "git fetch --unshallow" in refused.stderr
    missing = run_script("recorded_games.py", "nowhere", "--repo", str(repo), "--out", "x")
    assert missing.returncode != 0 and "no such folder" in missing.stderr
