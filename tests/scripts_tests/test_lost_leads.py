"""scripts/lost_leads.py: A's network value along lost games, against a threshold."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
from game_support import game_outcome
from script_support import load_script

from agents.matches.results import ResultsFile, read_results
from agents.nets.evaluator import NetEvaluator
from go_env.rules import Rules


@pytest.fixture(scope="module")
def leads() -> ModuleType:
    return load_script("lost_leads")


def test_a_lead_is_its_high_moves_its_last_and_the_fall(leads) -> None:
    values = np.array([0.1, 0.85, 0.9, 0.6, -0.2, -0.9, -0.95])
    assert leads.summarise(values, 0.8) == leads.Lead(2, 2, 3, -0.95)
    # never ahead: no lead and no fall; ahead without a fall to -0.8
    assert leads.summarise(np.array([-0.1, -0.9]), 0.8) == leads.Lead(0, None, None, -0.9)
    assert leads.summarise(np.array([0.9, 0.5]), 0.8) == leads.Lead(1, 0, None, 0.5)


def test_reads_a_match_with_the_shipped_network(leads, tmp_path, capsys) -> None:
    path = tmp_path / "results.jsonl"
    results = ResultsFile(path, {"agent_a": "a", "agent_b": "b", "rules": {"size": 9}})
    results.load()
    # A Black lost game 0 (4 moves: A moved twice), A White won game 1 (A moved once)
    results.append(game_outcome(0, moves=(40, 41, 81, 81), score_a=0.0, result="W+7"))
    results.append(game_outcome(1, moves=(40, 41, 81), score_a=1.0))
    results.close()
    evaluator = NetEvaluator("strong-9x9", symmetry="average", cache_size=0)
    values = leads.a_values(evaluator, read_results(path)[1][0], Rules(size=9))
    assert values.shape == (2,) and np.all(np.abs(values) <= 1)
    assert leads.main([str(path), "--net", "strong-9x9", "--threshold", "1"]) == 0
    out = capsys.readouterr().out
    assert "lost game   0     W+7: value >= 1 at 0 A moves" in out
    assert "lost: 1 games, value reached 1 in 0" in out and "won: 1 games" in out
    assert leads.main([str(path), "--net", "no-such-net.pt"]) == 2
    assert "no-such-net.pt" in capsys.readouterr().err


class _Stub:
    """An evaluator whose values are given call by call and whose priors favour point 0."""

    def __init__(self, *values: list[float]) -> None:
        self.values = list(values)

    def evaluate_states(self, states):
        priors = np.full((len(states), 82), 0.5 / 81)
        priors[:, 0] = 0.5
        return priors, np.array(self.values.pop(0)[: len(states)])


def test_the_opponents_moves_before_the_fall_are_told_apart(leads) -> None:
    # A Black loses: its values 0.9, 0.5, -0.9 at plies 0, 2, 4 put the lead at ply 0 and the
    # fall two A moves later, at ply 4: White's moves at plies 1 and 3 are before the fall,
    # the one at ply 5 after it, and the pass at ply 7 is no move
    lost = game_outcome(0, moves=(40, 0, 41, 5, 42, 6, 81, 81), score_a=0.0, result="W+7")
    lead = leads.summarise(np.array([0.9, 0.5, -0.9]), 0.8)
    groups = leads.opponent_priors(_Stub([0.0] * 4), lost, Rules(size=9), lead)
    assert groups == {
        "lost, before the fall": [(0.5, 1), (0.5 / 81, 2)],
        "lost, other moves": [(0.5 / 81, 2)],
        "won": [],
    }
    won = game_outcome(1, moves=(40, 41, 81), score_a=1.0)  # A White: Black's 40 is the one
    level = leads.summarise(np.array([0.0]), 0.8)
    assert leads.opponent_priors(_Stub([0.0]), won, Rules(size=9), level)["won"] == [(0.5 / 81, 2)]


def test_the_priors_report_reads_several_matches(leads, tmp_path, capsys) -> None:
    paths = []
    for name in ("one", "two"):
        path = tmp_path / f"{name}.jsonl"
        results = ResultsFile(path, {"agent_a": "a", "agent_b": "b", "rules": {"size": 9}})
        results.load()
        results.append(game_outcome(0, moves=(40, 41, 81, 81), score_a=0.0, result="W+7"))
        results.append(game_outcome(1, moves=(40, 41, 81), score_a=1.0))
        results.close()
        paths.append(str(path))
    assert leads.main([*paths, "--net", "strong-9x9", "--priors"]) == 0
    out = capsys.readouterr().out
    assert f"{paths[1]} lost game   0" in out and "lost: 2 games" in out
    assert "opponent's moves, won: 2, median prior" in out
