"""Arena games as training positions: results and owners after the referee's dead stones."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
import torch
from game_support import game_outcome

from agents.matches.results import ResultsFile
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.training.arena_games import arena_buffer, arena_examples, read_arena_games
from agents.nets.training.replay import ReplayBuffer
from agents.nets.training.step import adamw, mixed_replay_step
from go_env.rules import Rules

NET = NetConfig(size=5, blocks=1, filters=8, history=2, ownership=True)
RULES = {"size": 5, "komi": 7.5}

# Black takes the centre, White a corner, both pass: the referee calls White's corner stone
# dead, so Black owns the whole board (25 - 7.5). Scored as it stands, the empty points touch
# both colours and White wins by komi.
CORNER = {"moves": (12, 0, 25, 25), "dead": (0,), "score": 17.5, "raw_score": -7.5}


def _folder(path: Path, games: list[dict[str, object]], rules: dict[str, object] = RULES) -> Path:
    results = ResultsFile(path / "results.jsonl", {"agent_a": "a", "agent_b": "b", "rules": rules})
    results.load()
    for i, fields in enumerate(games):
        results.append(game_outcome(i, **fields))
    results.close()
    return path


def test_every_position_learns_the_result_and_owners_after_the_dead_stones() -> None:
    outcome = game_outcome(0, **CORNER)
    p = arena_examples(outcome, NET, Rules(**RULES))
    assert p.planes.shape == (4, NET.in_planes, 5, 5)
    assert p.values.tolist() == [1.0, -1.0, 1.0, -1.0]  # Black won; sides alternate
    assert not p.policies.any()  # no policy target
    assert p.ownership is not None
    assert (p.ownership[0] == 1).all() and (p.ownership[1] == -1).all()  # the dead stone's too
    alive = arena_examples(game_outcome(0, **{**CORNER, "dead": ()}), NET, Rules(**RULES))
    assert alive.values.tolist() == [-1.0, 1.0, -1.0, 1.0]  # as it stands, White wins
    assert alive.ownership is not None and alive.ownership[0].tolist().count(0) == 23


def test_folders_keep_games_ended_by_passes_and_refuse_other_sizes(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path / "a",
        [CORNER, {**CORNER, "ended_by": "resignation"}, {**CORNER, "ended_by": "move cap"}],
    )
    games = read_arena_games([folder])
    assert len(games.games) == 1 and games.left_out == {"resignation": 1, "move cap": 1}
    buffer = arena_buffer(games, NET)
    assert len(buffer) == 4 and buffer.ownership is not None
    with pytest.raises(ValueError, match="arena games on 5x5 cannot train a 9x9 network"):
        arena_buffer(games, NetConfig(size=9, blocks=1, filters=8, history=2))
    only_resigned = _folder(tmp_path / "b", [{**CORNER, "ended_by": "resignation"}])
    with pytest.raises(ValueError, match="no game ended by passes"):
        arena_buffer(read_arena_games([only_resigned]), NET)
    with pytest.raises(FileNotFoundError, match="no results file"):
        read_arena_games([tmp_path / "none"])


def test_positions_without_a_policy_target_weigh_nothing_in_the_policy_term(
    tmp_path: Path,
) -> None:
    torch.manual_seed(0)
    net = PolicyValueNet(NET)
    searched = ReplayBuffer(8, (NET.in_planes, 5, 5), ownership=True)
    rng = np.random.default_rng(3)
    policies = rng.dirichlet(np.ones(26), size=8).astype(np.float32)
    planes = rng.integers(0, 2, size=(8, NET.in_planes, 5, 5)).astype(np.int8)
    owners = rng.choice([-1, 1], size=(8, 25)).astype(np.int8)
    searched.add(planes, policies, np.ones(8, dtype=np.float32), owners)
    arena = arena_buffer(read_arena_games([_folder(tmp_path / "a", [CORNER])]), NET)
    draws = [(searched, 6), (arena, 2)]
    replay = copy.deepcopy(rng)  # the draws the step will make
    batches = [buffer.sample(count, replay) for buffer, count in draws]
    net.train()
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(np.concatenate([b.planes for b in batches])))
    target = torch.from_numpy(np.concatenate([b.policies for b in batches]))
    each = -(target * torch.log_softmax(logits, dim=1)).sum(dim=1)
    expected = float(each[:6].mean())  # the searched positions only
    losses = mixed_replay_step(net, adamw(net, 1e-3, 0.0), draws, rng, 1.5)
    assert losses["policy"] == pytest.approx(expected, rel=1e-5)
    assert losses["policy"] > float(each.mean())  # the zero rows would have diluted it
    assert losses["ownership"] > 0


def test_the_loss_plot_gets_a_panel_for_the_held_out_arena_games(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    from agents.nets.training.plots import plot_losses

    rows = [{"step": s, "train_policy": 3.0 / s, "val_value": 1.0 / s} for s in (1, 2)]
    plain = plot_losses(rows, tmp_path / "plain.png")
    arena = plot_losses([{**r, "val_arena_value": 0.7} for r in rows], tmp_path / "arena.png")
    assert plain is not None and arena is not None
    widths = imread(arena).shape[1], imread(plain).shape[1]
    assert widths[0] == pytest.approx(1.5 * widths[1], rel=0.01)  # three panels, not two
