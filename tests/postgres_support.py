"""A throwaway PostgreSQL server for tests: ``initdb`` in a temporary folder, ``pg_ctl start``.

The server listens on 127.0.0.1 at a free port, trusts local connections (no password) and
holds one database, ``optuna``. When the tests run as root, the server runs as the
``postgres`` OS user (through ``runuser``), since PostgreSQL refuses to run as root.

Without the PostgreSQL programs (Debian: ``apt-get install postgresql``; they are looked
for in ``$PG_BIN``, on ``PATH`` and in ``/usr/lib/postgresql/<version>/bin``) or without a
Python driver (``psycopg2``), :func:`require_postgres` skips the test with the reason, except
under ``CI=true``, where it fails.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["PostgresServer", "find_bin_dir", "free_port", "require_postgres", "start_postgres"]

USER = "gomcts"
DATABASE = "optuna"


def find_bin_dir() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``, or ``None``."""
    env = os.environ.get("PG_BIN")
    if env and (Path(env) / "initdb").exists():
        return Path(env)
    initdb = shutil.which("initdb")
    if initdb:  # Debian links initdb and pg_ctl into PATH; the other programs sit beside them
        folder = Path(initdb).resolve().parent
        if all((folder / name).exists() for name in ("pg_ctl", "createdb")):
            return folder
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return versions[-1].parent if versions else None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _missing() -> str | None:
    if find_bin_dir() is None:
        return (
            "PostgreSQL programs (initdb, pg_ctl) not found; install them with "
            "'apt-get install postgresql' or set PG_BIN"
        )
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        return "the psycopg2 driver is missing (pip install psycopg2-binary)"
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return "running as root needs runuser to start PostgreSQL as another user"
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root needs the 'postgres' OS user (created by the Debian package)"
    return None


def require_postgres() -> None:
    """Skip the calling test when PostgreSQL cannot be started (fail under ``CI=true``)."""
    reason = _missing()
    if reason is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"PostgreSQL is required under CI=true: {reason}")
    pytest.skip(reason)


@dataclass
class PostgresServer:
    """A running throwaway server.

    Attributes:
        url: SQLAlchemy URL of its ``optuna`` database.
        port: Its TCP port on 127.0.0.1.
        root: Its temporary folder (data, socket and log).
    """

    url: str
    port: int
    root: Path
    _prefix: tuple[str, ...]
    _bin: Path

    @property
    def log(self) -> str:
        """The server log so far."""
        path = self.root / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        """Stop the server and delete its folder."""
        subprocess.run(
            [
                *self._prefix,
                str(self._bin / "pg_ctl"),
                "-D",
                str(self.root / "data"),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(self.root, ignore_errors=True)


def _run(cmd: list[str], what: str) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed ({done.returncode}): {done.stdout}{done.stderr}")


def start_postgres() -> PostgresServer:
    """Start a throwaway server (call :func:`require_postgres` first).

    Raises:
        RuntimeError: When a PostgreSQL command fails (its output is in the message).
    """
    bin_dir = find_bin_dir()
    assert bin_dir is not None, "call require_postgres() first"
    root = Path(tempfile.mkdtemp(prefix="gomcts-pg-"))
    root.chmod(0o755)
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:
        import pwd

        entry = pwd.getpwnam("postgres")
        os.chown(root, entry.pw_uid, entry.pw_gid)
        prefix = ("runuser", "-u", "postgres", "--")
    data = root / "data"
    port = free_port()
    try:
        _run(
            [
                *prefix,
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-U",
                USER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            "initdb",
        )
        options = (
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off"
        )
        _run(
            [
                *prefix,
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(root / "server.log"),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "start",
            ],
            "pg_ctl start",
        )
        _run(
            [
                *prefix,
                str(bin_dir / "createdb"),
                "-h",
                "127.0.0.1",
                "-p",
                str(port),
                "-U",
                USER,
                DATABASE,
            ],
            "createdb",
        )
    except Exception:
        subprocess.run(
            [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(root, ignore_errors=True)
        raise
    url = f"postgresql+psycopg2://{USER}@127.0.0.1:{port}/{DATABASE}"
    return PostgresServer(url=url, port=port, root=root, _prefix=prefix, _bin=bin_dir)
