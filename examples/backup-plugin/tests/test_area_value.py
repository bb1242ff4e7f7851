"""The example evaluator passes gomcts's evaluator conformance kit and scores what it sees."""

from __future__ import annotations

import numpy as np
import pytest
from gomcts_backup_example import AreaValueConfig

from agents.mcts.testing import EvaluatorContract, leaf_batch
from go_env.rules import Rules
from go_env.state import Color, GoState


class TestAreaValueContract(EvaluatorContract):
    @pytest.fixture(params=[1.0, 5.0])
    def plugin(self, request: pytest.FixtureRequest) -> AreaValueConfig:
        return AreaValueConfig(scale=request.param)


def test_value_is_the_area_margin_of_the_player_to_move() -> None:
    board = "X X . O O\nX X . O O\nX X . O O\nX X . O O\nX X . O O\n"
    rules = Rules(size=5, komi=0.5)
    black = GoState.from_ascii(board, rules)
    white = GoState.from_ascii(board, rules, to_play=Color.WHITE)
    evaluator = AreaValueConfig(scale=1.0).build()
    priors, values = evaluator.evaluate(leaf_batch([black, white]))
    assert np.allclose(priors, 1.0 / 26)
    assert values == pytest.approx([np.tanh(-0.5), np.tanh(0.5)])  # 10 - 10 - komi 0.5


def test_scale_is_validated() -> None:
    with pytest.raises(ValueError, match="'scale' must be a number > 0"):
        AreaValueConfig(scale=0.0)
