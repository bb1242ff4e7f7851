"""agents.matches.paired and scripts/compare_matches.py: two matches compared game by game."""

from __future__ import annotations

import shutil
from functools import partial
from math import comb
from pathlib import Path

import pytest
from scripts_support import ROOT, run_script

from agents.matches.arena import MatchConfig, run_match
from agents.matches.paired import compare_matches, sign_test
from agents.matches.results import ResultsError, read_results
from go_env.rules import Rules

run = partial(run_script, "compare_matches.py")
NET2 = ROOT / "docs" / "results" / "strength" / "net2-3200-reuse" / "results.jsonl"
NET3 = ROOT / "docs" / "results" / "strength" / "net3-3200-reuse" / "results.jsonl"


def recorded_match(tmp_path: Path, name: str, **changes: object) -> Path:
    """A 12-game match of random agents on 7x7 (komi 7.5: no draws), written to a file."""
    settings: dict[str, object] = {
        "agent_a": "random:pass_prob=0.02",
        "agent_b": "random",
        "games": 12,
        "rules": Rules(size=7, komi=7.5),
        "seed": 3,
    }
    settings.update(changes)
    path = tmp_path / name / "results.jsonl"
    run_match(MatchConfig(**settings), results=path, workers=1)  # type: ignore[arg-type]
    return path


def test_sign_test_is_the_exact_two_sided_binomial_test() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 5) == 1.0
    assert sign_test(3, 0) == pytest.approx(2 / 8)
    assert (
        sign_test(6, 15)
        == sign_test(15, 6)
        == pytest.approx(2 * sum(comb(21, k) for k in range(7)) / 2**21)
    )
    assert sign_test(6, 15) == pytest.approx(0.0784, abs=1e-4)
    with pytest.raises(ValueError, match="counts must be >= 0"):
        sign_test(-1, 3)


def test_the_recorded_second_and_third_network_matches() -> None:
    # docs/strength.md, net3-3200-reuse against net2-3200-reuse: 127 won by both, 33 by the
    # third network only, 30 by the second only, sign test p = 0.80; 160 and 157 of 200.
    comparison = compare_matches(NET3, NET2)
    assert (comparison.both_won, comparison.first_only, comparison.second_only) == (127, 33, 30)
    assert comparison.both_lost == 10 and comparison.both_drew == 0 and comparison.unpaired == 0
    assert (comparison.first_points, comparison.second_points) == (160, 157)
    assert comparison.games == 200
    assert comparison.p_value == pytest.approx(0.80, abs=0.005)
    assert "gnugo" in comparison.opponent


def test_counts_add_up_on_fresh_matches(tmp_path: Path) -> None:
    first = recorded_match(tmp_path, "one")
    second = recorded_match(tmp_path, "two", agent_a="random:pass_prob=0.2")
    comparison = compare_matches(first, second)
    _, games_1 = read_results(first)
    _, games_2 = read_results(second)
    assert comparison.games == 12 and comparison.unpaired == 0
    assert comparison.first_points == sum(g.score_a for g in games_1.values())
    assert comparison.second_points == sum(g.score_a for g in games_2.values())
    # no draws at komi 7.5: each agent's points are its wins
    assert comparison.first_points == comparison.both_won + comparison.first_only
    assert comparison.second_points == comparison.both_won + comparison.second_only
    same = compare_matches(first, first)
    assert same.first_only == same.second_only == 0 and same.p_value == 1.0


def test_a_running_match_is_compared_on_the_games_it_has(tmp_path: Path) -> None:
    first = recorded_match(tmp_path, "one")
    running = tmp_path / "running.jsonl"
    lines = first.read_bytes().splitlines(keepends=True)
    running.write_bytes(b"".join(lines[:6]) + lines[6][:40])  # 5 games and one being written
    before = running.read_bytes()
    comparison = compare_matches(running, first)
    assert comparison.games == 5 and comparison.unpaired == 7
    assert comparison.first_only == comparison.second_only == 0
    assert running.read_bytes() == before  # read only: the partial line is left alone


def test_matches_that_cannot_be_paired_are_refused(tmp_path: Path) -> None:
    first = recorded_match(tmp_path, "one")
    with pytest.raises(ResultsError, match=r"different opponent \(agent B\)"):
        compare_matches(first, recorded_match(tmp_path, "other-b", agent_b="random:pass_prob=0.1"))
    with pytest.raises(ResultsError, match="different rules"):
        compare_matches(first, recorded_match(tmp_path, "komi", rules=Rules(size=7, komi=5.5)))
    with pytest.raises(ResultsError, match="not played on the same opening"):
        compare_matches(first, recorded_match(tmp_path, "seed", seed=4))
    not_results = tmp_path / "notes.jsonl"
    not_results.write_text('{"kind": "note"}\n', encoding="utf-8")
    with pytest.raises(ResultsError, match="not an arena results file"):
        compare_matches(first, not_results)


def test_script_prints_the_comparison_and_refuses_bad_files(tmp_path: Path) -> None:
    done = run(str(NET3), str(NET2))
    assert done.returncode == 0, done.stderr
    assert "won by both 127, first only 33, second only 30, lost by both 10" in done.stdout
    assert "first 160 of 200, second 157 of 200" in done.stdout
    assert "differ: p = 0.801 (two-sided)" in done.stdout
    assert done.stdout.startswith(f"files:    {NET3}  against  {NET2}\n")
    copy = tmp_path / "copy.jsonl"
    shutil.copy(NET3.with_name(NET3.name + ".gz"), tmp_path / "copy.jsonl.gz")  # as recorded
    missing = run(str(copy), str(tmp_path / "missing.jsonl"))
    assert (
        missing.returncode == 2 and "error:" in missing.stderr and "missing.jsonl" in missing.stderr
    )
