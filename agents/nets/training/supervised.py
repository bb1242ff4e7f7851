"""Supervised learning from a folder of SGF game records (``gomcts train sl``).

The network learns to predict the move played (policy) and the game's result (value) at each
position, on minibatches drawn at random with a random board symmetry per example
(:mod:`agents.nets.training.data`). Optimiser: Adam (Boke Go's supervised training used Adam with
learning rate 1e-3, ``docs/protocol.md#boke-go``) with weight decay, learning rate decayed
by a cosine to a tenth over the run. A share of the games (not positions, so that positions of
one game never sit on both sides) is held out to measure the validation losses.

The output folder holds

* ``model.pt``: the network with its config and the facts of the run in ``meta`` (a
  checkpoint any ``net`` agent or ``mcts:evaluator=net:...`` loads);
* ``checkpoint.pt``: the same plus the optimizer, the step and the generators' states; a
  rerun with the same folder resumes from it, exactly as if never interrupted (it may also
  raise ``steps`` to train longer; the learning-rate schedule then follows the new total);
* ``metrics.jsonl``: one line per evaluation (step, train and validation losses, accuracy,
  seconds); ``losses.png``: their plot, drawn at the end of the run.

On the CPU a run is deterministic for its seed, resumed or not.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.nets.checkpoint import load_checkpoint, save_checkpoint
from agents.nets.evaluator import resolve_device
from agents.nets.model import NetConfig, PolicyValueNet
from agents.nets.threads import check_threads, use_threads
from agents.nets.training.data import Examples, load_sgf_dir, sample_batch
from agents.nets.training.plots import plot_losses
from agents.nets.training.step import (
    append_metrics,
    cosine_lr,
    evaluate_loss,
    generator_state,
    restart_metrics,
    restore_generators,
    seed_everything,
    train_step,
)
from go_env.validation import check_int

__all__ = [
    "SupervisedConfig",
    "held_out_losses",
    "machine_description",
    "split_games",
    "train_supervised",
]


@dataclass(frozen=True, kw_only=True)
class SupervisedConfig:
    """A supervised training run.

    Args:
        net: The network's shape (:class:`~agents.nets.model.NetConfig`).
        steps: Optimizer steps in all.
        batch_size: Examples per step.
        lr: Peak learning rate of Adam.
        weight_decay: L2 weight decay (AdamW style).
        value_scale: Weight of the value loss against the policy loss.
        augment: Draw a random board symmetry per example.
        validation: Share of the games held out for validation (0: none).
        eval_every: Steps between evaluations (metrics line, plot, checkpoint).
        seed: Seed of the run.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"``.
        threads: Torch CPU threads (0: leave torch's setting).
    """

    net: NetConfig = dataclasses.field(default_factory=NetConfig)
    steps: int = 2000
    batch_size: int = 128
    lr: float = 1e-3
    weight_decay: float = 1e-4
    value_scale: float = 1.0
    augment: bool = True
    validation: float = 0.05
    eval_every: int = 100
    seed: int = 0
    device: str = "cpu"
    threads: int = 1

    def __post_init__(self) -> None:
        for name in ("steps", "batch_size", "eval_every"):
            value = getattr(self, name)
            check_int(name, value, min=1)
        if not (self.lr > 0 and self.weight_decay >= 0 and self.value_scale >= 0):
            raise ValueError("lr must be > 0, weight_decay and value_scale >= 0")
        if not 0 <= self.validation < 1:
            raise ValueError(f"validation must be in [0, 1), got {self.validation}")
        check_threads(self.threads)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        out = dataclasses.asdict(self)
        out["net"] = self.net.to_dict()
        return out

    def same_run(self, other: SupervisedConfig) -> bool:
        """Whether ``other`` continues this run (all equal but ``steps`` and ``eval_every``)."""
        a, b = self.to_dict(), other.to_dict()
        for key in ("steps", "eval_every"):
            a.pop(key)
            b.pop(key)
        return a == b


def machine_description() -> dict[str, Any]:
    """CPU, threads, Python and torch versions (for the facts of a run)."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cpus": __import__("os").cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "python": sys.version.split()[0],
        "torch": str(torch.__version__),
        "platform": platform.platform(),
    }


def split_games(examples: Examples, share: float, seed: int) -> tuple[Examples, Examples | None]:
    """Training and held-out examples, split by whole games as :func:`train_supervised` does.

    ``share`` of the games (never single positions) is drawn with ``seed``; a run with that
    seed and ``validation`` share measures its ``val_*`` metrics on exactly these games.

    Returns:
        ``(train, held_out)``; ``held_out`` is ``None`` when the share rounds to no game or to
        all of them.
    """
    games = np.unique(examples.game)
    held = round(share * games.size)
    if held == 0 or held >= games.size:
        return examples, None
    rng = np.random.default_rng([seed, 1])
    valid_games = rng.choice(games, size=held, replace=False)
    is_valid = np.isin(examples.game, valid_games)
    return examples.subset(np.flatnonzero(~is_valid)), examples.subset(np.flatnonzero(is_valid))


def _tensors(examples: Examples, device: torch.device) -> tuple[torch.Tensor, ...]:
    return (
        torch.from_numpy(examples.planes.astype(np.float32)).to(device),
        torch.from_numpy(examples.moves).to(device),
        torch.from_numpy(examples.values).to(device),
        torch.from_numpy(examples.policy_weight).to(device),
        torch.from_numpy(examples.value_weight).to(device),
    )


def held_out_losses(
    checkpoints: Sequence[str | PathLike[str]],
    data: str | PathLike[str],
    *,
    share: float = 0.05,
    seed: int = 0,
    device: str = "cpu",
) -> list[dict[str, float]]:
    """Losses of each checkpoint on the games a supervised run on ``data`` held out.

    With the run's ``validation`` share and ``seed`` these are the games its ``val_*`` metrics
    were measured on, so networks trained on other data can be compared with it on exactly
    those games. Each checkpoint gets the input planes of its own config.

    Returns:
        Per checkpoint, in order: ``policy`` (cross-entropy), ``value`` (mean squared error),
        ``accuracy`` (share of moves predicted), as in the ``val_*`` metrics.

    Raises:
        ValueError: When the share holds out no game of ``data``, or the checkpoints differ in
            board size.
    """
    torch_device = resolve_device(device)
    loaded = [load_checkpoint(path) for path in checkpoints]
    sizes = sorted({saved.config.size for saved in loaded})
    if len(sizes) > 1:
        raise ValueError(
            f"the checkpoints are networks for board sizes {sizes}; compare networks of one "
            "board size"
        )
    results: list[dict[str, float]] = []
    held_out: dict[tuple[int, bool], Examples] = {}
    for saved in loaded:
        config = saved.config
        key = (config.history, config.tactical)
        if key not in held_out:
            examples, _ = load_sgf_dir(
                data, size=config.size, history=config.history, tactical=config.tactical
            )
            _, valid = split_games(examples, share, seed)
            if valid is None:
                raise ValueError(
                    f"a share of {share} holds out no game of the {np.unique(examples.game).size} "
                    f"in {data}; use a share between 0 and 1 that leaves games on both sides"
                )
            held_out[key] = valid
        net = saved.build(torch_device)
        results.append(evaluate_loss(net, *_tensors(held_out[key], torch_device)))
    return results


def train_supervised(
    data: str | PathLike[str] | Examples,
    out_dir: str | PathLike[str],
    config: SupervisedConfig,
    *,
    resume: bool = True,
    progress: bool = False,
    data_description: str | None = None,
    log: Callable[[str], None] | None = None,
) -> Path:
    """Train a network on SGF records (or ready examples) into ``out_dir``.

    Args:
        data: A folder of SGF files (searched recursively), or :class:`Examples`.
        out_dir: The output folder (see the module docstring).
        config: The run.
        resume: Continue from ``out_dir/checkpoint.pt`` when it exists.
        progress: Show a progress bar on stderr.
        data_description: What the data is, for the model's ``meta`` (default: the folder).
        log: Where to write one-line messages (default: nowhere).

    Returns:
        The path of ``model.pt``.

    Raises:
        FileNotFoundError: When the folder has no SGF files of the network's board size.
        ValueError: When the checkpoint to resume belongs to another run.
    """
    say = log or (lambda message: None)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    use_threads(config.threads)
    device = resolve_device(config.device)
    net_config = config.net
    if isinstance(data, Examples):
        examples, counts = data, {"games": int(np.unique(data.game).size), "positions": len(data)}
        description = data_description or "examples given in memory"
    else:
        examples, counts = load_sgf_dir(
            data, size=net_config.size, history=net_config.history, tactical=net_config.tactical
        )
        description = data_description or str(data)
        if len(examples) == 0:
            raise FileNotFoundError(f"no {net_config.size}x{net_config.size} games in {data}")
    say(f"data: {counts}")
    rng = seed_everything(config.seed)
    train, valid = split_games(examples, config.validation, config.seed)
    net = PolicyValueNet(net_config).to(device)
    optimizer = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    step, seconds = 0, 0.0
    metrics_path = out / "metrics.jsonl"
    checkpoint_path = out / "checkpoint.pt"
    if resume and checkpoint_path.exists():
        saved = load_checkpoint(checkpoint_path)
        state = saved.train or {}
        previous = state.get("config")
        if previous is None:
            raise ValueError(f"{checkpoint_path} holds no training state to resume")
        old = SupervisedConfig(**{**previous, "net": NetConfig.from_dict(previous["net"])})
        if not old.same_run(config):
            raise ValueError(
                f"{checkpoint_path} belongs to another run (config {previous}); use another "
                "folder or the same settings (only steps and eval_every may change)"
            )
        net.load_state_dict(saved.weights)
        optimizer.load_state_dict(state["optimizer"])
        step, seconds = int(state["step"]), float(state["seconds"])
        rng = restore_generators(state["generators"])
        say(f"resumed at step {step}")
    rows = restart_metrics(metrics_path, "step", step)
    valid_tensors = _tensors(valid, device) if valid is not None else None
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(
            total=config.steps, initial=step, file=sys.stderr, unit="step", dynamic_ncols=True
        )
    running: list[dict[str, float]] = []
    started = time.perf_counter() - seconds
    while step < config.steps:
        rows_idx = rng.integers(0, len(train), size=config.batch_size)
        x, moves = sample_batch(train, rows_idx, rng if config.augment else None, net_config.size)
        for group in optimizer.param_groups:
            group["lr"] = cosine_lr(config.lr, step, config.steps)
        losses = train_step(
            net,
            optimizer,
            torch.from_numpy(x).to(device),
            torch.from_numpy(moves).to(device),
            torch.from_numpy(train.values[rows_idx]).to(device),
            policy_weight=torch.from_numpy(train.policy_weight[rows_idx]).to(device),
            value_weight=torch.from_numpy(train.value_weight[rows_idx]).to(device),
            value_scale=config.value_scale,
        )
        running.append(losses)
        step += 1
        if bar is not None:
            bar.set_postfix_str(f"policy {losses['policy']:.3f} value {losses['value']:.3f}")
            bar.update(1)
        if step % config.eval_every == 0 or step == config.steps:
            row: dict[str, Any] = {
                "step": step,
                "seconds": round(time.perf_counter() - started, 2),
                "lr": cosine_lr(config.lr, step - 1, config.steps),
                **{f"train_{k}": float(np.mean([r[k] for r in running])) for k in running[0]},
            }
            running = []
            if valid_tensors is not None:
                row.update({f"val_{k}": v for k, v in evaluate_loss(net, *valid_tensors).items()})
            rows.append(row)
            append_metrics(metrics_path, row)
            say(json.dumps(row))
            seconds = time.perf_counter() - started
            meta = {
                "trained_by": "gomcts train sl (agents.nets.training.supervised)",
                "data": description,
                "data_counts": counts,
                "steps": step,
                "batch_size": config.batch_size,
                "examples_seen": step * config.batch_size,
                "seconds": round(seconds, 1),
                "machine": machine_description(),
                "config": config.to_dict(),
                "last_metrics": row,
            }
            train_state = {
                "config": config.to_dict(),
                "optimizer": optimizer.state_dict(),
                "step": step,
                "seconds": seconds,
                "generators": generator_state(rng),
            }
            save_checkpoint(checkpoint_path, net, meta=meta, train=train_state)
            save_checkpoint(out / "model.pt", net, meta=meta)
    if bar is not None:
        bar.close()
    plot_losses(rows, out / "losses.png")
    if not (out / "model.pt").exists():  # nothing to do: the run was already complete
        save_checkpoint(out / "model.pt", load_checkpoint(checkpoint_path).build())
    (out / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
    return out / "model.pt"
