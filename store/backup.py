"""Backups of the workbench database, and the checks a file must pass to be restored.

:func:`backup` uses SQLite's online backup API, which copies a consistent snapshot (including
changes still in the WAL) while the app keeps reading and writing; copying the file with ``cp``
would not. The copy is written to a temporary name, checked, switched to a self-contained
rollback journal and then renamed into place, so a half-written backup never carries the final
name. Beside it goes its **manifest** (:mod:`store.backup_manifest`): the file's SHA-256 and the
audit log's head, sealed with the audit chain's key. The snapshot's log is verified against the
database's head first; a log that does not verify gets a manifest without a head. While it
runs, a marker beside the database names the output, so the copy of a killed backup is removed
at the next open (:mod:`store.leftovers`).

:func:`check_database_file` and :func:`check_audit_log_file` are what :mod:`store.restore`
asks of a backup before it takes the database's place.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from pipeline.durable import fsync_path
from pipeline.errors import FormatError
from store.audit import KEYED_SINCE, audit_protection_problems, has_hash_chain
from store.audit_chain import Head, HeadFileError, current_head, head_path_for, keying_for, read_heads
from store.audit_rekey import legacy_chain_break
from store.audit_verify import verify_audit_chain
from store.backup_manifest import Manifest, file_sha256, remove_manifest, write_manifest
from store.connection import sqlite_file
from store.errors import InvalidValueError
from store.leftovers import backup_marker_path, backup_temp_paths
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
    """Write a consistent, self-contained copy of the database to ``out_path`` and its sealed
    manifest beside it (``<out>.manifest``); return the copy.

    >>> import store
    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "workbench.db")
    >>> with store.connect(path) as db:
    ...     _ = store.create_user(db, "ana", "correct horse battery", "lead")
    ...     copy = store.backup(path, os.path.join(folder, "backup.db"))  # while db stays open
    >>> copy.name, store.check_database_file(copy) == store.LATEST_VERSION
    ('backup.db', True)
    >>> store.backup_manifest_path(copy).name
    'backup.db.manifest'
    >>> shutil.rmtree(folder)
    """
    src, out = Path(db_path), Path(out_path)
    if not src.is_file():
        raise FileNotFoundError(f"{src}: no such database")
    if out.exists() and out.resolve() == src.resolve():
        raise InvalidValueError("the backup file must not be the database itself")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = backup_temp_paths(out)[0]
    marker = backup_marker_path(src)
    fd = os.open(str(marker), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)   # for the cleanup after a kill
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(str(out.resolve()))
    try:
        _copy(src, tmp)
        version = check_database_file(tmp)
        key = keying_for(src).key
        manifest = Manifest(file_sha256(tmp), version, *_snapshot_head(tmp, src, key, version))
        remove_manifest(out)
        os.replace(tmp, out)
        write_manifest(out, key, manifest)
    finally:
        for leftover in backup_temp_paths(out):
            if leftover.exists():
                leftover.unlink()
        marker.unlink(missing_ok=True)
    return out


def _snapshot_head(copy: Path, src: Path, key: bytes, version: int) -> tuple[Head | None, str | None]:
    """The head a backup's manifest records: the copy's newest row, once the copy's log verifies
    against the database's own head file; else no head and the one-line reason."""
    if version < KEYED_SINCE:
        return None, "the audit log was not keyed yet"
    with sqlite_file(copy, read_only=True) as conn:
        try:
            heads = read_heads(head_path_for(src), key)
        except HeadFileError as e:
            return None, str(e)
        if heads is None and current_head(conn) is not None:
            return None, "the database's recorded audit head was missing"
        check = verify_audit_chain(conn, key=key, heads=heads)
        if not check.ok:
            return None, f"the audit log did not verify (row {check.first_bad_id})"
        return current_head(conn), None


def check_audit_log_file(path: str | os.PathLike[str], *, key: bytes | None = None, heads: list[Head] | None = None,
                         name: str | None = None) -> None:
    """Raise :class:`FormatError` unless the audit log of the database at ``path`` still has its
    append-only triggers and an unbroken chain: with ``key``, the keyed chain ending exactly at
    ``heads`` (a backup's manifest); without, an unkeyed SHA-256 chain (schemas 6 to 9) is
    recomputed, and a keyed one is left to the caller (it cannot be checked without the key).
    ``name`` is the file named in the error (default: ``path``).

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
    shown = name or str(p)
    with sqlite_file(p, read_only=True) as conn:
        try:
            problems = audit_protection_problems(conn)
            if problems:
                raise FormatError(shown, f"its audit log is not protected any more (trigger {', '.join(problems)} "
                                         "missing or altered); its history may have been rewritten, so it is not "
                                         "restored")
            if not has_hash_chain(conn):
                return
            version = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
            if int(version) < KEYED_SINCE:
                bad = legacy_chain_break(conn)
                if bad is not None:
                    raise FormatError(shown, f"its audit log's hash chain breaks at row {bad} (it was altered); "
                                             "it is not restored")
            elif key is not None:
                check = verify_audit_chain(conn, key=key, heads=heads, exact_end=True)
                if not check.ok:
                    raise FormatError(shown, f"its audit log does not verify at row {check.first_bad_id} (altered, "
                                             "cut short, renumbered or added to without the key); it is not restored")
        except sqlite3.DatabaseError as e:
            raise FormatError(shown, f"is not a readable SQLite database ({type(e).__name__})") from None
