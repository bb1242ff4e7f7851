"""The Elo ladder of a self-play run: the best network against fixed anchors, at a fixed N.

Gate results are relative to the previous best and are not additive (each measures a
different pair, and only promoted candidates are kept, which biases the chained sum
upwards). The ladder therefore measures each generation's best network against **anchors
that never change**, with the same fixed-N PUCT agent as the gate
(:meth:`~agents.nets.training.selfplay_config.SelfPlayConfig.agent_spec`), in paired games on
the run's book:

* ``supervised``: the shipped supervised network (9x9 only), in the same search: Li & Lim's
  question, "is the self-play network at least as strong?";
* ``initial``: the run's generation-0 network (any board size; a floor);
* ``gnugo``: a GTP engine, when ``ladder_gnugo`` names one (e.g. GNU Go level 10).

Each anchor's match is an arena results file (``ladder/gen-NNNN-ANCHOR.jsonl``), resumable.
The Elo of a generation is the logistic Elo of its score against the anchor, with the Wilson
interval mapped to Elo (:func:`agents.matches.stats.estimate`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from agents.nets.checkpoint import shipped_model_path
from agents.nets.training.gating import load_or_draw_book, play_run_match
from agents.nets.training.selfplay_config import SelfPlayConfig

__all__ = ["anchors", "run_ladder"]


def anchors(config: SelfPlayConfig, out: Path) -> dict[str, str]:
    """The ladder's anchors: name -> agent spec."""
    found: dict[str, str] = {}
    if config.net.size == 9 and shipped_model_path().exists():  # "default": portable
        found["supervised"] = config.agent_spec("default", "supervised")
    found["initial"] = config.agent_spec(str(out / "nets" / "gen-0000.pt"), "initial")
    if config.ladder_gnugo:
        command = config.ladder_gnugo.replace('"', "'")
        found["gnugo"] = f'gtp:cmd="{command}",name=gnugo'
    return found


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def run_ladder(
    best: Path,
    generation: int,
    config: SelfPlayConfig,
    out: Path,
    *,
    deadline: float = float("inf"),
) -> tuple[list[dict[str, Any]], bool]:
    """Play the best network against every anchor.

    Returns:
        ``(rows, interrupted)``: one row per anchor finished (``anchor``, ``games``,
        ``score``, ``elo``, ``elo_low``, ``elo_high``), and whether the time budget cut it
        short (rerun to finish).
    """
    book = load_or_draw_book(out, config)
    rows: list[dict[str, Any]] = []
    for name, spec in anchors(config, out).items():
        result, stopped = play_run_match(
            config,
            book,
            agent_a=config.agent_spec(str(best), f"gen{generation}"),
            agent_b=spec,
            games=config.ladder_games,
            seed=config.seed * 1000 + generation + 500_000,
            results=out / "ladder" / f"gen-{generation:04d}-{name}.jsonl",
            deadline=deadline,
        )
        if stopped and len(result.games) < config.ladder_games:
            return rows, True
        est = result.estimate
        rows.append(
            {
                "generation": generation,
                "anchor": name,
                "games": len(result.games),
                "score": est.rate,
                "elo": _finite(est.elo),
                "elo_low": _finite(est.elo_low),
                "elo_high": _finite(est.elo_high),
            }
        )
    return rows, False
