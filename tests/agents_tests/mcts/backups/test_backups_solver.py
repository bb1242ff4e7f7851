"""MCTS-Solver (Winands et al. 2008): proofs, their propagation, and the secure child."""

from __future__ import annotations

import numpy as np
import pytest

from agents.mcts.backups import backup_spec, bind_backup, make_backup
from agents.mcts.backups.mean import MeanBackup
from agents.mcts.backups.solver import SolverBackup, secure_child
from agents.mcts.tree import PROVEN_LOSS, PROVEN_WIN, UNPROVEN, Tree
from agents.plugins import capability


def expand(tree: Tree, node: int, count: int, terminal: tuple[int, ...] = ()) -> list[int]:
    tree.add_children(node, np.arange(count), np.full(count, 1.0 / count))
    kids = [int(c) for c in tree.children(node)]
    for i in terminal:
        tree.terminal[kids[i]] = 1
    return kids


def test_proves_a_one_move_win() -> None:
    s = SolverBackup().bind(100)
    tree = Tree(n_stats=s.n_stats)
    s.backup(tree, np.array([0]), 0.0)
    a, b = expand(tree, 0, 2, terminal=(0,))
    s.backup(tree, np.array([0, b]), 0.2)
    # The game is over at a and the player to move there has lost.
    s.backup(tree, np.array([0, a]), -1.0)
    assert tree.proven[a] == PROVEN_WIN and tree.value[a] == 1.0
    assert tree.proven[0] == PROVEN_LOSS and tree.value[0] == -1.0  # the root player wins
    assert tree.proven[b] == UNPROVEN
    assert secure_child(tree, 0) == a


def test_proves_a_two_ply_forced_win() -> None:
    # Root player A plays m; both replies of B end the game with A winning.
    s = SolverBackup().bind(100)
    tree = Tree(n_stats=s.n_stats)
    s.backup(tree, np.array([0]), 0.0)
    m, other = expand(tree, 0, 2)
    s.backup(tree, np.array([0, m]), 0.0)
    r1, r2 = expand(tree, m, 2, terminal=(0, 1))
    s.backup(tree, np.array([0, m, r1]), 1.0)  # A to move at r1 and has won
    assert tree.proven[r1] == PROVEN_LOSS  # a loss for B, who moved into r1
    assert tree.proven[m] == UNPROVEN  # B still has r2 to try
    assert tree.value[m] == pytest.approx((0.0 + 1.0) / 2)  # a regular result, not a proof
    s.backup(tree, np.array([0, m, r2]), 1.0)
    assert tree.proven[m] == PROVEN_WIN and tree.value[m] == 1.0
    assert tree.proven[0] == PROVEN_LOSS and tree.value[0] == -1.0
    assert tree.proven[other] == UNPROVEN
    assert secure_child(tree, 0) == m


def test_propagates_proven_losses_and_backs_up_regular_losses() -> None:
    s = SolverBackup().bind(100)
    tree = Tree(n_stats=s.n_stats)
    s.backup(tree, np.array([0]), 0.0)
    a, b = expand(tree, 0, 2)
    s.backup(tree, np.array([0, a]), 0.0)
    s.backup(tree, np.array([0, b]), 0.0)
    a1, _a2 = expand(tree, a, 2, terminal=(0,))
    s.backup(tree, np.array([0, a, a1]), -1.0)  # B wins by a1: a is lost for A
    assert tree.proven[a1] == PROVEN_WIN and tree.proven[a] == PROVEN_LOSS
    assert tree.value[a] == -1.0
    # Some but not all of the root's moves lose: a regular result (+1 for the root's
    # opponent) is averaged in, no proof.
    assert tree.proven[0] == UNPROVEN
    assert tree.value[0] == pytest.approx((0.0 + 0.0 + 0.0 + 1.0) / 4)
    (b1,) = expand(tree, b, 1, terminal=(0,))
    s.backup(tree, np.array([0, b, b1]), -1.0)
    assert tree.proven[b] == PROVEN_LOSS
    assert tree.proven[0] == PROVEN_WIN and tree.value[0] == 1.0  # every move loses
    assert secure_child(tree, 0) in (a, b)


def test_draws_stay_unproven() -> None:
    s = SolverBackup().bind(10)
    tree = Tree(n_stats=s.n_stats)
    s.backup(tree, np.array([0]), 0.0)
    (d,) = expand(tree, 0, 1, terminal=(0,))
    s.backup(tree, np.array([0, d]), 0.0)
    assert tree.proven[d] == UNPROVEN and tree.proven[0] == UNPROVEN


def test_terminal_results_are_backed_up_exactly() -> None:
    s = SolverBackup().bind(10)
    tree = Tree(n_stats=s.n_stats)
    s.backup(tree, np.array([0]), 0.0)
    (t,) = expand(tree, 0, 1, terminal=(0,))
    s.backup(tree, np.array([0, t]), 0.3)  # a scaled result: its sign decides
    assert tree.proven[t] == PROVEN_LOSS and tree.value[t] == -1.0
    assert tree.proven[0] == PROVEN_WIN and tree.value[0] == 1.0


def test_nodes_above_an_earlier_proof_receive_its_result() -> None:
    s = SolverBackup().bind(100)
    tree = Tree(n_stats=s.n_stats)
    s.backup(tree, np.array([0]), 0.0)
    a, b = expand(tree, 0, 2)
    s.backup(tree, np.array([0, b]), 0.0)
    s.backup(tree, np.array([0, a]), 0.0)
    a1, a2 = expand(tree, a, 2, terminal=(0,))
    s.backup(tree, np.array([0, a, a1]), -1.0)  # a: proven loss for A
    root_before = tree.value[0]
    s.backup(tree, np.array([0, a, a2]), 0.3)  # a search that still walks into a
    assert tree.value[a2] == pytest.approx(-0.3)  # the ordinary result below the proof
    assert tree.value[a] == -1.0
    assert tree.visits[a] == 3 and tree.visits[0] == 5
    # The root receives +1 (a's proven loss for A), not the leaf's -0.3 / +0.3.
    assert tree.value[0] == pytest.approx(root_before + (1.0 - root_before) / 5)


def test_a_proven_leaf_backs_up_its_proof() -> None:
    s = SolverBackup().bind(100)
    tree = Tree(n_stats=s.n_stats)
    s.backup(tree, np.array([0]), 0.0)
    (t, _u) = expand(tree, 0, 2, terminal=(0,))
    s.backup(tree, np.array([0, t]), 1.0)
    assert tree.proven[t] == PROVEN_LOSS
    s.backup(tree, np.array([0, t]), 0.0)  # treated as a leaf again, value ignored
    assert tree.value[t] == -1.0
    assert tree.value[0] == pytest.approx((0.0 + 1.0 + 1.0) / 3)


def test_wraps_other_strategies() -> None:
    s = make_backup('solver:inner="softmax:g=[-1.0,-1.0]"')
    assert s.inner == make_backup("softmax:g=[-1,-1]") and s.n_stats == 3  # built once
    assert backup_spec(s) == 'solver:inner="softmax:g=[-1.0,-1.0]"'  # canonical spec
    assert backup_spec(make_backup("solver:softmax")) == "solver:softmax"
    assert make_backup("solver").inner == MeanBackup() and make_backup("solver").n_stats == 0
    assert capability(make_backup("solver"), "proves_values")  # a class attribute
    assert not capability(make_backup("softmax"), "proves_values")
    bound = bind_backup(make_backup("solver:coulom"), 50, board_points=361)
    assert bound.inner_strategy.board_points == 361
    assert bound.n_stats == 1


def test_inner_is_validated() -> None:
    with pytest.raises(ValueError, match="Did you mean 'softmax'"):
        SolverBackup(inner="softmx")
    with pytest.raises(ValueError, match="cannot be another solver"):
        SolverBackup(inner="solver")
    with pytest.raises(ValueError, match="'alpha'"):
        SolverBackup(inner="erwa:alpha=3")


def test_secure_child_rule() -> None:
    tree = Tree()
    kids = expand(tree, 0, 4)
    tree.visits[kids] = [100, 4, 1, 0]
    tree.value[kids] = [0.6, 0.3, -0.5, 0.9]
    # q + 1/sqrt(n) (as printed): 0.7, 0.8, 0.5; the unvisited child is never chosen
    assert secure_child(tree, 0, a=1.0) == kids[1]
    # q - 1/sqrt(n) (the default, a lower confidence bound): 0.5, -0.2, -1.5
    assert secure_child(tree, 0) == kids[0]
    tree.proven[kids[0]] = PROVEN_LOSS
    assert secure_child(tree, 0) == kids[1]
    tree.proven[kids[0]] = 0
    tree.proven[kids[1]] = PROVEN_LOSS
    assert secure_child(tree, 0, a=1.0) == kids[0]
    tree.proven[kids[:3]] = PROVEN_LOSS
    assert secure_child(tree, 0) == kids[0]  # all lost: the most visited
    with pytest.raises(ValueError, match="no visited child"):
        secure_child(tree, kids[0])
