"""The audit log: who did what to which document, when.

Append-only, and tamper-evident against someone who holds the database but not the key:

* Triggers abort any UPDATE or DELETE of ``audit_log`` and any INSERT that would replace an
  existing row (``INSERT OR REPLACE``, ``REPLACE``, ``INSERT ... ON CONFLICT DO UPDATE``: SQLite's
  REPLACE deletes the old row without firing delete triggers, so a BEFORE INSERT trigger is
  what stops it). The app cannot rewrite history.
* Each row carries a **keyed chain**: ``row_hash = HMAC(key, prev_hash + the row's id and
  content)`` and ``prev_hash`` is the previous row's ``row_hash`` (:data:`GENESIS_HASH` for the
  first row). The key is derived from the installation key beside the database
  (:mod:`store.audit_chain`), never stored in it, so a person with the file and a SQLite shell
  can drop the triggers and edit, insert, delete or renumber rows but cannot make the MACs hold
  again: :func:`verify_audit_chain` (``python -m pipeline audit --verify``) names the first row
  where the chain breaks.
* The newest row (its id, MAC and the row count) is also recorded **outside** the database, in
  ``<db>.audit.head`` beside the key and in every backup's manifest, so rows removed from the
  end (or the file put back from an older copy) are reported too.

Schemas 6 to 9 chained rows with plain SHA-256 (:func:`chain_hash`), which anyone can recompute;
the migration to schema 10 re-keys such a chain once and records that (``audit.rekey``).

Every write function of the store calls :func:`audit` inside its own transaction, so the record
and the change commit together. ``detail`` holds counts, ids, labels and versions, never
document text or span text.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from store.audit_chain import chain_mac, keying_for
from store.db import dumps, loads, now_iso, retrying, transaction

#: ``prev_hash`` of the first row of every audit log.
GENESIS_HASH = "0" * 64
#: The first schema version whose chain is keyed (HMAC); 6 to 9 used plain SHA-256.
KEYED_SINCE = 10

#: The triggers that keep ``audit_log`` append-only and chained, as the schema creates them.
#: :func:`audit_protection_problems` compares the stored ones with these (whitespace aside), so a
#: trigger that was dropped or replaced by a no-op of the same name is noticed.
APPEND_ONLY_TRIGGERS: dict[str, str] = {
    "audit_log_no_update": "CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log "
                           "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
    "audit_log_no_delete": "CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log "
                           "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
}
CHAIN_TRIGGERS: dict[str, str] = {
    "audit_log_append_only_insert": (
        "CREATE TRIGGER audit_log_append_only_insert BEFORE INSERT ON audit_log BEGIN "
        "SELECT RAISE(ABORT, 'audit_log is append-only: a row cannot be replaced') "
        "WHERE EXISTS (SELECT 1 FROM audit_log WHERE id = NEW.id); "
        "SELECT RAISE(ABORT, 'audit_log is append-only: a new row must extend its hash chain') "
        "WHERE NEW.row_hash IS NULL OR NEW.id IS NOT COALESCE((SELECT MAX(id) FROM audit_log), 0) + 1 "
        f"OR NEW.prev_hash IS NOT COALESCE((SELECT row_hash FROM audit_log ORDER BY id DESC LIMIT 1), '{GENESIS_HASH}'); "
        "END"),
}
_CONTENT = "id, at, user, action, target, doc_id, detail_json"


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: str
    user: str | None
    action: str
    target: str | None
    doc_id: int | None
    detail: dict
    row_hash: str | None = None


def chain_hash(prev_hash: str, id: int, at: str, user: str | None, action: str, target: str | None,
               doc_id: int | None, detail_json: str) -> str:
    """The unkeyed hash of one row (schemas 6 to 9): SHA-256 over the previous row's hash and
    this row's content. Anyone can recompute it; kept to check such a chain before re-keying it.

    >>> from store.audit import GENESIS_HASH, chain_hash
    >>> h = chain_hash(GENESIS_HASH, 1, "2070-01-02T00:00:00.000000+00:00", "ana", "export", "project:1", None, "{}")
    >>> len(h), h == chain_hash(GENESIS_HASH, 1, "2070-01-02T00:00:00.000000+00:00", "ana", "export", "project:2", None, "{}")
    (64, False)
    """
    payload = json.dumps([id, at, user, action, target, doc_id, detail_json], ensure_ascii=True,
                         separators=(",", ":"))
    return hashlib.sha256(f"{prev_hash}\n{payload}".encode("ascii")).hexdigest()


def has_hash_chain(db: Any) -> bool:
    """Whether this file's audit_log has the hash columns (schema 6 and later). Only a file held
    at an old version (a backup not yet restored, tests of migrations) lacks them; once seen,
    cached on the connection.

    >>> import store
    >>> from store.audit import has_hash_chain
    >>> has_hash_chain(store.connect(":memory:")), has_hash_chain(store.connect(":memory:", migrate_to=5))
    (True, False)
    """
    if getattr(db, "_wb_audit_chained", False):
        return True
    cols = {r[1] for r in db.execute("PRAGMA table_info(audit_log)").fetchall()}
    chained = "row_hash" in cols
    if chained:
        try:
            db._wb_audit_chained = True  # type: ignore[attr-defined]
        except AttributeError:  # a plain sqlite3.Connection
            pass
    return chained


def is_keyed(db: Any) -> bool:
    """Whether this file's chain is keyed (schema :data:`KEYED_SINCE` on); cached once seen."""
    if getattr(db, "_wb_audit_keyed", False):
        return True
    row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
    keyed = row is not None and row[0] is not None and int(row[0]) >= KEYED_SINCE
    if keyed:
        try:
            db._wb_audit_keyed = True  # type: ignore[attr-defined]
        except AttributeError:  # a plain sqlite3.Connection
            pass
    return keyed


def _keying(db: Any):
    keying = getattr(db, "_wb_chain", None)
    if keying is None:
        keying = keying_for(getattr(db, "_wb_path", None))
        try:
            db._wb_chain = keying  # type: ignore[attr-defined]
        except AttributeError:
            pass
    return keying


def row_mac(key: bytes | None, prev: str, *row: Any) -> str:
    """A row's chain value: keyed (``key`` given) or the legacy SHA-256 (schemas 6 to 9)."""
    return chain_mac(key, prev, *row) if key is not None else chain_hash(prev, *row)


def audit(db: Database, user: str | None, action: str, target: str | None = None,
          doc_id: int | None = None, detail: dict | None = None) -> int:
    """Append one audit row (in the caller's transaction if one is open); return its id.

    ``action`` is ``<area>.<verb>`` (``document.add``, ``layer.save``, ``model.activate``,
    ``export``...); ``target`` names the object (``document:12``, ``model:3``); ``user`` is
    ``None`` for the system. The row extends the keyed chain; the write lock the transaction
    holds (``BEGIN IMMEDIATE``) keeps two writers from chaining onto the same row. Once the
    outermost transaction commits, the head file beside the key is moved to the newest row
    (:func:`store.audit_chain.advance_head`, called by :func:`store.db.transaction`).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> store.audit(db, "ana", "export", "project:1", detail={"documents": 12})
    1
    >>> entry = store.list_audit(db, action="export")[0]
    >>> entry.user, entry.action, entry.target, entry.detail
    ('ana', 'export', 'project:1', {'documents': 12})
    """
    at = now_iso()
    detail_json = dumps(detail or {})
    doc = int(doc_id) if doc_id is not None else None
    tgt = str(target) if target is not None else None
    who = str(user) if user is not None else None
    with transaction(db):
        if not has_hash_chain(db):
            cur = db.execute(
                "INSERT INTO audit_log (at, user, action, target, doc_id, detail_json) VALUES (?, ?, ?, ?, ?, ?)",
                (at, who, action, tgt, doc, detail_json))
            return int(cur.lastrowid)
        last = db.execute("SELECT id, row_hash FROM audit_log ORDER BY id DESC LIMIT 1").fetchone()
        new_id = int(last[0]) + 1 if last else 1
        prev = (last[1] or GENESIS_HASH) if last else GENESIS_HASH
        key = _keying(db).key if is_keyed(db) else None
        row_hash = row_mac(key, prev, new_id, at, who, str(action), tgt, doc, detail_json)
        db.execute(
            "INSERT INTO audit_log (id, at, user, action, target, doc_id, detail_json, prev_hash, row_hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (new_id, at, who, str(action), tgt, doc, detail_json, prev, row_hash))
        if key is not None:
            db._wb_head_dirty = True  # type: ignore[attr-defined]   # the head advances after the commit
        return new_id


@retrying
def list_audit(db: Database, *, doc_id: int | None = None, user: str | None = None,
               action: str | None = None, limit: int = 200, offset: int = 0) -> list[AuditEntry]:
    """Newest first, filtered by document, user and/or action (``action`` may end with ``.*``
    for a prefix, e.g. ``layer.*``).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014, user="ana")
    >>> _ = store.add_documents(db, pid, [Document("note-1", "No names here.")], user="ben")
    >>> [(e.user, e.action, e.target) for e in store.list_audit(db)]
    [('ben', 'document.add', 'document:1'), ('ana', 'project.create', 'project:1')]
    >>> [e.action for e in store.list_audit(db, action="project.*")]
    ['project.create']
    """
    where, params = [], []  # type: ignore[var-annotated]
    if doc_id is not None:
        where.append("doc_id = ?")
        params.append(doc_id)
    if user is not None:
        where.append("user = ?")
        params.append(user)
    if action is not None:
        if action.endswith(".*"):
            where.append("action LIKE ?")
            params.append(action[:-1] + "%")
        else:
            where.append("action = ?")
            params.append(action)
    sql = "SELECT * FROM audit_log"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY id DESC LIMIT ? OFFSET ?"
    params += [int(limit), int(offset)]
    return [_entry(r) for r in db.query(sql, params)]


def _normal_sql(sql: str | None) -> str:
    return " ".join((sql or "").split())


def audit_protection_problems(db: Any, *, chained: bool | None = None) -> list[str]:
    """Names of the audit log's protective triggers that are missing or not as the schema made
    them (empty when all are in place). ``db`` is a store connection or a plain ``sqlite3`` one;
    ``chained`` (default: whether the hash columns exist) also asks for the insert trigger.

    >>> import store
    >>> from store.audit import audit_protection_problems
    >>> db = store.connect(":memory:")
    >>> audit_protection_problems(db)
    []
    >>> _ = db.execute("DROP TRIGGER audit_log_no_delete")
    >>> audit_protection_problems(db)
    ['audit_log_no_delete']
    """
    if chained is None:
        chained = has_hash_chain(db)
    expected = dict(APPEND_ONLY_TRIGGERS)
    if chained:
        expected.update(CHAIN_TRIGGERS)
    stored = {name: sql for name, sql in db.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_log'").fetchall()}
    return [name for name, sql in expected.items() if _normal_sql(stored.get(name)) != _normal_sql(sql)]


def _entry(r: dict[str, Any]) -> AuditEntry:
    return AuditEntry(id=r["id"], at=r["at"], user=r["user"], action=r["action"], target=r["target"],
                      doc_id=r["doc_id"], detail=loads(r["detail_json"], {}), row_hash=r.get("row_hash"))
