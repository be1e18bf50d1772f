"""Transactions, retries on a locked file, time and JSON helpers: what every store module uses.
Opening a file (and bringing it up to date) is :mod:`store.connection`.

Why this shape:

* **One connection per thread.** ``sqlite3`` refuses to use a connection from a thread other
  than the one that opened it (``check_same_thread``, left at its default): each thread (a
  Streamlit script run, a job worker, a test thread) opens its own with
  ``with store.connect(path) as db:`` (closed when the block ends), or uses
  :func:`store.connection.thread_db`, which caches one connection per thread and path.
* **WAL.** Readers never block the writer and the writer never blocks readers, so pages stay
  responsive while a batch job writes.
* **BEGIN IMMEDIATE.** Every write goes through :func:`transaction`, which takes the write lock
  up front. Two writers that both started with a plain ``BEGIN`` and read first could each hold
  a read snapshot and wait on the other to upgrade (SQLite answers one of them "database is
  locked" at once, without waiting); taking the lock first makes writers queue instead.
* **Bounded retries.** When another process keeps the write lock longer than the busy timeout,
  the transaction is retried with backoff for ``retry_seconds`` in all, then
  :class:`~pipeline.errors.StoreBusyError` says so in words; nothing crashes and nothing half
  written stays behind.
* **Forward migrations.** ``schema_version`` records which of :data:`store.migrations.MIGRATIONS`
  have run; a file made by an older version is brought forward when opened
  (:func:`store.connection.connect`).
"""
from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import random
import sqlite3
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from sqlite_utils import Database

from pipeline.errors import StoreBusyError
from store.errors import InvalidValueError

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BUSY_TIMEOUT_MS = 2000
DEFAULT_RETRY_SECONDS = 15.0
#: Environment variable overriding ``retry_seconds`` for connections opened without one (the CLI).
RETRY_ENV = "WORKBENCH_BUSY_RETRY_S"

log = logging.getLogger(__name__)

T = TypeVar("T")


# --------------------------------------------------------------------------- paths and time

def default_db_path() -> Path:
    """``$WORKBENCH_DB`` if set, else ``<repo>/var/workbench.db`` (``var/`` is git-ignored).

    >>> import store
    >>> import os
    >>> from pathlib import Path
    >>> path = store.default_db_path()
    >>> env = os.environ.get("WORKBENCH_DB")                  # set: that file; unset: <repo>/var/workbench.db
    >>> path == Path(env) if env else path.parts[-2:] == ("var", "workbench.db")
    True
    """
    env = os.environ.get("WORKBENCH_DB")
    return Path(env) if env else REPO_ROOT / "var" / "workbench.db"


def now_iso(now: datetime | None = None) -> str:
    """UTC timestamp, fixed width, so stored times sort and compare as strings."""
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="microseconds")


def parse_time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=False, default=_json_default)


def loads(value: str | None, default: Any = None) -> Any:
    if value is None or value == "":
        return default
    return json.loads(value)


def _json_default(o: Any) -> Any:
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if hasattr(o, "to_json") and callable(o.to_json):
        out = o.to_json()
        return json.loads(out) if isinstance(out, str) else out
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    if isinstance(o, Path):
        return str(o)
    if hasattr(o, "item"):  # numpy scalars
        return o.item()
    raise TypeError(f"cannot store a value of type {type(o).__name__} as JSON")


# --------------------------------------------------------------------------- locking and retries

def is_locked_error(e: BaseException) -> bool:
    """True for SQLITE_BUSY / SQLITE_LOCKED ("database is locked", "database table is locked")."""
    if not isinstance(e, sqlite3.OperationalError):
        return False
    code = getattr(e, "sqlite_errorcode", None)
    if code is not None and (code & 0xFF) in (5, 6):
        return True
    msg = str(e).lower()
    return "locked" in msg or "busy" in msg


def _retry_seconds(db: Database) -> float:
    return float(getattr(db, "_wb_retry_seconds", DEFAULT_RETRY_SECONDS))


def env_retry_seconds() -> float:
    """``$WORKBENCH_BUSY_RETRY_S`` if set (seconds, >= 0), else :data:`DEFAULT_RETRY_SECONDS`."""
    raw = os.environ.get(RETRY_ENV, "").strip()
    if not raw:
        return DEFAULT_RETRY_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also refuses NaN
        raise InvalidValueError(f"{RETRY_ENV} must be a number of seconds (0 or more), not {raw!r}")
    return value


def _busy_error(db: Database, waited: float) -> StoreBusyError:
    name = Path(getattr(db, "_wb_path", "database")).name
    return StoreBusyError(
        f"the database {name} is busy: another connection kept it locked for {waited:.1f} s; "
        "nothing was changed; try again in a moment (is an import, backup or job writing?)"
    )


def with_retry(db: Database, thunk: Callable[[], T]) -> T:
    """Run ``thunk``; on "database is locked" retry with jittered backoff for the connection's
    ``retry_seconds``, then raise :class:`StoreBusyError`. Other errors pass through.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> store.with_retry(db, lambda: db.execute("SELECT COUNT(*) FROM projects").fetchone()[0])
    0
    """
    start = time.monotonic()
    deadline = start + _retry_seconds(db)
    delay = 0.02
    warned = False
    while True:
        try:
            return thunk()
        except sqlite3.OperationalError as e:
            if not is_locked_error(e):
                raise
            if db.conn.in_transaction:  # a failed statement inside our own transaction: undo it all
                db.conn.execute("ROLLBACK")
            now = time.monotonic()
            if now >= deadline:
                raise _busy_error(db, now - start) from None
            if not warned:  # say why we are waiting (the CLI shows warnings on stderr)
                warned = True
                log.warning("the database %s is locked by another connection; retrying for up to %.1f s more",
                            Path(getattr(db, "_wb_path", "database")).name, deadline - now)
            time.sleep(min(delay * random.uniform(0.5, 1.0), max(0.0, deadline - now)))
            delay = min(delay * 2, 0.5)


def retrying(fn: Callable[..., T]) -> Callable[..., T]:
    """Decorator for store functions ``fn(db, ...)``: the whole call is retried while the file is
    locked (see :func:`with_retry`); inside an enclosing transaction it runs once, as the
    enclosing transaction owns the retry."""

    @functools.wraps(fn)
    def wrapper(db: Database, *args: Any, **kwargs: Any) -> T:
        if db.conn.in_transaction:
            return fn(db, *args, **kwargs)
        return with_retry(db, lambda: fn(db, *args, **kwargs))

    return wrapper


# --------------------------------------------------------------------------- transactions

@contextlib.contextmanager
def transaction(db: Database) -> Iterator[Database]:
    """A write transaction: ``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` on any exception.

    Taking the write lock at ``BEGIN`` makes concurrent writers wait their turn (up to the busy
    timeout, then bounded retries, then :class:`StoreBusyError`) instead of failing mid-way.
    Nested use becomes a savepoint inside the outer transaction, so store functions compose:
    calling ``save_layer`` inside your own ``transaction`` commits both or neither.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> with store.transaction(db):                           # both rows commit together...
    ...     _ = store.audit(db, "ana", "export", "project:1")
    ...     _ = store.audit(db, "ana", "export", "project:2")
    >>> try:
    ...     with store.transaction(db):                       # ...or, on an exception, neither
    ...         _ = store.audit(db, "ana", "export", "project:3")
    ...         raise RuntimeError("changed my mind")
    ... except RuntimeError:
    ...     pass
    >>> [e.target for e in store.list_audit(db, action="export")]
    ['project:2', 'project:1']
    """
    conn = db.conn
    if conn.in_transaction:
        if getattr(db, "_wb_read_only", False):
            raise RuntimeError("cannot write inside read_snapshot(); open the transaction first")
        with db.atomic():
            yield db
        return
    with_retry(db, lambda: conn.execute("BEGIN IMMEDIATE"))
    db._wb_head_dirty = False  # type: ignore[attr-defined]
    try:
        yield db
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        db._wb_head_dirty = False  # type: ignore[attr-defined]
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.OperationalError as e:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        db._wb_head_dirty = False  # type: ignore[attr-defined]
        if is_locked_error(e):
            raise _busy_error(db, 0.0) from None
        raise
    _after_commit(db)


def _after_commit(db: Database) -> None:
    """Once audit rows are committed, the connection's hook (set by :func:`store.connect`:
    advancing the audit head kept outside the database) runs; never for a rollback."""
    if getattr(db, "_wb_head_dirty", False):
        db._wb_head_dirty = False  # type: ignore[attr-defined]
        hook = getattr(db, "_wb_after_commit", None)
        if hook is not None:
            hook(db)


@contextlib.contextmanager
def read_snapshot(db: Database) -> Iterator[Database]:
    """A read transaction, so several SELECTs see one consistent state (WAL snapshot), e.g. a
    layer's version and its spans. No writes inside (use :func:`transaction` instead).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> _ = store.create_user(db, "ana", "correct horse battery", "lead")
    >>> with store.read_snapshot(db):                         # both reads see the same state
    ...     users = store.list_users(db)
    ...     projects = store.list_projects(db)
    >>> [u.username for u in users], projects
    (['ana'], [])
    """
    conn = db.conn
    if conn.in_transaction:
        yield db
        return
    conn.execute("BEGIN")
    db._wb_read_only = True  # type: ignore[attr-defined]
    try:
        yield db
    finally:
        db._wb_read_only = False  # type: ignore[attr-defined]
        if conn.in_transaction:
            conn.execute("COMMIT")


def schema_version(db: Database) -> int:
    """The highest migration applied to this file (0 for an empty file).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> store.schema_version(db) == store.LATEST_VERSION
    True
    >>> store.schema_version(store.connect(":memory:", migrate_to=0))
    0
    """
    if not db["schema_version"].exists():
        return 0
    row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def check_choice(value: str | None, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise InvalidValueError(f"{what} must be one of {', '.join(allowed)}, not {value!r}")
    return value  # type: ignore[return-value]
