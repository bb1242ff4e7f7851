from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import optuna
import pytest
from optuna.storages import JournalStorage, RDBStorage
from postgres_support import free_port

from tuning.studies.storage import StorageError, hide_password, open_storage, storage_url


def test_locations_become_urls(tmp_path: Path) -> None:
    assert storage_url(None, tmp_path) == f"sqlite:///{tmp_path.resolve()}/study.db"
    assert storage_url(tmp_path / "a.sqlite", ".") == f"sqlite:///{tmp_path / 'a.sqlite'}"
    assert storage_url(tmp_path / "s.log", ".") == f"journal:{tmp_path / 's.log'}"
    assert storage_url(f"journal:{tmp_path}/j", ".") == f"journal:{tmp_path}/j"
    url = "postgresql+psycopg2://u:pw@db.example:5432/optuna"
    assert storage_url(url, ".") == url
    assert storage_url("postgres://u@h/db", ".") in (
        "postgresql+psycopg2://u@h/db",
        "postgresql+psycopg://u@h/db",
    )


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("redis://localhost:6379", "unknown storage URL scheme 'redis'"),
        ("study.txt", "cannot tell what kind of storage 'study.txt' is"),
        ("  ", "empty storage location"),
        ("journal:", "journal: needs a file path"),
    ],
)
def test_unknown_locations_are_refused(location: str, message: str) -> None:
    with pytest.raises(StorageError, match=message) as info:
        storage_url(location, ".")
    assert "postgresql://USER:PASSWORD@HOST:PORT/DB" in str(info.value) or "journal" in message


def test_hide_password() -> None:
    assert hide_password("postgresql://u:secret@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert hide_password("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"


def test_default_is_an_sqlite_file_with_heartbeat(tmp_path: Path) -> None:
    storage = open_storage(None, default_dir=tmp_path / "new", heartbeat_interval=5)
    assert isinstance(storage, RDBStorage) and storage.get_heartbeat_interval() == 5
    optuna.create_study(storage=storage, study_name="s").optimize(
        lambda t: t.suggest_float("x", 0, 1), n_trials=2
    )
    assert (tmp_path / "new" / "study.db").exists()
    again = optuna.load_study(
        study_name="s", storage=open_storage(None, default_dir=tmp_path / "new")
    )
    assert len(again.trials) == 2


def test_an_sqlite_transaction_holds_the_write_lock_from_its_start(tmp_path: Path) -> None:
    """Optuna reads a trial's state, then writes it: no other process may write in between."""
    storage = open_storage(None, default_dir=tmp_path)
    assert isinstance(storage, RDBStorage)
    optuna.create_study(storage=storage, study_name="s")
    other = sqlite3.connect(tmp_path / "study.db", timeout=0, isolation_level=None)
    with storage.engine.connect() as connection:
        connection.exec_driver_sql("SELECT count(*) FROM trials").scalar()  # it has only read
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
    other.execute("BEGIN IMMEDIATE")  # free again once that transaction ended
    other.execute("ROLLBACK")
    other.close()


def test_journal_file(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "j" / "study.log")
    assert isinstance(storage, JournalStorage)
    optuna.create_study(storage=storage, study_name="s").optimize(
        lambda t: t.suggest_float("x", 0, 1), n_trials=2
    )
    reread = optuna.load_study(
        study_name="s", storage=open_storage(f"journal:{tmp_path}/j/study.log")
    )
    assert [t.state for t in reread.trials] == [optuna.trial.TrialState.COMPLETE] * 2


def test_unreachable_server_is_a_clear_fast_error() -> None:
    pytest.importorskip("psycopg2")
    url = f"postgresql://tuner:topsecret@127.0.0.1:{free_port()}/optuna"
    start = time.monotonic()
    with pytest.raises(StorageError) as info:
        open_storage(url, connect_timeout=3)
    message = str(info.value)
    assert time.monotonic() - start < 20
    assert "cannot open the study storage 'postgresql+psycopg2://tuner:***@127.0.0.1:" in message
    assert "topsecret" not in message
    assert "check that the server is running" in message
