"""Keeping an installation: backups, restores, the audit log and its hash chain.

A backup is a consistent copy of the database file (never the secret key, which lives beside
it); a restore refuses files that are not a workbench database, and backups whose audit log
lost its append-only triggers or whose hash chain is broken; it keeps the replaced file as
``.before-restore`` and records itself (with the audit rows it drops) in the restored log. The
audit log records who did what to which document, never text.
"""
from __future__ import annotations

import os
from pathlib import Path

from sqlite_utils import Database

import store


def backup(db_path: str | os.PathLike, out_path: str | os.PathLike) -> Path:
    return store.backup(db_path, out_path)


def restore(backup_path: str | os.PathLike, db_path: str | os.PathLike, *, user: str | None = None) -> Path | None:
    """Replace the database with a checked backup; ``user`` (the command line's ``cli:<login>``)
    is named in the ``database.restore`` audit row. Only the command line restores: whoever runs
    it already holds the database file."""
    return store.restore(backup_path, db_path, user=user)


def verify_audit(db: Database) -> store.AuditCheck:
    """Recompute the audit log's hash chain and check its triggers (``audit --verify``)."""
    return store.verify_audit_chain(db)


def audit_entries(db: Database, *, doc_id: int | None = None, user: str | None = None, action: str | None = None,
                  limit: int = 50) -> list[store.AuditEntry]:
    """The newest audit rows, filtered (ids, users, actions and counts only)."""
    return store.list_audit(db, doc_id=doc_id, user=user, action=action, limit=limit)


def data_version(db: Database) -> int:
    """Id of the newest audit row: every write of the store audits, so this changes whenever
    anything does. Cache keys of read-only figures use it."""
    latest = store.list_audit(db, limit=1)
    return latest[0].id if latest else 0
