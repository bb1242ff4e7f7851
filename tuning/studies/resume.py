"""Open a study: a new one from its description, or a stored one from its name and storage.

:func:`load_study` is the one way in. Given a :class:`tuning.studies.config.StudyConfig` it
opens the study of that description, creating it and its storage when new and refusing a
stored study of the same name with other settings; given a name and a storage, it rebuilds the
stored study's description first. Either way the study comes with its own sampler, pruner and
the heartbeat retry of crashed trials (:mod:`tuning.studies.recovery`).

``optuna.load_study(study_name=..., storage=...)`` alone gives back the trials but not the
study's machinery: with no sampler and pruner given it silently uses TPE and the median
pruner, and it has no objective. A study written by ``gomcts tune`` stores the settings
that decide its trials (:data:`tuning.studies.config.IDENTITY_KEY`), so one call rebuilds
all of it::

    from tuning.studies.resume import load_objective, load_study

    study = load_study("softmax-7x7-n32", "runs/main-study/softmax/study.db")
    study.optimize(load_objective(study), n_trials=2)   # two more trials, as gomcts tune would

:func:`load_study` returns the study with the sampler it was created with (the noise-aware
GP by default, seeded as before) and its :class:`tuning.studies.objective.WilsonPruner`;
:func:`load_objective` the :class:`tuning.studies.objective.Objective` that plays its trials,
writing the games where the study keeps them. :func:`study_config` gives the whole
:class:`tuning.studies.config.StudyConfig`, e.g. for :func:`tuning.studies.study.run_study`
(several workers, retries of crashed trials) or :func:`tuning.studies.outputs.finish_study`.

A study of the trap-tree objective (``gomcts tune NAME --objective traps``) comes back with
its trees and search settings, and :func:`load_objective` gives its
:class:`tuning.studies.trap_objective.TrapObjective`; its verification on fresh trees is
:func:`tuning.studies.trap_objective.verify_on_fresh_trees`.
"""

from __future__ import annotations

import warnings
import weakref
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import FrozenTrial

from agents._moved import REMOVED_IN
from agents.traps import TrapTreeConfig
from go_env.rules import KoRule, Rules
from tuning.samplers import make_sampler
from tuning.search_spaces import SearchSpace, make_space
from tuning.studies.config import (
    IDENTITY_KEY,
    OUT_KEY,
    Progress,
    StudyConfig,
    StudyIdentityError,
    recorded_out,
    stored_out,
)
from tuning.studies.objective import Objective, WilsonPruner
from tuning.studies.recovery import retry_trial
from tuning.studies.storage import hide_password, open_storage, storage_file, storage_url
from tuning.studies.trap_objective import TrapObjective, TrapObjectiveConfig

__all__ = ["load_objective", "load_study", "study_config"]


def _stored(name: str, storage: str | Path) -> dict[str, Any]:
    """The study's user attributes, read without a sampler or pruner of its own."""
    url = storage_url(str(storage), Path.cwd())
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        raise ValueError(f"no study storage at {storage} (the file does not exist)")
    opened = open_storage(str(storage), default_dir=Path.cwd(), heartbeat_interval=None)
    try:
        study = optuna.load_study(
            study_name=name, storage=opened, sampler=optuna.samplers.RandomSampler()
        )
    except KeyError:
        names = optuna.get_all_study_names(opened)
        raise ValueError(
            f"no study {name!r} in {hide_password(url)}; the studies there: "
            f"{', '.join(names) or 'none'}"
        ) from None
    attrs = dict(study.user_attrs)
    if IDENTITY_KEY not in attrs:
        raise ValueError(
            f"study {name!r} in {hide_password(url)} was not written by gomcts tune (it has "
            f"no {IDENTITY_KEY!r} settings): its sampler, pruner and objective are unknown"
        )
    return attrs


def _space(stored: dict[str, Any]) -> SearchSpace:
    return make_space(
        stored["backup"],
        d=int(stored["d"]),
        bounds=tuple(stored["bounds"]),
        tune_c=bool(stored["tune_c"]),
        c_bounds=tuple(stored["c_bounds"]),
    )


def _rules(stored: dict[str, Any]) -> Rules:
    return Rules(**{**stored, "ko": KoRule(stored["ko"])})


def _default_out(attrs: dict[str, Any], storage: str | Path, name: str) -> Path:
    """The stored output folder; the storage file's folder when that one is gone.

    The stored folder is relative to the storage file's folder
    (:func:`tuning.studies.config.stored_out`); a study recorded before that rule names the
    absolute folder it was made in, which is gone once the study is copied or moved with its
    folder (a recorded study under ``docs/results/``, a run copied to another machine).
    """
    url = storage_url(str(storage), Path.cwd())
    stored = stored_out(attrs, url)
    if stored is not None and stored.is_dir():
        return stored
    file = storage_file(url)
    if file is not None:
        return file[1].parent
    return stored if stored is not None else Path("runs") / "tune" / name


def _traps(stored: dict[str, Any], given: Any, name: str) -> TrapObjectiveConfig:
    """The trap-tree objective of a stored study; ``given`` may only change its verification."""
    config = TrapObjectiveConfig(
        trees=TrapTreeConfig(**stored["trees"]),
        sims=int(stored["sims"]),
        n_trees=int(stored["n_trees"]),
        policy=stored["policy"],
        c=stored["c"],
    )
    if given is None:
        return config
    if not isinstance(given, TrapObjectiveConfig) or given.identity() != config.identity():
        raise ValueError(
            f"traps cannot be changed when continuing study {name!r} except for its "
            "verification and workers (baseline, verify_trees, workers): the trees, "
            "simulations and policy decide its trials"
        )
    return given


def _config(
    attrs: dict[str, Any],
    name: str,
    storage: str | Path | None,
    out: Path,
    changes: dict[str, Any],
) -> StudyConfig:
    identity = attrs[IDENTITY_KEY]
    changes = dict(changes)
    fixed = {
        "space": _space(identity["space"]),
        "agent": identity["agent"],
        "baseline": identity["baseline"],
        "rules": _rules(identity["rules"]),
        "games": identity["games"],
        "batch": identity["batch"],
        "prune": identity["prune"],
        "prune_z": identity["prune_z"],
        "prune_min_games": identity["prune_min_games"],
        "sampler": identity.get("sampler", "gp"),  # studies from before the noise-aware GP
        "startup_trials": identity["startup_trials"],
        "seed": identity["seed"],
        "opening_moves": identity["opening_moves"],
    }
    if "book" in identity:  # trials on an opening book (the book must be unchanged)
        fixed["book"] = identity["book"]
    if "traps" in identity:  # a study of the trap-tree objective (docs/traps.md)
        fixed["traps"] = _traps(identity["traps"], changes.pop("traps", None), name)
        changes.setdefault("verify_games", 0)  # its verification is on fresh trees, not games
    clash = sorted(set(changes) & {*fixed, "study_name", "storage", "out"})
    if clash:
        raise ValueError(
            f"{', '.join(clash)} cannot be changed when continuing study {name!r}: the "
            "settings that decide its trials are stored with it (out has its own argument)"
        )
    return StudyConfig(
        **fixed,
        study_name=name,
        storage=None if storage is None else str(storage),
        out=out,
        **changes,
    )


def study_config(
    name: str, storage: str | Path, *, out: str | Path | None = None, **changes: Any
) -> StudyConfig:
    """The :class:`StudyConfig` of the stored study ``name``.

    Args:
        name: The study's name in its storage.
        storage: Its storage (a ``*.db`` / ``*.log`` file, ``sqlite:///``, ``journal:`` or
            ``postgresql://`` URL, as ``gomcts tune --storage`` takes).
        out: Output folder (games, best parameters, plots); default the one stored with the
            study if it exists, else the folder of its storage file (a study copied or
            moved with its folder), else the stored one, else ``runs/tune/<name>``.
        changes: Settings that do not decide the trials (``trials``, ``jobs``,
            ``workers``, ``verify_games``, ``heartbeat_interval``...).

    Raises:
        ValueError: When there is no such study, it was not written by ``gomcts tune``, or
            ``changes`` names a setting that decides the trials.
    """
    attrs = _stored(name, storage)
    folder = Path(out) if out is not None else _default_out(attrs, storage, name)
    return _config(attrs, name, storage, folder, changes)


_CONFIGS: weakref.WeakKeyDictionary[optuna.Study, StudyConfig] = weakref.WeakKeyDictionary()


def load_study(
    study: StudyConfig | str,
    storage: str | Path | None = None,
    *,
    out: str | Path | None = None,
    progress: Progress | None = None,
) -> optuna.Study:
    """The study ``study`` names, with its own sampler and pruner (see the module docstring).

    Args:
        study: A study description (its study is created when new), or the name of a study
            stored in ``storage`` by ``gomcts tune`` (its description is read back).
        storage: With a name: its storage (see :func:`study_config`); with a description:
            ``None`` (the description names its storage).
        out: With a name: output folder (see :func:`study_config`); with a description:
            ``None``.
        progress: Receives messages about retried trials.

    Raises:
        ValueError: When there is no such stored study, it was not written by ``gomcts
            tune``, or ``storage``/``out`` come with a description or are missing with a name.
        StudyIdentityError: When a stored study of the description's name has other settings.
        tuning.studies.storage.StorageError: When the storage cannot be opened.
    """
    if isinstance(study, StudyConfig) and callable(storage) and progress is None:
        warnings.warn(
            "load_study(config, progress): pass progress=...; the second positional argument "
            f"is a storage, and the old form goes in {REMOVED_IN} (CHANGELOG.md)",
            DeprecationWarning,
            stacklevel=2,
        )
        storage, progress = None, storage
    if isinstance(study, StudyConfig):
        if storage is not None or out is not None:
            raise ValueError(
                "load_study(config) takes its storage and output folder from the config; "
                "storage and out go with a study name"
            )
        config = study
    elif isinstance(study, str):
        if storage is None:
            raise ValueError(f"load_study({study!r}) needs the storage the study is in")
        config = study_config(study, storage, out=out)
    else:
        raise TypeError(
            f"load_study takes a StudyConfig or a study name, got {type(study).__name__}"
        )
    opened = _open(config, progress)
    _CONFIGS[opened] = config
    return opened


def _open(config: StudyConfig, progress: Progress | None) -> optuna.Study:
    """Open the study of ``config`` (creating it and its storage when new).

    Raises:
        tuning.studies.storage.StorageError: When the storage cannot be opened.
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
        sampler=make_sampler(
            config.sampler, seed=config.seed, startup_trials=config.startup_trials
        ),
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


def _url_of(study: optuna.Study) -> str | None:
    """The storage URL of an open study, where Optuna's storage object tells it (else ``None``).

    Optuna has no public accessor: an ``RDBStorage`` (possibly behind its cache) has ``url``,
    a journal file backend ``_file_path``.
    """
    storage: Any = study._storage
    storage = getattr(storage, "_backend", storage)
    url = getattr(storage, "url", None)
    if isinstance(url, str):
        return url
    path = getattr(getattr(storage, "_backend", None), "_file_path", None)
    return f"journal:{path}" if isinstance(path, str) else None


def load_objective(
    study: optuna.Study, *, out: str | Path | None = None, progress: Progress | None = None
) -> Objective | TrapObjective:
    """The objective that plays the trials of ``study``.

    For a study of the trap-tree objective (``gomcts tune --objective traps``) it is the
    :class:`tuning.studies.trap_objective.TrapObjective` that searches the trial's trees.

    Args:
        study: A study from :func:`load_study` (or any study ``gomcts tune`` wrote).
        out: Output folder, where the games go; default the study's (:func:`study_config`).
        progress: Receives one line per batch of games (``None``: silent).

    Raises:
        ValueError: When the study was not written by ``gomcts tune``.
    """
    config = _CONFIGS.get(study)
    if config is None or out is not None:
        attrs = dict(study.user_attrs)
        if IDENTITY_KEY not in attrs:
            raise ValueError(
                f"study {study.study_name!r} was not written by gomcts tune (it has no "
                f"{IDENTITY_KEY!r} settings): its objective is unknown"
            )
        if out is not None:
            folder = Path(out)
        elif config is not None:
            folder = config.out_dir
        else:
            folder = stored_out(attrs, _url_of(study)) or Path("runs") / "tune" / study.study_name
        config = _config(attrs, study.study_name, None, folder, {})
    if config.traps is not None:
        return TrapObjective(config.space, config.traps, config.seed, progress)
    return Objective(config.objective_config(), progress)
