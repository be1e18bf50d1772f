"""Backups and restores of the workbench database.

:func:`backup` uses SQLite's online backup API, which copies a consistent snapshot (including
changes still in the WAL) while the app keeps reading and writing; copying the file with ``cp``
would not. The copy is written to a temporary name, checked, switched to a self-contained
rollback journal and then renamed into place, so a half-written backup never carries the final
name. Beside it goes its **manifest** (:mod:`store.backup_manifest`): the file's SHA-256 and the
audit log's head, sealed with the audit chain's key. The snapshot's log is verified against the
database's head first; a log that does not verify gets a manifest without a head.

:func:`restore` copies the backup once (hashing exactly the bytes it copies) and checks that
copy: ``PRAGMA integrity_check``, a ``schema_version`` this program knows, the audit log's
append-only triggers, the manifest's seal and file digest, and the keyed chain up to exactly the
manifest's head, under the key of the installation being restored into (never a key found beside
the backup). Any evidence of tampering is refused. A backup that cannot be verified (from before
the keyed chain, without a manifest, or without a head in it) is restored only with
``allow_unverified``, re-keyed, and recorded as unverifiable. The current database is kept as
``<name>.before-restore`` (via the backup API) and the copy swapped in with :func:`os.replace`.
Stop the app first: a restore refuses to run while another process has the database open.

A restore is itself recorded in the restored database's audit log (``database.restore``), in
the copy before it is swapped in, so the restored file never exists without that row. The row
says whether the backup was verified, which audit rows of the replaced database the restore
drops (the id range and count, from the first row the backup does not have identically), and
the replaced log's head; the replaced file itself is kept as ``.before-restore``. The head file
beside the key then names the restored log's newest row (during the swap it names both, so a
crash in between is not a false alarm).
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from dataclasses import dataclass

from pipeline.durable import fsync_path
from pipeline.errors import FormatError, StoreBusyError
from store.audit import KEYED_SINCE, audit, audit_protection_problems, has_hash_chain
from store.audit_chain import Head, HeadFileError, current_head, existing_key, head_path_for, keying_for, read_heads, \
    write_heads
from store.audit_rekey import legacy_chain_break, rekey_chain
from store.audit_verify import verify_audit_chain
from store.backup_manifest import Manifest, backup_manifest_path, copy_hashing, file_sha256, read_manifest, \
    remove_manifest, write_manifest
from store.connection import connect, sqlite_file
from store.leftovers import backup_marker_path, backup_temp_paths
from store.errors import InvalidValueError
from store.db import transaction
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


@dataclass(frozen=True)
class DroppedAudit:
    """Audit rows of the replaced database that a restore drops (they stay in ``.before-restore``)."""

    count: int = 0
    first_id: int | None = None
    last_id: int | None = None
    head_hash: str | None = None
    readable: bool = True


@dataclass(frozen=True)
class Provenance:
    """Whether a backup's audit log was verified under this installation's key, and if not why."""

    verified: bool
    reason: str | None = None


def restore(backup_path: str | os.PathLike[str], db_path: str | os.PathLike[str], *,
            user: str | None = None, allow_unverified: bool = False) -> Path | None:
    """Replace the database at ``db_path`` with a checked copy of ``backup_path``; ``user`` is
    who restored (the audit row names them).

    The database being replaced is kept as ``<name>.before-restore`` (returned; ``None`` when there
    was none). Raises :class:`FormatError` for a damaged or foreign backup, one whose audit log
    lost its triggers, whose manifest's seal or file digest does not hold, or whose keyed chain
    breaks or does not end at the manifest's head (whatever ``allow_unverified`` says), or one
    that cannot be verified at all unless ``allow_unverified``; and :class:`StoreBusyError` if
    another process has the database open. The database is untouched in all these cases. A
    backup from an older schema version is brought forward as it is restored.

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
    >>> row.action, row.user, row.detail["verified"], row.detail["dropped_audit_rows"], row.detail["dropped_audit_ids"]
    ('database.restore', 'cli:root', True, 1, [2, 2])
    >>> shutil.rmtree(folder)
    """
    src, dst = Path(backup_path), Path(db_path)
    version = check_database_file(src)
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.restore-{os.getpid()}")
    kept: Path | None = None
    try:
        digest = copy_hashing(src, tmp)
        check_database_file(tmp)
        provenance = _check_backup(src, tmp, digest, version, existing_key(dst), allow_unverified)
        dropped = DroppedAudit()
        if dst.exists():
            _ensure_not_open(dst)
            dropped = _dropped_audit_rows(dst, tmp)
            kept = dst.with_name(dst.name + ".before-restore")
            kept_tmp = dst.with_name(f".{kept.name}.tmp-{os.getpid()}")
            _copy(dst, kept_tmp)
            os.replace(kept_tmp, kept)
        new_head = _record_restore(tmp, dst, src, version, dropped, kept, user, provenance)
        if dst.exists():
            _ensure_not_open(dst)
        key, head_file = keying_for(dst).key, head_path_for(dst)
        old = _old_heads(head_file, key)
        write_heads(head_file, key, [new_head, *old[:1]])   # either holds while the file is swapped
        os.replace(tmp, dst)
        for suffix in ("-wal", "-shm"):
            side = Path(str(dst) + suffix)
            if side.exists():
                side.unlink()
        fsync_path(dst.parent, strict=True)
        write_heads(head_file, key, [new_head])
    finally:
        for leftover in (tmp, Path(str(tmp) + "-wal"), Path(str(tmp) + "-shm"), Path(str(tmp) + "-journal")):
            if leftover.exists():
                leftover.unlink()
    return kept


def _old_heads(head_file: Path, key: bytes) -> list[Head]:
    try:
        return read_heads(head_file, key) or []
    except HeadFileError:
        return []


def _check_backup(src: Path, copy: Path, digest: str, version: int, key: bytes | None,
                  allow_unverified: bool) -> Provenance:
    """Refuse a copy with evidence of tampering; say whether it was verified (or refuse an
    unverifiable one without ``allow_unverified``)."""
    manifest = read_manifest(src, key) if key is not None else None
    head = manifest.audit_head if manifest is not None else None
    check_audit_log_file(copy, key=key if head is not None else None, heads=[head] if head else None,
                         name=str(src))
    if manifest is not None and manifest.sha256 != digest:
        raise FormatError(str(src), "does not match its manifest (the file was rewritten after the backup); "
                                    "it is not restored")
    if head is not None and version >= KEYED_SINCE:
        return Provenance(True)
    if version < KEYED_SINCE:
        reason = "it is from before the keyed audit chain"
    elif key is None:
        reason = "this installation has no key to check it with"
    elif manifest is None:
        reason = "it has no manifest"
    else:
        reason = manifest.audit_problem or "its manifest has no audit head"
    if not allow_unverified:
        raise FormatError(str(src), f"its audit log cannot be verified ({reason}); it is not restored unless "
                                    "you pass --allow-unverified, and then recorded as unverifiable")
    return Provenance(False, reason)


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


def _record_restore(tmp: Path, dst: Path, src: Path, version: int, dropped: DroppedAudit, kept: Path | None,
                    user: str | None, provenance: Provenance) -> Head:
    """Bring the copy to the current schema (keyed with the installation key of ``dst``),
    re-key an unverified log, append the ``database.restore`` row, make it a self-contained
    file again (rollback journal, not WAL); return its new head."""
    with connect(tmp, keyed_as=dst) as db:
        with transaction(db):
            backup_last = db.execute("SELECT MAX(id) FROM audit_log").fetchone()[0]
            if not provenance.verified:
                rekey_chain(db.conn, db._wb_chain.key)      # from here on the chain verifies again
            audit(db, user, "database.restore", "database", detail={
                "backup": src.name, "backup_schema_version": version, "backup_last_audit_id": backup_last,
                "verified": provenance.verified, "unverifiable_reason": provenance.reason,
                "unverifiable_up_to": None if provenance.verified else backup_last,
                "dropped_audit_rows": dropped.count if dropped.readable else None,
                "dropped_audit_ids": [dropped.first_id, dropped.last_id] if dropped.count else None,
                "replaced_audit_head": dropped.head_hash, "replaced_readable": dropped.readable,
                "kept_as": kept.name if kept is not None else None,
            })
        head = current_head(db.conn)
    with sqlite_file(tmp) as conn:
        conn.execute("PRAGMA journal_mode = DELETE")
    fsync_path(tmp, strict=True)
    assert head is not None   # the restore row was just appended
    return head


def _ensure_not_open(db_path: Path) -> None:
    """Checkpoint and close; if the WAL file survives our close, another connection holds it."""
    with sqlite_file(db_path, timeout=5.0) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    if Path(str(db_path) + "-wal").exists():
        raise StoreBusyError(f"{db_path.name} is open in another process (the app or a job?); "
                             "stop it before restoring; nothing was changed")
