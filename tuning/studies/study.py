"""Running an Optuna study that tunes an MCTS backup's declared parameters by arena winrate.

The study is described by :class:`tuning.studies.config.StudyConfig` (imported here too), opened
by :func:`tuning.studies.resume.load_study`, and run here: by one worker (:func:`optimize`),
by several worker processes (:func:`run_jobs`), then its outputs written (:func:`run_study`).

Python API (the ``gomcts tune`` command builds the same :class:`StudyConfig` and calls the
same :func:`run_study`)::

    from go_env.rules import Rules
    from tuning.search_spaces import make_space
    from tuning.studies.study import StudyConfig, run_study

    config = StudyConfig(space=make_space("softmax"), agent="mcts:sims=150",
                         rules=Rules(size=7, komi=9), games=60, trials=25, out="runs/sm7")
    report = run_study(config)
    print(report.format())

A study is identified by its name in its storage (:mod:`tuning.studies.storage`; default the SQLite
file ``<out>/study.db``). Everything that decides its trials (space, agents, rules, games,
seed...) is stored with it; running the same command again continues it, and a command with
other settings under the same name is refused. ``trials`` is the number of finished
(COMPLETE) trials the study should reach, counted over all workers: start as many workers as
you like (here, or on other machines sharing a PostgreSQL URL) and each stops once the study
has enough.

Sampling (:mod:`tuning.samplers`): by default the noise-aware GP of :mod:`tuning.samplers.noisy_gp`
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
either way it is queued again (:mod:`tuning.studies.recovery`). No finished game is played
twice.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from agents.lifetime import check_stop, die_with_parent, interrupt_once
from tuning.samplers import TrialSeededSampler as TrialSeededSampler  # one release (CHANGELOG)
from tuning.studies.config import (
    IDENTITY_KEY,
    OUT_KEY,
    Progress,
    StudyConfig,
    StudyIdentityError,
)
from tuning.studies.objective import Objective, describe_best
from tuning.studies.recovery import is_local, recover_dead_trials
from tuning.studies.resume import load_study
from tuning.studies.trap_objective import TrapObjective

__all__ = [
    "IDENTITY_KEY",
    "OUT_KEY",
    "StudyConfig",
    "StudyIdentityError",
    "count_states",
    "load_study",
    "optimize",
    "quiet_interrupts",
    "recover_dead_trials",
    "run_jobs",
    "run_study",
    "surplus_trial",
]


def _say(line: str) -> None:
    print(line, flush=True)


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
    study = load_study(config, progress=progress)
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
    load_study(config, progress=progress)  # create it once, before the workers race to
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
        A :class:`tuning.studies.outputs.StudyReport` (``None`` when ``outputs`` is off).
    """
    run_jobs(config, progress)
    if not outputs:
        return None
    from tuning.studies.outputs import finish_study

    return finish_study(config, progress=progress)
