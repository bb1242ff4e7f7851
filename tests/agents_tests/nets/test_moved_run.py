"""A run's gate resumes after the run folder moved (a burst on another machine)."""

from __future__ import annotations

import json
import shutil

import pytest
import torch

from agents.matches.results import ResultsError
from agents.nets.checkpoint import save_checkpoint
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.training.gating import run_gate
from agents.nets.training.moved_run import adopt_moved_results

pytestmark = pytest.mark.usefixtures("one_torch_thread")

TINY = NetConfig(size=5, blocks=1, filters=8, history=2)


def _games(path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [r for r in rows if r["kind"] == "game"]


def _gate(run, config, candidate: int = 1):  # type: ignore[no-untyped-def]
    """The gate of generation 1 in ``run``: ``candidate``'s network against generation 0's."""
    nets = run / "nets"
    return run_gate(nets / f"gen-{candidate:04d}.pt", nets / "gen-0000.pt", 1, config, run)


def _gated_then_moved(tmp_path, config):  # type: ignore[no-untyped-def]
    """A run whose gate was begun in one folder, then moved to another: ``(there, here)``."""
    there, here = tmp_path / "burst" / "run", tmp_path / "home" / "run"
    torch.manual_seed(3)
    for g in (0, 1):
        save_checkpoint(there / "nets" / f"gen-{g:04d}.pt", PolicyValueNet(TINY))
    _gate(there, config)
    here.parent.mkdir()
    shutil.move(there, here)  # nothing is left where the gate began
    return there, here


def test_a_gate_begun_elsewhere_resumes_with_its_games_after_the_folder_moved(
    tmp_path, selfplay_config
) -> None:
    there, here = _gated_then_moved(tmp_path, selfplay_config(gate_games=4))
    first = _games(here / "gate" / "gen-0001.jsonl")

    result = _gate(here, selfplay_config(gate_games=6))
    text = (here / "gate" / "gen-0001.jsonl").read_text()
    games = _games(here / "gate" / "gen-0001.jsonl")
    assert result.games == 6 and len(games) == 6
    assert str(there) not in text and str(here / "nets") in text  # the header and every game
    for before, after in zip(first, games[:4], strict=True):  # kept, not played again
        assert after["moves"] == before["moves"] and after["result"] == before["result"]
        assert after["black"] == before["black"].replace(str(there), str(here))


def test_only_the_run_folder_may_differ(tmp_path, selfplay_config) -> None:
    _, here = _gated_then_moved(tmp_path, selfplay_config(gate_games=2))
    before = (here / "gate" / "gen-0001.jsonl").read_bytes()
    # another search (N) is another match: still refused, and the file is left as it was
    with pytest.raises(ResultsError, match="different match"):
        _gate(here, selfplay_config(gate_games=2, gate_sims=3))
    assert (here / "gate" / "gen-0001.jsonl").read_bytes() == before
    # another network under the new folder is another match too
    save_checkpoint(here / "nets" / "gen-0002.pt", PolicyValueNet(TINY))
    with pytest.raises(ResultsError, match="different match"):
        _gate(here, selfplay_config(gate_games=2), candidate=2)
    assert (here / "gate" / "gen-0001.jsonl").read_bytes() == before


def test_adopt_leaves_a_missing_or_matching_file_alone(tmp_path) -> None:
    identity = {"agent_a": f'mcts:evaluator="net:{tmp_path}/nets/gen-0001.pt"', "seed": 1}
    missing = tmp_path / "gate" / "gen-0001.jsonl"
    assert adopt_moved_results(missing, identity, tmp_path) is None and not missing.exists()
    missing.parent.mkdir()
    missing.write_text(json.dumps({"kind": "header", "format": 1, "match": identity}) + "\n")
    assert adopt_moved_results(missing, identity, tmp_path) is None
    moved = {**identity, "agent_a": identity["agent_a"].replace(str(tmp_path), "/tmp/runs/x")}
    missing.write_text(json.dumps({"kind": "header", "format": 1, "match": moved}) + "\n")
    assert adopt_moved_results(missing, identity, tmp_path) == "/tmp/runs/x"
    assert json.loads(missing.read_text().splitlines()[0])["match"] == identity
