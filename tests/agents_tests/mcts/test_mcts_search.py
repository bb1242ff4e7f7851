"""The search loop: tactics, rules inside the tree, reuse, budgets, statistics, determinism."""

from __future__ import annotations

import time

import numpy as np
import pytest
from game_support import assert_same_tree

from agents.mcts import MCTSConfig, Search, SearchError
from agents.mcts.stats import principal_variation
from agents.mcts.tree import PROVEN_LOSS, PROVEN_WIN
from go_env.coords import from_gtp
from go_env.errors import IllegalReason
from go_env.rules import KoRule, Rules
from go_env.state import Color, GoState


def search_from(state, sims, seed=0, **config):
    search = Search(MCTSConfig(sims=sims, seed=seed, **config).search_params())
    search.set_root(state)
    return search, search.run(sims=sims)


def best_move(stats):
    return int(stats.moves[np.argmax(stats.visits)])


def walk_tree(search):
    """Yield ``(node, state, children)`` for every expanded node.

    ``children`` maps each child node to its position, rebuilt from the root with fully
    validated ``GoState.play`` calls (which raise on any illegal move in the tree).
    """
    tree = search.tree
    stack = [(0, search.root.clone())]
    while stack:
        node, state = stack.pop()
        if tree.first_child[node] < 0:
            continue
        children = {}
        for child in tree.children(node):
            after = state.clone()
            after.play(int(tree.move[child]))
            children[int(child)] = after
        yield node, state, children
        stack.extend(children.items())


CAPTURE = """
O O X X .
. O O X O
O . O X O
O O X X O
. O X X X
"""  # White's E4-E2 has one liberty, E5; without the capture Black has no chance

ATARI = """
O . X . X . O
. O . X . X O
X O O . X . X
O O . X . X .
X O O O X . X
X X . O O X X
O O O X X X .
"""  # Black's A3-A2-B2 has one liberty, C2, which captures A1-C1 and saves it


def test_finds_an_obvious_capture(board):
    state = board(CAPTURE, komi=0.5)
    for seed in range(3):
        _, stats = search_from(state, 300, seed=seed)
        assert best_move(stats) == from_gtp("E5", 5)


def test_saves_a_group_in_atari(board):
    state = board(ATARI, komi=9.0)
    for seed in range(3):
        _, stats = search_from(state, 500, seed=seed)
        assert best_move(stats) == from_gtp("C2", 7)


@pytest.mark.parametrize("size", [2, 3])
@pytest.mark.parametrize("ko", list(KoRule))
@pytest.mark.parametrize("suicide", [False, True])
def test_tree_children_are_exactly_the_legal_moves(size, ko, suicide):
    # Games on tiny boards repeat positions all the time (the empty board included): the
    # tree meets superko often, along its own paths as well as against the game's history.
    state = GoState(Rules(size=size, komi=0.5, ko=ko, suicide=suicide))
    search, _ = search_from(state, 800 if size == 3 else 400, seed=3)
    tree = search.tree
    expanded = 0
    superko_cut = 0
    for _node, position, children in walk_tree(search):
        assert sorted(tree.move[list(children)].tolist()) == position.legal_moves().tolist()
        for child, after in children.items():
            assert bool(tree.terminal[child]) == after.is_over
        superko_cut += sum(
            position.illegal_reason(p) is IllegalReason.SUPERKO for p in range(position.pass_move)
        )
        expanded += 1
    assert expanded > (400 if size == 3 else 200)
    if ko is not KoRule.SIMPLE and (size == 2 or ko is KoRule.POSITIONAL or suicide):
        assert superko_cut > 0  # the tree met positions where superko forbids a move


def test_superko_forbidden_root_move_is_never_a_child(board):
    # With suicide allowed, filling the last liberty of a lone stone in White's eye only
    # removes it again: the position repeats, which positional superko forbids and
    # situational superko allows (the player to move differs).
    text = """
    . O . .
    O . O .
    . O . .
    . . . .
    """
    eye = from_gtp("B3", 4)
    positional = board(text, komi=0.5, suicide=True, ko=KoRule.POSITIONAL)
    assert positional.illegal_reason(eye) is IllegalReason.SUPERKO
    search, _ = search_from(positional, 300, seed=4)
    assert eye not in search.stats().moves
    situational = board(text, komi=0.5, suicide=True, ko=KoRule.SITUATIONAL)
    assert situational.is_legal(eye)
    search, _ = search_from(situational, 300, seed=4)
    assert eye in search.stats().moves


def test_suicide_is_never_a_child_when_illegal(board):
    state = board(
        """
    . O . .
    O . O .
    . O . .
    . . . .
    """,
        komi=0.5,
    )
    _, stats = search_from(state, 300, seed=5)
    assert from_gtp("B3", 4) not in stats.moves
    assert set(stats.moves.tolist()) == set(state.legal_moves().tolist())


def test_terminal_values_are_exact(board):
    state = board(
        """
    . X . O
    X X O O
    . X . O
    X X O O
    """,
        komi=2.5,
    )  # black's area is 8 points, white's 6 (C4 and C2 are neutral)
    state.play(state.pass_move)  # black passes; white may end the game by passing
    search, stats = search_from(state, 400, seed=6)
    tree = search.tree
    passing = int(tree.children(0)[tree.move[tree.children(0)] == state.pass_move][0])
    assert tree.terminal[passing] != 0
    assert tree.value[passing] == pytest.approx(1.0)  # white wins by passing, every time
    assert best_move(stats) == state.pass_move


DEAD_STONE_IN_BLACK_AREA = """
. . . X O . .
. . . X O . .
. . . X O . .
. O . X O . .
. . . X O . .
. . . X O . .
. . . X O . .
"""


@pytest.mark.parametrize(
    ("end_scoring", "pass_value"), [("tromp_taylor", -1.0), ("remove_dead", 1.0)]
)
def test_end_scoring_decides_the_value_of_passing_with_a_dead_stone_on_the_board(
    end_scoring, pass_value
):
    # Counted as it stands, White wins (the white stone makes Black's left side neutral);
    # with the dead white stone removed Black owns 28 points to White's 21 and wins.
    state = GoState.from_ascii(DEAD_STONE_IN_BLACK_AREA, Rules(size=7, komi=0.5), Color.WHITE)
    state.play(state.pass_move)  # White passes: Black ends the game by passing
    assert state.score() < 0
    search, stats = search_from(state, 200, seed=3, end_scoring=end_scoring)
    at = int(np.flatnonzero(stats.moves == state.pass_move)[0])
    assert stats.values[at] == pytest.approx(pass_value)
    tree = search.tree
    passing = int(tree.children(0)[tree.move[tree.children(0)] == state.pass_move][0])
    assert tree.terminal[passing] > 1  # scored once, the outcome cached in the node
    if end_scoring == "remove_dead":
        assert best_move(stats) == state.pass_move


def test_remove_dead_counts_a_capped_game_as_it_stands():
    state = GoState.from_ascii(
        DEAD_STONE_IN_BLACK_AREA, Rules(size=7, komi=0.5, max_moves=1), Color.BLACK
    )  # every move of the root ends the game by the move cap
    _, stats = search_from(state, 100, seed=3, end_scoring="remove_dead")
    at = int(np.flatnonzero(stats.moves == state.pass_move)[0])
    assert stats.values[at] == pytest.approx(-1.0)


def test_tree_reuse_keeps_the_chosen_subtree():
    state = GoState(Rules(size=7, komi=9.0))
    search, _ = search_from(state, 2000, seed=7)
    tree = search.tree
    first, second = principal_variation(tree)[:2]
    child = int(tree.children(0)[tree.move[tree.children(0)] == first][0])
    grandchild = int(tree.children(child)[tree.move[tree.children(child)] == second][0])
    kept_visits = int(tree.visits[grandchild])
    kept_children = tree.children(grandchild)
    kept = sorted(
        zip(
            tree.move[kept_children].tolist(),
            tree.visits[kept_children].tolist(),
            tree.value[kept_children].tolist(),
            strict=True,
        )
    )
    later = state.clone()
    later.play(first)
    later.play(second)
    assert search.advance(later)
    new = search.tree
    assert new.visits[0] == kept_visits
    children = new.children(0)
    assert (
        sorted(
            zip(
                new.move[children].tolist(),
                new.visits[children].tolist(),
                new.value[children].tolist(),
                strict=True,
            )
        )
        == kept
    )
    # compact: every node is reachable and child blocks point back to their parents
    assert new.size == int(sum(new.n_children[: new.size])) + 1
    for node in range(new.size):
        block = new.children(node)
        assert (new.parent[block] == node).all()
    stats = search.run(sims=100)
    assert stats.root_visits == kept_visits + 100
    assert set(stats.moves.tolist()) == set(later.legal_moves().tolist())


def test_advance_refuses_other_games():
    state = GoState(Rules(size=5, komi=0.5))
    search, _ = search_from(state, 200, seed=8)
    other = GoState(Rules(size=5, komi=1.5))
    other.play(0)
    assert not search.advance(other)
    different = GoState.from_ascii(". . . . .\n" * 4 + ". . . . X", Rules(size=5, komi=0.5))
    assert not search.advance(different)  # same (empty) history, another position
    assert search.root.move_number == 0


def test_time_budget_stops_in_time():
    search = Search(MCTSConfig(seed=9).search_params())
    search.set_root(GoState())
    search.run(sims=20)  # compile and warm up
    search.set_root(GoState())
    start = time.perf_counter()
    stats = search.run(seconds=0.2)
    took = time.perf_counter() - start
    assert 0.2 <= took < 2.0  # loose: a busy machine; the exact stop is checked below
    assert stats.simulations > 20


def test_time_budget_stops_at_the_first_check_past_the_deadline(monkeypatch):
    """A clock that ticks 1 ms per reading: the search reads it once per simulation."""
    search = Search(MCTSConfig(seed=9).search_params())
    search.set_root(GoState())
    search.run(sims=20)
    search.set_root(GoState())
    ticks = iter(range(10**9))
    monkeypatch.setattr(time, "perf_counter", lambda: next(ticks) / 1000)
    stats = search.run(seconds=0.05)
    # start at tick 0; the root's first simulation is free, then checks at ticks 1, 2, ...;
    # the check at tick 50 is the first at the deadline and ends the search
    assert stats.simulations == 50
    assert search.run(seconds=0.0).simulations == 1  # at least one simulation, always


def test_stats_pv_is_legal_and_visits_add_up():
    state = GoState(Rules(size=5, komi=0.5))
    _, stats = search_from(state, 500, seed=10)
    assert stats.simulations == 500
    assert stats.root_visits == 500
    assert int(stats.visits.sum()) == 499  # the first simulation evaluated the root itself
    assert len(stats.pv) >= 2
    replay = state.clone()
    for move in stats.pv:
        replay.play(move)  # raises if the line were illegal
    assert stats.pv[0] == best_move(stats)
    dist = stats.visit_distribution(26)
    assert dist.sum() == pytest.approx(1.0)
    assert -1.0 <= stats.root_value <= 1.0
    assert stats.nodes > 500 and stats.sims_per_second > 0


def test_same_seed_same_search_other_seed_other_search():
    state = GoState(Rules(size=7, komi=9.0))
    a = search_from(state, 300, seed=11)[1]
    b = search_from(state, 300, seed=11)[1]
    c = search_from(state, 300, seed=12)[1]
    assert np.array_equal(a.moves, b.moves) and np.array_equal(a.visits, b.visits)
    assert np.array_equal(a.values, b.values) and a.pv == b.pv
    assert not (np.array_equal(a.moves, c.moves) and np.array_equal(a.values, c.values))


def test_root_noise_is_fresh_each_search_and_sums_to_one():
    state = GoState(Rules(size=5, komi=0.5))
    search, _ = search_from(state, 50, seed=13, policy="puct", noise_weight=0.25, noise_alpha=0.3)
    first = search.stats().priors
    assert first.sum() == pytest.approx(1.0)
    assert not np.allclose(first, first[0])
    search.run(sims=10)
    second = search.stats().priors
    assert second.sum() == pytest.approx(1.0)
    assert not np.allclose(first, second)
    assert second.min() >= 0.75 / 26 - 1e-12  # noise mixed into the clean priors, not compounded


def test_node_cap_stops_expansion_but_not_the_search():
    search, stats = search_from(GoState(), 300, seed=14, max_nodes=1024)
    assert search.tree.size <= 1024
    assert stats.simulations == 300 and stats.root_visits == 300


def test_pass_prior_sets_the_uniform_priors():
    _, stats = search_from(GoState(Rules(size=5)), 5, seed=15, pass_prior=0.5)
    priors = dict(zip(stats.moves.tolist(), stats.priors.tolist(), strict=True))
    assert priors[25] == pytest.approx(0.5 / 25.5)
    assert priors[0] == pytest.approx(1 / 25.5)


def test_finished_game_cannot_be_searched():
    state = GoState(Rules(size=5))
    state.play(25)
    state.play(25)
    with pytest.raises(SearchError, match="game is over"):
        Search(MCTSConfig().search_params()).set_root(state)
    with pytest.raises(SearchError, match="no root"):
        Search(MCTSConfig().search_params()).run(sims=1)


def test_root_player_perspective():
    # White to play, black is dead lost on the board: the root value is high for white.
    state = GoState.from_ascii(
        """
    O O O O O
    O . O . O
    O O O O O
    . . . . .
    . . X . .
    """,
        Rules(size=5, komi=0.5),
        to_play=Color.WHITE,
    )
    _, stats = search_from(state, 300, seed=16)
    assert stats.root_value > 0.5


def test_solver_proves_a_won_ending_and_stops(board):
    state = board(
        """
    . X . O
    X X O O
    . X . O
    X X O O
    """,
        komi=2.5,
    )
    state.play(state.pass_move)  # white wins by passing now
    search, stats = search_from(state, 400, seed=6, backup="solver")
    tree = search.tree
    assert tree.proven[0] == PROVEN_LOSS  # black, who moved into the root, has lost
    assert stats.simulations < 400  # the search stopped once the root was proven
    assert stats.proven[stats.moves == state.pass_move][0] == PROVEN_WIN
    agent = MCTSConfig(sims=400, seed=6, backup="solver").build()
    assert agent.config.move_choice == "secure"
    assert agent.act(state) == state.pass_move


def test_solver_treats_a_proven_node_as_a_leaf():
    state = GoState(Rules(size=5, komi=0.5))
    search, stats = search_from(state, 300, seed=17, backup="solver")
    tree = search.tree
    child = int(tree.children(0)[np.argmax(stats.visits)])
    assert tree.first_child[child] >= 0 and tree.proven[0] == 0
    tree.proven[child] = PROVEN_WIN  # as if the solver had proven it
    below = int(tree.visits[tree.children(child)].sum())
    visits = int(tree.visits[child])
    later = search.run(sims=50)
    assert tree.visits[child] > visits  # selected at once...
    assert int(tree.visits[tree.children(child)].sum()) == below  # ...but never entered
    assert tree.proven[0] == PROVEN_LOSS and later.simulations < 50  # root proven: stop


def test_search_takes_resolved_params_and_the_old_config_still_works_with_a_warning():
    config = MCTSConfig(sims=40, policy="puct", fpu="auto", backup="solver", seed=4)
    params = config.search_params()
    assert params.fpu_mode == "absolute" and params.solver and params.exploration == 0.5
    state = GoState(Rules(size=5))
    new = Search(params)
    new.set_root(state)
    with pytest.warns(DeprecationWarning, match="search_params"):
        old = Search(config)
    old.set_root(state)
    a, b = new.run(), old.run()
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.values, b.values)
    with pytest.warns(DeprecationWarning, match="Search.params"):
        assert old.config is config
    with pytest.raises(TypeError, match="SearchParams"):
        Search("mcts:sims=3")  # type: ignore[arg-type]


def test_search_params_reject_bad_values():
    from agents.mcts.params import SearchParams

    with pytest.raises(ValueError, match="policy"):
        SearchParams(policy="ucb")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch must be an int >= 1"):
        SearchParams(batch=0)


def test_steps_yields_leaves_and_resumes_with_their_evaluation():
    """Driving ``steps()`` by hand with the search's evaluator is ``run()``."""
    params = MCTSConfig(sims=60, seed=5).search_params()
    state = GoState(Rules(size=5))
    a, b = Search(params), Search(params)
    a.set_root(state)
    b.set_root(state)
    want = a.run()
    steps = b.steps()
    asked = 0
    try:
        leaves = next(steps)
        while True:
            assert len(leaves) == 1
            asked += 1
            leaves = steps.send(b.evaluator.evaluate(leaves))
    except StopIteration as stop:
        got = stop.value
    assert 0 < asked <= 60
    assert np.array_equal(got.visits, want.visits) and np.array_equal(got.values, want.values)


def _drive(coroutine, evaluator):
    """Run a search coroutine to its end with ``evaluator``; return what it returns."""
    try:
        leaves = next(coroutine)
        while True:
            leaves = coroutine.send(evaluator.evaluate(leaves))
    except StopIteration as stop:
        return stop.value


@pytest.mark.parametrize(
    "config",
    [
        {"policy": "puct", "noise_weight": 0.25, "noise_alpha": 0.3},
        {"policy": "uct"},
        {"policy": "puct", "batch": 4},
        {"backup": "solver"},
    ],
    ids=["puct-noise", "uct", "batch", "solver"],
)
def test_one_simulation_at_a_time_is_steps_with_one_simulation(config):
    """``simulation()`` leaves the tree that ``steps(sims=1)`` leaves, call after call."""
    params = MCTSConfig(sims=64, seed=21, **config).search_params()
    state = GoState(Rules(size=5, komi=0.5))
    a, b = Search(params), Search(params)
    a.set_root(state)
    b.set_root(state)
    for _ in range(40):
        stats = _drive(a.steps(sims=1), a.evaluator)
        assert stats.simulations <= 1
        assert _drive(b.simulation(), b.evaluator) is None
    assert_same_tree(a.tree, b.tree)
    assert a.tree.visits[0] > 1


def test_simulation_needs_a_root():
    with pytest.raises(SearchError, match="set_root"):
        next(Search(MCTSConfig(sims=8).search_params()).simulation())


def test_a_tree_planned_small_grows_and_searches_the_same():
    params = MCTSConfig(sims=200, seed=22).search_params()
    state = GoState(Rules(size=7, komi=9.0))
    small, default = Search(params), Search(params)
    small.set_root(state, planned=1)
    default.set_root(state)
    assert small.tree.capacity < default.tree.capacity
    a, b = small.run(), default.run()
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.values, b.values)
    assert_same_tree(small.tree, default.tree)
    with pytest.raises(ValueError, match="planned"):
        small.set_root(state, planned=0)
