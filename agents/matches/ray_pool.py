"""A :class:`concurrent.futures.Executor` whose calls run as tasks on a Ray cluster.

:class:`RayPool` gives the arena (and through it ``gomcts tune``) the same interface as the
local :class:`~concurrent.futures.ProcessPoolExecutor`: ``submit`` returns a
:class:`~concurrent.futures.Future`, ``cancel`` drops a call not started, ``shutdown`` waits.
So the arena plays on Ray with the executor it plays on a process pool with
(:class:`~agents.matches.executors.PoolExecutor`, one game per call).
Underneath, every call is one Ray task (Moritz et al., "Ray: A Distributed Framework for
Emerging AI Applications", OSDI 2018), and Ray's lineage-based fault tolerance does the hard
part: a task whose worker process or node dies is executed again elsewhere (``max_retries``
system failures per task), so a lost node costs only the calls it was running.

How it works:

- Calls wait in a local queue; a driver thread keeps at most ``slots`` of them in flight on
  the cluster (default: the cluster's CPUs, read again every few seconds, so nodes that join
  are used) and collects them with ``ray.wait``. A call still in the queue can be cancelled,
  which is what the arena does when a tuner stops a trial early: nothing is left running on
  the cluster that nobody will read.
- ``initializer(*initargs)`` runs once in each Ray worker process before its first call of
  this pool (worker processes are reused between tasks, so state built there, e.g. the arena's
  agents, is reused too).
- A call that raises returns its exception to the caller unchanged (it is not retried: a bug
  stays a bug); only system failures (dead worker, dead node) are retried.

The module imports Ray only when a pool is made or :func:`connect` is called; without Ray
installed they raise :class:`RayUnavailableError`, whose message says how to install it
(``pip install "gomcts[cluster]"``).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

from go_env.validation import check_int

__all__ = [
    "INSTALL_HINT",
    "ClusterError",
    "RayPool",
    "RayUnavailableError",
    "add_ray_option",
    "connect",
    "import_ray",
]

log = logging.getLogger(__name__)

INSTALL_HINT = 'pip install "gomcts[cluster]"'


class ClusterError(RuntimeError):
    """The Ray cluster cannot be used (not installed, not reachable, no CPUs)."""


class RayUnavailableError(ClusterError):
    """Ray is not installed; the message says how to install it."""


def import_ray() -> Any:
    """The ``ray`` module.

    Raises:
        RayUnavailableError: When Ray is not installed.
    """
    try:
        import ray
    except ImportError as exc:
        raise RayUnavailableError(
            f"running on a Ray cluster needs Ray, which is not installed ({exc}); install "
            f"it with: {INSTALL_HINT}  (or play on this machine: leave out --ray)"
        ) from None
    return ray


ADDRESS_HELP = (
    "the one this machine belongs to (no ADDRESS, or auto), HOST:PORT of its head, "
    "ray://HOST:10001, or local (a private Ray here)"
)
"""What ``--ray``'s ADDRESS may be (the forms :func:`connect` takes)."""


def add_ray_option(parser: Any, what: str, details: str) -> None:
    """Add ``--ray [ADDRESS]`` to an argparse ``parser``, worded the same in every command.

    The value is ``None`` without the option, ``"auto"`` with no ADDRESS, else ADDRESS.

    Args:
        parser: The command's parser.
        what: What runs on the cluster, e.g. ``"play the games as tasks"``.
        details: The command's own sentence after the address forms.
    """
    parser.add_argument(
        "--ray",
        nargs="?",
        const="auto",
        default=None,
        metavar="ADDRESS",
        help=f"{what} on a Ray cluster: {ADDRESS_HELP}; {details} Needs {INSTALL_HINT}; "
        "see docs/cluster.md",
    )


def connect(address: str = "auto") -> Any:
    """Connect this process to a Ray cluster (once; later calls reuse the connection).

    Args:
        address: ``"auto"`` (the cluster this machine belongs to, as ``ray start`` left it),
            ``"HOST:PORT"`` (the head node's GCS address), ``"ray://HOST:10001"`` (Ray
            Client), or ``"local"`` (start a private single-machine Ray for this process).

    Returns:
        The ``ray`` module, initialised.

    Raises:
        RayUnavailableError: When Ray is not installed.
        ClusterError: When no cluster answers at ``address``.
    """
    if not isinstance(address, str) or not address.strip():
        raise ValueError(
            f"the Ray address must be 'auto', 'local', 'HOST:PORT' or 'ray://HOST:PORT', "
            f"got {address!r}"
        )
    ray = import_ray()
    if ray.is_initialized():
        return ray
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    options: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING}
    try:
        if address == "local":
            ray.init(include_dashboard=False, **options)
        else:
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        cause = f"{exc} {exc.__cause__ or ''}"
        if "AuthToken" in cause or "token authentication" in cause:
            hint = (
                "the cluster uses token authentication and this process sent no token: set "
                "RAY_AUTH_MODE=token here, with the cluster's token in ~/.ray/auth_token or "
                "RAY_AUTH_TOKEN (see docs/cluster.md, 'Authentication')"
            )
        else:
            hint = (
                "start one with `ray start --head` on this machine, give the head's address "
                "with --ray HOST:PORT, or use --ray local for a private Ray on this machine; "
                "see docs/cluster.md"
            )
        raise ClusterError(
            f"cannot connect to the Ray cluster at {address!r}: {exc}\n({hint})"
        ) from exc
    return ray


# ----------------------------------------------------------------- the worker side

_INITIALISED: set[tuple[str, str, str]] = set()


def _run_call(
    initializer: Callable[..., object] | None,
    initargs: tuple[Any, ...],
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[bool, Any]:
    """Body of every task: the initializer once per worker process, then ``fn``.

    Returns ``(True, result)`` or ``(False, exception)``: an exception raised by ``fn`` comes
    back as a value, so Ray does not wrap it and the caller gets it with its own type.
    """
    try:
        if initializer is not None:
            key = (
                getattr(initializer, "__module__", "") or "",
                getattr(initializer, "__qualname__", repr(initializer)),
                repr(initargs),
            )
            if key not in _INITIALISED:
                initializer(*initargs)
                _INITIALISED.add(key)
        return True, fn(*args, **kwargs)
    except Exception as exc:
        log.exception("a call of a RayPool failed")
        import pickle

        try:
            pickle.dumps(exc)
        except Exception:
            exc = RuntimeError(f"{type(exc).__name__}: {exc}")
        return False, exc


_REMOTE: Any = None


def _remote_call(ray: Any) -> Any:
    global _REMOTE
    if _REMOTE is None:
        _REMOTE = ray.remote(_run_call)
    return _REMOTE


# ----------------------------------------------------------------- the driver side


class RayPool(Executor):
    """Run calls as Ray tasks, at most ``slots`` at a time (see the module docstring).

    Args:
        address: Where the cluster is (see :func:`connect`); an existing connection of this
            process is reused whatever the address.
        slots: Calls in flight at once; default the cluster's CPUs divided by ``num_cpus``
            (followed as nodes join or leave).
        initializer: Called as ``initializer(*initargs)`` once in each worker process.
        initargs: Its arguments.
        max_retries: Times a task is executed again after a system failure (its worker
            process or its node died).
        num_cpus: CPUs reserved on the cluster for each call.
        poll: Seconds between two looks at the queue while calls run.

    Raises:
        RayUnavailableError: When Ray is not installed.
        ClusterError: When the cluster cannot be reached or has no CPU.
        ValueError: For ``slots < 1``, ``max_retries < 0`` or ``num_cpus <= 0``.
    """

    def __init__(
        self,
        address: str = "auto",
        *,
        slots: int | None = None,
        initializer: Callable[..., object] | None = None,
        initargs: tuple[Any, ...] = (),
        max_retries: int = 3,
        num_cpus: float = 1.0,
        poll: float = 0.1,
    ) -> None:
        if slots is not None:
            check_int("slots", slots, min=1, allowed="a positive int or None")
        check_int("max_retries", max_retries, min=0)
        if not num_cpus > 0:
            raise ValueError(f"num_cpus must be > 0, got {num_cpus!r}")
        self._ray = connect(address)
        self._num_cpus = float(num_cpus)
        self._fixed_slots = slots
        self._slots = slots if slots is not None else self._cluster_slots()
        if self._slots < 1:
            raise ClusterError(
                f"the Ray cluster has no CPU for a task of {num_cpus:g} CPU "
                f"(resources: {self._ray.cluster_resources()})"
            )
        self._checked = time.monotonic()
        self._remote = _remote_call(self._ray).options(
            num_cpus=self._num_cpus, max_retries=max_retries, retry_exceptions=False
        )
        self._initializer = initializer
        self._initargs = tuple(initargs)
        self._poll = poll
        self._lock = threading.Condition()
        self._queue: deque[tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict]] = deque()
        self._running: dict[Any, Future[Any]] = {}
        self._closing = False
        self._thread = threading.Thread(target=self._drive, name="RayPool", daemon=True)
        self._thread.start()

    @property
    def slots(self) -> int:
        """Calls in flight at most (now)."""
        return self._slots

    def _cluster_slots(self) -> int:
        cpus = float(self._ray.cluster_resources().get("CPU", 0.0))
        return int(cpus // self._num_cpus + 1e-9)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Queue ``fn(*args, **kwargs)``; ``fn`` must be importable on the cluster's nodes."""
        future: Future[Any] = Future()
        with self._lock:
            if self._closing:
                raise RuntimeError("cannot submit to a RayPool after shutdown")
            self._queue.append((future, fn, args, kwargs))
            self._lock.notify_all()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking calls; ``cancel_futures`` drops the queued ones; ``wait`` waits."""
        with self._lock:
            self._closing = True
            if cancel_futures:
                while self._queue:
                    self._queue.popleft()[0].cancel()
            self._lock.notify_all()
        if wait and self._thread is not threading.current_thread():
            self._thread.join()

    # ----------------------------------------------------------------- driver thread

    def _drive(self) -> None:
        try:
            while self._step():
                pass
        except BaseException as exc:  # e.g. the connection to the cluster was lost
            log.exception("the RayPool driver stopped")
            with self._lock:
                futures = [f for f, *_ in self._queue] + list(self._running.values())
                self._queue.clear()
                self._running.clear()
            for future in futures:
                if not future.done() and (
                    future.running() or future.set_running_or_notify_cancel()
                ):
                    future.set_exception(
                        ClusterError(f"the Ray pool stopped: {type(exc).__name__}: {exc}")
                    )

    def _step(self) -> bool:
        """Launch what fits, collect what finished; ``False`` when there is nothing left."""
        with self._lock:
            while not self._queue and not self._running:
                if self._closing:
                    return False
                self._lock.wait()
            launch: list[tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict]] = []
            self._refresh_slots()
            while self._queue and len(self._running) + len(launch) < self._slots:
                future, fn, args, kwargs = self._queue.popleft()
                if future.set_running_or_notify_cancel():
                    launch.append((future, fn, args, kwargs))
        for future, fn, args, kwargs in launch:
            try:
                ref = self._remote.remote(self._initializer, self._initargs, fn, args, kwargs)
            except Exception as exc:  # e.g. arguments that cannot be serialised
                future.set_exception(exc)
                continue
            with self._lock:
                self._running[ref] = future
        with self._lock:
            refs = list(self._running)
        if not refs:
            return True
        ready, rest = self._ray.wait(refs, num_returns=1, timeout=self._poll)
        if ready and rest:
            more, _ = self._ray.wait(rest, num_returns=len(rest), timeout=0)
            ready += more
        for ref in ready:
            with self._lock:
                future = self._running.pop(ref)
            try:
                ok, value = self._ray.get(ref)
            except Exception as exc:  # a system failure after the retries ran out
                future.set_exception(exc)
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)
        return True

    def _refresh_slots(self) -> None:
        if self._fixed_slots is not None or time.monotonic() - self._checked < 5.0:
            return
        self._checked = time.monotonic()
        try:
            slots = self._cluster_slots()
        except Exception as exc:  # keep the last count; the next look may work
            log.debug("cannot read the cluster's resources: %s", exc)
            return
        if slots >= 1 and slots != self._slots:
            log.info("Ray pool: %d slots (was %d)", slots, self._slots)
            self._slots = slots
