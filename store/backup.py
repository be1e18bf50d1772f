"""Backups and restores of the workbench database.

:func:`backup` uses SQLite's online backup API, which copies a consistent snapshot (including
changes still in the WAL) while the app keeps reading and writing; copying the file with ``cp``
would not. The copy is written to a temporary name, checked, switched to a self-contained
rollback journal and then renamed into place, so a half-written backup never carries the final
name.

:func:`restore` checks the backup (``PRAGMA integrity_check``, a ``schema_version`` this program
knows, the audit log's append-only triggers in place and, from schema 6 on, its hash chain
intact), keeps the current database as ``<name>.before-restore`` (again via the backup API),
and swaps the file in with :func:`os.replace`. Stop the app first: a restore refuses to run while
another process has the database open, because swapping the file under a live connection (and
its WAL) would corrupt it.

A restore is itself recorded in the restored database's audit log (``database.restore``), in
the copy before it is swapped in, so the restored file never exists without that row. The row
says which audit rows of the replaced database the restore drops (the id range and count, from
the first row the backup does not have identically), and the replaced log's head hash; the
replaced file itself is kept as ``.before-restore``. A backup whose audit triggers were dropped
or altered, or whose chain is broken, is refused rather than repaired: its history may have
been rewritten, and restoring it would launder that.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from dataclasses import dataclass

from pipeline.durable import fsync_path
from pipeline.errors import FormatError, StoreBusyError
from store.audit import has_hash_chain, audit, audit_protection_problems, verify_audit_chain
from store.connection import connect, sqlite_file
from store.errors import InvalidValueError
from store.migrations import LATEST_VERSION

REQUIRED_TABLES = ("schema_version", "projects", "documents", "layers", "spans", "users", "audit_log")


def _copy(src_path: Path, dst_path: Path, *, busy_timeout_s: float = 10.0) -> None:
    """Consistent copy of ``src_path`` into a fresh ``dst_path`` with the backup API."""
    if dst_path.exists():
        dst_path.unlink()
    with sqlite_file(src_path, timeout=busy_timeout_s) as src, sqlite_file(dst_path) as dst:
        src.backup(dst)  # all pages in one step: one consistent snapshot
        dst.execute("PRAGMA journal_mode = DELETE")
        dst.commit()
    fsync_path(dst_path, strict=True)


def check_database_file(path: str | os.PathLike[str]) -> int:
    """Raise :class:`FormatError` unless ``path`` is an intact workbench database this program can
    open; return its schema version.

    >>> import store
    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "workbench.db")
    >>> with store.connect(path):                             # created
    ...     pass
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
        with sqlite_file(p, read_only=True) as conn:
            result = [r[0] for r in conn.execute("PRAGMA integrity_check")]
            if result != ["ok"]:
                raise FormatError(str(p), f"failed SQLite's integrity check ({len(result)} problem(s))")
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            missing = [t for t in REQUIRED_TABLES if t not in tables]
            if missing:
                raise FormatError(str(p), f"is not a workbench database (missing tables: {', '.join(missing)})")
            version = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
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
    >>> with store.connect(path) as db:
    ...     _ = store.create_user(db, "ana", "correct horse battery", "lead")
    ...     copy = store.backup(path, os.path.join(folder, "backup.db"))  # while db stays open
    >>> copy.name, store.check_database_file(copy) == store.LATEST_VERSION
    ('backup.db', True)
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


@dataclass(frozen=True)
class DroppedAudit:
    """Audit rows of the replaced database that a restore drops (they stay in ``.before-restore``)."""

    count: int = 0
    first_id: int | None = None
    last_id: int | None = None
    head_hash: str | None = None
    readable: bool = True


def restore(backup_path: str | os.PathLike[str], db_path: str | os.PathLike[str], *,
            user: str | None = None) -> Path | None:
    """Replace the database at ``db_path`` with a checked copy of ``backup_path``; ``user`` is
    who restored (the audit row names them).

    The database being replaced is kept as ``<name>.before-restore`` (returned; ``None`` when there
    was none). Raises :class:`FormatError` for a damaged or foreign backup, or one whose audit log
    lost its triggers or whose hash chain is broken, and :class:`StoreBusyError` if another
    process has the database open; the database is untouched in all these cases. A backup from an
    older schema version is brought forward as it is restored.

    >>> import store
    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path, copy = os.path.join(folder, "workbench.db"), os.path.join(folder, "backup.db")
    >>> with store.connect(path) as db:
    ...     _ = store.create_user(db, "ana", "correct horse battery", "lead")
    ...     _ = store.backup(path, copy)
    ...     _ = store.create_user(db, "ben", "correct horse battery", "annotator")
    >>> store.restore(copy, path, user="cli:root").name       # closed above: a restore needs that
    'workbench.db.before-restore'
    >>> with store.connect(path) as db:                      # the replaced database is kept, and
    ...     users = [u.username for u in store.list_users(db)]
    ...     row = store.list_audit(db, limit=1)[0]            # the restore is in the restored log
    >>> users
    ['ana']
    >>> row.action, row.user, row.detail["dropped_audit_rows"], row.detail["dropped_audit_ids"]
    ('database.restore', 'cli:root', 1, [2, 2])
    >>> shutil.rmtree(folder)
    """
    src, dst = Path(backup_path), Path(db_path)
    version = check_database_file(src)
    check_audit_log_file(src)
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.restore-{os.getpid()}")
    kept: Path | None = None
    try:
        _copy(src, tmp)
        check_database_file(tmp)
        check_audit_log_file(tmp)
        dropped = DroppedAudit()
        if dst.exists():
            _ensure_not_open(dst)
            dropped = _dropped_audit_rows(dst, tmp)
            kept = dst.with_name(dst.name + ".before-restore")
            kept_tmp = dst.with_name(f".{kept.name}.tmp-{os.getpid()}")
            _copy(dst, kept_tmp)
            os.replace(kept_tmp, kept)
        _record_restore(tmp, src, version, dropped, kept, user)
        if dst.exists():
            _ensure_not_open(dst)
        os.replace(tmp, dst)
        for suffix in ("-wal", "-shm"):
            side = Path(str(dst) + suffix)
            if side.exists():
                side.unlink()
        fsync_path(dst.parent, strict=True)
    finally:
        for leftover in (tmp, Path(str(tmp) + "-wal"), Path(str(tmp) + "-shm")):
            if leftover.exists():
                leftover.unlink()
    return kept


def check_audit_log_file(path: str | os.PathLike[str]) -> None:
    """Raise :class:`FormatError` unless the audit log of the database at ``path`` still has its
    append-only triggers and (from schema 6 on) an unbroken hash chain.

    >>> import store
    >>> import os, shutil, sqlite3, tempfile
    >>> from store.backup import check_audit_log_file
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "workbench.db")
    >>> with store.connect(path):                             # created
    ...     pass
    >>> check_audit_log_file(path)                            # intact: nothing to say
    >>> with sqlite_file(path) as conn:
    ...     _ = conn.execute("DROP TRIGGER audit_log_no_delete")
    >>> check_audit_log_file(path)                            # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pipeline.errors.FormatError: ...workbench.db: its audit log is not protected any more (trigger audit_log_no_delete missing or altered); ...
    >>> shutil.rmtree(folder)
    """
    p = Path(path)
    with sqlite_file(p, read_only=True) as conn:
        try:
            problems = audit_protection_problems(conn)
            if problems:
                raise FormatError(str(p), f"its audit log is not protected any more (trigger {', '.join(problems)} "
                                          "missing or altered); its history may have been rewritten, so it is not "
                                          "restored")
            if has_hash_chain(conn):
                check = verify_audit_chain(conn)
                if not check.ok:
                    raise FormatError(str(p), f"its audit log's hash chain breaks at row {check.first_bad_id} "
                                              "(it was altered); it is not restored")
        except sqlite3.DatabaseError as e:
            raise FormatError(str(p), f"is not a readable SQLite database ({type(e).__name__})") from None


_CONTENT = "id, at, user, action, target, doc_id, detail_json"


def _dropped_audit_rows(current: Path, restored: Path) -> DroppedAudit:
    """The replaced database's audit rows that the restored one does not have identically: from
    the first row where the two logs differ (usually the first row written after the backup)
    to the end."""
    try:
        with sqlite_file(current, timeout=5.0) as a, sqlite_file(restored) as b:
            mine = a.execute(f"SELECT {_CONTENT} FROM audit_log ORDER BY id")
            theirs = b.execute(f"SELECT {_CONTENT} FROM audit_log ORDER BY id")
            first: int | None = None
            for row in mine:
                if theirs.fetchone() != row:
                    first = int(row[0])
                    break
            head = (a.execute("SELECT row_hash FROM audit_log ORDER BY id DESC LIMIT 1").fetchone() or [None])[0] \
                if has_hash_chain(a) else None
            if first is None:
                return DroppedAudit(head_hash=head)
            n, last = a.execute("SELECT COUNT(*), MAX(id) FROM audit_log WHERE id >= ?", [first]).fetchone()
            return DroppedAudit(int(n), first, int(last), head)
    except sqlite3.DatabaseError:  # a damaged database is what one restores over: say so, go on
        return DroppedAudit(readable=False)


def _record_restore(tmp: Path, src: Path, version: int, dropped: DroppedAudit, kept: Path | None,
                    user: str | None) -> None:
    """Bring the copy to the current schema and append the ``database.restore`` row to its log,
    then make it a self-contained file again (rollback journal, not WAL)."""
    with connect(tmp) as db:
        backup_last = db.execute("SELECT MAX(id) FROM audit_log").fetchone()[0]
        audit(db, user, "database.restore", "database", detail={
            "backup": src.name, "backup_schema_version": version, "backup_last_audit_id": backup_last,
            "dropped_audit_rows": dropped.count if dropped.readable else None,
            "dropped_audit_ids": [dropped.first_id, dropped.last_id] if dropped.count else None,
            "replaced_audit_head": dropped.head_hash, "replaced_readable": dropped.readable,
            "kept_as": kept.name if kept is not None else None,
        })
    with sqlite_file(tmp) as conn:
        conn.execute("PRAGMA journal_mode = DELETE")
    fsync_path(tmp, strict=True)


def _ensure_not_open(db_path: Path) -> None:
    """Checkpoint and close; if the WAL file survives our close, another connection holds it."""
    with sqlite_file(db_path, timeout=5.0) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    if Path(str(db_path) + "-wal").exists():
        raise StoreBusyError(f"{db_path.name} is open in another process (the app or a job?); "
                             "stop it before restoring; nothing was changed")
