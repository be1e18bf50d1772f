"""Restoring a backup over the workbench database.

:func:`restore` copies the backup once (hashing exactly the bytes it copies) and checks that
copy: ``PRAGMA integrity_check``, a ``schema_version`` this program knows, the audit log's
append-only triggers, the manifest's seal and file digest, and the keyed chain up to exactly the
manifest's head, under the key of the installation being restored into (never a key found beside
the backup). Any evidence of tampering is refused, flag or not. A backup that cannot be verified
(from before the keyed chain, without a manifest, or without a head in it) is restored only with
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
from dataclasses import dataclass
from pathlib import Path

from pipeline.durable import fsync_path
from pipeline.errors import FormatError, StoreBusyError
from store.audit import KEYED_SINCE, audit, has_hash_chain
from store.audit_chain import Head, HeadFileError, current_head, existing_key, head_path_for, keying_for, read_heads, \
    write_heads
from store.audit_rekey import rekey_chain
from store.backup import _copy, check_audit_log_file, check_database_file
from store.backup_manifest import copy_hashing, read_manifest
from store.connection import connect, sqlite_file
from store.db import transaction


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
