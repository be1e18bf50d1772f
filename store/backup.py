"""Backups and restores of the workbench database.

:func:`backup` uses SQLite's online backup API, which copies a consistent snapshot (including
changes still in the WAL) while the app keeps reading and writing; copying the file with ``cp``
would not. The copy is written to a temporary name, checked, switched to a self-contained
rollback journal and then renamed into place, so a half-written backup never carries the final
name.

:func:`restore` checks the backup (``PRAGMA integrity_check``, a ``schema_version`` this program
knows), keeps the current database as ``<name>.before-restore`` (again via the backup API),
and swaps the file in with :func:`os.replace`. Stop the app first: a restore refuses to run while
another process has the database open, because swapping the file under a live connection (and
its WAL) would corrupt it.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from pipeline.durable import fsync_path
from pipeline.errors import FormatError, StoreBusyError
from store.errors import InvalidValueError
from store.migrations import LATEST_VERSION

REQUIRED_TABLES = ("schema_version", "projects", "documents", "layers", "spans", "users", "audit_log")


def _copy(src_path: Path, dst_path: Path, *, busy_timeout_s: float = 10.0) -> None:
    """Consistent copy of ``src_path`` into a fresh ``dst_path`` with the backup API."""
    if dst_path.exists():
        dst_path.unlink()
    src = sqlite3.connect(str(src_path), timeout=busy_timeout_s)
    try:
        dst = sqlite3.connect(str(dst_path))
        try:
            src.backup(dst)  # all pages in one step: one consistent snapshot
            dst.execute("PRAGMA journal_mode = DELETE")
            dst.commit()
        finally:
            dst.close()
    finally:
        src.close()
    fsync_path(dst_path, strict=True)


def check_database_file(path: str | os.PathLike[str]) -> int:
    """Raise :class:`FormatError` unless ``path`` is an intact workbench database this program can
    open; return its schema version.

    >>> import store
    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "workbench.db")
    >>> store.connect(path).close()
    >>> store.check_database_file(path) == store.LATEST_VERSION
    True
    >>> with open(os.path.join(folder, "notes.txt"), "w") as f:
    ...     _ = f.write("not a database")
    >>> store.check_database_file(os.path.join(folder, "notes.txt"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pipeline.errors.FormatError: ...notes.txt: is not a readable SQLite database (DatabaseError)
    >>> shutil.rmtree(folder)
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such file")
    try:
        conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True)
        try:
            result = [r[0] for r in conn.execute("PRAGMA integrity_check")]
            if result != ["ok"]:
                raise FormatError(str(p), f"failed SQLite's integrity check ({len(result)} problem(s))")
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            missing = [t for t in REQUIRED_TABLES if t not in tables]
            if missing:
                raise FormatError(str(p), f"is not a workbench database (missing tables: {', '.join(missing)})")
            version = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        raise FormatError(str(p), f"is not a readable SQLite database ({type(e).__name__})") from None
    if version is None or not 1 <= int(version) <= LATEST_VERSION:
        raise FormatError(str(p), f"has schema version {version}; this program reads versions 1 to {LATEST_VERSION}")
    return int(version)


def backup(db_path: str | os.PathLike[str], out_path: str | os.PathLike[str]) -> Path:
    """Write a consistent, self-contained copy of the database to ``out_path``; return it.

    >>> import store
    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "workbench.db")
    >>> db = store.connect(path)
    >>> _ = store.create_user(db, "ana", "correct horse battery", "lead")
    >>> copy = store.backup(path, os.path.join(folder, "backup.db"))    # while db stays open
    >>> copy.name, store.check_database_file(copy) == store.LATEST_VERSION
    ('backup.db', True)
    >>> db.close()
    >>> shutil.rmtree(folder)
    """
    src, out = Path(db_path), Path(out_path)
    if not src.is_file():
        raise FileNotFoundError(f"{src}: no such database")
    if out.exists() and out.resolve() == src.resolve():
        raise InvalidValueError("the backup file must not be the database itself")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    try:
        _copy(src, tmp)
        check_database_file(tmp)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()
    return out


def restore(backup_path: str | os.PathLike[str], db_path: str | os.PathLike[str]) -> Path | None:
    """Replace the database at ``db_path`` with a checked copy of ``backup_path``.

    The database being replaced is kept as ``<name>.before-restore`` (returned; ``None`` when there
    was none). Raises :class:`FormatError` for a damaged or foreign backup and
    :class:`StoreBusyError` if another process has the database open; the database is untouched
    in both cases. A backup from an older schema version is brought forward on the next
    :func:`store.connect`.

    >>> import store
    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path, copy = os.path.join(folder, "workbench.db"), os.path.join(folder, "backup.db")
    >>> db = store.connect(path)
    >>> _ = store.create_user(db, "ana", "correct horse battery", "lead")
    >>> _ = store.backup(path, copy)
    >>> _ = store.create_user(db, "ben", "correct horse battery", "annotator")
    >>> db.close()                                            # a restore needs the database closed
    >>> store.restore(copy, path).name                        # the replaced database is kept
    'workbench.db.before-restore'
    >>> db = store.connect(path)
    >>> [u.username for u in store.list_users(db)]
    ['ana']
    >>> db.close()
    >>> shutil.rmtree(folder)
    """
    src, dst = Path(backup_path), Path(db_path)
    check_database_file(src)
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.restore-{os.getpid()}")
    kept: Path | None = None
    try:
        _copy(src, tmp)
        check_database_file(tmp)
        if dst.exists():
            _ensure_not_open(dst)
            kept = dst.with_name(dst.name + ".before-restore")
            kept_tmp = dst.with_name(f".{kept.name}.tmp-{os.getpid()}")
            _copy(dst, kept_tmp)
            os.replace(kept_tmp, kept)
            _ensure_not_open(dst)
        os.replace(tmp, dst)
        for suffix in ("-wal", "-shm"):
            side = Path(str(dst) + suffix)
            if side.exists():
                side.unlink()
        fsync_path(dst.parent, strict=True)
    finally:
        if tmp.exists():
            tmp.unlink()
    return kept


def _ensure_not_open(db_path: Path) -> None:
    """Checkpoint and close; if the WAL file survives our close, another connection holds it."""
    conn = sqlite3.connect(str(db_path), timeout=5.0)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    if Path(str(db_path) + "-wal").exists():
        raise StoreBusyError(f"{db_path.name} is open in another process (the app or a job?); "
                             "stop it before restoring; nothing was changed")
