"""Opening the workbench database: one connection per thread, WAL, foreign keys, busy timeout,
and forward migrations (:mod:`store.migrations`) applied on open.

There is one way to open it: :func:`connect`, used as a context manager::

    with store.connect(path) as db:
        ...

The returned sqlite-utils ``Database`` is its own context manager and closes its connection when
the block ends, however it ends (a return, an exception), so nothing outside this module closes
a connection by hand (``tests/test_store_connections.py`` checks the source tree for that).
The one connection that outlives a block is :func:`thread_db`'s: one cached per thread and path
for the app's script runs, owned by that cache and closed by :func:`close_thread_dbs` (or with
its thread), never by a ``with``. :func:`sqlite_file` is the ``with`` for a plain connection to
a database *file* that must not be migrated (a backup being copied or checked).

Apart from :mod:`store.db` because the migrations use that module's transactions: this module
sits above both, so nothing imports in a circle.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path
from typing import Iterator

from sqlite_utils import Database

from pipeline.durable import make_private
from pipeline.errors import FormatError
from store.audit_chain import advance_head, keying_for
from store.db import DEFAULT_BUSY_TIMEOUT_MS, default_db_path, env_retry_seconds, with_retry
from store.leftovers import remove_leftovers
from store.migrations import migrate


def connect(
    path: str | os.PathLike[str] | None = None,
    *,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    retry_seconds: float | None = None,
    migrate_to: int | None = None,
    keyed_as: str | os.PathLike[str] | None = None,
) -> Database:
    """Open (creating if needed) the workbench database and bring its schema up to date.

    ``path`` defaults to :func:`default_db_path`; the parent folder is created. The connection
    may only be used from the thread that opened it. ``busy_timeout_ms`` is how long one attempt
    waits for a lock inside SQLite; ``retry_seconds`` bounds the retries around it (``None``:
    ``$WORKBENCH_BUSY_RETRY_S``, else :data:`DEFAULT_RETRY_SECONDS`).
    ``migrate_to`` stops migrations at that version (tests of old files); leave it ``None``.
    ``keyed_as`` keys the audit chain with the installation key of that database instead and
    writes no head (a restore's copy, before it takes that database's place).

    Opening a file is also the one place where copies left by a killed backup or restore are
    removed (:func:`store.leftovers.remove_leftovers`): they are full copies of the database.

    Use it as a context manager: ``with connect(path) as db:`` closes the connection when the
    block ends, also on an early return or an exception.

    >>> import store
    >>> with store.connect(":memory:") as db:
    ...     store.schema_version(db) == store.LATEST_VERSION  # created and migrated
    ...     "projects" in db.table_names()
    True
    True
    >>> db.execute("SELECT 1")                                # closed when the block ended
    Traceback (most recent call last):
    ...
    sqlite3.ProgrammingError: Cannot operate on a closed database.
    """
    p = Path(path) if path is not None else default_db_path()
    new_file = False
    if str(p) != ":memory:":
        if not p.parent.exists():
            p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)   # threads may race to create it
        new_file = not p.exists()
    if str(p) != ":memory:":
        remove_leftovers(p)
    conn = sqlite3.connect(str(p), timeout=busy_timeout_ms / 1000.0)
    if new_file:
        make_private(p)       # every note and password hash lives here (its -wal/-shm take its mode)
    # nothing half-opened outlives a failure: the connection closes unless it is handed out
    with ExitStack() as opened:
        opened.callback(conn.close)
        try:
            db = Database(conn, execute_plugins=False)
            retry = env_retry_seconds() if retry_seconds is None else retry_seconds
            db._wb_retry_seconds = float(retry)  # type: ignore[attr-defined]
            db._wb_path = str(p)  # type: ignore[attr-defined]
            db._wb_read_only = False  # type: ignore[attr-defined]
            db._wb_chain = (keying_for(keyed_as, head=False) if keyed_as is not None  # type: ignore[attr-defined]
                            else keying_for(p))
            db._wb_after_commit = advance_head  # type: ignore[attr-defined]
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            conn.execute("PRAGMA foreign_keys = ON")
            if str(p) != ":memory:":
                with_retry(db, db.enable_wal)
            migrate(db, upto=migrate_to)
        except sqlite3.DatabaseError as e:
            if isinstance(e, sqlite3.OperationalError):
                raise
            # "file is not a database" and the like
            raise FormatError(str(p), f"is not a usable SQLite database ({e.__class__.__name__})") from None
        opened.pop_all()
    return db


_local = threading.local()


@contextmanager
def sqlite_file(path: str | os.PathLike[str], *, read_only: bool = False,
                timeout: float = 5.0) -> Iterator[sqlite3.Connection]:
    """A plain SQLite connection to a database file that is not opened as the workbench store:
    no pragmas, no WAL, no migrations (a backup being copied or checked must stay as it is).
    ``read_only`` opens it with ``mode=ro``; ``timeout`` is SQLite's busy timeout in seconds.
    Closed when the block ends. (A ``sqlite3.Connection``'s own ``with`` only ends a transaction.)

    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "plain.db")
    >>> with sqlite_file(path) as conn:
    ...     conn.execute("PRAGMA journal_mode").fetchone()[0]  # as SQLite made it, not WAL
    'delete'
    >>> shutil.rmtree(folder)
    """
    p = Path(path)
    conn = (sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout) if read_only
            else sqlite3.connect(str(p), timeout=timeout))
    with closing(conn):
        yield conn


def thread_db(path: str | os.PathLike[str] | None = None) -> Database:
    """One cached connection per (thread, path): for Streamlit script runs and worker threads,
    which may not share a connection across threads.

    >>> import store
    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "workbench.db")
    >>> store.thread_db(path) is store.thread_db(path)        # one connection per thread and path
    True
    >>> store.close_thread_dbs()
    >>> shutil.rmtree(folder)
    """
    key = str(Path(path).resolve()) if path is not None else str(default_db_path().resolve())
    cache: dict[str, Database] = getattr(_local, "dbs", None) or {}
    _local.dbs = cache
    db = cache.get(key)
    if db is None:
        db = connect(key)
        cache[key] = db
    return db


def close_thread_dbs() -> None:
    """Close this thread's cached connections (end of a worker thread, tests).

    >>> import store
    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "workbench.db")
    >>> first = store.thread_db(path)
    >>> store.close_thread_dbs()
    >>> store.thread_db(path) is first                        # a fresh connection after closing
    False
    >>> store.close_thread_dbs()
    >>> shutil.rmtree(folder)
    """
    cache: dict[str, Database] = getattr(_local, "dbs", None) or {}
    for db in cache.values():
        db.close()
    cache.clear()
