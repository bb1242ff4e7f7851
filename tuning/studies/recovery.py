"""Crash recovery of a study: who runs a trial, whether it is still alive, and its retry.

Every trial records the process that runs it (:func:`process_identity`: host, pid namespace,
pid and start time, user attribute ``worker``). A trial can stop without finishing in three
ways, and all three end in :func:`retry_trial`, which queues a new trial with the same
parameters and the same **origin** (:func:`origin_of`), hence the same match seed and the same
results file, so no finished game is played twice:

* interrupted (Ctrl-C, ``SIGTERM``): the objective queues its own retry before it stops
  (:class:`tuning.studies.objective.Objective`);
* its worker died without a word on this machine: the next worker here finds the RUNNING
  trial whose process is gone (:func:`recover_dead_trials`);
* its worker died anywhere, with a database storage: Optuna's heartbeat marks it FAIL after
  the grace period, and the storage's ``on_stale`` callback retries it
  (:func:`tuning.studies.storage.open_storage`, :func:`tuning.studies.resume.load_study`).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

__all__ = [
    "is_local",
    "origin_of",
    "process_alive",
    "process_identity",
    "recover_dead_trials",
    "retry_trial",
]

Progress = Callable[[str], None]


def origin_of(trial: FrozenTrial | optuna.Trial) -> int:
    """The number of the trial whose games and seed ``trial`` uses (itself unless a retry)."""
    attrs = trial.user_attrs
    return int(attrs.get("origin", attrs.get("retry_of", trial.number)))


def _process_start(pid: int) -> int | None:
    """Start time of process ``pid`` in clock ticks since boot (Linux), ``None`` if unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    try:
        return int(stat[stat.rindex(")") + 2 :].split()[19])
    except (ValueError, IndexError):
        return None


def _pid_namespace() -> str | None:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return None


def process_identity() -> dict[str, Any]:
    """This process: host name, pid namespace, pid and start time.

    The start time tells the process from a later one with the same pid; the namespace tells
    containers that share a host name apart.
    """
    pid = os.getpid()
    return {
        "host": socket.gethostname(),
        "pidns": _pid_namespace(),
        "pid": pid,
        "start": _process_start(pid),
    }


def is_local(owner: Mapping[str, Any]) -> bool:
    """Whether ``owner`` (from :func:`process_identity`) ran on this host, in this pid space."""
    return owner.get("host") == socket.gethostname() and owner.get("pidns") == _pid_namespace()


def process_alive(owner: Mapping[str, Any]) -> bool:
    """Whether the process ``owner`` (from :func:`process_identity`, on this host) still runs."""
    pid = int(owner["pid"])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    start = _process_start(pid)
    return owner.get("start") is None or start is None or start == owner.get("start")


def retry_trial(
    study: optuna.Study,
    trial: FrozenTrial | optuna.Trial,
    *,
    max_retry: int,
    reason: str,
    progress: Progress | None = None,
) -> bool:
    """Queue a new trial with the same parameters, origin and seed as an unfinished ``trial``.

    Args:
        study: The study.
        trial: A trial that did not finish (crashed, stale or interrupted).
        max_retry: Retries allowed per origin; beyond it the trial is left FAIL.
        reason: Why, for the message.
        progress: Where to say what happened.

    Returns:
        Whether a retry was queued (a trial that never got its parameters is not retried:
        it played no game).
    """
    say = progress or (lambda _: None)
    origin = origin_of(trial)
    attempt = int(trial.user_attrs.get("attempt", 0)) + 1
    params = dict(trial.params)
    if not params:
        say(f"trial {trial.number} ({reason}) had no parameters yet; nothing to retry")
        return False
    if attempt > max_retry:
        say(
            f"trial {trial.number} ({reason}) is left FAIL: its origin {origin} was retried "
            f"{max_retry} times already"
        )
        return False
    study.enqueue_trial(
        params, user_attrs={"origin": origin, "retry_of": trial.number, "attempt": attempt}
    )
    say(
        f"trial {trial.number} ({reason}): queued again with the same parameters "
        f"(attempt {attempt} of origin {origin}; its finished games are kept)"
    )
    return True


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
