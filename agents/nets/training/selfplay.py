"""Self-play reinforcement learning in the AlphaZero style (``gomcts train selfplay``).

Each iteration (David Silver et al., *Mastering the game of Go without human knowledge*,
Nature 2017; *A general reinforcement learning algorithm that masters chess, shogi and Go
through self-play*, Science 2018):

1. **Self-play**: the best network so far plays ``games`` games against itself with MCTS
   (PUCT, ``sims`` simulations, Dirichlet noise at the root, moves sampled by visit counts
   for the first ``temperature_moves`` moves, then the most visited). Each position is stored
   with the search's visit distribution (policy target) and, once the game is over, its
   Tromp-Taylor result from the side of the player to move (value target).
2. **Training**: the candidate network (which carries on from the previous iteration's
   candidate, optimizer included) takes ``train_steps`` steps on minibatches drawn from the
   replay buffer (:class:`~agents.nets.training.replay.ReplayBuffer`), with random board symmetries.
3. **Evaluation**: the candidate plays ``eval_games`` paired games against the best network
   through the arena (:mod:`agents.matches.arena`: paired openings, alternating colours, a resumable
   results file); it becomes the best when its score rate reaches ``promote`` (0.55 in
   AlphaGo Zero).

The output folder holds ``best.pt`` and ``candidate.pt`` (checkpoints with their config),
``state.pt`` (what a resumed run needs: the iteration, the optimizer, the generators),
``replay.npz``, ``arena/iter-NNNN.jsonl`` (the evaluation matches), ``metrics.jsonl`` and the
plots ``losses.png`` and ``winrates.png``. A rerun with the same folder resumes after the last
completed iteration (an interrupted iteration is played again from its start, with the same
seeds); raising ``iterations`` extends a run.

**Layering.** The evaluation is a ``gate`` callable given by the caller, so that the loop
does not depend on how candidates are judged; ``gomcts train selfplay`` passes the arena's
(:func:`agents.nets.training.gating.arena_gate`, a match of :mod:`agents.matches`).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.mcts.agent import MCTSAgent
from agents.mcts.config import MCTSConfig
from agents.nets.checkpoint import load_checkpoint, save_checkpoint
from agents.nets.evaluator import NetEvaluator, resolve_device
from agents.nets.features import input_planes
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.precision import check_precision
from agents.nets.threads import check_threads, use_threads
from agents.nets.training.plots import plot_losses, plot_winrates
from agents.nets.training.replay import ReplayBuffer
from agents.nets.training.step import (
    append_metrics,
    generator_state,
    restart_metrics,
    restore_generators,
    seed_everything,
    train_step,
)
from agents.nets.training.supervised import machine_description
from go_env.rules import Rules
from go_env.state import Color, GoState

__all__ = ["Gate", "SelfPlayConfig", "self_play_game", "train_selfplay"]

Gate = Callable[[Path, Path, int, "SelfPlayConfig", Path], dict[str, Any]]
"""``gate(candidate, best, iteration, config, out_dir) -> {"score", "low", "high", ...}``."""


@dataclass(frozen=True, kw_only=True)
class SelfPlayConfig:
    """A self-play run.

    Args:
        net: The network's shape.
        komi: Komi of the games (the board size is the network's).
        max_moves: Move cap of the games (``None``: the rules' default, ``2*N*N``).
        iterations: Iterations in all.
        games: Self-play games per iteration.
        sims: Simulations per move in self-play.
        batch: Leaves evaluated together (virtual loss).
        c: PUCT constant (``None``: the MCTS default, 0.5 after [LL20]).
        temperature_moves: Moves sampled by visit counts at the start of each game.
        noise_alpha: Dirichlet concentration of the root noise.
        noise_weight: Weight of the root noise.
        replay_size: Positions kept in the replay buffer.
        train_steps: Optimizer steps per iteration.
        batch_size: Examples per step.
        lr: Learning rate (AdamW).
        weight_decay: Weight decay.
        eval_games: Games of each candidate against the best (paired colours).
        eval_sims: Simulations per move in the evaluation games.
        promote: Score rate at which the candidate becomes the best.
        init: Checkpoint to start from (e.g. a supervised model; ``None``: random weights).
        seed: Seed of the run.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"``.
        threads: Torch CPU threads (0: leave torch's setting).
        precision: Precision of the network in the games (self-play and evaluation):
            ``"fp32"``, ``"bf16"``, ``"int8"`` or ``"auto"`` (:mod:`agents.nets.precision`);
            training is always fp32.
    """

    net: NetConfig = dataclasses.field(default_factory=NetConfig)
    komi: float = 7.5
    max_moves: int | None = None
    iterations: int = 10
    games: int = 20
    sims: int = 100
    batch: int = 8
    c: float | None = None
    temperature_moves: int = 8
    noise_alpha: float = 0.15
    noise_weight: float = 0.25
    replay_size: int = 50_000
    train_steps: int = 200
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 1e-4
    eval_games: int = 20
    eval_sims: int = 50
    promote: float = 0.55
    init: str | None = None
    seed: int = 0
    device: str = "cpu"
    threads: int = 1
    precision: str = "fp32"

    def __post_init__(self) -> None:
        for name in (
            "iterations",
            "games",
            "sims",
            "batch",
            "replay_size",
            "train_steps",
            "batch_size",
            "eval_games",
            "eval_sims",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        if not 0 <= self.promote <= 1:
            raise ValueError(f"promote must be in [0, 1], got {self.promote}")
        check_threads(self.threads)
        check_precision(self.precision)

    @property
    def rules(self) -> Rules:
        """The rules of the games."""
        return Rules(size=self.net.size, komi=self.komi, max_moves=self.max_moves)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        out = dataclasses.asdict(self)
        out["net"] = self.net.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SelfPlayConfig:
        """The config of :meth:`to_dict`'s output."""
        return cls(**{**data, "net": NetConfig.from_dict(data["net"])})

    def same_run(self, other: SelfPlayConfig) -> bool:
        """Whether ``other`` continues this run (all equal but ``iterations``)."""
        a, b = self.to_dict(), other.to_dict()
        a.pop("iterations")
        b.pop("iterations")
        return a == b

    def search_spec(self, model: Path | str, sims: int) -> str:
        """The ``mcts`` agent spec that searches with the network at ``model``."""
        c = "" if self.c is None else f",c={self.c:g}"
        return (
            f"mcts:policy=puct,sims={sims},batch={self.batch}{c},"
            f'evaluator="net:{model},threads={self.threads},device={self.device},'
            f'precision={self.precision}"'
        )


def self_play_game(
    net: PolicyValueNet, config: SelfPlayConfig, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """One self-play game of the network against itself.

    Returns:
        Planes ``int8 (T, C, N, N)``, visit distributions ``float32 (T, N*N + 1)``, values
        ``float32 (T,)`` (the result for the player to move) and the result string.
    """
    rules = config.rules
    mcts = MCTSConfig(
        sims=config.sims,
        policy="puct",
        c=config.c,
        batch=config.batch,
        noise_alpha=config.noise_alpha,
        noise_weight=config.noise_weight,
        temperature_moves=config.temperature_moves,
        seed=seed,
    )
    evaluator = NetEvaluator(
        net, symmetry="random", seed=seed, device=config.device, precision=config.precision
    )
    agent = MCTSAgent(mcts, evaluator=evaluator)
    state = GoState(rules)
    planes, policies, players = [], [], []
    actions = rules.size * rules.size + 1
    while not state.is_over:
        move = agent.act(state)
        stats = agent.last_stats
        assert stats is not None
        visits = np.zeros(actions, dtype=np.float32)
        visits[stats.moves] = stats.visits
        planes.append(input_planes(state, config.net.history, config.net.tactical))
        policies.append(visits / max(visits.sum(), 1.0))
        players.append(state.to_play)
        state.play(move)
    score = state.score()
    black = 1.0 if score > 0 else -1.0 if score < 0 else 0.0
    values = np.array([black if p == Color.BLACK else -black for p in players], np.float32)
    return np.stack(planes), np.stack(policies), values, state.result()


def _copy_net(net: PolicyValueNet) -> PolicyValueNet:
    other = PolicyValueNet(net.config)
    other.load_state_dict(net.state_dict())
    return other.to(next(net.parameters()).device).eval()


def train_selfplay(
    out_dir: str | PathLike[str],
    config: SelfPlayConfig,
    *,
    gate: Gate,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
) -> Path:
    """Run (or resume) self-play training into ``out_dir``; returns the path of ``best.pt``.

    Args:
        out_dir: The output folder (see the module docstring).
        config: The run.
        gate: The evaluation of a candidate against the best, e.g.
            :func:`agents.nets.training.gating.arena_gate`.
        progress: Show progress bars on stderr.
        log: Where to write one-line messages.

    Raises:
        ValueError: When the folder holds another run.
    """
    say = log or (lambda message: None)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    use_threads(config.threads)
    device = resolve_device(config.device)
    state_path, best_path, candidate_path = out / "state.pt", out / "best.pt", out / "candidate.pt"
    metrics_path = out / "metrics.jsonl"
    rng = seed_everything(config.seed)
    if config.init:
        candidate = load_checkpoint(config.init).build(device)
        if candidate.config != config.net:
            raise ValueError(f"init {config.init} is a {candidate.config}, not {config.net}")
    else:
        candidate = PolicyValueNet(config.net).to(device)
    optimizer = torch.optim.AdamW(
        candidate.parameters(), lr=config.lr, weight_decay=config.weight_decay
    )
    buffer = ReplayBuffer(
        config.replay_size, (config.net.in_planes, config.net.size, config.net.size)
    )
    done = 0
    if state_path.exists():
        saved = load_checkpoint(state_path)
        train = saved.train or {}
        previous = SelfPlayConfig.from_dict(train["config"])
        if not previous.same_run(config):
            raise ValueError(
                f"{out} holds another self-play run ({train['config']}); use another folder "
                "or the same settings (only iterations may change)"
            )
        candidate.load_state_dict(saved.weights)
        optimizer.load_state_dict(train["optimizer"])
        rng = restore_generators(train["generators"])
        done = int(train["iteration"])
        buffer = ReplayBuffer.load(out / "replay.npz")
        say(f"resumed after iteration {done}")
    else:
        save_checkpoint(best_path, candidate, meta={"iteration": 0, "config": config.to_dict()})
    rows = restart_metrics(metrics_path, "iteration", done)
    best = load_checkpoint(best_path).build(device)
    for iteration in range(done + 1, config.iterations + 1):
        started = time.perf_counter()
        results = []
        games = range(config.games)
        if progress:
            from tqdm import tqdm

            games = tqdm(games, desc=f"iteration {iteration} self-play", file=sys.stderr)
        for _ in games:
            planes, policies, values, result = self_play_game(
                best, config, int(rng.integers(0, 2**31 - 1))
            )
            buffer.add(planes, policies, values)
            results.append(result)
        play_seconds = time.perf_counter() - started
        losses = []
        for _ in range(config.train_steps):
            x, p, v = buffer.sample(config.batch_size, rng)
            losses.append(
                train_step(
                    candidate,
                    optimizer,
                    torch.from_numpy(x).to(device),
                    torch.from_numpy(p).to(device),
                    torch.from_numpy(v).to(device),
                )
            )
        candidate.eval()
        meta = {"iteration": iteration, "config": config.to_dict()}
        save_checkpoint(candidate_path, candidate, meta=meta)
        judged = gate(candidate_path, best_path, iteration, config, out)
        promoted = judged["score"] >= config.promote
        if promoted:
            shutil.copyfile(candidate_path, best_path)
            best = _copy_net(candidate)
        row = {
            "iteration": iteration,
            "games": config.games,
            "black_wins": sum(r.startswith("B") for r in results),
            "positions": len(buffer),
            "train_policy": float(np.mean([x["policy"] for x in losses])),
            "train_value": float(np.mean([x["value"] for x in losses])),
            "step": iteration * config.train_steps,
            **judged,
            "promoted": promoted,
            "seconds_self_play": round(play_seconds, 1),
            "seconds": round(time.perf_counter() - started, 1),
        }
        rows.append(row)
        buffer.save(out / "replay.npz")
        save_checkpoint(
            state_path,
            candidate,
            meta={**meta, "machine": machine_description()},
            train={
                "config": config.to_dict(),
                "optimizer": optimizer.state_dict(),
                "iteration": iteration,
                "generators": generator_state(rng),
            },
        )
        append_metrics(metrics_path, row)
        say(json.dumps(row))
        plot_losses(rows, out / "losses.png")
        plot_winrates(rows, out / "winrates.png")
    return best_path
