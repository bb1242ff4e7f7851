"""The arena as the gate of self-play training: a candidate network against the best so far.

:func:`arena_gate` is the ``gate`` of :func:`agents.nets.training.selfplay.train_selfplay` used by
``gomcts train selfplay``: a paired match (:mod:`agents.matches.arena`) between MCTS guided by the
candidate and by the best network, with the same budget. The gate plays up to
:data:`GAMES_AT_ONCE` games at once in the training process, their network leaves batched into
one call (``docs/decisions/019-shared-evaluator.md``): the same games as one at a time, faster.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.matches.arena import MatchConfig, run_match
from agents.nets.training.selfplay import SelfPlayConfig

__all__ = ["GAMES_AT_ONCE", "arena_gate"]

GAMES_AT_ONCE = 16
"""Games the gate plays at once (``games_per_worker`` of its match)."""


def arena_gate(
    candidate: Path, best: Path, iteration: int, config: SelfPlayConfig, out_dir: Path
) -> dict[str, Any]:
    """Play the candidate against the best in the arena; its score rate with the interval."""
    match = MatchConfig(
        agent_a=config.search_spec(candidate, config.eval_sims),
        agent_b=config.search_spec(best, config.eval_sims),
        games=config.eval_games,
        rules=config.rules,
        seed=config.seed * 100_003 + iteration,
        referee="none",
    )
    folder = out_dir / "arena"
    folder.mkdir(parents=True, exist_ok=True)
    result = run_match(
        match,
        results=folder / f"iter-{iteration:04d}.jsonl",
        workers=1,
        games_per_worker=max(1, min(GAMES_AT_ONCE, config.eval_games)),
    )
    est = result.estimate
    return {
        "score": est.rate,
        "low": est.rate_low,
        "high": est.rate_high,
        "games": len(result.games),
        "wins": result.tally.wins,
        "draws": result.tally.draws,
        "losses": result.tally.losses,
    }
