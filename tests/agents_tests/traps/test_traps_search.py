"""MCTS on trap trees: every registered backup runs through the same search."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from agents.mcts.backups import BACKUPS
from agents.mcts.tree import Tree
from agents.traps import TrapSearch, TrapTreeConfig
from agents.traps.trees import TRAP, TrapTree

SMALL = TrapTreeConfig(b=4, depth=8, rho=0.2, k=3, sigma=0.3)


@pytest.mark.parametrize("name", BACKUPS.names())
@pytest.mark.parametrize("policy", ["uct", "puct", "puct-noisy"])
def test_every_registered_backup_runs_through_the_search(name: str, policy: str) -> None:
    search = TrapSearch(name, SMALL, policy=policy)
    outcome = search.run(seed=3, sims=300)
    assert 1 <= outcome.simulations <= 300
    assert outcome.nodes > 1
    assert -1.0 <= outcome.root_value <= 1.0
    assert outcome.error == pytest.approx(abs(outcome.root_value - 1.0))
    assert 0 <= outcome.move < SMALL.b
    children = TrapTree(SMALL, 3).children(TrapTree(SMALL, 3).root)
    chosen = children[outcome.move]
    assert outcome.winning == (chosen.vstar < 0)
    assert outcome.trap == (chosen.kind == TRAP)
    assert outcome.root_traps == sum(c.kind == TRAP for c in children)


@dataclass(frozen=True, kw_only=True)
class LastReturn:
    """A pure-Python plugin backup: every node keeps its last return."""

    n_stats: ClassVar[int] = 0

    def bind(self, n_simulations: int) -> LastReturn:
        return self

    def backup(self, tree: Tree, path: np.ndarray, leaf_value: float) -> None:
        x = -leaf_value
        for node in path[::-1]:
            tree.visits[node] += 1
            tree.value[node] = x
            x = -x


def test_a_plugin_backup_runs_through_the_search() -> None:
    BACKUPS.register("last_return_test", LastReturn)
    try:
        outcome = TrapSearch("last_return_test", SMALL).run(seed=1, sims=200)
    finally:
        BACKUPS.unregister("last_return_test")
    assert outcome.simulations == 200


def test_search_is_deterministic_and_visits_add_up() -> None:
    a = TrapSearch("softmax", SMALL).run(seed=11, sims=500)
    b = TrapSearch("softmax", SMALL).run(seed=11, sims=500)
    assert (a.move, a.root_value, a.nodes) == (b.move, b.root_value, b.nodes)


def test_honest_evaluations_find_winning_moves_and_deceptive_traps_catch_mean() -> None:
    honest = TrapTreeConfig(sigma=0.3)
    liar = TrapTreeConfig(sigma=0.3, deceptive=True)
    found = [TrapSearch("mean", honest).run(seed=s, sims=400).winning for s in range(30)]
    trapped = [TrapSearch("mean", liar).run(seed=s, sims=400).trap for s in range(30)]
    assert np.mean(found) > 0.9
    assert np.mean(trapped) > 0.1


def test_solver_proves_small_trees_and_stops() -> None:
    tiny = TrapTreeConfig(b=2, depth=4, rho=0.3, k=1)
    outcome = TrapSearch("solver", tiny).run(seed=0, sims=5000)
    assert outcome.simulations < 5000
    assert outcome.winning
    assert outcome.root_value == 1.0


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="policy must be one of"):
        TrapSearch("mean", SMALL, policy="ucb")
    with pytest.raises(ValueError, match="sims must be a positive int"):
        TrapSearch("mean", SMALL).run(seed=0, sims=0)
    with pytest.raises(ValueError, match="seed must be an int >= 0"):
        TrapSearch("mean", SMALL).run(seed=-1, sims=10)
    with pytest.raises(ValueError, match="c must be"):
        TrapSearch("mean", SMALL, c=-1.0)


def test_a_tree_that_outgrows_its_first_arrays() -> None:
    wide = TrapTreeConfig(b=20, depth=8, rho=0.2, k=1)
    search = TrapSearch("softmax", wide)
    outcome = search.run(seed=2, sims=4500)  # 4,500 x 20 children > the first 65,556 nodes
    assert outcome.nodes > 65536
    assert outcome.simulations == 4500
    children = TrapTree(wide, 2).children(TrapTree(wide, 2).root)
    assert outcome.winning == (children[outcome.move].vstar < 0)
