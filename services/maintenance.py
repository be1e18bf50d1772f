"""Keeping an installation: backups, restores, the audit log and its hash chain.

A backup is a consistent copy of the database file (never the secret key, which lives beside
it) with a manifest sealed by the audit chain's key; a restore refuses files that are not a
workbench database and backups with any evidence of tampering (triggers dropped, the manifest's
seal or digest broken, the keyed chain broken or not ending at the manifest's head), restores
one it cannot verify only when asked to (``allow_unverified``, recorded as unverifiable), keeps
the replaced file as ``.before-restore`` and records itself (with the audit rows it drops) in
the restored log. The audit log records who did what to which document, never text.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from sqlite_utils import Database

import store


def backup(db_path: str | os.PathLike, out_path: str | os.PathLike) -> Path:
    return store.backup(db_path, out_path)


def restore(backup_path: str | os.PathLike, db_path: str | os.PathLike, *, user: str | None = None,
            allow_unverified: bool = False) -> Path | None:
    """Replace the database with a checked backup; ``user`` (the command line's ``cli:<login>``)
    is named in the ``database.restore`` audit row. Only the command line restores: whoever runs
    it already holds the database file. ``allow_unverified`` accepts a backup whose audit log
    cannot be verified (from before the keyed chain, or without a manifest head), recorded so."""
    return store.restore(backup_path, db_path, user=user, allow_unverified=allow_unverified)


def backup_manifest(backup_path: str | os.PathLike) -> Path:
    """Where a backup's sealed manifest lies (beside it)."""
    return store.backup_manifest_path(backup_path)


def backup_audit_problem(backup_path: str | os.PathLike) -> str | None:
    """Why a backup's manifest records no audit head (its log did not verify when it was taken,
    so restoring it will need ``--allow-unverified``), or ``None``: for the command's output."""
    try:
        data = json.loads(store.backup_manifest_path(backup_path).read_text(encoding="ascii"))
    except (OSError, ValueError):
        return "it has no readable manifest"
    return None if data.get("audit_head") else (data.get("audit_problem") or "its manifest has no audit head")


def verify_audit(db: Database) -> store.AuditCheck:
    """Recompute the audit log's keyed chain, check its triggers and its end against the head kept
    beside the key (``audit --verify``)."""
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
