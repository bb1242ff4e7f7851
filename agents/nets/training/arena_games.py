"""Training positions from arena games: results and final owners with the referee's dead stones.

Self-play games are played out until both players pass with every dead stone captured, so
their final position tells which groups lived (:mod:`agents.nets.training.window`). A game
against an engine such as GNU Go ends with dead stones still on the board, and the engine
judges them (the arena's referee, ``final_status_list dead``): the arena's results file keeps
the moves, the score after their removal and the stones removed
(:class:`~agents.matches.results.GameOutcome`). Those games are a training signal self-play
does not give: positions an engine reaches, and which groups died in them by its reading.

Every position of a game, both players to move, becomes one example of

* the input planes of the network being trained (computed from the moves);
* the game's result (after the referee) from the side of the player to move;
* the final owner of every point once the dead stones are removed (KataGo's ownership target,
  Wu 2019, §4.1, with the referee's judgement instead of playing the game out);
* no policy target (a zero row, which
  :func:`~agents.nets.training.step.mixed_replay_step` weighs 0 in the policy term), since
  the arena does not record its searches.

Resigned games are left out (the board of a resignation does not say who owns what), and so
are games the move cap ended (scored as they stand, unjudged).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from os import PathLike

import numpy as np

from agents.matches.records import RecordError, match_rules
from agents.matches.results import GameOutcome, read_results
from agents.nets.features import input_planes
from agents.nets.model import NetConfig
from agents.nets.training.replay import Positions, ReplayBuffer
from go_env.dead_stones import owners_without, score_without
from go_env.rules import Rules
from go_env.state import Color, GoState

__all__ = ["ArenaGames", "arena_buffer", "arena_examples", "read_arena_games"]


@dataclasses.dataclass
class ArenaGames:
    """The usable games of arena results folders, and what was left out.

    Attributes:
        games: ``(rules, outcome)`` of every game ended by passes.
        left_out: Games left out, by reason (``"resignation"``, ``"move cap"``).
    """

    games: list[tuple[Rules, GameOutcome]] = dataclasses.field(default_factory=list)
    left_out: dict[str, int] = dataclasses.field(default_factory=dict)


def read_arena_games(folders: Iterable[str | PathLike[str]]) -> ArenaGames:
    """The games of arena output folders (or results files) that can teach a network.

    Raises:
        FileNotFoundError: When a folder holds no results file.
        ValueError: When a folder's results are not an arena's (:func:`read_results`'s
            :class:`~agents.matches.results.ResultsError`), or its header names no rules.
    """
    found = ArenaGames()
    for folder in folders:
        match, games = read_results(folder)
        try:
            rules = match_rules(match)
        except RecordError as exc:
            raise ValueError(f"{folder}: {exc}") from None
        for index in sorted(games):
            outcome = games[index]
            if outcome.ended_by != "passes":
                found.left_out[outcome.ended_by] = found.left_out.get(outcome.ended_by, 0) + 1
                continue
            found.games.append((rules, outcome))
    return found


def arena_examples(outcome: GameOutcome, net: NetConfig, rules: Rules) -> Positions:
    """Every position of a game ended by passes, with no policy target (module docstring).

    Planes ``int8 (T, C, N, N)``, zero policies ``float32 (T, A)``, values ``float32 (T,)``
    and, for a network with an ownership head, ownership ``int8 (T, N*N)``.

    Raises:
        ValueError: When the moves are not a legal game under ``rules``, a dead stone is not a
            stone of the final board, or the game did not end by passes.
    """
    if outcome.ended_by != "passes":
        raise ValueError(f"game {outcome.index} ended by {outcome.ended_by}, not by passes")
    state = GoState(rules)
    count = len(outcome.moves)
    planes = np.zeros((count, net.in_planes, rules.size, rules.size), dtype=np.int8)
    sides = np.zeros(count, dtype=np.int8)  # +1: Black to move
    for row, move in enumerate(outcome.moves):
        planes[row] = input_planes(state, net.history, net.tactical)
        sides[row] = 1 if state.to_play == Color.BLACK else -1
        state.play(int(move))
    score = score_without(state, outcome.dead)
    black = float(np.sign(score))
    policies = np.zeros((count, rules.size * rules.size + 1), dtype=np.float32)
    values = (black * sides).astype(np.float32)
    ownership = None
    if net.ownership:
        ownership = sides[:, None] * owners_without(state, outcome.dead)[None, :]
    return Positions(planes, policies, values, ownership)


def arena_buffer(games: ArenaGames, net: NetConfig) -> ReplayBuffer:
    """A replay buffer of every position of ``games`` (:func:`arena_examples`) for ``net``.

    Raises:
        ValueError: When the games hold no position, or one was played on another board size
            than ``net``'s.
    """
    other = sorted({rules.size for rules, _ in games.games} - {net.size})
    if other:
        raise ValueError(
            f"arena games on {other[0]}x{other[0]} cannot train a {net.size}x{net.size} "
            "network; give games of its size"
        )
    parts = [arena_examples(outcome, net, rules) for rules, outcome in games.games]
    total = sum(p.planes.shape[0] for p in parts)
    if total == 0:
        raise ValueError("the arena games hold no game ended by passes")
    buffer = ReplayBuffer(total, (net.in_planes, net.size, net.size), ownership=net.ownership)
    for part in parts:
        buffer.add(*part)
    return buffer
