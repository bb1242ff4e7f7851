"""Optuna studies that tune an MCTS backup's declared parameters by arena winrate.

Python API (the ``gomcts tune`` command builds the same :class:`StudyConfig` and calls the
same :func:`run_study`)::

    from go_env.rules import Rules
    from tuning.search_spaces import make_space
    from tuning.study import StudyConfig, run_study

    config = StudyConfig(space=make_space("softmax"), agent="mcts:sims=150",
                         rules=Rules(size=7, komi=9), games=60, trials=25, out="runs/sm7")
    report = run_study(config)
    print(report.format())

A study is identified by its name in its storage (:mod:`tuning.storage`; default the SQLite
file ``<out>/study.db``). Everything that decides its trials (space, agents, rules, games,
seed...) is stored with it; running the same command again continues it, and a command with
other settings under the same name is refused. ``trials`` is the number of finished
(COMPLETE) trials the study should reach, counted over all workers: start as many workers as
you like (here, or on other machines sharing a PostgreSQL URL) and each stops once the study
has enough.

Sampling (:mod:`tuning.samplers`): by default the noise-aware GP of :mod:`tuning.noisy_gp`
(each trial's binomial variance as fixed noise, noisy expected improvement; trials still
running on other workers are pending points), seeded with the study seed; ``sampler="gp"``
is Optuna's ``GPSampler``, and ``"tpe"`` and ``"random"`` are there for comparison. The
first ``startup_trials`` points come from :class:`TrialSeededSampler`, uniform in the box and
seeded by ``(study seed, trial number)``: a resumed study or a second worker never repeats
a point, and a study run by one worker from start to end is reproducible.

Crashes: a trial interrupted by Ctrl-C or SIGTERM queues itself again (same parameters, same
seed, same results file) before it stops. A worker that dies without a word leaves its trial
RUNNING; the next worker on the same machine sees that its process is gone, and on any
machine Optuna's heartbeat (database storages) marks it FAIL after ``grace_period`` seconds;
either way it is queued again. No finished game is played twice (see
:mod:`tuning.objective`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import FloatDistribution
from optuna.samplers import BaseSampler
from optuna.trial import FrozenTrial, TrialState

from agents.lifetime import check_stop, die_with_parent, interrupt_once
from agents.mcts.multi import check_width
from agents.registry import agent_config, agent_spec
from go_env.rules import Rules
from tuning.objective import (
    PRUNE_Z,
    Objective,
    ObjectiveConfig,
    WilsonPruner,
    describe_best,
    is_local,
    process_alive,
    retry_trial,
)
from tuning.samplers import DEFAULT_SAMPLER, SAMPLERS, TrialSeededSampler
from tuning.samplers import make_sampler as _named_sampler
from tuning.search_spaces import SearchSpace
from tuning.storage import hide_password, open_storage, storage_file, storage_url
from tuning.trap_objective import TrapObjective, TrapObjectiveConfig

__all__ = [
    "IDENTITY_KEY",
    "MAX_JOBS",
    "MAX_SECONDS",
    "OUT_KEY",
    "STUDY_NAME",
    "StudyConfig",
    "StudyIdentityError",
    "TrialSeededSampler",
    "check_study_name",
    "load_study",
    "optimize",
    "quiet_interrupts",
    "recorded_out",
    "recover_dead_trials",
    "run_study",
    "stored_out",
]

IDENTITY_KEY = "gomcts_study"
"""User attribute of a study holding the settings that decide its trials."""

OUT_KEY = "gomcts_out"
"""User attribute of a study holding the output folder it was created with.

Relative to the folder of the storage file (``"."`` for the default ``<out>/study.db``), so
that a study copied or moved with its folder names no folder of the machine it was made on;
with a database server's storage, as it was given (relative to the working folder). Studies
from before this rule hold an absolute path, which is read as it is (:func:`stored_out`).
"""

Progress = Callable[[str], None]

MAX_JOBS = 256
"""Largest ``jobs``: worker processes on one machine."""

MAX_SECONDS = 86_400
"""Largest ``heartbeat_interval`` and ``grace_period``: one day (Python's timers overflow on
much larger ones)."""

STUDY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,127}")
"""A study name: a letter or digit, then up to 127 letters, digits, ``.``, ``_``, ``+`` or ``-``.

The name is a folder of the output folder (``<out>/games/<name>``), so it may not hold a path
separator or start with a dot (``..`` would write the trial files outside ``out``).
"""


class StudyIdentityError(ValueError):
    """A study of this name exists in the storage with other settings."""


def _say(line: str) -> None:
    print(line, flush=True)


@dataclass(frozen=True, kw_only=True)
class StudyConfig:
    """A tuning study.

    Args:
        space: What is searched (:func:`tuning.search_spaces.make_space`).
        agent: Base agent; the candidate is this agent with the trial's backup (and ``c``).
        baseline: Opponent; default the base agent with the standard mean backup.
        rules: Rules of every game.
        games: Games per trial, an even number (pairs with colours swapped).
        batch: Games between two reports to the pruner (even).
        prune: Stop clear losers early and complete them with their running winrate.
        prune_z: Normal quantile of the pruner's upper Wilson bound (2.576: 99%).
        prune_min_games: No pruning before this many games; default a quarter of ``games``
            rounded up to a whole batch.
        trials: COMPLETE trials the study should reach (over all workers).
        sampler: ``botorch`` (the noise-aware GP, default), ``gp`` (Optuna's GPSampler),
            ``tpe`` or ``random`` (:mod:`tuning.samplers`).
        startup_trials: Trials sampled uniformly before the GP takes over.
        seed: The study seed (sampler and every match seed derive from it).
        opening_moves: Random opening moves shared by the two games of a pair.
        study_name: Name in the storage; default ``<space>-<size>x<size>-n<sims>``. It must
            match :data:`STUDY_NAME` (it names a folder of ``out``).
        storage: Storage location (:mod:`tuning.storage`); default ``<out>/study.db``.
        out: Output folder (games, best parameters, plots, verification); default
            ``runs/tune/<study name>``.
        workers: Arena processes per trial (1: games run in the job's own process); with
            ``ray``, games of a trial in flight on the cluster. ``None``: all cores here, all
            the cluster's CPUs with ``ray``.
        jobs: Worker processes that run trials in parallel on this machine.
        heartbeat_interval: Seconds between heartbeats of a running trial (database storages).
        grace_period: Seconds of silence after which a running trial is stale (default
            ``2 * heartbeat_interval``).
        max_retry: Retries of one interrupted trial.
        verify_games: Games of the verification match of the best parameters (0: none).
        verify_workers: Arena processes of the verification match (default: all cores).
        traps: Optimise the winning-move rate on trap trees instead of arena games
            (:mod:`tuning.trap_objective`, ``docs/traps.md``); ``None``: arena games.
        ray: Play the games (trials and verification) as tasks on this Ray cluster
            (``"auto"``, ``"local"``, ``"HOST:PORT"``, ``"ray://HOST:PORT"``; see
            docs/cluster.md) instead of local processes. Results do not depend on it.
        games_per_worker: Games each arena process plays at once, the leaves of their
            searches evaluated by shared network calls (``docs/arena.md``); local processes
            only. Not part of the study's identity: results do not depend on it (up to the
            floating-point ties of ``docs/decisions/019``).

    Raises:
        ValueError: For a setting out of range (the message says what is allowed).
    """

    space: SearchSpace
    agent: str = "mcts:sims=100"
    baseline: str | None = None
    rules: Rules = field(default_factory=Rules)
    games: int = 60
    batch: int = 10
    prune: bool = True
    prune_z: float = PRUNE_Z
    prune_min_games: int | None = None
    trials: int = 20
    sampler: str = DEFAULT_SAMPLER
    startup_trials: int = 10
    seed: int = 0
    opening_moves: int = 2
    study_name: str | None = None
    storage: str | None = None
    out: Path | str | None = None
    workers: int | None = 1
    jobs: int = 1
    heartbeat_interval: int | None = 30
    grace_period: int | None = None
    max_retry: int = 3
    verify_games: int = 400
    verify_workers: int | None = None
    traps: TrapObjectiveConfig | None = None
    ray: str | None = None
    games_per_worker: int = 1

    def __post_init__(self) -> None:
        if self.out is not None:
            object.__setattr__(self, "out", Path(self.out))
        if self.study_name is not None:
            check_study_name(self.study_name)
        _int("games", self.games, 2)
        if self.games % 2:
            raise ValueError(
                f"games must be even (pairs of games with colours swapped), got {self.games}"
            )
        _int("batch", self.batch, 2)
        if self.batch % 2:
            raise ValueError(f"batch must be even (whole pairs), got {self.batch}")
        _int("trials", self.trials, 0)
        _int("startup_trials", self.startup_trials, 1)
        if self.sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {self.sampler!r}; allowed: {', '.join(SAMPLERS)}")
        _int("seed", self.seed, 0)
        _int("opening_moves", self.opening_moves, 0)
        if self.workers is not None:
            _int("workers", self.workers, 1)
        if self.ray is not None and (not isinstance(self.ray, str) or not self.ray.strip()):
            raise ValueError(
                "ray must be None or a Ray address ('auto', 'local', 'HOST:PORT', "
                f"'ray://HOST:PORT'), got {self.ray!r}"
            )
        check_width(self.games_per_worker)
        if self.games_per_worker > 1 and self.ray is not None:
            raise ValueError("games_per_worker > 1 plays in local processes; with ray keep it 1")
        _int("jobs", self.jobs, 1, MAX_JOBS)
        _int("max_retry", self.max_retry, 0)
        _int("verify_games", self.verify_games, 0)
        if self.verify_games % 2:
            raise ValueError(f"verify_games must be even, got {self.verify_games}")
        if self.prune_min_games is not None:
            _int("prune_min_games", self.prune_min_games, 2)
        if not (isinstance(self.prune_z, (int, float)) and self.prune_z > 0):
            raise ValueError(f"prune_z must be a positive number, got {self.prune_z!r}")
        if self.heartbeat_interval is not None:
            _int("heartbeat_interval", self.heartbeat_interval, 1, MAX_SECONDS)
        if self.grace_period is not None:
            _int("grace_period", self.grace_period, 1, MAX_SECONDS)
        config = agent_config(self.agent)
        if not hasattr(config, "sims") or not hasattr(config, "backup"):
            raise ValueError(
                f"agent {self.agent!r} has no 'sims' and 'backup' parameters; "
                "the tuned agent must be an MCTS agent such as 'mcts:sims=100'"
            )
        if self.baseline is not None:
            agent_config(self.baseline)  # parses the spec: a clear error now, not in a worker
        check_study_name(self.name)  # a default name from a plugin's backup name
        if self.out is None:
            object.__setattr__(self, "out", Path("runs") / "tune" / self.name)
        self.objective_config()  # checks that the candidate spec can be built

    # ------------------------------------------------------------------ derived values
    @property
    def n_simulations(self) -> int:
        """``N``, the simulations per move of the tuned agent (the knots span ``[0, N]``)."""
        if self.traps is not None:
            return self.traps.sims
        return int(agent_config(self.agent).sims)

    @property
    def baseline_spec(self) -> str:
        """The opponent's spec (default: the base agent with the mean backup)."""
        if self.baseline is not None:
            return self.baseline
        return agent_spec(dataclasses.replace(agent_config(self.agent), backup="mean"))

    @property
    def name(self) -> str:
        """The study's name in its storage."""
        if self.study_name:
            return self.study_name
        if self.traps is not None:
            return f"{self.space.name}-traps-n{self.n_simulations}"
        size = self.rules.size
        return f"{self.space.name}-{size}x{size}-n{self.n_simulations}"

    @property
    def min_games(self) -> int:
        """Games before the pruner may stop a trial."""
        if self.prune_min_games is not None:
            return self.prune_min_games
        quarter = math.ceil(self.games / 4)
        return min(self.games, math.ceil(quarter / self.batch) * self.batch)

    @property
    def out_dir(self) -> Path:
        """The output folder."""
        return Path(self.out) if self.out is not None else Path("runs") / "tune" / self.name

    @property
    def games_dir(self) -> Path:
        """Folder of the per-trial arena results files of this study."""
        return self.out_dir / "games" / self.name

    @property
    def storage_url(self) -> str:
        """The storage as a URL (``sqlite:///...``, ``journal:...``, ``postgresql://...``)."""
        return storage_url(self.storage, self.out_dir)

    def identity(self) -> dict[str, Any]:
        """The settings that decide the trials (JSON-ready); stored with the study."""
        return {
            "space": self.space.identity(),
            "agent": self.agent,
            "baseline": self.baseline_spec,
            "rules": {**dataclasses.asdict(self.rules), "ko": self.rules.ko.value},
            "games": self.games,
            "batch": self.batch,
            "prune": self.prune,
            "prune_z": self.prune_z,
            "prune_min_games": self.min_games,
            "sampler": self.sampler,
            "startup_trials": self.startup_trials,
            "seed": self.seed,
            "opening_moves": self.opening_moves,
            **({"traps": self.traps.identity()} if self.traps is not None else {}),
        }

    def load_study(self, progress: Progress | None = None) -> optuna.Study:
        """Open this study, creating it and its storage when new (:func:`load_study`).

        A method, so that the modules that work on a study's results
        (:mod:`tuning.study_outputs`) need not import this one: :func:`run_study` calls them.
        """
        return load_study(self, progress)

    def objective_config(self) -> ObjectiveConfig:
        """What each trial plays."""
        config = ObjectiveConfig(
            space=self.space,
            agent=self.agent,
            baseline=self.baseline_spec,
            rules=self.rules,
            games=self.games,
            batch=self.batch,
            prune=self.prune,
            seed=self.seed,
            opening_moves=self.opening_moves,
            games_dir=self.games_dir,
            workers=self.workers,
            max_retry=self.max_retry,
            ray=self.ray,
            games_per_worker=self.games_per_worker,
        )
        config.match({n: _middle(d) for n, d in self.space.distributions().items()}, 0)
        return config


def _middle(dist: FloatDistribution) -> float:
    low, high = dist.low, dist.high
    return math.sqrt(low * high) if dist.log else (low + high) / 2


def check_study_name(name: object) -> None:
    """Check a study name against :data:`STUDY_NAME`.

    Raises:
        ValueError: Saying what was wrong and which characters are allowed.
    """
    if not isinstance(name, str) or not STUDY_NAME.fullmatch(name):
        raise ValueError(
            f"bad study name {name!r}: it names a folder of the output folder, so use 1 to 128 "
            "letters, digits, '.', '_', '+' or '-', starting with a letter or digit"
        )


def _int(name: str, value: object, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be an int from {low} to {high}, got {value!r}")


# ------------------------------------------------------------------------- sampling


def make_sampler(config: StudyConfig) -> BaseSampler:
    """The study's sampler (``config.sampler``, see :mod:`tuning.samplers`), seeded."""
    return _named_sampler(config.sampler, seed=config.seed, startup_trials=config.startup_trials)


# --------------------------------------------------------------------------- the study


def load_study(config: StudyConfig, progress: Progress | None = None) -> optuna.Study:
    """Open the study (creating it and its storage when new).

    Raises:
        tuning.storage.StorageError: When the storage cannot be opened.
        StudyIdentityError: When a study of this name has other settings.
    """
    say = progress or (lambda _: None)

    def on_stale(study: optuna.Study, trial: FrozenTrial) -> None:
        retry_trial(study, trial, max_retry=config.max_retry, reason="no heartbeat", progress=say)

    config.out_dir.mkdir(parents=True, exist_ok=True)
    storage = open_storage(
        config.storage,
        default_dir=config.out_dir,
        heartbeat_interval=config.heartbeat_interval,
        grace_period=config.grace_period,
        on_stale=on_stale,
    )
    pruner = WilsonPruner(z=config.prune_z, min_games=config.min_games)
    study = optuna.create_study(
        storage=storage,
        study_name=config.name,
        sampler=make_sampler(config),
        pruner=pruner,
        direction="maximize",
        load_if_exists=True,
    )
    identity = config.identity()
    stored = study.user_attrs.get(IDENTITY_KEY)
    if stored is not None and "sampler" not in stored:
        stored = {**stored, "sampler": "gp"}  # studies from before the noise-aware GP
    if stored is None:
        study.set_user_attr(IDENTITY_KEY, identity)
        study.set_user_attr(OUT_KEY, recorded_out(config.out_dir, config.storage_url))
        study.set_user_attr("created_by", "gomcts tune")  # no host name: studies are shared
    elif stored != identity:
        keys = sorted(k for k in {*stored, *identity} if stored.get(k) != identity.get(k))
        detail = "; ".join(f"{k}: stored {stored.get(k)!r}, now {identity.get(k)!r}" for k in keys)
        raise StudyIdentityError(
            f"study {config.name!r} in {hide_password(config.storage_url)} was created with "
            f"other settings ({detail}); use the same settings to continue it, or another "
            "--study-name (or storage) for a new study"
        )
    return study


def recorded_out(out: Path, url: str) -> str:
    """The output folder as a study records it (:data:`OUT_KEY`): relative to its storage file."""
    file = storage_file(url)
    if file is None:
        return out.as_posix()
    return Path(os.path.relpath(out.resolve(), file[1].parent.resolve())).as_posix()


def stored_out(attrs: dict[str, Any], url: str | None) -> Path | None:
    """The output folder a study recorded (:data:`OUT_KEY`), resolved; ``None`` when none.

    A relative path is resolved against the folder of the storage file ``url`` names (the
    working folder for a database server's URL, or when ``url`` is unknown).
    """
    value = attrs.get(OUT_KEY)
    if not value:
        return None
    path = Path(value)
    if path.is_absolute():
        return path
    file = storage_file(url) if url is not None else None
    return Path(os.path.normpath((file[1].parent if file is not None else Path.cwd()) / path))


def recover_dead_trials(
    study: optuna.Study, *, max_retry: int, progress: Progress | None = None
) -> list[int]:
    """Fail and queue again the RUNNING trials whose worker process on this host is gone.

    Returns:
        Numbers of the trials marked FAIL by this call.
    """
    failed = []
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        owner = trial.user_attrs.get("worker")
        if not owner or not is_local(owner) or owner.get("pid") == os.getpid():
            continue
        if process_alive(owner):
            continue
        try:  # only one worker wins this update; it alone queues the retry
            won = study._storage.set_trial_state_values(trial._trial_id, TrialState.FAIL)
        except optuna.exceptions.UpdateFinishedTrialError:
            won = False
        if won:
            failed.append(trial.number)
            retry_trial(
                study,
                trial,
                max_retry=max_retry,
                reason=f"its worker (pid {owner.get('pid')}) is gone",
                progress=progress,
            )
    return failed


def _heartbeat(study: optuna.Study) -> bool:
    from optuna.storages._heartbeat import is_heartbeat_enabled

    return is_heartbeat_enabled(study._storage)


def optimize(
    config: StudyConfig, *, progress: Progress | None = _say, poll_seconds: float = 2.0
) -> optuna.Study:
    """Run trials in this process until the study has ``config.trials`` COMPLETE trials.

    Other workers may run trials of the same study at the same time. When the trials still
    needed are all running elsewhere, this worker waits for them: they finish, or they turn
    stale and come back as queued retries that it then runs.

    Returns:
        The study.
    """
    say = progress or (lambda _: None)
    study = load_study(config, progress)
    objective: Callable[[optuna.Trial], float] = (
        Objective(config.objective_config(), progress)
        if config.traps is None
        else TrapObjective(config.space, config.traps, config.seed, progress)
    )

    def needed_objective(trial: optuna.Trial) -> float:
        if surplus_trial(trial.study, trial.number, config.trials):
            trial.set_user_attr("surplus", True)
            say(
                f"[{config.space.name}] trial {trial.number} not needed: the study's "
                f"{config.trials} trials are done or running on other workers"
            )
            raise optuna.TrialPruned("surplus: started while the last needed trial was")
        return objective(trial)

    def after_trial(study: optuna.Study, trial: FrozenTrial) -> None:
        if trial.state == TrialState.COMPLETE:
            games = f"{trial.user_attrs.get('games', '?')} {trial.user_attrs.get('unit', 'games')}"
            early = " (stopped early: clear loser)" if trial.user_attrs.get("stopped_early") else ""
            say(
                f"[{config.space.name}] trial {trial.number} done: winrate {trial.value:.3f} "
                f"over {games}{early} | {describe_best(study)}"
            )

    waited = False
    while True:
        check_stop()  # a SIGTERM whose KeyboardInterrupt was lost (agents.lifetime)
        recover_dead_trials(study, max_retry=config.max_retry, progress=progress)
        if _heartbeat(study):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                optuna.storages.fail_stale_trials(study)
        count = count_states(study)
        if count[TrialState.COMPLETE] >= config.trials:
            break
        if count[TrialState.WAITING] == 0 and (
            count[TrialState.COMPLETE] + count[TrialState.RUNNING] >= config.trials
        ):
            if not _heartbeat(study) and not _all_local(study):
                say("the remaining trials run on other machines; this worker stops")
                break
            if not waited:
                say(f"waiting for {count[TrialState.RUNNING]} running trial(s) of other workers")
                waited = True
            time.sleep(poll_seconds)
            continue
        waited = False
        study.optimize(needed_objective, n_trials=1, callbacks=[after_trial])
    return study


def count_states(study: optuna.Study) -> dict[TrialState, int]:
    """How many of the study's trials are in each state, now."""
    trials = study.get_trials(deepcopy=False)
    return {state: sum(t.state == state for t in trials) for state in TrialState}


#: Trials that count towards a study's target: finished, or still to finish.
_COUNTED = (TrialState.COMPLETE, TrialState.RUNNING, TrialState.WAITING)


def surplus_trial(study: optuna.Study, number: int, target: int) -> bool:
    """Whether trial ``number`` was started after the study already had ``target`` trials.

    Workers check the count and start a trial in two steps, so two of them can both see one
    trial missing and both start one (a cluster of M drivers could overshoot by M - 1 trials
    of a hundred games each). Optuna numbers trials in the order they are created, so the
    trials numbered below this one are all in the storage by now: when ``target`` of them are
    COMPLETE, RUNNING or WAITING, this trial is one too many. :func:`optimize` prunes it before
    it samples a parameter or plays a game (marked with the user attribute ``surplus``);
    samplers and the study's outputs read COMPLETE trials only. A retry of a failed trial
    still runs: the failed trial no longer counts.
    """
    ahead = study.get_trials(deepcopy=False, states=_COUNTED)
    return sum(t.number < number for t in ahead) >= target


def _all_local(study: optuna.Study) -> bool:
    running = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
    return all(is_local(t.user_attrs.get("worker", {})) for t in running)


class _QuietInterrupts(logging.Filter):
    """Drops Optuna's report of a trial stopped by Ctrl-C or ``SIGTERM``.

    Optuna logs such a trial as failed, with the ``KeyboardInterrupt``'s traceback and then
    ``failed with value None``; the study queues the trial again and a progress line says so,
    so the report is noise. Any other failure is still logged.
    """

    def __init__(self) -> None:
        super().__init__()
        self._interrupted: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        match = re.match(r"Trial (\d+) failed", message)
        if match is None:
            return True
        if record.exc_info and isinstance(record.exc_info[1], KeyboardInterrupt):
            self._interrupted.add(match.group(1))
            return False
        return not (
            match.group(1) in self._interrupted and message.endswith("failed with value None.")
        )


#: The logger of Optuna's optimisation loop, which reports failed trials.
_OPTIMIZE_LOGGER = "optuna.study._optimize"


def quiet_interrupts() -> None:
    """Keep Optuna from reporting interrupted trials (:class:`_QuietInterrupts`).

    The filter sits on the logger of Optuna's optimisation loop, so no handler prints them.
    """
    logger = logging.getLogger(_OPTIMIZE_LOGGER)
    if not any(isinstance(f, _QuietInterrupts) for f in logger.filters):
        logger.addFilter(_QuietInterrupts())


def _job(config: StudyConfig, index: int, lines: Any = None, parent: int | None = None) -> None:
    """A study worker process (``jobs > 1``): trials until the study has enough.

    Its progress lines, prefixed by ``[job k]``, go to ``lines`` (a queue the parent reads and
    hands to its own progress callable; ``None``: silent).

    It stops with its parent (:func:`agents.lifetime.die_with_parent`): the ``SIGTERM`` it then
    gets puts its running trial back in the queue, so a restarted study has one set of workers.
    """
    signal.signal(signal.SIGTERM, interrupt_once)
    try:
        if parent is not None:  # a parent already gone: the signal comes at once
            die_with_parent(parent)
        optuna.logging.set_verbosity(optuna.logging.WARNING)  # the progress lines say it all
        quiet_interrupts()
        progress = (lambda line: lines.put(f"[job {index}] {line}")) if lines is not None else None
        optimize(config, progress=progress)
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as exc:  # a full disk or a read-only folder: one sentence, not a traceback
        from agents.cli import os_error_message

        print(f"gomcts tune: job {index}: {os_error_message(exc, config.out_dir)}", file=sys.stderr)
        sys.exit(1)


def _forward_lines(lines: Any, progress: Progress) -> None:
    """Hand the job processes' lines to ``progress`` until the ``None`` that ends them."""
    while (line := lines.get()) is not None:
        with contextlib.suppress(Exception):  # a failing writer must not stop the study
            progress(line)


def run_jobs(config: StudyConfig, progress: Progress | None = _say) -> None:
    """Run the study with ``config.jobs`` worker processes on this machine (or in-process).

    With several jobs, each sends its progress lines, prefixed by ``[job k]``, through a queue
    to this process, where a thread hands them to ``progress`` (a callable cannot cross into a
    spawned process): the lines reach the caller's writer, e.g. the bar of ``gomcts tune``
    (``tqdm.write``), and never break a bar by printing on its line. ``None``: silent.
    """
    if config.jobs == 1:
        optimize(config, progress=progress)
        return
    load_study(config, progress)  # create it once, before the workers race to
    context = multiprocessing.get_context("spawn")
    lines = context.SimpleQueue() if progress is not None else None
    reader = None
    if lines is not None and progress is not None:
        reader = threading.Thread(
            target=_forward_lines, args=(lines, progress), name="job-lines", daemon=True
        )
        reader.start()
    procs = [
        context.Process(
            target=_job,
            args=(config, i, lines, os.getpid()),
            name=f"gomcts-tune-job-{i}",
        )
        for i in range(config.jobs)
    ]
    for proc in procs:
        proc.start()
    try:
        for proc in procs:
            proc.join()
    except KeyboardInterrupt:
        for proc in procs:  # they got the same SIGINT; let them queue their trials again
            proc.join(timeout=60)
        raise
    finally:
        if reader is not None and lines is not None:
            lines.put(None)  # after every job's last line: the reader prints them all, then ends
            reader.join(timeout=10)
    bad = [(i, p.exitcode) for i, p in enumerate(procs) if p.exitcode != 0]
    if bad:
        detail = ", ".join(f"job {i} exit code {code}" for i, code in bad)
        raise RuntimeError(f"study workers failed ({detail}); see their output above")


def run_study(
    config: StudyConfig, *, progress: Progress | None = _say, outputs: bool = True
) -> Any:
    """Run the study to ``config.trials`` COMPLETE trials, then write its outputs.

    Args:
        config: The study.
        progress: Receives progress lines (``None``: silent).
        outputs: Write the best parameters, the plots and play the verification match.

    Returns:
        A :class:`tuning.study_outputs.StudyReport` (``None`` when ``outputs`` is off).
    """
    run_jobs(config, progress)
    if not outputs:
        return None
    from tuning.study_outputs import finish_study

    return finish_study(config, progress=progress)
