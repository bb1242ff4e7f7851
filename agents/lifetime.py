"""Worker processes that die with their parent.

A worker process (an arena game worker, a study job) outlives its parent when the parent is
killed with ``SIGKILL``: nothing runs in the parent to stop it. Orphaned arena workers keep
playing games no one collects, and orphaned study workers keep running trials, so that a
restarted study has two sets of workers on one storage. :func:`die_with_parent`, called first
thing in the worker, arranges two guards:

- on Linux, ``prctl(PR_SET_PDEATHSIG, signal)`` (through ``ctypes``, see ``man 2 prctl``): the
  kernel sends ``signal`` to the worker the moment its parent dies (more precisely, the parent
  thread that started it: start workers from a thread that lives as long as they do);
- everywhere, a daemon thread that polls ``os.getppid()`` every :data:`POLL_SECONDS` and sends
  the signal when the parent has changed (the worker was re-parented to init or a subreaper),
  then exits the process outright (``os._exit(1)``) if the signal did not end it within
  :data:`GRACE_SECONDS`.

So a worker notices a dead parent within a tenth of a second and is gone within a few
seconds whatever it was doing. What it leaves behind: a study job that stops on the signal
marks its running trial FAIL and queues it again (:mod:`tuning.studies.objective`); one that
the grace period cuts short (its clean-up waited on a database lock, say) leaves its trial
RUNNING, and the study's crash recovery fails and queues it again on the next run
(:func:`tuning.studies.recovery.recover_dead_trials`: its process is gone), or, on other
machines, Optuna's heartbeat does.

The default signal is ``SIGTERM``, so a worker with a handler can stop cleanly (a study job
turns it into ``KeyboardInterrupt`` and puts its running trial back in the queue). Such a
handler should be :func:`interrupt_once`: an exception raised by a signal handler is lost when
the signal lands while Python runs a finalizer or a weak-reference callback (numba's type
caches and SQLAlchemy's connection pool run them all the time: "Exception ignored in ..."), so
the handler also records the request, and long loops call :func:`check_stop` between steps
(a study checks before each trial and after each game, a game before each move). A second
signal does not raise again in the middle of the clean-up the first one started. The
resource tracker of :mod:`multiprocessing` exits by itself once every process holding its
pipe is gone, so it goes with the workers.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import signal
import sys
import threading
import time

__all__ = [
    "GRACE_SECONDS",
    "POLL_SECONDS",
    "check_stop",
    "die_with_parent",
    "interrupt_once",
    "stop_requested",
]

#: Seconds between two checks of the parent by the watchdog thread (a ``getppid`` call).
POLL_SECONDS = 0.1
#: Seconds a worker has, after the signal, to stop cleanly before it exits outright.
GRACE_SECONDS = 5.0

log = logging.getLogger(__name__)

# The one piece of process-wide state: whether this process was asked to stop by a signal.
_STOP = threading.Event()
# Whether interrupt_once has begun to handle a signal. A plain flag, not the Event: a second
# signal can land while the first handler holds the Event's lock inside ``set()``, and a
# handler that then took the lock again would deadlock the process (and the watchdog waiting
# on the same lock, so it would never exit).
_handling = False


def interrupt_once(signum: int, frame: object) -> None:
    """A signal handler: record a stop request; raise ``KeyboardInterrupt`` the first time.

    Install it with ``signal.signal(signal.SIGTERM, interrupt_once)``. Later signals only keep
    the request (the clean-up the first ``KeyboardInterrupt`` started is not interrupted); a
    first exception that was swallowed is raised again by the next :func:`check_stop`.
    """
    global _handling
    if _handling:
        return  # the request stands; take no lock (the first handler may hold the Event's)
    _handling = True
    _STOP.set()
    raise KeyboardInterrupt(f"signal {signum}")


def stop_requested() -> bool:
    """Whether :func:`interrupt_once` has handled a signal in this process."""
    return _STOP.is_set()


def check_stop() -> None:
    """Raise ``KeyboardInterrupt`` when a stop was requested (call it between steps of work).

    Raises:
        KeyboardInterrupt: After :func:`interrupt_once` handled a signal, even when the
            exception it raised then was lost.
    """
    if _STOP.is_set():
        raise KeyboardInterrupt("stop requested by a signal")


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _set_parent_death_signal(signum: int) -> bool:
    """``prctl(PR_SET_PDEATHSIG, signum)``; whether it took effect (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
            log.debug("prctl(PR_SET_PDEATHSIG) failed: errno %d", ctypes.get_errno())
            return False
    except (OSError, AttributeError) as exc:  # no libc or no prctl: the watchdog remains
        log.debug("prctl unavailable: %s", exc)
        return False
    return True


def _watch(parent: int, signum: int, poll: float, grace: float) -> None:
    """The watchdog thread: signal this process once ``parent`` is gone; exit after ``grace``.

    A stop request (:func:`interrupt_once`, e.g. on the kernel's ``PR_SET_PDEATHSIG`` signal)
    wakes it at once, so the grace period starts when the parent dies even with a slow poll.
    """
    while os.getppid() == parent:
        if _STOP.is_set():
            time.sleep(poll)  # a stop while the parent lives: the parent sees to it
        else:
            _STOP.wait(poll)
    if not _STOP.is_set():
        log.warning("parent process %d is gone; stopping worker %d", parent, os.getpid())
        os.kill(os.getpid(), signum)
    time.sleep(grace)
    os._exit(1)  # the signal was handled but did not end the process in time


def die_with_parent(
    parent: int,
    *,
    signum: int = signal.SIGTERM,
    poll: float = POLL_SECONDS,
    grace: float = GRACE_SECONDS,
) -> None:
    """Make this process receive ``signum`` when process ``parent`` dies.

    Args:
        parent: The parent's pid, as the parent saw it (``os.getpid()`` passed down): a parent
            that died before this call is noticed, since ``os.getppid()`` then differs.
        signum: The signal sent (default ``SIGTERM``).
        poll: Seconds between two checks of the watchdog thread.
        grace: Seconds the watchdog waits after sending the signal before ``os._exit(1)``.
    """
    _set_parent_death_signal(signum)
    if os.getppid() != parent:  # the parent died before the guard was set
        os.kill(os.getpid(), signum)
    threading.Thread(
        target=_watch, args=(parent, signum, poll, grace), name="parent-watchdog", daemon=True
    ).start()
