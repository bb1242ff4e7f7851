"""scripts/pool_screens.py: pooled score of paired matches and the test of loss clustering."""

from __future__ import annotations

from types import ModuleType

import pytest
from game_support import game_outcome
from script_support import load_script

from agents.matches.results import ResultsFile

MATCH = {"agent_a": "a", "agent_b": "gnugo", "rules": {"size": 9}, "seed": 2046}


@pytest.fixture(scope="module")
def pool() -> ModuleType:
    return load_script("pool_screens")


def _screen(path, lost: set[int], games: int = 6, **match) -> str:
    results = ResultsFile(path, {**MATCH, **match})
    results.load()
    for i in range(games):
        results.append(
            game_outcome(i, opening=(i,), moves=(i, 4, 81, 81), score_a=float(i not in lost))
        )
    results.close()
    return str(path)


def test_pools_the_scores_and_counts_shared_losses(pool, tmp_path, capsys) -> None:
    files = [
        _screen(tmp_path / f"s{k}.jsonl", lost) for k, lost in enumerate(({0, 1}, {1}, {1, 2}))
    ]
    assert pool.main([*files, "--draws", "2000"]) == 0
    out = capsys.readouterr().out
    assert "pooled: 13 of 18, 0.722 [0.491, 0.875]" in out
    assert "games lost by k matches: k=1: 2, k=3: 1" in out
    assert "lost by 2 or more: 1;" in out


def test_clustering_p_value_matches_the_exact_chance(pool) -> None:
    # two matches losing one game each of 4: they share it with probability 1/4
    observed, mean, p = pool.clustering_test([{0}, {0}], [0, 1, 2, 3], draws=40_000, seed=1)
    assert observed == 1 and mean == pytest.approx(0.25, abs=0.01) and p == mean
    # losses on different games: at least 0 shared always happens
    assert pool.clustering_test([{0}, {1}], [0, 1, 2, 3], draws=100, seed=1)[::2] == (0, 1.0)
    # every game lost by both: no other outcome is possible
    assert pool.clustering_test([{0, 1}, {0, 1}], [0, 1], draws=100, seed=1) == (2, 2.0, 1.0)


def test_refuses_matches_that_are_not_paired(pool, tmp_path, capsys) -> None:
    one = _screen(tmp_path / "one.jsonl", {0})
    other = _screen(tmp_path / "other.jsonl", {0}, agent_b="pachi")
    assert pool.main([one, other]) == 2
    assert "pooling needs matches of one opponent, rules and seed" in capsys.readouterr().err
    # the same opponent with other openings (another seed's games)
    shifted = tmp_path / "shifted.jsonl"
    results = ResultsFile(shifted, MATCH)
    results.load()
    results.append(game_outcome(0, opening=(5,), moves=(5, 4, 81, 81)))
    results.close()
    assert pool.main([one, str(shifted)]) == 2
    assert "was not played on the same opening" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        pool.main([one])
