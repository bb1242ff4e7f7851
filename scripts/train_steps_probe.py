r"""Does more training per generation, or the ownership target, make a stronger network? A probe.

A self-play run trains each candidate ``train_steps`` steps on the window of its last
generations (``docs/nets.md``, "Self-play"); self-play costs far more than training (a
generation of 2,500 games takes about 15 minutes on 2 cores, 1,000 steps under a minute),
so more steps a generation are cheap if they pay. This probe measures it on a run's own
data: from the run's candidate of generation ``G - 1`` (``nets/gen-(G-1).pt``), with a
fresh optimizer and the run's learning rate, batch and seed, it trains one network per
``--steps`` arm on the window that generation ``G`` trained on, then plays each network
against the first one in paired games on the run's book, with the run's gate agent (its
fixed N). Checkpoints and results files are kept in ``--out``, so a rerun resumes::

    python scripts/train_steps_probe.py --run RUN --generation 10 --steps 1000 4000 \
        --games 100 --out runs/train-steps-probe

An arm ``STEPS:ownW`` trains with KataGo's ownership target at weight ``W`` (a fresh
ownership head on the same start; ``docs/nets.md``, "The ownership target"). Every arm
draws the same minibatches (the same seed, the same window), so ``1000`` against
``1000:own1.5`` differs by the ownership term alone::

    python scripts/train_steps_probe.py --run RUN --generation 12 --steps 1000 1000:own1.5 \
        --games 200 --out runs/ownership-probe

``STEPS:ownW:fit`` fits that fresh head alone before the joint steps, as runs do
(``agents.nets.training.step.fit_fresh_head``); the arm ``0`` is the start itself, untrained,
so that an arm's match against it is the run's gate question (``docs/nets.md``, "A fresh
head on a trained tower")::

    python scripts/train_steps_probe.py --run RUN --generation 1 \
        --steps 0 1000 1000:own1.5 1000:own1.5:fit --held-out 2 --games 100 --out runs/head-probe

Prints each arm's training losses and its score against the first arm with the 95% Wilson
interval and Elo, and writes ``summary.json``. ``--held-out H`` adds each arm's policy and
value losses on the recorded positions of generation ``H``'s games (say ``G + 1``: games no
arm trained on), a finer measure than the match of what the training changed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.nets.checkpoint import load_checkpoint, save_checkpoint
from agents.nets.model import PolicyValueNet
from agents.nets.threads import use_threads
from agents.nets.training.distill import buffer_losses
from agents.nets.training.gating import load_or_draw_book, play_run_match
from agents.nets.training.records import GameRecord, generation_games
from agents.nets.training.selfplay_config import SelfPlayConfig
from agents.nets.training.step import adamw, fit_fresh_head, replay_step, seed_everything
from agents.nets.training.window import window_buffer


@dataclasses.dataclass(frozen=True)
class Arm:
    """One network of the probe.

    ``steps`` training steps, ``ownership`` the target's weight, ``fit`` whether the fresh
    ownership head is fitted alone first.
    """

    steps: int
    ownership: float = 0.0
    fit: bool = False

    @classmethod
    def parse(cls, text: str) -> Arm:
        """``0``, ``STEPS``, ``STEPS:ownW`` or ``STEPS:ownW:fit``.

        Raises:
            ValueError: For any other text, or steps below 0, a weight not above 0, or
                ownership on the untrained arm ``0``.
        """
        steps, _, option = text.partition(":")
        option, _, fit = option.partition(":")
        expected = "expected 0, STEPS, STEPS:ownW or STEPS:ownW:fit, e.g. 1000:own1.5:fit"
        try:
            arm = cls(
                int(steps), float(option.removeprefix("own")) if option else 0.0, fit == "fit"
            )
        except ValueError:
            raise ValueError(f"arm {text!r}: {expected}") from None
        if (
            arm.steps < 0
            or (option and not (option.startswith("own") and arm.ownership > 0))
            or fit not in ("", "fit")
            or (arm.fit and not arm.ownership)
            or (arm.steps == 0 and arm.ownership)
        ):
            raise ValueError(
                f"arm {text!r}: {expected}; steps >= 0, W > 0, and no ownership on arm 0"
            )
        return arm

    @property
    def name(self) -> str:
        """The file and agent name: ``steps-1000``, ``steps-1000-own1.5``, ``...-own1.5-fit``."""
        own = f"-own{self.ownership:g}" if self.ownership else ""
        return f"steps-{self.steps}{own}" + ("-fit" if self.fit else "")


def train_arm(
    config: SelfPlayConfig, start: Path, buffer: Any, arm: Arm, path: Path
) -> dict[str, Any]:
    """Train ``arm`` from ``start`` on the window ``buffer``; save to ``path``."""
    rng = seed_everything(config.seed)
    config = dataclasses.replace(config, ownership_weight=arm.ownership)
    net = PolicyValueNet(config.net)
    net.load_weights(load_checkpoint(start).weights)  # a fresh ownership head, if any
    optimizer = adamw(net, config.lr, config.weight_decay)
    began = time.monotonic()
    fitted = fit_fresh_head(net, [(buffer, config.batch_size)], rng) if arm.fit else {}
    losses = []
    for k in range(1, arm.steps + 1):
        # the same draws in every arm
        losses.append(replay_step(net, optimizer, buffer, config.batch_size, rng, arm.ownership))
        if k % 500 == 0 or k == arm.steps:
            print(f"  {arm.name}: {k}/{arm.steps}", flush=True)
    net.eval()
    tail = losses[-min(len(losses), 500) :]
    row: dict[str, Any] = {
        "arm": arm.name,
        "steps": arm.steps,
        "ownership_weight": arm.ownership,
        "positions": len(buffer),
        **fitted,
        "train_seconds": round(time.monotonic() - began, 1),
    }
    if tail:
        row["train_policy_last500"] = float(np.mean([x["policy"] for x in tail]))
        row["train_value_last500"] = float(np.mean([x["value"] for x in tail]))
    if arm.ownership:
        row["train_ownership_last500"] = float(np.mean([x["ownership"] for x in tail]))
    save_checkpoint(path, net.without_ownership(), meta={"probe": row, "start": str(start)})
    return row


def held_out_losses(path: Path, buffer: Any) -> dict[str, float]:
    """The arm at ``path``: its mean policy cross-entropy, value squared error and accuracy.

    Over every position of ``buffer``, as recorded (no symmetries): :func:`buffer_losses`.
    """
    return {"positions": len(buffer), **buffer_losses(load_checkpoint(path).build(), buffer)}


def main(argv: Sequence[str] | None = None) -> int:
    """Train the arms (resumable), play the matches, print and write the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True, help="the self-play run folder")
    parser.add_argument("--generation", type=int, required=True, help="the generation G")
    parser.add_argument(
        "--steps",
        nargs="+",
        required=True,
        help="the arms: STEPS, STEPS:ownW for the ownership target at weight W, "
        "STEPS:ownW:fit to fit its fresh head alone first, 0 for the start itself",
    )
    parser.add_argument("--games", type=int, default=100, help="games of each match")
    parser.add_argument(
        "--held-out",
        type=int,
        default=None,
        help="also measure each arm's losses on this generation's games (none trained on it)",
    )
    parser.add_argument("--workers", type=int, default=None, help="match workers (the run's)")
    parser.add_argument("--out", required=True, help="folder of checkpoints and results")
    args = parser.parse_args(argv)
    run, out = Path(args.run), Path(args.out)
    manifest = run / "manifest.json"
    if not manifest.is_file():
        parser.error(f"--run {run}: not a self-play run folder (no manifest.json)")
    config = SelfPlayConfig.from_dict(json.loads(manifest.read_text())["config"])
    if args.workers is not None:
        config = dataclasses.replace(config, workers=args.workers)
    done = {json.loads(line)["generation"] for line in (run / "metrics.jsonl").open()}
    if args.generation < 1 or args.generation not in done:
        parser.error(
            f"--generation must be a finished generation of the run, one of {sorted(done)}"
        )
    try:
        arms_asked = [Arm.parse(text) for text in args.steps]
    except ValueError as exc:
        parser.error(f"--steps: {exc}")
    if len(set(arms_asked)) != len(arms_asked):
        parser.error(f"--steps must name distinct arms, got {args.steps}")
    if args.games < 2:
        parser.error(f"--games must be >= 2, got {args.games}")
    if args.held_out is not None:
        held_games = generation_games(run, args.held_out).path
        if args.held_out <= args.generation or not held_games.is_file():
            parser.error(
                f"--held-out must be a later generation than {args.generation} whose games "
                f"the run holds ({held_games} is not there)"
            )
    use_threads(1)
    start = run / "nets" / f"gen-{args.generation - 1:04d}.pt"
    first = max(1, args.generation - config.window + 1)
    games: list[GameRecord] = []
    for g in range(first, args.generation + 1):
        games.extend(generation_games(run, g).read().values())
    print(f"window: generations {first}-{args.generation}, {len(games)} games", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    arms: dict[Arm, dict[str, Any]] = {}
    buffer = None
    owned = dataclasses.replace(config.net, ownership=any(a.ownership for a in arms_asked))
    for arm in arms_asked:
        path = out / f"{arm.name}.pt"
        if path.exists():
            arms[arm] = load_checkpoint(path).meta["probe"]
        else:
            if buffer is None:  # built once, for the arms not yet trained
                buffer = window_buffer(games, owned, config.rules)
            arms[arm] = train_arm(config, start, buffer, arm, path)
        print(f"{arm.name}: {json.dumps(arms[arm])}", flush=True)
    if args.held_out is not None:
        held = generation_games(run, args.held_out).read().values()
        positions = window_buffer(held, config.net, config.rules)
        for arm in arms_asked:
            losses = held_out_losses(out / f"{arm.name}.pt", positions)
            arms[arm]["held_out"] = {"generation": args.held_out, **losses}
            print(f"{arm.name} on generation {args.held_out}'s games: {json.dumps(losses)}")
    book = load_or_draw_book(run, config)
    reference = arms_asked[0]
    for arm in arms_asked[1:]:
        result, _ = play_run_match(
            config,
            book,
            agent_a=config.agent_spec(str(out / f"{arm.name}.pt"), arm.name),
            agent_b=config.agent_spec(str(out / f"{reference.name}.pt"), reference.name),
            games=args.games,
            seed=config.seed * 1000 + args.generation + 700_000,
            results=out / f"match-{arm.name}-vs-{reference.name}.jsonl",
            deadline=float("inf"),
        )
        est = result.estimate
        arms[arm]["vs_first"] = {
            "games": len(result.games),
            "score": est.rate,
            "low": est.rate_low,
            "high": est.rate_high,
            "elo": est.elo,
        }
        print(
            f"{arm.name} against {reference.name}: {est.rate:.3f} "
            f"[{est.rate_low:.3f}, {est.rate_high:.3f}] over {len(result.games)} games, "
            f"Elo {est.elo:+.0f}",
            flush=True,
        )
    summary = {"run": str(run), "generation": args.generation, "arms": list(arms.values())}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
