"""scripts/playout_accuracy.py: light and heavy playouts and a network against game results."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
from game_support import game_outcome
from script_support import load_script

from agents.matches.results import ResultsFile
from go_env.kernels import seed_rng
from go_env.rules import Rules
from go_env.state import Color, GoState

BLACK_ALIVE = """
. X . X O . .
X X X X O . .
. X . X O . .
X X X X O O O
O O O O O . .
. . . . . . .
. . . . . . .
"""


@pytest.fixture(scope="module")
def accuracy() -> ModuleType:
    return load_script("playout_accuracy")


@pytest.mark.parametrize("policy", ["light", "heavy", "nakade", "patterns", "lowlib"])
def test_playout_means_are_from_the_side_to_move(accuracy, policy) -> None:
    rules = Rules(size=7, komi=0.5)
    black = GoState.from_ascii(BLACK_ALIVE, rules)
    white = GoState.from_ascii(BLACK_ALIVE, rules, to_play=Color.WHITE)
    # White owns most of the board: Black loses from either side's point of view.
    assert accuracy.playout_mean(black, policy, 16, seed_rng(1)) < -0.5
    assert accuracy.playout_mean(white, policy, 16, seed_rng(1)) > 0.5


def test_reads_matches_and_prints_each_predictor(accuracy, tmp_path, capsys) -> None:
    path = tmp_path / "results.jsonl"
    results = ResultsFile(path, {"agent_a": "a", "agent_b": "b", "rules": {"size": 9}})
    results.load()
    black_moves = [0, 2, 4, 6, 8, 18, 20, 22, 24, 26]
    white_moves = [80, 78, 76, 74, 72, 62, 60, 58, 56, 54]
    moves = tuple(m for pair in zip(black_moves, white_moves, strict=True) for m in pair)
    results.append(game_outcome(0, moves=(*moves, 81, 81), score_a=0.0, result="W+7"))
    results.append(game_outcome(1, moves=(*moves, 81, 81), score_a=1.0, result="B+7"))
    results.close()
    argv = [str(path), "--net", "strong-9x9", "--playouts", "2", "--first", "4", "--every", "4"]
    assert accuracy.main([*argv, "--lam", "0.25", "0.5"]) == 0
    out = capsys.readouterr().out
    # moves 4, 8, 12 and 16 of each game's 22 (20 and 21, its last two, are left out)
    assert "8 positions, 4 of them in games A lost" in out
    assert out.count("mixed with the network at lam=0.25") == 2
    assert "light playouts: squared error" in out and "heavy playouts: squared error" in out
    assert "nakade playouts" not in out  # scored only on demand
    errors = [
        float(line.split("squared error ")[1].split()[0])
        for line in out.splitlines()
        if "squared error" in line
    ]
    assert all(0 <= e <= 4 for e in errors) and np.isfinite(errors).all()
    assert accuracy.main([*argv, "--policies", "nakade", "heavy"]) == 0
    out = capsys.readouterr().out
    assert out.index("nakade playouts") < out.index("heavy playouts") and "light" not in out
    assert accuracy.main([str(path), "--net", "no-such-net.pt"]) == 2
    assert "no-such-net.pt" in capsys.readouterr().err
    assert accuracy.main([*argv[:3], "--first", "99"]) == 2
    assert "no position to sample" in capsys.readouterr().err
