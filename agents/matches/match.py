"""A match: what decides its games (:class:`MatchConfig`) and what they tell (:class:`MatchResult`).

A match plays ``games`` games between agent A and agent B, both given as spec strings. Games
``2p`` and ``2p + 1`` form pair ``p``: they start from the same opening (random or from a
book, see :mod:`agents.matches.openings`), A plays Black in the first and White in the
second, so the advantages of colour and opening cancel. Every game is determined by the match
seed and its index: the opening comes from ``(seed, pair)`` (:meth:`MatchConfig.opening`) and
each agent's seed from ``(seed, index, side)`` (:meth:`MatchConfig.agent_seeds`).

How the games are played is :mod:`agents.matches.game`; where, :mod:`agents.matches.executors`;
the match as a whole (resuming, recording, stopping), :mod:`agents.matches.arena`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.matches.openings import check_opening, random_opening
from agents.matches.results import GameOutcome
from agents.matches.stats import Estimate, SprtConfig, SprtResult, Tally, estimate
from agents.matches.stats import sprt as run_sprt
from agents.registry import agent_config, network_digests
from go_env.rules import Rules
from go_env.state import Color
from go_env.validation import check_int

__all__ = ["MAX_GAMES", "ArenaError", "MatchConfig", "MatchResult", "seconds_per_move"]

MAX_GAMES = 1_000_000
"""The most games a match may have (a bound like the agents' ``sims``: a larger number would
only hold the memory of its game list and never finish)."""


class ArenaError(RuntimeError):
    """A match could not be played (a game failed, or the setup is unusable)."""


@dataclass(frozen=True, kw_only=True)
class MatchConfig:
    """What decides the games of a match.

    Args:
        agent_a: Spec of agent A (the candidate), e.g. ``"mcts:sims=400"``.
        agent_b: Spec of agent B (the baseline).
        games: Number of games, 1 to :data:`MAX_GAMES` (an odd number leaves the last pair
            incomplete).
        rules: Rules of every game.
        seed: The match seed.
        opening_moves: Length of the random openings (0: games start from the empty board).
        book: Openings to use instead of random ones (action indices); pair ``p`` plays
            ``book[p % len(book)]``.
        referee: ``"auto"``, ``"none"`` or a GTP engine command line (see
            :mod:`agents.matches.game`, "Scoring").

    Raises:
        ValueError: For a number of games out of range, a negative seed or opening length, an
            opening that is illegal under ``rules``, or a malformed agent spec.
    """

    agent_a: str
    agent_b: str
    games: int = 100
    rules: Rules = field(default_factory=Rules)
    seed: int = 0
    opening_moves: int = 2
    book: tuple[tuple[int, ...], ...] = ()
    referee: str = "auto"

    def __post_init__(self) -> None:
        if (
            isinstance(self.games, bool)
            or not isinstance(self.games, int)
            or not 1 <= self.games <= MAX_GAMES
        ):
            raise ValueError(f"games must be an int in [1, {MAX_GAMES}], got {self.games!r}")
        # numpy's SeedSequence takes non-negative ints only: refused here, not in game 0
        check_int("seed", self.seed, min=0)
        if self.opening_moves < 0:
            raise ValueError(f"opening_moves must be >= 0, got {self.opening_moves}")
        if not self.referee.strip():
            raise ValueError("referee must be 'auto', 'none' or a GTP command line")
        object.__setattr__(self, "book", tuple(tuple(int(m) for m in o) for o in self.book))
        for i, opening in enumerate(self.book):
            try:
                check_opening(self.rules, opening)
            except ValueError as exc:
                raise ValueError(f"book opening {i}: {exc}") from None
        for spec in (self.agent_a, self.agent_b):
            agent_config(spec)  # parses the spec and finds the plugin; builds nothing

    def identity(self) -> dict[str, Any]:
        """Everything that decides the games (all but their number), JSON-ready.

        ``networks``, present when an agent plays with a network, maps each network the
        specs name (``net:strong-9x9``, ``net:runs/x/best.pt``) to the SHA-256 of its file,
        read once, on the first call: a record says which file it measured, and a match is
        not resumed with another file under the same name.
        """
        return {
            "agent_a": self.agent_a,
            "agent_b": self.agent_b,
            "rules": {**dataclasses.asdict(self.rules), "ko": self.rules.ko.value},
            "seed": self.seed,
            "opening_moves": 0 if self.book else self.opening_moves,
            "book": [list(o) for o in self.book],
            "referee": self.referee,
            **self._networks,
        }

    @functools.cached_property
    def _networks(self) -> dict[str, Any]:
        found = {**network_digests(self.agent_a), **network_digests(self.agent_b)}
        return {"networks": dict(sorted(found.items()))} if found else {}

    def opening(self, pair: int) -> tuple[int, ...]:
        """The opening of pair ``pair``."""
        if self.book:
            return self.book[pair % len(self.book)]
        return random_opening(self.rules, self.opening_moves, self.seed, pair)

    def agent_seeds(self, index: int) -> tuple[int, int]:
        """Seeds of agents A and B in game ``index``."""
        a, b = np.random.SeedSequence([self.seed, index]).generate_state(2)
        return int(a), int(b)


def seconds_per_move(games: Iterable[GameOutcome]) -> tuple[float, float]:
    """Mean thinking time per move of agent A and of agent B in ``games`` (NaN without moves)."""
    time_a = moves_a = time_b = moves_b = 0.0
    for g in games:
        ta, ma, tb, mb = (g.time_black, g.moves_black, g.time_white, g.moves_white)
        if not g.a_black:
            ta, ma, tb, mb = tb, mb, ta, ma
        time_a, moves_a, time_b, moves_b = time_a + ta, moves_a + ma, time_b + tb, moves_b + mb
    return (
        time_a / moves_a if moves_a else math.nan,
        time_b / moves_b if moves_b else math.nan,
    )


@dataclass
class MatchResult:
    """The games of a match (in index order) and their statistics, from agent A's side.

    Attributes:
        config: The match.
        games: The games counted, ``0 .. len(games) - 1``.
        sprt_config: The SPRT run during the match, if any.
        stopped: Why the match stopped before ``config.games``: ``"sprt"``, ``"callback"``,
            or ``None``.
    """

    config: MatchConfig
    games: list[GameOutcome]
    sprt_config: SprtConfig | None = None
    stopped: str | None = None

    @property
    def scores(self) -> list[float]:
        """Agent A's score in each game."""
        return [g.score_a for g in self.games]

    @property
    def tally(self) -> Tally:
        """Agent A's wins, draws and losses."""
        return Tally.from_scores(self.scores)

    def tally_as(self, colour: Color) -> Tally:
        """Agent A's wins, draws and losses with ``colour``."""
        black = colour == Color.BLACK
        return Tally.from_scores(g.score_a for g in self.games if g.a_black == black)

    @property
    def estimate(self) -> Estimate:
        """Agent A's score rate and Elo difference with their 95% intervals."""
        return estimate(self.tally)

    @property
    def sprt(self) -> SprtResult | None:
        """The SPRT on the games counted, if one was configured."""
        return run_sprt(self.sprt_config, self.scores) if self.sprt_config else None

    def seconds_per_move(self) -> tuple[float, float]:
        """Mean thinking time per move of agent A and of agent B (NaN without moves)."""
        return seconds_per_move(self.games)

    def summary(self) -> dict[str, Any]:
        """The statistics as a JSON-ready dict (non-finite numbers as strings)."""

        def num(x: float) -> float | str | None:
            return None if math.isnan(x) else x if math.isfinite(x) else str(x)

        est, tally = self.estimate, self.tally
        wins = {c: sum(1 for g in self.games if g.result.startswith(c)) for c in "BW"}
        per_a, per_b = self.seconds_per_move()
        out: dict[str, Any] = {
            "match": self.config.identity(),
            "games": len(self.games),
            "planned_games": self.config.games,
            "stopped": self.stopped,
            "a": {"wins": tally.wins, "draws": tally.draws, "losses": tally.losses},
            "a_as_black": dataclasses.asdict(self.tally_as(Color.BLACK)),
            "a_as_white": dataclasses.asdict(self.tally_as(Color.WHITE)),
            "black_wins": wins["B"],
            "white_wins": wins["W"],
            "draws": len(self.games) - wins["B"] - wins["W"],
            "score_rate": num(est.rate),
            "score_rate_95": [num(est.rate_low), num(est.rate_high)],
            "elo": num(est.elo),
            "elo_95": [num(est.elo_low), num(est.elo_high)],
            "seconds_per_move_a": num(per_a),
            "seconds_per_move_b": num(per_b),
            "refereed_games": sum(1 for g in self.games if g.referee is not None),
            "move_cap_games": sum(1 for g in self.games if g.ended_by == "move cap"),
        }
        test = self.sprt
        if test is not None and self.sprt_config is not None:
            out["sprt"] = {
                **dataclasses.asdict(self.sprt_config),
                "llr": test.llr,
                "lower": test.lower,
                "upper": test.upper,
                "decision": test.decision,
                "games": test.games,
            }
        return out

    def format(self) -> str:
        """A human-readable summary."""
        c, est, tally = self.config, self.estimate, self.tally
        black, white = self.tally_as(Color.BLACK), self.tally_as(Color.WHITE)
        per_a, per_b = self.seconds_per_move()
        lines = [
            f"A: {c.agent_a}",
            f"B: {c.agent_b}",
            f"{len(self.games)} of {c.games} games, {c.rules.size}x{c.rules.size}, komi "
            f"{c.rules.komi:g}, ko {c.rules.ko.value}, seed {c.seed}"
            + (f" (stopped by {self.stopped})" if self.stopped else ""),
            f"A: {tally} overall, {black} as Black, {white} as White",
            f"A score rate {est.rate:.3f}, 95% interval [{est.rate_low:.3f}, "
            f"{est.rate_high:.3f}] (Wilson)",
            f"Elo difference A - B {est.elo:+.0f}, 95% interval [{est.elo_low:+.0f}, "
            f"{est.elo_high:+.0f}]",
            f"seconds per move: A {per_a:.3f}, B {per_b:.3f}",
        ]
        refereed = sum(1 for g in self.games if g.referee is not None)
        if refereed:
            lines.append(f"{refereed} games ended by passes were refereed for dead stones")
        test = self.sprt
        if test is not None and self.sprt_config is not None:
            s = self.sprt_config
            verdict = {
                "H1": f"elo >= {s.elo1:g} accepted",
                "H0": f"elo <= {s.elo0:g} accepted",
                None: "undecided",
            }[test.decision]
            lines.append(
                f"SPRT ({s.model}, elo0 {s.elo0:g}, elo1 {s.elo1:g}, alpha {s.alpha:g}, "
                f"beta {s.beta:g}): LLR {test.llr:.2f} in [{test.lower:.2f}, "
                f"{test.upper:.2f}]: {verdict}"
            )
        return "\n".join(lines)
