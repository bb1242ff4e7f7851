"""The description of a tuning study: what it searches, what a trial plays, how it runs.

:class:`StudyConfig` is frozen and validated at construction (each message names the setting,
its value and what is allowed). What decides a study's trials (:meth:`StudyConfig.identity`)
is stored with the study under :data:`IDENTITY_KEY`, so that a stored study can be continued
with the same settings (:func:`tuning.studies.resume.load_study`) and a run with other
settings under the same name is refused (:class:`StudyIdentityError`).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from optuna.distributions import FloatDistribution

from agents.cli import output_folder
from agents.matches.cli import games_per_worker as parse_games_per_worker
from agents.mcts.multi import check_width
from agents.registry import agent_config, agent_spec
from go_env.rules import Rules
from go_env.validation import check_int
from tuning.samplers import DEFAULT_SAMPLER, SAMPLERS
from tuning.search_spaces import SearchSpace
from tuning.studies.objective import PRUNE_Z, ObjectiveConfig
from tuning.studies.options import bounded_int, option
from tuning.studies.storage import storage_file, storage_url
from tuning.studies.trap_objective import TrapObjectiveConfig

__all__ = [
    "IDENTITY_KEY",
    "MAX_JOBS",
    "MAX_SECONDS",
    "OUT_KEY",
    "STUDY_NAME",
    "Progress",
    "StudyConfig",
    "StudyIdentityError",
    "check_study_name",
    "recorded_out",
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

STUDY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,127}")
"""A study name: a letter or digit, then up to 127 letters, digits, ``.``, ``_``, ``+`` or ``-``.

The name is a folder of the output folder (``<out>/games/<name>``), so it may not hold a path
separator or start with a dot (``..`` would write the trial files outside ``out``).
"""

MAX_JOBS = 256
"""Largest ``jobs``: worker processes on one machine."""

MAX_SECONDS = 86_400
"""Largest ``heartbeat_interval`` and ``grace_period``: one day (Python's timers overflow on
much larger ones)."""


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


Progress = Callable[[str], None]


class StudyIdentityError(ValueError):
    """A study of this name exists in the storage with other settings."""


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
        book: An opening book (``docs/arena.md``) that the trials play instead of random
            openings, each trial from another part of it (:class:`ObjectiveConfig`), and the
            verification from its start; ``None``: random openings.
        study_name: Name in the storage; default ``<space>-<size>x<size>-n<sims>``. It must
            match :data:`STUDY_NAME` (it names a folder of ``out``).
        storage: Storage location (:mod:`tuning.studies.storage`); default ``<out>/study.db``.
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
            (:mod:`tuning.studies.trap_objective`, ``docs/traps.md``); ``None``: arena games.
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
    agent: str = field(
        default="mcts:sims=100",
        metadata=option(
            "base agent spec; the candidate is it with the tuned backup (default mcts:sims=100)",
            group="games",
        ),
    )
    baseline: str | None = field(
        default=None,
        metadata=option(
            "opponent spec (default: the base agent with the mean backup)", group="games"
        ),
    )
    rules: Rules = field(default_factory=Rules)
    games: int = field(
        default=60,
        metadata=option(
            "games per trial, even: pairs with colours swapped (default 60)",
            group="games",
            type=int,
        ),
    )
    batch: int = field(
        default=10,
        metadata=option(
            "games between two reports to the pruner, even (default 10)", group="games", type=int
        ),
    )
    prune: bool = True
    prune_z: float = field(
        default=PRUNE_Z,
        metadata=option(
            "quantile of the pruner's upper Wilson bound (default 2.576: 99%%)",
            group="games",
            type=float,
            default=None,
        ),
    )
    prune_min_games: int | None = field(
        default=None,
        metadata=option(
            "no pruning before this many games (default games/4, whole batches)",
            group="games",
            type=int,
        ),
    )
    trials: int = field(
        default=20,
        metadata=option(
            "COMPLETE trials the study should reach, over all workers "
            "(default 20; 0: only write the outputs)",
            group="search",
            type=int,
        ),
    )
    sampler: str = field(
        default=DEFAULT_SAMPLER,
        metadata=option(
            "botorch: a GP told each trial's binomial noise, noisy EI (default); gp: "
            "Optuna's GPSampler; tpe; random",
            group="search",
            choices=SAMPLERS,
        ),
    )
    startup_trials: int = field(
        default=10,
        metadata=option(
            "uniform random trials before the GP takes over (default 10)", group="search", type=int
        ),
    )
    seed: int = field(
        default=0, metadata=option("study seed (default 0)", group="search", type=int)
    )
    opening_moves: int = field(
        default=2,
        metadata=option(
            "random opening moves shared by a pair of games (default 2)", group="games", type=int
        ),
    )
    book: str | None = field(
        default=None,
        metadata=option(
            "play the trials and the verification on this opening book (docs/arena.md) "
            "instead of random openings, each trial on the next part of it (default: random "
            "openings)",
            group="games",
            metavar="PATH",
        ),
    )
    study_name: str | None = field(
        default=None,
        metadata=option(
            "study name in the storage (default <space>-<size>x<size>-n<sims>)", group="running"
        ),
    )
    storage: str | None = field(
        default=None,
        metadata=option(
            "study storage: a *.db / *.log file, sqlite:///PATH, journal:PATH or "
            "postgresql://USER:PASSWORD@HOST:PORT/DB (default <out>/study.db)",
            group="running",
        ),
    )
    out: Path | str | None = field(
        default=None,
        metadata=option(
            "output folder (default runs/tune/<study name>)", group="running", type=output_folder
        ),
    )
    workers: int | None = field(
        default=1,
        metadata=option(
            "arena processes per trial (default 1: games run in the job itself); with "
            "--ray, games of a trial in flight on the cluster (default: all its CPUs)",
            group="running",
            type=int,
            default=None,
        ),
    )
    jobs: int = field(
        default=1,
        metadata=option(
            f"worker processes running trials in parallel here, 1 to {MAX_JOBS} (default 1)",
            group="running",
            type=bounded_int(1, MAX_JOBS, "worker processes"),
        ),
    )
    heartbeat_interval: int | None = field(
        default=30,
        metadata=option(
            f"seconds between heartbeats of a running trial, 0 (none) to {MAX_SECONDS} "
            "(default 30)",
            group="running",
            type=bounded_int(0, MAX_SECONDS, "seconds; 0: no heartbeat"),
            flag="--heartbeat",
            metavar="HEARTBEAT",
        ),
    )
    grace_period: int | None = field(
        default=None,
        metadata=option(
            f"seconds without heartbeat before a trial is retried, at most {MAX_SECONDS} "
            "(default 2x the heartbeat)",
            group="running",
            type=bounded_int(1, MAX_SECONDS, "seconds"),
            flag="--grace",
            metavar="GRACE",
        ),
    )
    max_retry: int = field(
        default=3,
        metadata=option("retries of one interrupted trial (default 3)", group="running", type=int),
    )
    verify_games: int = field(
        default=400,
        metadata=option(
            "games of the verification match of the best parameters (default 400; 0: none)",
            group="running",
            type=int,
        ),
    )
    verify_workers: int | None = field(
        default=None,
        metadata=option(
            "processes of the verification match (default: all cores)", group="running", type=int
        ),
    )
    traps: TrapObjectiveConfig | None = None
    ray: str | None = field(
        default=None,
        metadata=option(
            "play the games of trials and of the verification on a Ray cluster: the one "
            "this machine belongs to (no ADDRESS, or auto), HOST:PORT of its head, "
            'ray://HOST:10001, or local. Needs pip install "gomcts[cluster]"; see docs/cluster.md',
            group="running",
            nargs="?",
            const="auto",
            metavar="ADDRESS",
        ),
    )
    games_per_worker: int = field(
        default=1,
        metadata=option(
            "games each arena process plays at once, their searches' leaf evaluations "
            "batched into one network call per round (docs/arena.md; default 1)",
            group="running",
            type=parse_games_per_worker,
            metavar="K",
        ),
    )

    def __post_init__(self) -> None:
        if self.out is not None:
            object.__setattr__(self, "out", Path(self.out))
        if self.study_name is not None:
            check_study_name(self.study_name)
        check_int("games", self.games, min=2)
        if self.games % 2:
            raise ValueError(
                f"games must be even (pairs of games with colours swapped), got {self.games}"
            )
        check_int("batch", self.batch, min=2)
        if self.batch % 2:
            raise ValueError(f"batch must be even (whole pairs), got {self.batch}")
        check_int("trials", self.trials, min=0)
        check_int("startup_trials", self.startup_trials, min=1)
        if self.sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {self.sampler!r}; allowed: {', '.join(SAMPLERS)}")
        check_int("seed", self.seed, min=0)
        check_int("opening_moves", self.opening_moves, min=0)
        if self.workers is not None:
            check_int("workers", self.workers, min=1)
        if self.ray is not None and (not isinstance(self.ray, str) or not self.ray.strip()):
            raise ValueError(
                "ray must be None or a Ray address ('auto', 'local', 'HOST:PORT', "
                f"'ray://HOST:PORT'), got {self.ray!r}"
            )
        check_width(self.games_per_worker)
        if self.games_per_worker > 1 and self.ray is not None:
            raise ValueError("games_per_worker > 1 plays in local processes; with ray keep it 1")
        check_int("jobs", self.jobs, min=1, max=MAX_JOBS)
        check_int("max_retry", self.max_retry, min=0)
        check_int("verify_games", self.verify_games, min=0)
        if self.verify_games % 2:
            raise ValueError(f"verify_games must be even, got {self.verify_games}")
        if self.prune_min_games is not None:
            check_int("prune_min_games", self.prune_min_games, min=2)
        if not (isinstance(self.prune_z, (int, float)) and self.prune_z > 0):
            raise ValueError(f"prune_z must be a positive number, got {self.prune_z!r}")
        if self.heartbeat_interval is not None:
            check_int("heartbeat_interval", self.heartbeat_interval, min=1, max=MAX_SECONDS)
        if self.grace_period is not None:
            check_int("grace_period", self.grace_period, min=1, max=MAX_SECONDS)
        config = agent_config(self.agent)
        if not hasattr(config, "sims") or not hasattr(config, "backup"):
            raise ValueError(
                f"agent {self.agent!r} has no 'sims' and 'backup' parameters; "
                "the tuned agent must be an MCTS agent such as 'mcts:sims=100'"
            )
        if self.baseline is not None:
            agent_config(self.baseline)  # parses the spec: a clear error now, not in a worker
        if self.book is not None and self.traps is not None:
            raise ValueError(
                "book gives the openings of arena games; the trap-tree objective plays none"
            )
        check_study_name(self.name)  # a default name from a plugin's backup name
        if self.out is None:
            object.__setattr__(self, "out", Path("runs") / "tune" / self.name)
        self.objective_config()  # checks the candidate spec and the book

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
            **({"book": self.book, "book_sha256": self.book_sha256()} if self.book else {}),
            **({"traps": self.traps.identity()} if self.traps is not None else {}),
        }

    def openings(self) -> tuple[tuple[int, ...], ...]:
        """The book's openings (empty without a book).

        Raises:
            ValueError: When the book cannot be read or holds an illegal opening.
        """
        if not self.book:
            return ()
        from agents.matches.openings import load_book

        try:
            return load_book(self.book, self.rules)
        except OSError as exc:
            raise ValueError(f"cannot read the opening book {self.book}: {exc}") from None

    def book_sha256(self) -> str:
        """SHA-256 of the book's openings (what the trials play, not the file's bytes)."""
        import hashlib
        import json

        return hashlib.sha256(json.dumps(self.openings()).encode()).hexdigest()

    def objective_config(self) -> ObjectiveConfig:
        """What each trial plays.

        The objective's settings are this description's fields of the same names, with the
        baseline resolved, the book's openings read and the folder of the trials' games added.
        """
        derived: dict[str, Any] = {
            "baseline": self.baseline_spec,
            "games_dir": self.games_dir,
            "book": self.openings(),
        }
        shared: dict[str, Any] = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(ObjectiveConfig)
            if f.name not in derived
        }
        config = ObjectiveConfig(**shared, **derived)
        config.match({n: _middle(d) for n, d in self.space.distributions().items()}, 0)
        return config


def _middle(dist: FloatDistribution) -> float:
    low, high = dist.low, dist.high
    return math.sqrt(low * high) if dist.log else (low + high) / 2


def _int(name: str, value: object, low: int) -> None:
    check_int(name, value, min=low)
