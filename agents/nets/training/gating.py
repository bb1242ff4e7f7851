"""The gate of self-play: a candidate network replaces the best only when a test says so.

The old gate promoted at a score of 55% over a fixed, small number of games, so a candidate
that won 5 of 8 (interval [0.31, 0.86]) was promoted. This gate plays the candidate against
the best network in **paired games on a balanced opening book** (each opening twice, colours
swapped; :mod:`agents.matches.balanced`), both with the same fixed-N PUCT search
(:meth:`~agents.nets.training.selfplay_config.SelfPlayConfig.agent_spec`), and runs the
arena's **sequential probability ratio test** (:mod:`agents.matches.stats`: the GSPRT of
fishtest, pentanomial on game pairs) of H0 ``elo <= gate_elo0`` against H1
``elo >= gate_elo1``. The candidate is promoted **only when the test accepts H1**; H0 or no
decision within ``gate_games`` games keeps the best. A candidate no better than the best is
promoted with probability at most ``gate_alpha`` per generation; one ``gate_elo1`` better is
kept out with probability at most ``gate_beta``.

The match is an arena results file (``gate/gen-NNNN.jsonl``), so an interrupted gate resumes
with its games, also after the run's folder moved (:mod:`agents.nets.training.moved_run`).
The book is drawn once per run and kept in ``book.json``: for 9x9, openings of
2 to 4 random moves that the shipped supervised network rates within ``|v| < 0.15``
(:func:`agents.matches.balanced.draw_balanced_book`); for other board sizes there is no
reference network, and the book is random openings of the same lengths, not balanced.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.atomic_file import write_atomically
from agents.matches.arena import MatchConfig, MatchResult, run_match
from agents.matches.balanced import draw_balanced_book
from agents.matches.results import GameOutcome
from agents.matches.stats import SprtConfig
from agents.nets.training.moved_run import adopt_moved_results
from agents.nets.training.selfplay_config import SelfPlayConfig

__all__ = ["GateResult", "load_or_draw_book", "play_run_match", "run_gate", "sprt_of"]

BOOK_SEED = 29
"""Seed of the run's opening book (the same book for every run of one board size)."""


@dataclass(frozen=True)
class GateResult:
    """The verdict of a gate match.

    Attributes:
        promoted: The SPRT accepted H1.
        decision: ``"H1"``, ``"H0"``, ``None`` (no decision within the games allowed).
        games: Games played.
        score: The candidate's score rate.
        low: Lower end of its 95% interval.
        high: Upper end.
        elo: Elo difference of the score.
        llr: The SPRT's log-likelihood ratio.
        interrupted: The time budget ran out before the match ended (resume it).
    """

    promoted: bool
    decision: str | None
    games: int
    score: float
    low: float
    high: float
    elo: float
    llr: float
    interrupted: bool

    def row(self) -> dict[str, Any]:
        """JSON-ready fields with a ``gate_`` prefix (for the metrics)."""
        return {f"gate_{k}": v for k, v in self.__dict__.items()}


def sprt_of(config: SelfPlayConfig) -> SprtConfig:
    """The gate's SPRT."""
    return SprtConfig(
        elo0=config.gate_elo0,
        elo1=config.gate_elo1,
        alpha=config.gate_alpha,
        beta=config.gate_beta,
        model="pentanomial",
    )


def load_or_draw_book(out: Path, config: SelfPlayConfig) -> tuple[tuple[int, ...], ...]:
    """The run's opening book (``book.json``), drawn and saved the first time."""
    path = out / "book.json"
    if path.exists():
        return tuple(tuple(o) for o in json.loads(path.read_text())["openings"])
    rules = config.rules
    kind = "random"
    value_fn: Callable[[Any], Any]
    if rules.size == 9:
        from agents.nets.evaluator import net_value_fn

        value_fn = net_value_fn("", device="cpu")
        kind = "balanced by the shipped supervised network"
    else:

        def value_fn(states: Any) -> Any:
            return [0.0] * len(states)

    book = draw_balanced_book(rules, value_fn, count=config.book_size, seed=BOOK_SEED)
    openings = [list(e.moves) for e in book.entries]
    text = json.dumps({"kind": kind, "seed": BOOK_SEED, "openings": openings})
    write_atomically(path, text + "\n")
    return tuple(tuple(o) for o in openings)


def play_run_match(
    config: SelfPlayConfig,
    book: tuple[tuple[int, ...], ...],
    *,
    agent_a: str,
    agent_b: str,
    games: int,
    seed: int,
    results: Path,
    deadline: float,
    sprt: SprtConfig | None = None,
    on_game: Callable[[MatchResult], None] | None = None,
    run: Path | None = None,
) -> tuple[MatchResult, bool]:
    """Play a match of the run (its rules, book and workers) into ``results``.

    Games are kept in ``results`` as they finish; the match stops early when the SPRT
    decides or once ``time.monotonic()`` passes ``deadline``. ``on_game`` is called with the
    match so far after each game (e.g. progress lines). ``run``: the run's folder, whose
    networks the agents name; a ``results`` file begun while the run lived elsewhere is
    taken over (:func:`~agents.nets.training.moved_run.adopt_moved_results`).

    Returns:
        The match's result, and whether the deadline stopped it after a game.
    """
    match = MatchConfig(
        agent_a=agent_a,
        agent_b=agent_b,
        games=games,
        rules=config.rules,
        seed=seed,
        book=book,
        referee="none",
    )
    results.parent.mkdir(parents=True, exist_ok=True)
    if run is not None:
        adopt_moved_results(results, match.identity(), run)
    stopped = False

    def stop(game: GameOutcome, result: MatchResult) -> bool:
        nonlocal stopped
        if on_game is not None:
            on_game(result)
        stopped = time.monotonic() >= deadline
        return stopped

    result = run_match(
        match,
        results=results,
        workers=config.workers,
        sprt=sprt,
        on_game=stop,
        games_per_worker=max(1, min(config.games_per_worker, games)),
    )
    return result, stopped


def run_gate(
    candidate: Path,
    best: Path,
    generation: int,
    config: SelfPlayConfig,
    out: Path,
    *,
    deadline: float = float("inf"),
) -> GateResult:
    """Play the candidate against the best until the SPRT decides (module docstring).

    Args:
        candidate: The candidate's checkpoint.
        best: The best network's checkpoint.
        generation: The generation (names the results file, seeds the match).
        config: The run.
        out: The run folder.
        deadline: ``time.monotonic()`` at which to stop (the games played are kept).
    """
    result, interrupted = play_run_match(
        config,
        load_or_draw_book(out, config),
        agent_a=config.agent_spec(str(candidate), "candidate"),
        agent_b=config.agent_spec(str(best), "best"),
        games=config.gate_games,
        seed=config.seed * 1000 + generation,
        results=out / "gate" / f"gen-{generation:04d}.jsonl",
        deadline=deadline,
        sprt=sprt_of(config),
        run=out,
    )
    test = result.sprt
    assert test is not None
    if result.stopped == "sprt" or result.stopped is None:
        interrupted = False
    est = result.estimate
    return GateResult(
        promoted=test.decision == "H1",
        decision=test.decision,
        games=len(result.games),
        score=est.rate,
        low=est.rate_low,
        high=est.rate_high,
        elo=est.elo,
        llr=round(test.llr, 4),
        interrupted=interrupted,
    )
