"""The replay window: training examples from the games of the last generations.

AlphaGo Zero trained on positions sampled from the most recent 500,000 games; KataGo on a
window that grows with the run. Here the window is the last ``window`` generations of games
(:class:`~agents.nets.training.records.GameFile` per generation): every recorded position
(a full search, :mod:`agents.nets.training.generation`) becomes one example of

* the input planes of the network being trained (computed from the moves, so the games do
  not depend on the network's inputs);
* the search's policy target;
* the game's result from the side of the player to move (+1, -1, 0);
* with an ownership head (``NetConfig.ownership``), the final position's owner of every point
  (:meth:`go_env.state.GoState.area_owners`) from the same side: the game's result point by
  point (KataGo's ownership target, :mod:`agents.nets.model`).

The examples fill a :class:`~agents.nets.training.replay.ReplayBuffer`, which draws the
minibatches with random board symmetries.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from agents.nets.features import input_planes
from agents.nets.model import NetConfig
from agents.nets.training.records import GameRecord
from agents.nets.training.replay import Positions, ReplayBuffer
from go_env.rules import Rules
from go_env.state import Color, GoState

__all__ = ["game_examples", "window_buffer"]


def game_examples(record: GameRecord, net: NetConfig, rules: Rules) -> Positions:
    """The recorded positions of a game.

    Planes ``int8 (T, C, N, N)``, policies ``float32 (T, A)``, values ``float32 (T,)`` and,
    for a network with an ownership head, ownership ``int8 (T, N*N)`` (else ``None``).

    Raises:
        ValueError: When the record's moves are not a legal game under ``rules``.
    """
    wanted = {t.move_number: t for t in record.targets}
    channels = net.in_planes
    planes = np.zeros((len(wanted), channels, rules.size, rules.size), dtype=np.int8)
    policies = np.zeros((len(wanted), rules.size * rules.size + 1), dtype=np.float32)
    values = np.zeros(len(wanted), dtype=np.float32)
    sides = np.zeros(len(wanted), dtype=np.int8)  # +1: Black to move
    state = GoState(rules)
    row = 0
    for number, move in enumerate([*record.moves, None]):
        target = wanted.get(number)
        if target is not None:
            planes[row] = input_planes(state, net.history, net.tactical)
            policies[row] = target.dense(policies.shape[1])
            black = float(record.winner)
            sides[row] = 1 if state.to_play == Color.BLACK else -1
            values[row] = black * sides[row]
            row += 1
        if move is not None:
            state.play(int(move))
    if row != len(wanted):
        raise ValueError(f"game {record.index}: targets at moves the game does not have")
    ownership = sides[:, None] * state.area_owners()[None, :] if net.ownership else None
    return Positions(planes, policies, values, ownership)


def window_buffer(games: Iterable[GameRecord], net: NetConfig, rules: Rules) -> ReplayBuffer:
    """A replay buffer holding every recorded position of ``games``.

    Raises:
        ValueError: When the games hold no recorded position.
    """
    parts = [game_examples(g, net, rules) for g in games]
    total = sum(p[0].shape[0] for p in parts)
    if total == 0:
        raise ValueError("the replay window holds no recorded position")
    buffer = ReplayBuffer(total, (net.in_planes, rules.size, rules.size), ownership=net.ownership)
    for part in parts:
        if part.planes.shape[0]:
            buffer.add(*part)
    return buffer
