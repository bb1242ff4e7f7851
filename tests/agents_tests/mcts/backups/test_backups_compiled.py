"""The built-in backups called from compiled code do what their ``backup`` methods do."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from agents.mcts.backups import bind_backup, make_backup
from agents.mcts.backups.compiled import kernel_of, run_backup, run_solver_backup
from agents.mcts.backups.softmax import SoftmaxBackup
from agents.mcts.backups.solver import SolverBackup
from agents.mcts.testing import random_path
from agents.mcts.tree import Tree
from agents.traps.search import TrapSearch
from agents.traps.trees import TrapTreeConfig

SPECS = [
    "mean",
    "erwa:alpha=0.1,variant=unbiased",
    "maxmcts:lam=0.5",
    "power_mean:p=2.5,recursive=false",
    "softmax:g=[-1,0,1]",
    "monotone:g=[1,-2,3],zero_based=true",
    "xie_liu:profile=linear,beta=3",
    "coulom:a=0.01,b=0.05",
    "solver:softmax",
    "solver:coulom",
]


@dataclass(frozen=True, kw_only=True)
class PythonSoftmax(SoftmaxBackup):
    """A subclass: it could override ``backup``, so compiled code must not stand in for it."""


def _snapshot(tree: Tree) -> list[np.ndarray]:
    n = tree.size
    return [tree.visits[:n], tree.value[:n], tree.stats[:n], tree.proven[:n]]


@pytest.mark.parametrize("spec", SPECS)
def test_compiled_backup_is_the_backup_method(spec: str) -> None:
    strategy = bind_backup(make_backup(spec), 300, board_points=25)
    compiled = kernel_of(strategy)
    assert compiled is not None and compiled.solver == spec.startswith("solver")
    run = run_solver_backup if compiled.solver else run_backup
    trees = [Tree(strategy.n_stats, capacity=2) for _ in range(2)]
    for step in range(300):
        path, leaf_value = random_path(trees[0], np.random.default_rng(step))
        random_path(trees[1], np.random.default_rng(step))  # the same growth
        strategy.backup(trees[0], path, leaf_value)
        run(compiled.kind, trees[1].arrays, path, leaf_value, compiled.table, compiled.params)
    for mine, theirs in zip(_snapshot(trees[1]), _snapshot(trees[0]), strict=True):
        np.testing.assert_array_equal(mine, theirs)


def test_only_bound_built_ins_have_a_compiled_form() -> None:
    assert kernel_of(make_backup("xie_liu")) is None  # not bound: its table is missing
    assert kernel_of(PythonSoftmax().bind(100)) is None
    assert kernel_of(SolverBackup(inner=PythonSoftmax()).bind(100)) is None
    assert kernel_of(object()) is None


@pytest.mark.parametrize("spec", ["softmax:g=[-1,0,1]", 'solver:inner="softmax:g=[-1,0,1]"'])
def test_trap_search_backs_up_in_compiled_code_as_in_python(spec: str) -> None:
    trees = TrapTreeConfig(deceptive=True)
    python = PythonSoftmax(g=(-1.0, 0.0, 1.0))
    if spec.startswith("solver"):
        python = SolverBackup(inner=python)  # type: ignore[assignment]
    for seed in range(3):
        fast = TrapSearch(spec, trees, policy="puct-noisy").run(seed, 400)
        slow = TrapSearch(python, trees, policy="puct-noisy").run(seed, 400)
        assert (fast.move, fast.root_value, fast.simulations, fast.nodes) == (
            slow.move,
            slow.root_value,
            slow.simulations,
            slow.nodes,
        )


def test_solver_backup_in_one_call_is_the_three_calls() -> None:
    fast = SolverBackup(inner=SoftmaxBackup(g=(-1.0, 0.0, 1.0))).bind(300)
    slow = SolverBackup(inner=PythonSoftmax(g=(-1.0, 0.0, 1.0))).bind(300)  # Python path
    assert kernel_of(fast) is not None and kernel_of(slow) is None
    trees = [Tree(3, capacity=2) for _ in range(2)]
    for step in range(300):
        path, leaf_value = random_path(trees[0], np.random.default_rng(step))
        random_path(trees[1], np.random.default_rng(step))
        slow.backup(trees[0], path, leaf_value)
        fast.backup(trees[1], path, leaf_value)
    assert trees[1].proven[: trees[1].size].any()  # the solver had work to do
    for mine, theirs in zip(_snapshot(trees[1]), _snapshot(trees[0]), strict=True):
        np.testing.assert_array_equal(mine, theirs)
