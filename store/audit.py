"""The audit log: who did what to which document, when.

Append-only: triggers in the schema abort any UPDATE or DELETE of ``audit_log``, so the app
cannot rewrite history (a person with the file and a SQLite shell still can; backups keep
copies). Every write function of the store calls :func:`audit` inside its own transaction, so
the record and the change commit together. ``detail`` holds counts, ids, labels and versions,
never document text or span text.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from store.db import dumps, loads, now_iso, retrying, transaction


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: str
    user: str | None
    action: str
    target: str | None
    doc_id: int | None
    detail: dict


def audit(db: Database, user: str | None, action: str, target: str | None = None,
          doc_id: int | None = None, detail: dict | None = None) -> int:
    """Append one audit row (in the caller's transaction if one is open); return its id.

    ``action`` is ``<area>.<verb>`` (``document.add``, ``layer.save``, ``model.activate``,
    ``export``...); ``target`` names the object (``document:12``, ``model:3``); ``user`` is
    ``None`` for the system.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> store.audit(db, "ana", "export", "project:1", detail={"documents": 12})
    1
    >>> entry = store.list_audit(db, action="export")[0]
    >>> entry.user, entry.action, entry.target, entry.detail
    ('ana', 'export', 'project:1', {'documents': 12})
    """
    with transaction(db):
        cur = db.execute(
            "INSERT INTO audit_log (at, user, action, target, doc_id, detail_json) VALUES (?, ?, ?, ?, ?, ?)",
            (now_iso(), user, action, target, doc_id, dumps(detail or {})),
        )
        return int(cur.lastrowid)


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


def _entry(r: dict[str, Any]) -> AuditEntry:
    return AuditEntry(id=r["id"], at=r["at"], user=r["user"], action=r["action"], target=r["target"],
                      doc_id=r["doc_id"], detail=loads(r["detail_json"], {}))
