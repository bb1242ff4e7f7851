"""The objective of a tuning study: the arena winrate of a candidate backup against a baseline.

One trial plays ``games`` games (``games / 2`` pairs, colours swapped within a pair) between
the candidate (the base agent with the trial's backup parameters) and the baseline, through
the same code path as ``gomcts arena`` (:func:`agents.matches.arena.iter_games`). After every
``batch`` games the running winrate is reported to Optuna (``step`` = games played) and the
pruner is asked whether the candidate is a clear loser.

**How the GP's view stays honest** (``docs/decisions/010-tuning-objective.md``):

* Every trial that is not a clear loser plays exactly ``games`` games, so these values share
  one noise level (what Optuna's ``GPSampler``, with one learnt noise variance, assumes; the
  default noise-aware GP takes each trial's own variance).
* :class:`WilsonPruner` stops a trial only when the upper Wilson bound of its winrate (at
  ``z``, 2.576 by default: 99% two-sided) is below 0.5, and never before ``min_games``.
* A stopped trial is **not** left PRUNED (Optuna's GP ignores pruned trials, so it would keep
  proposing points near known losers and the survivors would look better than they are): the
  objective catches the decision and returns the running winrate, so the trial is COMPLETE.
  Its game count, points and Wilson interval are stored as user attributes (``games``,
  ``points``, ``ci_low``, ``ci_high``) with ``stopped_early = True``.
* Every trial records the sampling variance of its value (user attribute ``variance``,
  :mod:`tuning.samplers.noise`); the default sampler gives it to its GP as that trial's noise, so a
  stopped trial's larger noise is known to the model. With ``min_games`` at
  least a quarter of ``games`` (the study's default), such a value's standard deviation is at
  most twice a full trial's, and it lies in a region already shown to be worse than the
  baseline, where a noisier value cannot move the optimum.

Seeds and resumption: a trial's match seed comes from ``(study seed, origin)``, where
``origin`` is the trial's number, or, for a retried trial, the number of the trial it
retries. Its games go to ``games_dir/trial-<origin>.jsonl``, so a retried trial replays no
finished game: it reads them back and plays only the rest.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import optuna
from optuna.pruners import BasePruner
from optuna.trial import FrozenTrial, TrialState

from agents.lifetime import check_stop
from agents.matches.arena import MatchConfig, iter_games
from agents.matches.stats import Tally, wilson_interval
from go_env.rules import Rules
from tuning.samplers.noise import record_noise
from tuning.search_spaces import SearchSpace
from tuning.studies.recovery import origin_of, process_identity, retry_trial

__all__ = [
    "PRUNE_Z",
    "SEED_TRIAL",
    "SEED_VERIFY",
    "Objective",
    "ObjectiveConfig",
    "WilsonPruner",
    "derive_seed",
    "describe_best",
    "origin_of",
]

PRUNE_Z = 2.576
"""Default normal quantile of the pruner's Wilson bound (99% two-sided)."""

SEED_TRIAL = 0
SEED_VERIFY = 1

Progress = Callable[[str], None]


def derive_seed(study_seed: int, purpose: int, number: int) -> int:
    """A match seed from the study seed, a purpose (:data:`SEED_TRIAL`...) and a number."""
    return int(np.random.SeedSequence([study_seed, purpose, number]).generate_state(1)[0])


class WilsonPruner(BasePruner):
    """Stops a trial only when it is a clear loser: upper Wilson bound below ``threshold``.

    The trial reports its running winrate with ``step`` = games played; points are
    ``winrate * games`` (a draw counts one half).

    Args:
        threshold: The winrate the candidate must be able to reach (0.5: the baseline's).
        z: Normal quantile of the bound (2.576: 99% two-sided).
        min_games: No decision before this many games.
    """

    def __init__(self, *, threshold: float = 0.5, z: float = PRUNE_Z, min_games: int = 10) -> None:
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be in (0, 1), got {threshold}")
        if z <= 0:
            raise ValueError(f"z must be positive, got {z}")
        if min_games < 1:
            raise ValueError(f"min_games must be >= 1, got {min_games}")
        self.threshold = threshold
        self.z = z
        self.min_games = min_games

    def upper_bound(self, winrate: float, games: int) -> float:
        """Upper Wilson bound of ``winrate`` over ``games`` games."""
        points = min(max(winrate * games, 0.0), float(games))
        return wilson_interval(round(points * 2) / 2, games, self.z)[1]

    def prune(self, study: optuna.Study, trial: FrozenTrial) -> bool:
        """Whether ``trial``'s latest report shows it below ``threshold`` with confidence."""
        if not trial.intermediate_values:
            return False
        games = max(trial.intermediate_values)
        if games < self.min_games:
            return False
        return self.upper_bound(trial.intermediate_values[games], games) < self.threshold


@dataclass(frozen=True, kw_only=True)
class ObjectiveConfig:
    """What a trial plays.

    Args:
        space: The search space.
        agent: Spec of the base agent; the candidate is this agent with the trial's backup.
        baseline: Spec of the opponent.
        rules: Rules of the games.
        games: Games per trial (even: pairs with colours swapped).
        batch: Games between two reports to the pruner (even).
        prune: Stop clear losers early (see the module docstring).
        seed: The study seed.
        opening_moves: Random opening moves shared by the two games of a pair.
        games_dir: Folder of the per-trial results files.
        workers: Arena processes per trial (1: the games run in this process); with ``ray``,
            games in flight on the cluster (``None``: all its CPUs).
        max_retry: Retries of an interrupted trial.
        ray: Play the games on this Ray cluster (:func:`agents.matches.arena.iter_games`).
        games_per_worker: Games each arena process plays at once, their searches' leaves
            evaluated by shared network calls (:func:`agents.matches.arena.iter_games`).
    """

    space: SearchSpace
    agent: str
    baseline: str
    rules: Rules
    games: int
    batch: int
    prune: bool
    seed: int
    opening_moves: int
    games_dir: Path
    workers: int | None = 1
    max_retry: int = 3
    ray: str | None = None
    games_per_worker: int = 1

    def match(self, params: Mapping[str, float], origin: int) -> MatchConfig:
        """The arena match of a point; ``origin`` decides its seed."""
        return MatchConfig(
            agent_a=self.space.candidate(self.agent, params),
            agent_b=self.baseline,
            games=self.games,
            rules=self.rules,
            seed=derive_seed(self.seed, SEED_TRIAL, origin),
            opening_moves=self.opening_moves,
        )

    def results_file(self, origin: int) -> Path:
        """The results file of the trials with this origin."""
        return self.games_dir / f"trial-{origin:05d}.jsonl"


def _interval(tally: Tally) -> tuple[float, float]:
    return wilson_interval(tally.points, tally.games)


def describe_best(study: optuna.Study) -> str:
    """``"best 0.583 (trial 3, 60 games)"``, or ``"no trial finished yet"``."""
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if not done:
        return "no trial finished yet"
    best = max(
        done,
        key=lambda t: (
            not t.user_attrs.get("stopped_early", False),
            t.value if t.value is not None else -math.inf,
            -t.number,
        ),
    )
    attrs = best.user_attrs  # a trial of the trap-tree objective counts trees ("unit")
    count = f"{attrs.get('games', '?')} {attrs.get('unit', 'games')}"
    return f"best {best.value:.3f} (trial {best.number}, {count})"


class Objective:
    """The callable Optuna runs for each trial (see the module docstring).

    Args:
        config: What a trial plays.
        progress: Receives one line per batch (``None``: silent).
    """

    def __init__(self, config: ObjectiveConfig, progress: Progress | None = None) -> None:
        self.config = config
        self.progress = progress

    def _say(self, line: str) -> None:
        if self.progress is not None:
            self.progress(line)

    def __call__(self, trial: optuna.Trial) -> float:
        """Play the trial's games; return the candidate's winrate."""
        c = self.config
        origin = origin_of(trial)
        trial.set_user_attr("origin", origin)
        trial.set_user_attr("worker", process_identity())
        params = c.space.suggest(trial)
        match = c.match(params, origin)
        path = c.results_file(origin)
        trial.set_user_attr("candidate", match.agent_a)
        trial.set_user_attr("games_file", str(path))
        trial.set_user_attr("match_seed", match.seed)
        scores: list[float] = []
        stopped = False
        games = iter_games(
            match,
            results=path,
            workers=c.workers,
            ray=c.ray,
            games_per_worker=c.games_per_worker,
        )
        try:
            for game in games:
                check_stop()  # a SIGTERM whose KeyboardInterrupt was lost (agents.lifetime)
                scores.append(game.score_a)
                n = len(scores)
                if n % c.batch and n != c.games:
                    continue
                tally = Tally.from_scores(scores)
                low, high = _interval(tally)
                trial.report(tally.rate, step=n)
                record_noise(trial, tally.points, n)  # games, points and variance
                trial.set_user_attr("ci_low", low)
                trial.set_user_attr("ci_high", high)
                self._say(
                    f"[{c.space.name}] trial {trial.number}: {n}/{c.games} games, "
                    f"winrate {tally.rate:.3f} [{low:.3f}, {high:.3f}] | "
                    f"{describe_best(trial.study)}"
                )
                if c.prune and n < c.games and trial.should_prune():
                    stopped = True
                    self._say(
                        f"[{c.space.name}] trial {trial.number}: a clear loser (upper "
                        "bound below 0.5); completed with its running winrate"
                    )
                    break
        except KeyboardInterrupt:
            trial.set_user_attr("interrupted", True)
            retry_trial(
                trial.study,
                trial,
                max_retry=c.max_retry,
                reason="interrupted",
                progress=self.progress,
            )
            raise
        finally:
            games.close()
        trial.set_user_attr("stopped_early", stopped)
        return Tally.from_scores(scores).rate
