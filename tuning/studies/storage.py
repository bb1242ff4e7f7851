"""Where a study lives: an embedded file by default, a database server for many workers.

Accepted locations (``open_storage``):

* ``None``: the SQLite file ``study.db`` in the study's output folder;
* a file path: ``*.db``, ``*.sqlite``, ``*.sqlite3`` (SQLite) or ``*.log``, ``*.journal``,
  ``*.jsonl`` (Optuna's journal file, appended with a file lock);
* ``sqlite:///PATH`` or ``journal:PATH``;
* ``postgresql://USER:PASSWORD@HOST:PORT/DB`` (the driver installed, psycopg2 or psycopg 3,
  is chosen; ``postgresql+psycopg2://`` names one), and the other SQLAlchemy URLs Optuna's
  ``RDBStorage`` takes (``mysql+pymysql://...``).

Database storages (SQLite, PostgreSQL, MySQL) get Optuna's heartbeat: a thread records that a
running trial is alive every ``heartbeat_interval`` seconds, and a worker that finds a trial
silent for ``grace_period`` seconds marks it FAIL and hands it to ``on_stale`` (the study
retries it). A server that cannot be reached is reported at once, with the URL's password
hidden.

SQLite transactions begin with ``BEGIN IMMEDIATE`` (see ``_begin_immediate``): Optuna changes a
trial's state by reading it and then writing it, and only a transaction that holds the write
lock from its start makes that one step when several worker processes share the file.
"""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import optuna
import sqlalchemy
from optuna.storages import BaseStorage, JournalStorage, RDBStorage
from optuna.storages.journal import JournalFileBackend
from optuna.trial import FrozenTrial

__all__ = [
    "DEFAULT_FILE",
    "JOURNAL_SUFFIXES",
    "SQLITE_SUFFIXES",
    "StorageError",
    "hide_password",
    "open_storage",
    "recorded_storage_url",
    "storage_url",
]

DEFAULT_FILE = "study.db"
"""File name of the default storage (SQLite) in a study's output folder."""

SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
JOURNAL_SUFFIXES = (".log", ".journal", ".jsonl")
_CREATE_ATTEMPTS = 5
_RDB_SCHEMES = ("sqlite", "postgresql", "postgres", "mysql", "mariadb", "oracle", "mssql")
_DRIVERS = {
    "postgresql": "psycopg2-binary, from the extra 'postgres': pip install 'gomcts[postgres]'",
    "postgres": "psycopg2-binary, from the extra 'postgres': pip install 'gomcts[postgres]'",
    "mysql": "a MySQL driver such as PyMySQL (postgresql is the documented choice)",
}

_ACCEPTED = (
    "give a file (*.db/*.sqlite: SQLite, *.log/*.journal: Optuna journal), sqlite:///PATH, "
    "journal:PATH, or a database URL such as postgresql://USER:PASSWORD@HOST:PORT/DB"
)

StaleCallback = Callable[[optuna.Study, FrozenTrial], None]


class StorageError(ValueError):
    """A storage location that is malformed, of an unknown kind, or cannot be opened."""


def hide_password(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for messages and logs)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    netloc = f"{parts.username or ''}:***@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _postgres_driver() -> str:
    """The installed PostgreSQL driver (SQLAlchemy 2.1 would otherwise ask for psycopg 3)."""
    import importlib.util

    for module, name in (("psycopg2", "psycopg2"), ("psycopg", "psycopg")):
        if importlib.util.find_spec(module) is not None:
            return name
    return "psycopg2"  # reported as missing when the storage is opened


def storage_file(url: str) -> tuple[str, Path] | None:
    """An SQLite or journal storage URL (as ``storage_url`` writes it) as its prefix and file.

    ``None`` for a database server's URL, which names no file.
    """
    for prefix in ("sqlite:///", "journal:"):
        if url.startswith(prefix):
            return prefix, Path(url.removeprefix(prefix))
    return None


def storage_url(location: str | Path | None, default_dir: str | Path) -> str:
    """Normalise a storage location to a URL: ``sqlite:///...``, ``journal:...`` or as given.

    Args:
        location: See the module docstring; ``None`` is ``default_dir/study.db``.
        default_dir: Folder of the default SQLite file.

    Raises:
        StorageError: For an empty location or one of an unknown kind (the message lists the
            accepted forms).
    """
    if location is None:
        return "sqlite:///" + str((Path(default_dir) / DEFAULT_FILE).resolve())
    text = str(location).strip()
    if not text:
        raise StorageError("empty storage location; " + _ACCEPTED)
    if text.startswith("journal:"):
        path = text[len("journal:") :]
        if not path:
            raise StorageError("journal: needs a file path, e.g. journal:runs/study.log")
        return "journal:" + str(Path(path).resolve())
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if scheme:
        if scheme.split("+", 1)[0] not in _RDB_SCHEMES:
            raise StorageError(
                f"unknown storage URL scheme {scheme!r} in {hide_password(text)!r}; " + _ACCEPTED
            )
        if scheme in ("postgresql", "postgres"):
            return f"postgresql+{_postgres_driver()}://" + text.split("://", 1)[1]
        return text
    suffix = Path(text).suffix.lower()
    if suffix in SQLITE_SUFFIXES:
        return "sqlite:///" + str(Path(text).resolve())
    if suffix in JOURNAL_SUFFIXES:
        return "journal:" + str(Path(text).resolve())
    raise StorageError(f"cannot tell what kind of storage {text!r} is; " + _ACCEPTED)


def _begin_immediate(engine: sqlalchemy.engine.Engine) -> None:
    """Make each transaction on this SQLite engine take the database's write lock at its start.

    Optuna's ``RDBStorage`` marks a trial FAIL, RUNNING or COMPLETE by reading its state, checking
    that it may change, and writing it, in one transaction whose ``SELECT ... FOR UPDATE`` locks
    the row on PostgreSQL and MySQL. SQLite has no row locks, and its driver begins a
    transaction only at the first write, so two processes could both read "RUNNING" and both
    win: two workers that found the same dead trial each queued a retry of it, and the two
    retries played the same games into one file. With ``BEGIN IMMEDIATE`` the second
    transaction waits for the first (up to the connection's ``timeout``) and then reads the
    state the first one wrote. Connections that the storage opened before this call are closed.
    """

    @sqlalchemy.event.listens_for(engine, "connect")
    def _driver_does_not_begin(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy's "begin" below says BEGIN

    @sqlalchemy.event.listens_for(engine, "begin")
    def _begin(connection: sqlalchemy.engine.Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    engine.dispose()


def open_storage(
    location: str | Path | None,
    *,
    default_dir: str | Path = ".",
    heartbeat_interval: int | None = 30,
    grace_period: int | None = None,
    on_stale: StaleCallback | None = None,
    connect_timeout: int = 10,
) -> BaseStorage:
    """Open (creating when needed) the storage of a study.

    Args:
        location: See the module docstring.
        default_dir: Folder of the default SQLite file (created when missing).
        heartbeat_interval: Seconds between heartbeats of a running trial (database storages
            only); ``None`` turns the heartbeat off.
        grace_period: Seconds without a heartbeat after which a running trial is stale
            (default ``2 * heartbeat_interval``, Optuna's).
        on_stale: Called with a stale trial once it has been marked FAIL.
        connect_timeout: Seconds to wait for a database server.

    Raises:
        StorageError: For a bad location, a missing database driver or a server that cannot
            be reached (the message names the storage with its password hidden).
    """
    url = storage_url(location, default_dir)
    shown = hide_password(url)
    if url.startswith("journal:"):
        path = Path(url[len("journal:") :])
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            return JournalStorage(JournalFileBackend(str(path)))
        except OSError as exc:
            raise StorageError(f"cannot open the journal file {str(path)!r}: {exc}") from exc
    scheme = url.split("://", 1)[0].lower().split("+", 1)[0]
    engine_kwargs: dict[str, Any] = {"pool_pre_ping": True}
    if scheme == "sqlite":
        path = Path(url[len("sqlite:///") :])
        if str(path) and str(path) != ":memory:":
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StorageError(f"cannot create the folder of {str(path)!r}: {exc}") from exc
        engine_kwargs["connect_args"] = {"timeout": 60}
    elif scheme in ("postgresql", "postgres", "mysql", "mariadb"):
        engine_kwargs["connect_args"] = {"connect_timeout": connect_timeout}
    try:
        for attempt in range(_CREATE_ATTEMPTS):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                    storage = RDBStorage(
                        url,
                        engine_kwargs=engine_kwargs,
                        heartbeat_interval=heartbeat_interval,
                        grace_period=grace_period,
                        heartbeat_stale_trial_callback=on_stale if heartbeat_interval else None,
                    )
                if scheme == "sqlite":
                    _begin_immediate(storage.engine)
                return storage
            except Exception as exc:
                # Workers that start together on an empty database race to create Optuna's
                # tables; the losers see "already exists" and find the tables on a retry.
                if "already exists" not in str(exc) or attempt == _CREATE_ATTEMPTS - 1:
                    raise
                time.sleep(0.5 + random.random())
        raise AssertionError("unreachable")  # pragma: no cover
    except ImportError as exc:
        driver = _DRIVERS.get(scheme, "the database driver SQLAlchemy asks for")
        raise StorageError(
            f"cannot open the study storage {shown!r}: its database driver is "
            f"missing ({exc}); install {driver}"
        ) from exc
    except Exception as exc:  # SQLAlchemy's errors have no common public base here
        reason = " ".join(str(getattr(exc, "orig", None) or exc).split())
        hint = (
            ""
            if scheme == "sqlite"
            else "; check that the server is running, that host, port, user, password and "
            "database are right, and that this machine may connect to it"
        )
        raise StorageError(
            f"cannot open the study storage {shown!r}: {type(exc).__name__}: {reason}{hint}"
        ) from exc


_READ_COPIES: dict[tuple[str, int, int], Path] = {}


def recorded_storage_url(path: str | Path) -> str | None:
    """A SQLite URL that reads the study file ``path`` as the record stores it.

    A recorded run keeps its study database compressed (``study.db.gz``, ``docs/records.md``):
    this decompresses it once per process into a temporary file and returns that file's URL,
    for reading only (a run that continues the study expands the file in place first,
    :func:`agents.stored.expand`). A plain file gives its own URL; ``None`` when neither form
    exists.

    Raises:
        agents.stored.StoredFileError: When both forms exist or the ``.gz`` is corrupt.
    """
    import atexit
    import shutil
    import tempfile

    from agents.stored import is_compressed, read_stored, stored_file

    stored = stored_file(path)
    if stored is None:
        return None
    if not is_compressed(stored):
        return f"sqlite:///{stored.resolve()}"
    stat = stored.stat()
    key = (str(stored.resolve()), stat.st_mtime_ns, stat.st_size)
    copy = _READ_COPIES.get(key)
    if copy is None or not copy.exists():
        folder = Path(tempfile.mkdtemp(prefix="gomcts-study-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        copy = folder / stored.name[: -len(".gz")]
        copy.write_bytes(read_stored(stored))
        _READ_COPIES[key] = copy
    return f"sqlite:///{copy}"
