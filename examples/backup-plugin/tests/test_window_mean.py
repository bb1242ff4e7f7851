"""The example plugin passes gomcts's conformance kit and does what it says."""

from __future__ import annotations

import numpy as np
import pytest
from gomcts_backup_example import WindowMeanBackup

from agents.mcts.backups.mean import MeanBackup
from agents.mcts.testing import BackupContract, run_random_search
from agents.mcts.tree import Tree


class TestWindowMeanContract(BackupContract):
    @pytest.fixture(params=[1, 3, 16])
    def strategy(self, request: pytest.FixtureRequest) -> WindowMeanBackup:
        return WindowMeanBackup(window=request.param)

    @pytest.fixture
    def backup_name(self) -> str:
        return "window_mean"


def test_mean_of_the_last_returns() -> None:
    strategy = WindowMeanBackup(window=3)
    tree = Tree(n_stats=strategy.n_stats)
    returns = [0.9, -0.5, 0.2, 1.0, -1.0]
    for i, x in enumerate(returns, start=1):
        strategy.backup(tree, np.array([0]), -x)
        last = returns[max(0, i - 3) : i]
        assert tree.value[0] == pytest.approx(sum(last) / len(last))


def test_a_wide_window_is_the_mean() -> None:
    # Every node of a 12-simulation search has at most 12 visits <= 16.
    got = run_random_search(WindowMeanBackup(window=16), n_simulations=12, seed=1)
    ref = run_random_search(MeanBackup(), n_simulations=12, seed=1)
    np.testing.assert_allclose(got.value, ref.value, atol=1e-15)


@pytest.mark.parametrize("window", [0, 17, 2.5, True])
def test_window_is_validated(window: object) -> None:
    with pytest.raises(ValueError, match="'window' must be an int in \\[1, 16\\]"):
        WindowMeanBackup(window=window)  # type: ignore[arg-type]
