"""scripts/selfplay_burst_pack.py: a run packed for a burst keeps all but the old games."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path
from types import ModuleType

import pytest
from script_support import load_script


@pytest.fixture(scope="module")
def burst_pack() -> ModuleType:
    return load_script("selfplay_burst_pack")


def _run(folder: Path, generation: int = 5, window: int = 2, status: str = "budget") -> Path:
    (folder / "games").mkdir(parents=True)
    (folder / "nets").mkdir()
    (folder / "gate").mkdir()
    manifest = {
        "format": "gomcts-selfplay",
        "version": 1,
        "generation": generation,
        "config": {"window": window},
        "starts": [{"status": status}],
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    for name in ("state.pt", "book.json", "best.pt", "metrics.jsonl", "elo.png"):
        (folder / name).write_bytes(b"x")
    for k in range(generation + 1):
        (folder / "nets" / f"gen-{k:04d}.pt").write_bytes(b"n")
        if k:
            (folder / "games" / f"gen-{k:04d}.jsonl").write_text('{"moves": []}\n' * 50)
    (folder / "gate" / "gen-0003.jsonl").write_text("{}\n")
    return folder


def test_the_pack_keeps_the_window_and_everything_else(burst_pack, tmp_path):
    run = _run(tmp_path / "runs" / "mine")
    out = tmp_path / "burst" / "mine.tgz"
    answer = burst_pack.pack_run(run, out)
    with tarfile.open(out) as tar:
        names = sorted(tar.getnames())
    assert [n for n in names if "/games/" in n] == [
        "mine/games/gen-0004.jsonl",
        "mine/games/gen-0005.jsonl",
    ]
    assert {
        "mine/manifest.json",
        "mine/state.pt",
        "mine/nets/gen-0000.pt",
        "mine/gate/gen-0003.jsonl",
    } <= set(names)
    assert answer["files"] == len(names) == 15 and not out.with_name("mine.tgz.partial").exists()
    unpacked = tmp_path / "there"
    with tarfile.open(out) as tar:
        tar.extractall(unpacked, filter="data")
    assert (unpacked / "mine" / "games" / "gen-0005.jsonl").read_bytes() == (
        run / "games" / "gen-0005.jsonl"
    ).read_bytes()


def test_an_early_run_keeps_all_its_games(burst_pack, tmp_path):
    run = _run(tmp_path / "r", generation=2, window=4)
    games = [p.name for p in burst_pack.packed_files(run) if p.parent.name == "games"]
    assert games == ["gen-0001.jsonl", "gen-0002.jsonl"]


def test_a_running_or_missing_run_is_refused(burst_pack, tmp_path, capsys):
    run = _run(tmp_path / "live", status="running")
    with pytest.raises(ValueError, match="recorded as running: stop it before packing"):
        burst_pack.packed_files(run)
    assert burst_pack.packed_files(run, force=True)
    assert burst_pack.main([str(tmp_path / "none"), str(tmp_path / "x.tgz")]) == 2
    assert "not a self-play run folder" in capsys.readouterr().err
    assert burst_pack.main([str(run), str(tmp_path / "x.tgz"), "--force"]) == 0
    assert json.loads(capsys.readouterr().out)["files"] == 15
