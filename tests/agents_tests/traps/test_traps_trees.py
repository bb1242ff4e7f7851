"""Trap trees: deterministic lazy generation, and labels checked by exhaustive minimax."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from agents.traps.trees import NORMAL, REPLY, TRAP, Node, TrapTree, TrapTreeConfig


def _walk(tree: TrapTree, node: Node) -> list[Node]:
    """Every node of the subtree of ``node``, depth first."""
    out = [node]
    for child in tree.children(node):
        out.extend(_walk(tree, child))
    return out


def _minimax(tree: TrapTree, node: Node) -> int:
    """Exhaustive negamax value for the player to move, from terminal outcomes only."""
    if tree.terminal(node):
        return node.vstar
    return max(-_minimax(tree, child) for child in tree.children(node))


def _wins_within(tree: TrapTree, node: Node, plies: int) -> bool:
    """Whether the player to move at ``node`` forces a terminal win within ``plies`` plies."""
    if tree.terminal(node):
        return False  # the game is over: the player to move there has not won by moving
    if plies <= 0:
        return False
    for child in tree.children(node):
        if tree.terminal(child) and child.vstar < 0:
            return True
        if plies >= 3 and not tree.terminal(child):
            replies = tree.children(child)
            if replies and all(_wins_within(tree, r, plies - 2) for r in replies):
                return True
    return False


SMALL = [
    TrapTreeConfig(b=3, depth=6, rho=0.3, k=1, q_win=0.3),
    TrapTreeConfig(b=3, depth=6, rho=0.3, k=3, q_win=0.2, deceptive=True),
    TrapTreeConfig(b=2, depth=8, rho=0.4, k=5, q_win=0.5),
    TrapTreeConfig(b=4, depth=5, rho=0.2, k=3, q_win=0.0, root_traps=2),
]


@pytest.mark.parametrize("config", SMALL)
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_labels_are_the_exhaustive_minimax_values(config: TrapTreeConfig, seed: int) -> None:
    tree = TrapTree(config, seed)
    nodes = _walk(tree, tree.root)
    assert tree.root.vstar == 1
    for node in nodes:
        assert _minimax(tree, node) == node.vstar, f"wrong label at {node}"
        if tree.terminal(node):
            assert node.depth == config.depth or (node.kind == REPLY and node.rem == 0)
        else:
            assert len(tree.children(node)) == config.b
        assert node.depth <= config.depth


@pytest.mark.parametrize("config", SMALL)
def test_traps_are_forced_wins_of_exactly_k_plies(config: TrapTreeConfig) -> None:
    traps = 0
    for seed in range(4):
        tree = TrapTree(config, seed)
        for node in _walk(tree, tree.root):
            if node.kind == TRAP:
                traps += 1
                assert node.vstar == 1 and node.rem % 2 == 1
                assert _wins_within(tree, node, node.rem), f"no forced win in {node.rem}: {node}"
                assert not _wins_within(tree, node, node.rem - 2), f"a faster win at {node}"
    assert traps > 0


@pytest.mark.parametrize("config", SMALL)
def test_root_has_the_forced_traps_and_a_winning_move(config: TrapTreeConfig) -> None:
    for seed in range(20):
        tree = TrapTree(config, seed)
        children = tree.children(tree.root)
        assert sum(c.kind == TRAP for c in children) >= config.root_traps
        assert any(c.vstar < 0 for c in children)


def test_generation_is_deterministic_and_depends_on_the_seed() -> None:
    config = TrapTreeConfig(b=3, depth=6, rho=0.3, k=3)

    def snapshot(seed: int) -> list[tuple[int, int, int, int, int, float]]:
        tree = TrapTree(config, seed)
        return [
            (n.key, n.vstar, n.kind, n.rem, n.depth, tree.evaluation(n))
            for n in _walk(tree, tree.root)
            if not tree.terminal(n)
        ]

    assert snapshot(5) == snapshot(5)
    assert snapshot(5) != snapshot(6)
    # a node's children do not depend on the order in which nodes are generated
    tree = TrapTree(config, 5)
    deep = tree.children(tree.children(tree.root)[2])[1]
    again = TrapTree(config, 5)
    again.children(again.root)
    assert again.children(again.children(again.root)[2])[1] == deep


def test_parameters_shape_the_trees() -> None:
    many = TrapTreeConfig(b=6, depth=8, rho=0.5, k=1, q_win=0.0, root_traps=0)
    none = TrapTreeConfig(b=6, depth=8, rho=0.0, k=1, q_win=0.9, root_traps=0)

    def root_children(config: TrapTreeConfig, seed: int) -> list[Node]:
        tree = TrapTree(config, seed)
        return tree.children(tree.root)

    kinds_many = [c.kind for s in range(50) for c in root_children(many, s)]
    kinds_none = [c.kind for s in range(50) for c in root_children(none, s)]
    assert 0.3 < np.mean([k == TRAP for k in kinds_many]) < 0.7
    assert all(k == NORMAL for k in kinds_none)
    wins = [c.vstar < 0 for s in range(50) for c in root_children(none, s)]
    assert np.mean(wins) > 0.8


def test_evaluator_noise_and_deception() -> None:
    honest = TrapTreeConfig(sigma=0.0)
    liar = TrapTreeConfig(sigma=0.0, deceptive=True)
    for seed in range(10):
        for config, flip in ((honest, 1), (liar, -1)):
            tree = TrapTree(config, seed)
            for child in tree.children(tree.root):
                sign = flip if child.kind != NORMAL else 1
                assert tree.evaluation(child) == sign * child.vstar
    noisy = TrapTree(TrapTreeConfig(sigma=0.5), 3)
    values = [noisy.evaluation(c) for c in noisy.children(noisy.root)]
    assert all(-1.0 <= v <= 1.0 for v in values)
    assert len(set(values)) > 1


@functools.cache
def _bad_configs() -> list[tuple[dict[str, object], str]]:
    return [
        ({"b": 1}, "b must be an integer in [2, 20]"),
        ({"k": 2}, "k must be 1, 3 or 5"),
        ({"rho": 1.5}, "rho must be a number in [0, 1]"),
        ({"sigma": -0.1}, "sigma"),
        ({"root_traps": 6}, "root_traps"),
        ({"depth": 3, "k": 5}, "needs depth >= 6"),
        ({"deceptive": 1}, "deceptive must be true or false"),
    ]


@pytest.mark.parametrize("index", range(7))
def test_bad_parameters_are_named(index: int) -> None:
    kwargs, message = _bad_configs()[index]
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        TrapTreeConfig(**kwargs)  # type: ignore[arg-type]
