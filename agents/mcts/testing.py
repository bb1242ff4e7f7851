"""Conformance kits for plugins: subclass :class:`BackupContract` or :class:`EvaluatorContract`.

Usage (pytest)::

    import pytest
    from agents.mcts.testing import BackupContract
    from my_plugin import MyBackup

    class TestMyBackup(BackupContract):
        @pytest.fixture
        def strategy(self):
            return MyBackup(window=8)

The inherited tests check the protocol of :mod:`agents.mcts.backups.base` on trees grown by
random simulations (:func:`random_path`): a frozen keyword-only dataclass with ``n_stats``;
``bind`` returns a strategy; ``backup`` adds one visit to each node of the path and none
elsewhere; values stay finite and in ``[-1, 1]``; the sign convention; determinism; results that
do not depend on the tree's array growth; and a spec-string round trip of the parameters.
Override ``backup_name`` when the strategy is not installed under an entry point yet, and set
``values_only_on_path = False`` for a strategy that legitimately rewrites values off the path.

A leaf-evaluator plugin (:mod:`agents.mcts.evaluator_plugins`) is checked the same way::

    from agents.mcts.testing import EvaluatorContract

    class TestMyEvaluator(EvaluatorContract):
        @pytest.fixture
        def plugin(self):
            return MyEvaluatorConfig(depth=2)

:class:`EvaluatorContract` checks a frozen keyword-only dataclass passing the registry's check,
a spec round trip when it is registered, priors and values of the documented shapes and ranges
on real positions, seeded determinism, and a search of a few simulations that uses it.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar, Literal

import numpy as np
import pytest

from agents.mcts.backups.base import BackupStrategy, check_backup_class
from agents.mcts.backups.binding import bind_backup
from agents.mcts.tree import Tree
from agents.spec import config_from_params, format_spec, parse_spec

__all__ = ["BackupContract", "EvaluatorContract", "leaf_batch", "random_path", "run_random_search"]


def _terminal_outcome(node: int) -> float:
    """A fixed exact outcome (-1, 0 or +1) for a terminal node, from its index."""
    return float((node * 7919) % 3 - 1)


def random_path(
    tree: Tree,
    rng: np.random.Generator,
    *,
    max_children: int = 4,
    terminal_prob: float = 0.15,
    revisit_prob: float = 0.2,
) -> tuple[np.ndarray, float]:
    """Choose a simulation's path as a search would, growing the tree; return it and ``v``.

    From the root, descend through random children. A visited, unexpanded leaf is expanded
    with 1..``max_children`` children (each terminal with probability ``terminal_prob``),
    except with probability ``revisit_prob``, when it is evaluated again as it is. The leaf
    value is the fixed outcome of a terminal node, else one of -1, 0, 1 or a uniform draw.

    Returns:
        ``(path, leaf_value)``: ``int64 (L+1,)`` from the root, and ``v(s_L)`` in ``[-1, 1]``.
    """
    node = 0
    path = [0]
    while not tree.terminal[node]:
        if tree.n_children[node] == 0:
            if tree.visits[node] == 0 or rng.random() < revisit_prob:
                break
            count = int(rng.integers(1, max_children + 1))
            tree.add_children(node, np.arange(count, dtype=np.int64), np.full(count, 1.0 / count))
            for child in tree.children(node):
                if rng.random() < terminal_prob:
                    tree.terminal[child] = 1
        node = int(rng.choice(tree.children(node)))
        path.append(node)
    if tree.terminal[node]:
        leaf_value = _terminal_outcome(node)
    else:
        pick = int(rng.integers(4))
        leaf_value = (-1.0, 0.0, 1.0, float(rng.uniform(-1.0, 1.0)))[pick]
    return np.array(path, dtype=np.int64), leaf_value


def run_random_search(
    strategy: Any,
    *,
    n_simulations: int = 200,
    seed: int = 0,
    capacity: int = 2,
    tree: Tree | None = None,
) -> Tree:
    """Bind ``strategy`` to ``n_simulations`` and back up that many random simulations."""
    bound = strategy.bind(n_simulations)
    if tree is None:
        tree = Tree(n_stats=bound.n_stats, capacity=capacity)
    rng = np.random.default_rng(seed)
    for _ in range(n_simulations):
        path, leaf_value = random_path(tree, rng)
        bound.backup(tree, path, leaf_value)
    return tree


def _snapshot(tree: Tree) -> dict[str, np.ndarray]:
    size = tree.size
    return {
        "visits": tree.visits[:size].copy(),
        "value": tree.value[:size].copy(),
        "stats": tree.stats[:size].copy(),
        "proven": tree.proven[:size].copy(),
    }


class BackupContract:
    """Protocol tests every backup strategy must pass; subclass and provide ``strategy``."""

    n_simulations: ClassVar[int] = 200
    """Budget ``N`` given to ``bind`` and number of random simulations per test."""

    values_only_on_path: ClassVar[bool] = True
    """Whether ``backup`` leaves the values of nodes off the path untouched."""

    @pytest.fixture
    def strategy(self) -> Any:
        """The strategy under test (override this fixture)."""
        raise NotImplementedError("subclasses of BackupContract must define a `strategy` fixture")

    @pytest.fixture
    def backup_name(self, strategy: Any) -> str:
        """The name for the spec round trip: the registered name, else the class name."""
        from agents.mcts.backups import backup_spec

        try:
            return parse_spec(backup_spec(strategy))[0]
        except ValueError:
            return type(strategy).__name__

    # ------------------------------------------------------------------ structure
    def test_is_frozen_keyword_only_dataclass(self, strategy: Any) -> None:
        """A frozen dataclass whose hyperparameters are keyword-only, passing the registry check."""
        cls = type(strategy)
        check_backup_class(cls)
        params = getattr(cls, "__dataclass_params__", None)
        assert params is not None and params.frozen, f"{cls.__name__} must be a frozen dataclass"
        fields = [f for f in dataclasses.fields(strategy) if f.init]
        positional = [f.name for f in fields if not f.kw_only]
        assert not positional, f"hyperparameters must be keyword-only: {positional}"
        if fields:
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(strategy, fields[0].name, getattr(strategy, fields[0].name))

    def test_n_stats_is_non_negative_int(self, strategy: Any) -> None:
        """``n_stats`` is a non-negative int on the class and on the instance."""
        for n_stats in (type(strategy).n_stats, strategy.n_stats):
            assert isinstance(n_stats, int) and not isinstance(n_stats, bool)
            assert n_stats >= 0

    def test_bind_returns_a_strategy(self, strategy: Any) -> None:
        """``bind`` (with and without ``board_points``) returns a strategy that can bind again."""
        for bound in (
            strategy.bind(self.n_simulations),
            bind_backup(strategy, self.n_simulations, board_points=25),
        ):
            assert isinstance(bound, BackupStrategy)
            check_backup_class(type(bound))
            assert isinstance(bound.n_stats, int) and bound.n_stats >= 0
            assert isinstance(bound.bind(self.n_simulations), BackupStrategy)

    # ------------------------------------------------------------------ behaviour
    def test_visits_increment_by_one_along_the_path_only(self, strategy: Any) -> None:
        """Each backup adds one visit to every node of the path and none elsewhere."""
        bound = strategy.bind(self.n_simulations)
        tree = Tree(n_stats=bound.n_stats, capacity=2)
        rng = np.random.default_rng(1)
        for _ in range(self.n_simulations):
            path, leaf_value = random_path(tree, rng)
            before = _snapshot(tree)
            bound.backup(tree, path, leaf_value)
            after = _snapshot(tree)
            expected = before["visits"].copy()
            expected[path] += 1
            np.testing.assert_array_equal(
                after["visits"], expected, err_msg=f"visits wrong after backing up {path}"
            )
            if self.values_only_on_path:
                off = np.ones(tree.size, dtype=bool)
                off[path] = False
                np.testing.assert_array_equal(
                    after["value"][off], before["value"][off], err_msg="values off the path changed"
                )

    def test_values_finite_and_within_bounds(self, strategy: Any) -> None:
        """Values of visited nodes are finite and in ``[-1, 1]``; statistics are finite."""
        for seed in range(3):
            tree = run_random_search(strategy, n_simulations=self.n_simulations, seed=seed)
            value = tree.value[: tree.size][tree.visits[: tree.size] > 0]
            assert np.isfinite(value).all(), "a value is NaN or infinite"
            assert (np.abs(value) <= 1.0 + 1e-12).all(), f"values out of [-1, 1]: {value}"
            assert np.isfinite(tree.stats[: tree.size]).all(), "a statistic is NaN or infinite"

    def test_repeated_extreme_returns_stay_finite(self, strategy: Any) -> None:
        """Hundreds of exact wins and losses along one deep path keep values finite and bounded."""
        bound = strategy.bind(self.n_simulations)
        tree = Tree(n_stats=bound.n_stats)
        path = [0]
        for _ in range(6):  # a chain of single children, expanded as a search would
            bound.backup(tree, np.array(path, dtype=np.int64), 1.0)
            tree.add_children(path[-1], np.array([0]), np.array([1.0]))
            path.append(int(tree.first_child[path[-1]]))
        arr = np.array(path, dtype=np.int64)
        for i in range(3 * self.n_simulations):
            bound.backup(tree, arr, 1.0 if i % 7 else -1.0)
        value = tree.value[arr]
        assert np.isfinite(value).all() and (np.abs(value) <= 1.0 + 1e-12).all()
        assert np.isfinite(tree.stats[: tree.size]).all()

    def test_sign_convention(self, strategy: Any) -> None:
        """A lost leaf is good for the player who moved into it; signs alternate upwards."""
        for won in (True, False):
            bound = strategy.bind(self.n_simulations)
            tree = Tree(n_stats=bound.n_stats)
            bound.backup(tree, np.array([0]), 0.0)
            tree.add_children(0, np.array([0, 1]), np.array([0.5, 0.5]))
            bound.backup(tree, np.array([0, 1]), 0.0)
            tree.add_children(1, np.array([0, 1]), np.array([0.5, 0.5]))
            # The player to move at the leaf (node 3) has lost (won=True) or won.
            leaf_value = -1.0 if won else 1.0
            bound.backup(tree, np.array([0, 1, 3]), leaf_value)
            sign = 1.0 if won else -1.0
            assert sign * tree.value[3] > 0, "the leaf's value is not from its mover's view"
            assert sign * tree.value[1] < 0, "the sign does not alternate at the leaf's parent"
            assert sign * tree.value[0] > 0, "the sign does not alternate at the root"

    def test_deterministic(self, strategy: Any) -> None:
        """The same simulations give bit-identical trees."""
        a = _snapshot(run_random_search(strategy, n_simulations=self.n_simulations, seed=7))
        b = _snapshot(run_random_search(strategy, n_simulations=self.n_simulations, seed=7))
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=f"{key} differs between runs")

    def test_independent_of_array_growth(self, strategy: Any) -> None:
        """Results do not depend on when ``Tree.reserve`` reallocates the arrays."""
        big = _snapshot(
            run_random_search(strategy, n_simulations=self.n_simulations, seed=3, capacity=4096)
        )
        bound = strategy.bind(self.n_simulations)
        tree = Tree(n_stats=bound.n_stats, capacity=2)
        rng = np.random.default_rng(3)
        for i in range(self.n_simulations):
            path, leaf_value = random_path(tree, rng)
            if i % 16 == 0:  # force a reallocation between backups
                tree.reserve(tree.capacity - tree.size + 1)
            bound.backup(tree, path, leaf_value)
        small = _snapshot(tree)
        for key in big:
            np.testing.assert_array_equal(
                small[key], big[key], err_msg=f"{key} depends on the arrays' growth"
            )

    def test_spec_round_trip(self, strategy: Any, backup_name: str) -> None:
        """``format_spec`` then ``config_from_params`` rebuild an equal, identical strategy."""
        text = format_spec(backup_name, strategy)
        name, params = parse_spec(text)
        assert name == backup_name
        rebuilt = config_from_params(type(strategy), params, what=f"backup {name!r}")
        assert rebuilt == strategy, f"{text!r} rebuilds {rebuilt!r}, not {strategy!r}"
        a = _snapshot(run_random_search(strategy, n_simulations=50, seed=5))
        b = _snapshot(run_random_search(rebuilt, n_simulations=50, seed=5))
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])

    def test_values_are_not_nan_after_single_visit(self, strategy: Any) -> None:
        """A single visit of a lone root gives a finite value in ``[-1, 1]``."""
        bound = strategy.bind(self.n_simulations)
        for leaf_value in (-1.0, -0.25, 0.0, 0.5, 1.0):
            tree = Tree(n_stats=bound.n_stats)
            bound.backup(tree, np.array([0]), leaf_value)
            assert tree.visits[0] == 1
            assert math.isfinite(tree.value[0]) and abs(tree.value[0]) <= 1.0


# ---------------------------------------------------------------------- evaluators
def leaf_batch(states: list[Any]) -> Any:
    """A :class:`~agents.mcts.evaluators.LeafBatch` of ``states`` (leaves of ``states[0]``).

    The states must share their rules; the move sequences are empty, so an evaluator that needs
    a leaf's history sees the leaf's own state only through ``vectors``.
    """
    from agents.mcts.evaluators import LeafBatch

    root = states[0]
    vectors = np.stack([s.compiled().vector for s in states])
    count = len(states)
    return LeafBatch(
        root, root.compiled(), vectors, np.zeros((count, 1), np.int64), np.zeros(count, np.int64)
    )


def _positions(size: int, count: int, seed: int) -> list[Any]:
    """``count`` positions reached by a few random legal moves on a ``size`` board."""
    from go_env.rules import Rules
    from go_env.state import GoState

    rng = np.random.default_rng(seed)
    out = []
    for index in range(count):
        state = GoState(Rules(size=size, komi=7.5))
        for _ in range(2 * index):
            moves = [m for m in state.legal_moves() if m != state.pass_move]
            if not moves or state.is_over:
                break
            state.play(int(rng.choice(moves)))
        out.append(state)
    return out


class EvaluatorContract:
    """Protocol tests every leaf-evaluator plugin must pass; subclass and provide ``plugin``."""

    board_size: ClassVar[int] = 5
    """Board of the test positions (a network trained on one size sets it)."""

    batch_size: ClassVar[int] = 4
    """Leaves per evaluated batch."""

    policy: ClassVar[Literal["uct", "puct"]] = "uct"
    """Tree policy of the search test (``"puct"`` for evaluators with priors)."""

    @pytest.fixture
    def plugin(self) -> Any:
        """The evaluator plugin (its options) under test (override this fixture)."""
        raise NotImplementedError("subclasses of EvaluatorContract must define a `plugin` fixture")

    def test_is_frozen_keyword_only_dataclass(self, plugin: Any) -> None:
        """A frozen dataclass with keyword-only options, passing the registry's check."""
        from agents.mcts.evaluator_plugins import check_evaluator_class

        cls = type(plugin)
        check_evaluator_class(cls)
        params = getattr(cls, "__dataclass_params__", None)
        assert params is not None and params.frozen, f"{cls.__name__} must be frozen"
        for field in dataclasses.fields(cls):
            assert field.kw_only, f"{cls.__name__}.{field.name} must be keyword-only"

    def test_spec_round_trip(self, plugin: Any) -> None:
        """``build(spec_of(plugin)) == plugin`` when the class is registered."""
        from agents.mcts.evaluator_plugins import EVALUATORS

        if EVALUATORS.name_of(type(plugin)) is None:
            pytest.skip(f"{type(plugin).__name__} is not registered in gomcts.evaluators")
        spec = EVALUATORS.spec_of(plugin)
        assert EVALUATORS.build(spec) == plugin, spec

    def test_evaluates_priors_and_values(self, plugin: Any) -> None:
        """Priors ``(B, N*N+1)``, finite and non-negative; values ``(B,)`` in ``[-1, 1]``."""
        from agents.mcts.evaluators import Evaluator

        evaluator = plugin.build(seed=1, score_scale=0.0)
        assert isinstance(evaluator, Evaluator), f"build() returned {evaluator!r}"
        assert isinstance(evaluator.uniform_priors, bool)
        batch = leaf_batch(_positions(self.board_size, self.batch_size, seed=0))
        priors, values = evaluator.evaluate(batch)
        priors, values = np.asarray(priors), np.asarray(values)
        actions = self.board_size * self.board_size + 1
        assert priors.shape == (self.batch_size, actions)
        assert values.shape == (self.batch_size,)
        assert np.isfinite(priors).all() and (priors >= 0).all()
        assert np.isfinite(values).all() and (np.abs(values) <= 1.0 + 1e-9).all()

    def test_seeded_builds_agree(self, plugin: Any) -> None:
        """Two evaluators built with the same seed give the same values on the same leaves."""
        batch = leaf_batch(_positions(self.board_size, self.batch_size, seed=1))
        a = np.array(plugin.build(seed=7).evaluate(batch)[1], dtype=np.float64)
        b = np.array(plugin.build(seed=7).evaluate(batch)[1], dtype=np.float64)
        assert np.array_equal(a, b)

    def test_drives_a_search(self, plugin: Any) -> None:
        """``mcts:evaluator=<plugin>`` searches: every simulation backed up, values finite."""
        from agents.mcts.config import MCTSConfig
        from agents.mcts.search import Search

        config = MCTSConfig(sims=32, seed=3, policy=self.policy, evaluator=plugin, batch=2)
        evaluator = config.make_evaluator()
        search = Search(config.search_params(), evaluator)
        search.set_root(_positions(self.board_size, 1, seed=2)[0])
        stats = search.run(sims=32)
        tree = search.tree
        assert tree is not None and stats.simulations == 32
        assert int(tree.visits[0]) == 32
        assert np.isfinite(tree.value[: tree.size]).all()
