"""Self-play reinforcement learning at scale, resumed over many starts (``gomcts train selfplay``).

A run is a sequence of **generations** (AlphaGo Zero's loop: David Silver et al., *Mastering the
game of Go without human knowledge*, Nature 2017). Generation ``g``:

1. ``selfplay``: the best network plays ``games`` games against itself
   (:mod:`agents.nets.training.generation`: Gumbel AlphaZero or PUCT + Dirichlet, playout cap
   randomisation), ``games_per_worker`` at a time in each of ``workers`` processes (or
   ``workers`` Ray workers on a cluster: ``ray``, :mod:`agents.nets.training.selfplay_ray`),
   their leaves batched into one network call per round; each finished game is appended to
   ``games/gen-NNNN.jsonl`` at once (:mod:`agents.nets.training.records`);
2. ``train``: the candidate network (carried on from the previous generation, optimizer
   included) takes ``train_steps`` steps on minibatches from the last ``window`` generations
   (:mod:`agents.nets.training.window`) and is saved as ``nets/gen-NNNN.pt``;
3. ``gate``: the candidate plays the best in paired games on a balanced book until the SPRT
   decides; it becomes the best only when the test accepts
   (:mod:`agents.nets.training.gating`);
4. ``ladder``: after a promotion (and every ``ladder_every`` generations) the best network
   plays fixed anchors at a fixed N (:mod:`agents.nets.training.ladder`).

**The run folder** ``--out``: ``manifest.json`` (the state and the cost of every start,
written atomically; :mod:`agents.nets.training.manifest`), ``games/``, ``nets/`` (every
candidate; ``nets/gen-0000.pt`` the initial network), ``best.pt`` (a copy of the best),
``state.pt`` (the trainer: candidate weights, optimizer, generators, the last generation
trained), ``book.json``, ``gate/`` and ``ladder/`` (arena results files), ``metrics.jsonl``
(one row per generation), ``ladder.jsonl``, and the plots ``losses.png``, ``gate.png``,
``elo.png``.

**Resuming.** Running the same command again continues where the run stopped, on this or
another machine (copy the folder): the phase in progress is taken up, a generation's games
already in its file are not played again, a gate or ladder match continues with its games,
training is redone from ``state.pt`` only if it had not been saved (deterministic on the
CPU). A kill loses at most the games in flight. ``budget_minutes`` stops a start cleanly:
self-play stops taking games (those in flight are abandoned), a gate or ladder match stops
after its current game, and the manifest records the start; training always finishes its
steps (a minute or two), so leave that much room.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.lifetime import check_stop
from agents.nets.checkpoint import load_checkpoint, resolve_model_path, save_checkpoint
from agents.nets.evaluator import resolve_device
from agents.nets.model import PolicyValueNet
from agents.nets.threads import use_threads
from agents.nets.training.gating import run_gate
from agents.nets.training.generation import play_selfplay_games
from agents.nets.training.jsonl import read_rows, write_rows
from agents.nets.training.ladder import anchors, run_ladder, write_ladder_rows
from agents.nets.training.manifest import Manifest, StartClock
from agents.nets.training.plots import plot_elo, plot_gate, plot_losses
from agents.nets.training.records import GameRecord, generation_games
from agents.nets.training.selfplay_config import SelfPlayConfig
from agents.nets.training.selfplay_worker import game_seed, selfplay_evaluator, selfplay_worker
from agents.nets.training.step import (
    adamw,
    fit_fresh_head,
    fitted_head_line,
    generator_state,
    head_is_fresh,
    replay_step,
    restore_generators,
    seed_everything,
)
from agents.nets.training.window import window_buffer

__all__ = ["game_seed", "run_selfplay", "selfplay_worker"]

Log = Callable[[str], None]
PROGRESS_EVERY = 10
"""Games between progress lines of the self-play phase."""


class _Run:
    """One start of a run (see the module docstring)."""

    def __init__(
        self,
        out: Path,
        config: SelfPlayConfig,
        deadline: float,
        log: Log,
        on_game: Callable[[GameRecord], None] | None,
        ray: str | None = None,
    ) -> None:
        self.out = out
        self.config = config
        self.ray = ray
        # with Ray, the gate and the ladder still play here, on this machine's cores
        self.local = (
            config
            if ray is None
            else dataclasses.replace(config, workers=min(config.workers, os.cpu_count() or 1))
        )
        self.deadline = deadline
        self.say = log
        self.on_game = on_game
        self.clock = StartClock()
        self.device = resolve_device(config.device)
        path = out / "manifest.json"
        anchors(config, out)  # an extra anchor's checkpoint is missing: say so before starting
        if path.exists():
            self.manifest = Manifest.load(path)
            saved = self.manifest.data["config"]
            config.check_resume(saved)
            changed = config.runtime_changes(saved)
            self.manifest.data["config"] = config.to_dict()
            self.say(
                f"resuming generation {self.manifest.generation} at its {self.manifest.phase} "
                f"phase (best: generation {self.manifest.data['best_generation']})"
            )
        else:
            changed = {}
            self.manifest = Manifest.create(path, config.to_dict())
            self._initialise()
        self.start = self.manifest.begin_start(
            config.workers, config.games_per_worker, ray=ray, changed=changed
        )
        self.manifest.save()

    # ------------------------------------------------------------------ set-up
    def _initialise(self) -> None:
        """The initial network (random or ``init``), the trainer's state, the manifest."""
        config = self.config
        rng = seed_everything(config.seed)
        if config.init:
            start = load_checkpoint(resolve_model_path(config.init))
            shape = dataclasses.replace(start.config, ownership=config.net.ownership)
            if shape != config.net:  # an ownership head may differ: it is for training only
                raise ValueError(
                    f"--init {config.init} is a {start.config}, not the run's {config.net}; "
                    "give the run the same --preset/--history/--tactical as the checkpoint"
                )
            net = PolicyValueNet(config.net).to(self.device)
            net.load_weights(start.weights)
            origin = f"from {config.init}"
            fresh_head = config.net.ownership and not start.config.ownership
        else:
            net = PolicyValueNet(config.net).to(self.device)
            origin = "tabula rasa (random weights)"
            fresh_head = False
        meta = {"generation": 0, "origin": origin, "config": config.to_dict()}
        save_checkpoint(self.out / "nets" / "gen-0000.pt", net, meta=meta)
        shutil.copyfile(self.out / "nets" / "gen-0000.pt", self.out / "best.pt")
        optimizer = adamw(net, config.lr, config.weight_decay)
        self._save_trainer(net, optimizer, rng, trained=0, steps=0, fresh_head=fresh_head)
        self.manifest.data["origin"] = origin
        self.say(f"new run in {self.out}: {origin}, network {config.net.shape_name}")

    def _save_trainer(
        self,
        net: PolicyValueNet,
        optimizer: torch.optim.Optimizer,
        rng: np.random.Generator,
        *,
        trained: int,
        steps: int,
        row: dict[str, Any] | None = None,
        fresh_head: bool = False,
    ) -> None:
        """Save the trainer's state to ``state.pt``.

        ``fresh_head``: the network's ownership head is untrained on a trained tower (a start
        from a network without one), to be fitted alone before its first joint step.
        """
        save_checkpoint(
            self.out / "state.pt",
            net,
            meta={"generation": trained},
            train={
                "optimizer": optimizer.state_dict(),
                "generators": generator_state(rng),
                "trained_generation": trained,
                "steps": steps,
                "row": row or {},
                "fresh_head": fresh_head,
            },
        )

    # ------------------------------------------------------------------ the loop
    def out_of_time(self) -> bool:
        return time.monotonic() >= self.deadline

    def run(self) -> str:
        """Play generations until the last one or the budget; ``"done"`` or ``"budget"``."""
        m = self.manifest
        status = "interrupted"  # what the manifest says if an exception ends the start
        try:
            while m.generation <= self.config.generations:
                if self.out_of_time():
                    status = "budget"
                    break
                g = m.generation
                if m.phase == "selfplay":
                    if not self.self_play(g):
                        status = "budget"
                        break
                    m.advance("train")
                    m.save()
                    continue
                if m.phase == "train":
                    self.train(g)
                    m.advance("gate")
                    m.save()
                    continue
                if m.phase == "gate":
                    if not self.gate(g):
                        status = "budget"
                        break
                    m.advance("ladder")
                    m.save()
                    continue
                if m.phase == "ladder":
                    if not self.ladder(g):
                        status = "budget"
                        break
                    self.finish(g)
                    continue
                raise ValueError(f"the manifest names an unknown phase {m.phase!r}")
            else:
                status = "done"
        finally:
            m.end_start(self.start, self.clock, status)
            m.save()
        return status

    # ------------------------------------------------------------------ phases
    def self_play(self, g: int) -> bool:
        """Play the generation's missing games; ``False`` when the budget ran out first."""
        config = self.config
        store = generation_games(self.out, g)
        have = store.read()
        todo = [i for i in range(config.games) if i not in have]
        if not todo:
            return True
        model = str(self.out / self.manifest.data["best"])
        processes = min(config.workers, len(todo))
        width = max(1, min(config.games_per_worker, math.ceil(len(todo) / processes)))
        where = "workers" if self.ray is None else f"Ray workers ({self.ray})"
        self.say(
            f"generation {g}: self-play of {len(todo)} games ({len(have)} already played), "
            f"{processes} {where} x {width} games, network {self.manifest.data['best']}"
        )
        pool: Any = None
        games: Iterator[GameRecord]
        if self.ray is not None:
            from agents.nets.training.selfplay_ray import ray_selfplay_pool

            pool = ray_selfplay_pool(config.to_dict(), Path(model), g, width, processes, self.ray)
            games = pool.games(todo)
        elif processes == 1:
            evaluator = selfplay_evaluator(config, model, g, todo[0])
            tasks = ((i, game_seed(config.seed, g, i)) for i in todo)
            games = play_selfplay_games(evaluator, config.settings(), tasks, width)
        else:
            from agents.matches.stream_pool import StreamPool

            pool = StreamPool(selfplay_worker, (config.to_dict(), model, g, width), processes)
            games = pool.games(todo)
        started = time.monotonic()
        done = 0
        counted: set[int] = set()
        try:
            for record in games:
                store.append([record])
                done += 1
                self._count(record)
                counted.add(record.index)
                self.manifest.save()
                check_stop()  # a SIGTERM whose KeyboardInterrupt was lost (agents.lifetime)
                if self.on_game is not None:
                    self.on_game(record)
                if done % PROGRESS_EVERY == 0 or done == len(todo):
                    self._progress(g, done, len(todo), len(have), started)
                if done < len(todo) and self.out_of_time():
                    self.say(f"generation {g}: time budget reached after {done} games; stopping")
                    return False
        finally:
            if pool is not None:
                pool.close()
            elif hasattr(games, "close"):
                games.close()
            # A stop (a signal's KeyboardInterrupt) that lands between a game's append and its
            # count leaves a stored game uncounted: the start counts every game it stored.
            stored = store.read()
            for index, record in stored.items():
                if index not in have and index not in counted:
                    self._count(record)
        return len(stored) >= config.games

    def _count(self, record: GameRecord) -> None:
        """Add a stored game to this start's count and cost (not saved)."""
        if self.ray is not None:  # the cluster's CPU, as the workers report it
            self.clock.remote += record.cpu_seconds
        self.manifest.update_start(self.start, self.clock, games=1, positions=record.positions)

    def _progress(self, g: int, done: int, todo: int, before: int, started: float) -> None:
        elapsed = time.monotonic() - started
        rate = done / elapsed if elapsed > 0 else float("nan")
        left = (todo - done) / rate if rate > 0 else float("nan")
        budget = self.deadline - time.monotonic()
        budget_text = "" if math.isinf(budget) else f", budget left {budget / 60:.1f} min"
        self.say(
            f"generation {g}: {before + done}/{self.config.games} games, "
            f"{rate * 3600:.0f} games/hour, self-play ETA {left / 60:.1f} min{budget_text}"
        )

    def train(self, g: int) -> None:
        """Train the candidate on the window and save it as ``nets/gen-g.pt``."""
        config = self.config
        saved = load_checkpoint(self.out / "state.pt", map_location=str(self.device))
        train = saved.train or {}
        if int(train.get("trained_generation", -1)) >= g:  # trained before an interruption
            self.manifest.data["current"] = {"generation": g, **train.get("row", {})}
            return
        candidate = PolicyValueNet(config.net).to(self.device)
        candidate.load_weights(saved.weights)  # a fork may have switched the head on or off
        # the run's settings, which a fork may change, with the optimizer's moments
        optimizer = adamw(candidate, config.lr, config.weight_decay, train["optimizer"])
        rng = restore_generators(train["generators"])
        games: list[GameRecord] = []
        for k in range(max(1, g - config.window + 1), g + 1):
            games.extend(generation_games(self.out, k).read().values())
        started = time.monotonic()
        buffer = window_buffer(games, config.net, config.rules)
        fitted: dict[str, float] = {}
        # a head untrained on a trained tower: the start's own, or one a fork switched on
        trained_tower = bool(train.get("fresh_head")) or int(train.get("steps", 0)) > 0
        if trained_tower and head_is_fresh(candidate, optimizer):
            fitted = fit_fresh_head(
                candidate, [(buffer, config.batch_size)], rng, device=self.device
            )
            self.say(f"generation {g}: {fitted_head_line(fitted)}")
        losses = []
        for _ in range(config.train_steps):
            losses.append(
                replay_step(
                    candidate,
                    optimizer,
                    buffer,
                    config.batch_size,
                    rng,
                    config.ownership_weight,
                    self.device,
                )
            )
        candidate.eval()
        steps = int(train.get("steps", 0)) + config.train_steps
        row = {
            "train_policy": float(np.mean([x["policy"] for x in losses])),
            "train_value": float(np.mean([x["value"] for x in losses])),
            **(
                {"train_ownership": float(np.mean([x["ownership"] for x in losses]))}
                if config.net.ownership
                else {}
            ),
            **fitted,
            "step": steps,
            "train_steps": config.train_steps,
            "window_games": len(games),
            "window_positions": len(buffer),
            "train_seconds": round(time.monotonic() - started, 1),
        }
        meta = {"generation": g, **row, "config": config.to_dict()}
        save_checkpoint(self.out / "nets" / f"gen-{g:04d}.pt", candidate, meta=meta)
        self._save_trainer(candidate, optimizer, rng, trained=g, steps=steps, row=row)
        self.manifest.data["current"] = {"generation": g, **row}
        self.say(f"generation {g}: trained {json.dumps(row)}")

    def gate(self, g: int) -> bool:
        """The gate match; ``False`` when the budget ran out first."""
        candidate = self.out / "nets" / f"gen-{g:04d}.pt"
        best = self.out / self.manifest.data["best"]
        result = run_gate(candidate, best, g, self.local, self.out, deadline=self.deadline)
        if result.interrupted:
            self.say(f"generation {g}: gate stopped by the budget after {result.games} games")
            return False
        current = self.manifest.data.setdefault("current", {"generation": g})
        current.update(result.row())
        if result.promoted:
            self.manifest.data["best"] = f"nets/gen-{g:04d}.pt"
            self.manifest.data["best_generation"] = g
            shutil.copyfile(candidate, self.out / "best.pt")
        self.say(
            f"generation {g}: gate {result.decision or 'undecided'} after {result.games} games, "
            f"score {result.score:.3f} [{result.low:.3f}, {result.high:.3f}]"
            + (", promoted" if result.promoted else ", best kept")
        )
        return True

    def ladder(self, g: int) -> bool:
        """The Elo ladder when due; ``False`` when the budget ran out first."""
        config = self.config
        current = self.manifest.data.get("current", {})
        due = bool(current.get("gate_promoted")) or (
            config.ladder_every > 0 and g % config.ladder_every == 0
        )
        if not due:
            return True
        best = self.out / self.manifest.data["best"]
        rows, interrupted = run_ladder(best, g, self.local, self.out, deadline=self.deadline)
        if interrupted:
            return False
        path = self.out / "ladder.jsonl"
        for row in rows:
            row["best_generation"] = self.manifest.data["best_generation"]
        # rows of other anchors (a backfill's) are kept; these replace their own
        write_ladder_rows(path, [*read_rows(path), *rows], list(anchors(config, self.out)))
        current["ladder"] = rows
        for row in rows:
            self.say(
                f"generation {g}: ladder vs {row['anchor']}: {row['score']:.3f} over "
                f"{row['games']} games, Elo {row['elo']}"
            )
        return True

    def finish(self, g: int) -> None:
        """Write the generation's metrics row and plots, and start the next generation."""
        records = generation_games(self.out, g).read().values()
        current = dict(self.manifest.data.pop("current", {}))
        current.pop("ladder", None)
        before = [r for r in self.manifest.data["generations"] if r["generation"] < g]
        games = sum(r["games"] for r in before) + len(records)
        positions = sum(r["positions"] for r in before) + sum(r.positions for r in records)
        self.manifest.count_games(games, positions)
        self.manifest.update_start(self.start, self.clock)  # the workers that ended, counted
        cost = self.manifest.generation_cost()
        row = {
            "generation": g,
            "games": len(records),
            "positions": sum(r.positions for r in records),
            "black_wins": sum(r.winner > 0 for r in records),
            "mean_moves": round(float(np.mean([len(r.moves) for r in records])), 1),
            **{k: v for k, v in current.items() if k != "generation"},
            "best_generation": self.manifest.data["best_generation"],
            "total_games": games,
            "total_positions": positions,
            **cost,
        }
        row = {
            k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in row.items()
        }
        metrics = self.out / "metrics.jsonl"
        rows = [*(r for r in read_rows(metrics) if r["generation"] < g), row]
        write_rows(metrics, rows)  # whole: a kill here keeps the old file or the new
        plot_losses(rows, self.out / "losses.png")
        plot_gate(rows, self.out / "gate.png")
        plot_elo(read_rows(self.out / "ladder.jsonl"), self.out / "elo.png")
        self.manifest.finish_generation(row)
        self.manifest.save()


def run_selfplay(
    out: str | Path,
    config: SelfPlayConfig,
    *,
    budget_minutes: float | None = None,
    log: Log | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
    ray: str | None = None,
) -> str:
    """Run (or resume) self-play training in ``out`` (module docstring).

    Args:
        out: The run folder.
        config: The run's settings (a resumed run must match the manifest's, see
            :meth:`SelfPlayConfig.check_resume`).
        budget_minutes: Stop cleanly after this many minutes of this start (``None``: no
            limit).
        log: Where one-line messages go.
        on_game: Called with each self-play game recorded (e.g. progress in a caller).
        ray: Play the self-play games on this Ray cluster (``"auto"``, ``"local"``,
            ``"HOST:PORT"``, ``"ray://HOST:PORT"``; :func:`agents.matches.ray_pool.connect`):
            ``config.workers`` workers there, each ``games_per_worker`` games at once. The
            gate and ladder play here, in at most this machine's CPU count of processes.
            A choice of this start only (not a setting of the run).

    Returns:
        ``"done"`` when ``config.generations`` are finished, ``"budget"`` when the budget
        stopped this start (rerun to continue).

    Raises:
        ValueError: When the folder holds a run with other settings, or bad settings.
        agents.matches.ray_pool.ClusterError: With ``ray``, when Ray is not installed (the
            message says how to install it) or the cluster cannot be used.
        agents.matches.stream_pool.WorkerError: When a self-play game fails or a worker
            dies (on Ray: more often than the pool replaces dead workers).
    """
    if budget_minutes is not None and not budget_minutes > 0:
        raise ValueError(f"budget_minutes must be > 0, got {budget_minutes}")
    if ray is not None:  # no Ray, or no cluster: say so before the run folder is touched
        from agents.matches.ray_pool import connect

        connect(ray)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    use_threads(config.threads)
    deadline = float("inf") if budget_minutes is None else time.monotonic() + budget_minutes * 60
    run = _Run(folder, config, deadline, log or (lambda message: None), on_game, ray)
    return run.run()
