"""Searches run in rounds (SearchSet) are exactly the searches run alone.

The network's rows are computed one at a time here (a forward function that calls the
shipped network row by row), so that a batch gives bit for bit what a lone search's
batch of one gives; then K searches in a :class:`~agents.mcts.search_set.SearchSet`, and K
games through :func:`~agents.mcts.multi.round_robin`, must equal the same searches and games
run alone: the same visits and values, the same moves, the same evaluator counts (cache
hits and network evaluations). Searches that the set runs through their own steps
(rollouts, virtual-loss batches) ride along in the same rounds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest
from game_support import assert_same_tree

torch = pytest.importorskip("torch")

from agents.game import play_game_steps  # noqa: E402
from agents.mcts.backups.compiled import kernel_of  # noqa: E402
from agents.mcts.backups.solver import SolverBackup  # noqa: E402
from agents.mcts.config import MCTSConfig  # noqa: E402
from agents.mcts.multi import SharedEvaluation, answer_alone, round_robin  # noqa: E402
from agents.mcts.requests import SearchRequest  # noqa: E402
from agents.mcts.round_kernels import set_priors  # noqa: E402
from agents.mcts.search import Search  # noqa: E402
from agents.mcts.search_set import SearchSet  # noqa: E402
from agents.nets import evaluator as net_evaluator  # noqa: E402
from agents.nets.checkpoint import load_net  # noqa: E402
from go_env.rules import KoRule, Rules  # noqa: E402
from go_env.state import GoState  # noqa: E402


class RowByRow:
    """The shipped network's forward function, one row per call (batch-independent)."""

    def __init__(self, forward: Any) -> None:
        self.forward = forward
        self.device = forward.device
        self.calls: list[int] = []

    def __call__(
        self, planes: np.ndarray, syms: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append(int(planes.shape[0]))
        parts = [
            self.forward(planes[i : i + 1], syms[i : i + 1], masks[i : i + 1])
            for i in range(planes.shape[0])
        ]
        return np.concatenate([p for p, _ in parts]), np.concatenate([v for _, v in parts])


@pytest.fixture
def rows() -> Iterator[RowByRow]:
    net = load_net("", torch.device("cpu"))
    forwards = net_evaluator._FORWARDS.setdefault(net, {})
    key = (torch.device("cpu"), "fp32")
    saved = forwards.get(key)
    forward = RowByRow(net_evaluator.NetForward(net, torch.device("cpu")))
    forwards[key] = forward  # type: ignore[assignment]
    yield forward
    if saved is None:
        del forwards[key]
    else:
        forwards[key] = saved


def _roots(count: int, seed: int, rules: Rules) -> list[GoState]:
    rng = np.random.default_rng(seed)
    roots = []
    while len(roots) < count:
        state = GoState(rules)
        for _ in range(int(rng.integers(0, 30))):
            points = state.legal_moves()[:-1]
            if state.is_over or not len(points):
                break
            state.play(int(rng.choice(points)))
        if not state.is_over:
            roots.append(state)
    return roots


CONFIGS = [
    MCTSConfig(sims=24, policy="puct", c=0.5, evaluator="net:device=cpu"),
    MCTSConfig(sims=24, policy="puct", evaluator="net:device=cpu", backup="softmax"),
    MCTSConfig(sims=20, policy="puct", evaluator="net:device=cpu,symmetry=none,cache=0"),
    MCTSConfig(sims=24, evaluator="net:device=cpu", noise_weight=0.25, expand_visits=2),
    MCTSConfig(sims=16, evaluator="net:device=cpu,cache=4", backup="solver"),
    MCTSConfig(sims=16, evaluator="net:device=cpu", backup="coulom", batch=3),  # own steps
    MCTSConfig(sims=16, backup="monotone"),  # rollouts: own steps
    MCTSConfig(sims=18, evaluator="net:device=cpu,symmetry=average"),  # own steps
    MCTSConfig(sims=12, evaluator="net:device=cpu,lam=0.5"),  # mixed: own steps
]


def _searches(roots: list[GoState]) -> list[Search]:
    out = []
    for i, root in enumerate(roots):
        config = dataclasses.replace(CONFIGS[i % len(CONFIGS)], seed=100 + i)
        search = Search(config.search_params(), config.make_evaluator(), seed=i)
        search.set_root(root)
        out.append(search)
    return out


def _counts(search: Search) -> tuple[int, int]:
    evaluator: Any = search.evaluator
    return getattr(evaluator, "hits", -1), getattr(evaluator, "evaluations", -1)


def test_searches_in_rounds_are_the_searches_alone(rows: RowByRow) -> None:
    roots = _roots(16, 1, Rules(size=9, ko=KoRule.SITUATIONAL))
    alone = _searches(roots)
    lone_stats = [search.run() for search in alone]
    together = _searches(roots)
    searches = SearchSet(len(together))
    requests = [SearchRequest(search) for search in together]
    for request in requests:
        searches.add(request)
    shared = SharedEvaluation()
    stats: dict[int, Any] = {}
    rounds = 0
    while len(searches):
        for request, result in searches.round(shared):
            stats[id(request)] = result
        rounds += 1
    assert rounds < 40  # the searches ran side by side
    for lone, search, request, result in zip(alone, together, requests, lone_stats, strict=True):
        mine = stats[id(request)]
        np.testing.assert_array_equal(mine.moves, result.moves)
        np.testing.assert_array_equal(mine.visits, result.visits)
        np.testing.assert_array_equal(mine.values, result.values)
        assert mine.simulations == result.simulations
        assert _counts(search) == _counts(lone)
        assert request.seconds > 0
    assert max(rows.calls) > 4  # leaves of several searches in one network call
    assert shared.stats.calls > 0


@pytest.mark.parametrize("reuse", [False, True])
def test_games_in_rounds_are_the_games_alone(rows: RowByRow, reuse: bool) -> None:
    config = MCTSConfig(
        sims=16, policy="puct", c=0.5, evaluator="net:device=cpu", reuse_tree=reuse, seed=0
    )
    rules = Rules(size=9, max_moves=10)

    def game(index: int) -> Any:
        black = dataclasses.replace(config, seed=2 * index).build()
        white = dataclasses.replace(config, seed=2 * index + 1, backup="softmax").build()
        return play_game_steps(black, white, rules, opening=(index * 7 % 81,))

    alone = [answer_alone(game(i)) for i in range(4)]
    rows.calls.clear()
    shared = SharedEvaluation()
    together = dict(round_robin(((i, lambda i=i: game(i)) for i in range(4)), 3, shared=shared))
    for i, result in enumerate(alone):
        assert together[i].state.history == result.state.history
    assert max(rows.calls) == 3  # the rounds with three games in flight


def test_a_timed_search_ends() -> None:
    config = MCTSConfig(evaluator="net:device=cpu")
    search = Search(config.search_params(), config.make_evaluator(), seed=0)
    search.set_root(GoState(Rules(size=9)))
    searches = SearchSet(1)
    request = SearchRequest(search, time_limit=0.05)
    searches.add(request)
    finished: list[Any] = []
    while not finished:
        finished = searches.round(SharedEvaluation())
    assert finished[0][0] is request and finished[0][1].simulations >= 1


def test_set_priors_is_the_numpy_expression() -> None:
    rng = np.random.default_rng(0)
    scratch = np.empty(500)
    for count in (1, 3, 7, 8, 9, 17, 82, 128, 129, 136, 200, 362, 500):
        for _ in range(20):
            row = rng.random(520) * rng.random(520) ** 4
            move = rng.permutation(520)[:count].astype(np.int64)
            prior = np.zeros(count)
            set_priors(prior, move, 0, count, row, scratch)
            p = row[move]
            np.testing.assert_array_equal(prior, p / p.sum())
    prior = np.zeros(3)
    set_priors(prior, np.arange(3, dtype=np.int64), 0, 3, np.zeros(3), scratch)
    np.testing.assert_array_equal(prior, np.full(3, 1 / 3))


def test_bad_use_is_refused() -> None:
    with pytest.raises(ValueError, match="capacity"):
        SearchSet(0)
    config = MCTSConfig(sims=4)
    search = Search(config.search_params(), seed=0)
    searches = SearchSet(1)
    with pytest.raises(ValueError, match="no root"):
        searches.add(SearchRequest(search))
    search.set_root(GoState(Rules(size=5)))
    searches.add(SearchRequest(search))
    with pytest.raises(ValueError, match="at most 1"):
        searches.add(SearchRequest(search))
    searches.close()
    assert len(searches) == 0


def test_masks_from_expansions_are_the_computed_masks(
    rows: RowByRow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A leaf just expanded takes its legal mask from its children: the same mask."""
    from go_env.leaf_features import LeafRoots

    fill = LeafRoots.fill
    compared = [0, 0]

    def checked(self: LeafRoots, root_of: Any, moves: Any, depths: Any, **kw: Any) -> Any:
        computed = fill(self, root_of, moves, depths)
        planes, masks = fill(self, root_of, moves, depths, **kw)
        np.testing.assert_array_equal(masks, computed[1])
        np.testing.assert_array_equal(planes, computed[0])
        given = kw.get("given")
        compared[0] += int(given.sum()) if given is not None else 0
        compared[1] += len(depths)
        return planes, masks

    monkeypatch.setattr(LeafRoots, "fill", checked)
    for ko in (KoRule.POSITIONAL, KoRule.SITUATIONAL, KoRule.SIMPLE):
        roots = _roots(4, 7, Rules(size=9, ko=ko))
        searches = SearchSet(4)
        for i, root in enumerate(roots):
            config = dataclasses.replace(CONFIGS[0], sims=30, seed=i)
            search = Search(config.search_params(), config.make_evaluator(), seed=i)
            search.set_root(root)
            searches.add(SearchRequest(search))
        while len(searches):
            searches.round(SharedEvaluation())
    assert compared[0] > 0.9 * compared[1]  # nearly every leaf was expanded just now


BUILT_IN = [
    "mean",
    "erwa:alpha=0.1,variant=unbiased",
    "maxmcts:lam=0.5",
    "power_mean:p=2.5,recursive=false",
    "softmax:g=[-1,0,1]",
    "monotone:g=[1,-2,3],zero_based=true",
    "xie_liu:profile=linear,beta=3",
    "coulom:a=0.01,b=0.05",
    "solver",
    "solver:softmax",
    "solver:coulom",
    "solver:monotone",
]


@dataclass(frozen=True, kw_only=True)
class PythonMean:
    """A third-party strategy: the running mean in Python (no compiled kernel)."""

    n_stats: ClassVar[int] = 0
    calls: ClassVar[list[int]] = [0]

    def bind(self, n_simulations: int) -> PythonMean:
        return self

    def backup(self, tree: Any, path: np.ndarray, leaf_value: float) -> None:
        PythonMean.calls[0] += 1
        x = -leaf_value
        for node in path[::-1]:
            tree.visits[node] += 1
            tree.value[node] += (x - tree.value[node]) / tree.visits[node]
            x = -x


def _near_the_cap(count: int, seed: int, rules: Rules) -> list[GoState]:
    """Positions a few moves before the move cap: many leaves of the searches are over."""
    rng = np.random.default_rng(seed)
    roots = []
    while len(roots) < count:
        state = GoState(rules)
        for _ in range(rules.move_limit - int(rng.integers(2, 6))):
            points = state.legal_moves()[:-1]
            if state.is_over or not len(points):
                break
            state.play(int(rng.choice(points)))
        if not state.is_over:
            roots.append(state)
    return roots


def _mixed(roots: list[GoState], backups: list[Any]) -> list[Search]:
    out = []
    for i, (root, backup) in enumerate(zip(roots, backups, strict=True)):
        config = MCTSConfig(
            sims=20, policy="puct", evaluator="net:device=cpu", backup=backup, seed=i
        )
        search = Search(config.search_params(), config.make_evaluator(), seed=i)
        search.set_root(root)
        out.append(search)
    return out


def _in_rounds(searches: list[Search]) -> list[Any]:
    """The searches side by side in one set; their stats in order."""
    together = SearchSet(len(searches))
    requests = [SearchRequest(search) for search in searches]
    for request in requests:
        together.add(request)
    shared = SharedEvaluation()
    stats: dict[int, Any] = {}
    while len(together):
        for request, result in together.round(shared):
            stats[id(request)] = result
    return [stats[id(request)] for request in requests]


def _assert_same(mine: Any, theirs: Any) -> None:
    np.testing.assert_array_equal(mine.moves, theirs.moves)
    np.testing.assert_array_equal(mine.visits, theirs.visits)
    np.testing.assert_array_equal(mine.values, theirs.values)
    assert mine.simulations == theirs.simulations


def _trees_equal(one: Search, other: Search) -> None:
    assert one.tree is not None and other.tree is not None
    assert_same_tree(one.tree, other.tree)


def test_every_built_in_backup_in_compiled_rounds_is_the_search_alone(
    rows: RowByRow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each built-in strategy backs up in the round's compiled calls, exactly as alone.

    The roots lie a few moves before the move cap, so that leaves whose game is over (backed
    up inside the descent's call) are many; the built-in ``backup`` methods are never called.
    """
    rules = Rules(size=9, max_moves=14)
    backups = BUILT_IN * 2
    roots = _near_the_cap(len(backups), 3, rules)
    alone = _mixed(roots, backups)
    lone_stats = [search.run() for search in alone]
    together = _mixed(roots, backups)
    called: list[str] = []
    for search in together:
        kind = type(search.strategy)
        monkeypatch.setattr(kind, "backup", lambda self, *a: called.append(type(self).__name__))
    for mine, theirs in zip(_in_rounds(together), lone_stats, strict=True):
        _assert_same(mine, theirs)
    assert called == []
    over = 0
    for lone, search in zip(alone, together, strict=True):
        _trees_equal(search, lone)
        assert _counts(search) == _counts(lone)
        tree = search.tree
        assert tree is not None
        over += int(((tree.terminal[: tree.size] != 0) & (tree.visits[: tree.size] > 0)).sum())
    assert over > 20  # many leaves were over: backed up in the descent's call


def test_a_python_backup_beside_built_in_ones_is_the_search_alone(rows: RowByRow) -> None:
    """A third-party strategy (no kernel) keeps its Python ``backup`` in a mixed set."""
    rules = Rules(size=9, max_moves=16)
    python = PythonMean()
    backups: list[Any] = [python, "mean", SolverBackup(inner=python), "solver:softmax"] * 2
    roots = _near_the_cap(len(backups), 5, rules)
    alone = _mixed(roots, backups)
    lone_stats = [search.run() for search in alone]
    PythonMean.calls[0] = 0
    together = _mixed(roots, backups)
    for mine, theirs in zip(_in_rounds(together), lone_stats, strict=True):
        _assert_same(mine, theirs)
    for lone, search in zip(alone, together, strict=True):
        _trees_equal(search, lone)
        assert _counts(search) == _counts(lone)
    python_sims = sum(
        r.simulations for r, b in zip(lone_stats, backups, strict=True) if not isinstance(b, str)
    )
    assert PythonMean.calls[0] >= python_sims  # every one of its leaves, from Python
    kernels = [kernel_of(search.strategy) is not None for search in together]
    assert kernels == [isinstance(b, str) for b in backups]  # two kinds in the one set
