"""Game helpers shared by the test modules: playing given moves, random games, backups.

One definition each, so that the modules that play positions agree on how:

* :func:`play` plays GTP vertices on a :class:`GoState`; :func:`step_env` steps a PettingZoo
  environment with them; :func:`replay` gives the board after every move;
* :func:`random_env_game` plays a PettingZoo environment to its end with random moves;
* :func:`random_moves` / :func:`random_game` play uniformly random moves from a seed (numpy's
  generator), with an optional pass rate and the playout policy's own-eye rule;
  :func:`played_moves` lists the moves of a game;
* :func:`feed` backs a list of returns up at a lone root with a backup strategy;
  :func:`assert_same_tree` compares two search trees node by node;
* :func:`game_outcome` is an arena game record (a short Black win) with the fields given.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from agents.matches.results import GameOutcome
from agents.mcts.tree import Tree
from go_env.coords import from_gtp
from go_env.rules import Rules
from go_env.state import GoState

__all__ = [
    "LONE_ROOT",
    "SEKI",
    "corner_arena_folders",
    "feed",
    "game_outcome",
    "play",
    "played_moves",
    "random_env_game",
    "random_game",
    "random_moves",
    "replay",
    "step_env",
]


def play(state: GoState, *vertices: str) -> GoState:
    """Play GTP vertices (``"C3"``, ``"pass"``) on ``state`` in order; returns ``state``."""
    for vertex in vertices:
        state.play(from_gtp(vertex, state.size))
    return state


def step_env(game: Any, vertices: Iterable[str]) -> None:
    """Step a PettingZoo Go environment with GTP vertices (no observation in between)."""
    size = game.unwrapped.rules.size
    for vertex in vertices:
        game.step(from_gtp(vertex, size))


def random_env_game(game: Any, seed: int, max_steps: int = 10_000) -> list[str]:
    """Play uniformly random legal moves in a PettingZoo Go environment to the end.

    The draws come from ``random.Random(seed)``; returns the agents in the order they acted.
    """
    rng = random.Random(seed)
    order = []
    for agent in game.agent_iter(max_steps):
        obs, _, term, trunc, _ = game.last()
        order.append(agent)
        if term or trunc:
            game.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            game.step(int(legal[rng.randrange(len(legal))]))
    return order


def replay(vertices: Iterable[str], rules: Rules) -> tuple[GoState, list[np.ndarray]]:
    """Play the vertices from the empty board: the final state and the board after each move.

    ``boards[0]`` is the empty board, ``boards[i]`` the board after move ``i``.
    """
    state = GoState(rules)
    boards = [state.board]
    for vertex in vertices:
        state.play(from_gtp(vertex, rules.size))
        boards.append(state.board)
    return state, boards


def random_moves(
    state: GoState,
    seed: int,
    *,
    moves: int | None = None,
    pass_rate: float = 0.0,
    avoid_own_eyes: bool = False,
) -> GoState:
    """Play uniformly random legal moves on ``state`` until it is over or has ``moves`` moves.

    Each turn draws a point among the legal ones other than the pass (with ``avoid_own_eyes``,
    also other than the mover's own eyes, as the playout policy does); the mover passes when
    there is none or, with ``pass_rate``, with that probability. The draws come from
    ``numpy.random.default_rng(seed)`` in this order: ``random()`` for the pass (only when
    ``pass_rate`` is set and a point is there), then ``choice`` of the point.

    Returns:
        ``state`` itself, played on.
    """
    rng = np.random.default_rng(seed)
    while not state.is_over and (moves is None or state.move_number < moves):
        legal = state.legal_moves()
        points = legal[legal != state.pass_move]
        if avoid_own_eyes:
            points = points[~state.own_eye_mask()[points]]
        if len(points) and (not pass_rate or rng.random() >= pass_rate):
            state.play(int(rng.choice(points)))
        else:
            state.play(state.pass_move)
    return state


def random_game(
    size: int,
    seed: int,
    *,
    moves: int | None = None,
    komi: float | None = None,
    pass_rate: float = 0.0,
    avoid_own_eyes: bool = False,
) -> GoState:
    """:func:`random_moves` from the empty board of ``size`` (``komi``: the rules' default)."""
    rules = Rules(size=size) if komi is None else Rules(size=size, komi=komi)
    return random_moves(
        GoState(rules), seed, moves=moves, pass_rate=pass_rate, avoid_own_eyes=avoid_own_eyes
    )


def played_moves(state: GoState) -> list[int]:
    """The moves of the game so far, in order (passes included)."""
    return [move for _, move in state.history]


LONE_ROOT = np.array([0])  # the path of a search that stopped at the root


def feed(strategy: Any, returns: Iterable[float], *, n_sims: int = 100) -> float:
    """Back ``returns`` up at a lone root; the root's value afterwards.

    ``returns`` are from the point of view of the player who moved into the root; the search
    credits a leaf with ``-v(leaf)``, so each is backed up negated. ``strategy`` is a backup
    strategy, bound here to a search of ``n_sims`` simulations.
    """
    tree = Tree()
    bound = strategy.bind(n_sims)
    count = 0
    for x in returns:
        bound.backup(tree, LONE_ROOT, -x)
        count += 1
    assert tree.visits[0] == count
    return float(tree.value[0])


def assert_same_tree(a: Tree, b: Tree) -> None:
    """Assert that two search trees hold the same nodes: shape, moves and statistics."""
    n = a.size
    assert n == b.size, f"{n} nodes against {b.size}"
    shape = ("parent", "move", "first_child", "n_children", "terminal", "proven")
    for name in (*shape, "visits", "value", "prior", "stats"):
        np.testing.assert_array_equal(getattr(a, name)[:n], getattr(b, name)[:n], err_msg=name)


def game_outcome(index: int, **fields: Any) -> GameOutcome:
    """Game ``index`` of a match (pairs with colours swapped): a 4-move Black win by 1 point.

    ``fields`` replace any of the record's fields.
    """
    record: dict[str, Any] = {
        "index": index,
        "pair": index // 2,
        "a_black": index % 2 == 0,
        "black": "random",
        "white": "random",
        "opening": (),
        "moves": (3, 4, 25, 25),
        "result": "B+1",
        "score": 1.0,
        "raw_score": 1.0,
        "dead": (),
        "referee": None,
        "ended_by": "passes",
        "score_a": 1.0,
        "seed_black": 1,
        "seed_white": 2,
        "moves_black": 2,
        "moves_white": 2,
        "time_black": 0.1,
        "time_white": 0.1,
        "duration": 0.3,
    }
    return GameOutcome(**{**record, **fields})


SEKI = """
. X X . O O .
X X X X O O O
O O O O X X X
O . O O X . X
O O O O X X X
. O . O X . X
O O O O X X X
"""
"""A 7x7 seki: Black's top-left chain and White's top-right chain share the liberty (0, 3) and
each has one eye, so whoever plays (0, 3) puts its own chain in atari; the groups below live
with two eyes. Under area scoring with both chains alive, Black has 22 points and White 26."""


def corner_arena_folders(root: Path) -> tuple[str, str]:
    """Two 5x5 arena results folders under ``root``, ``train`` (3 games) and ``held`` (2).

    In every game Black takes the centre and White a corner (point ``i`` in game ``i``), both
    pass, and the referee calls White's stone dead: a Black win by 17.5, 4 positions a game,
    won by agent A in the even games (A Black), lost in the odd ones.
    """
    from agents.matches.results import ResultsFile

    made = []
    for name, games in (("train", 3), ("held", 2)):
        results = ResultsFile(
            root / name / "results.jsonl",
            {"agent_a": "a", "agent_b": "b", "rules": {"size": 5, "komi": 7.5}},
        )
        results.load()
        for i in range(games):
            won = 1.0 if i % 2 == 0 else 0.0
            outcome = game_outcome(i, moves=(12, i, 25, 25), dead=(i,), score=17.5, score_a=won)
            results.append(outcome)
        results.close()
        made.append(str(root / name))
    return made[0], made[1]
