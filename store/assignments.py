"""Assignments: which annotator works on which document, in what order, and for how long."""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from sqlite_utils import Database

from store.audit import audit
from store.db import check_choice, now_iso, retrying, transaction
from store.errors import InvalidValueError, NotFoundError

ASSIGNMENT_STATUSES = ("assigned", "in_progress", "finished")


@dataclass(frozen=True)
class Assignment:
    id: int
    doc_id: int
    user: str
    status: str
    seconds_spent: float
    position: int
    assigned_at: str
    started_at: str | None
    finished_at: str | None
    assigned_by: str | None
    project_id: int
    doc_name: str


_SELECT = """SELECT a.*, d.project_id AS project_id, d.name AS doc_name
             FROM assignments a JOIN documents d ON d.id = a.doc_id"""


@retrying
def assign(db: Database, doc_id: int, user: str, *, position: int | None = None, by: str | None = None) -> int:
    """Give ``doc_id`` to ``user`` (idempotent: an existing assignment keeps its status and time,
    and moves only if ``position`` is given). New ones go to the end of the user's queue.
    Returns the assignment id. ``by`` is who assigned it (audit).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu in Boston on 2070-01-02.")])
    >>> aid = store.assign(db, doc_id, "ana", by="lead")
    >>> store.assign(db, doc_id, "ana") == aid                # idempotent
    True
    >>> [(a.doc_name, a.user, a.status, a.assigned_by) for a in store.list_assignments(db, user="ana")]
    [('note-1', 'ana', 'assigned', 'lead')]
    """
    if not user:
        raise InvalidValueError("an assignment needs a user")
    doc_id = int(doc_id)
    with transaction(db):
        existing = db.execute("SELECT id FROM assignments WHERE doc_id = ? AND user = ?", [doc_id, user]).fetchone()
        if existing:
            if position is not None:
                db.execute("UPDATE assignments SET position = ? WHERE id = ?", [int(position), existing[0]])
                audit(db, by, "assignment.move", f"assignment:{existing[0]}", doc_id=doc_id,
                      detail={"user": user, "position": int(position)})
            return int(existing[0])
        if position is None:
            position = int(db.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM assignments WHERE user = ?",
                                      [user]).fetchone()[0])
        try:
            cur = db.execute(
                "INSERT INTO assignments (doc_id, user, status, position, assigned_by, assigned_at) VALUES (?, ?, 'assigned', ?, ?, ?)",
                [doc_id, user, int(position), by, now_iso()])
        except sqlite3.IntegrityError:
            raise NotFoundError(f"document {doc_id} does not exist") from None
        aid = int(cur.lastrowid)
        audit(db, by, "assignment.add", f"assignment:{aid}", doc_id=doc_id, detail={"user": user, "position": position})
    return aid


@retrying
def unassign(db: Database, doc_id: int, user: str, *, by: str | None = None) -> bool:
    """Remove an assignment (the user's layer, if any, stays). True if one was removed.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu in Boston on 2070-01-02.")])
    >>> _ = store.assign(db, doc_id, "ana")
    >>> store.unassign(db, doc_id, "ana", by="lead")
    True
    >>> store.unassign(db, doc_id, "ana")                     # nothing left to remove
    False
    """
    with transaction(db):
        n = db.execute("DELETE FROM assignments WHERE doc_id = ? AND user = ?", [int(doc_id), user]).rowcount
        if n:
            audit(db, by, "assignment.remove", f"document:{doc_id}", doc_id=int(doc_id), detail={"user": user})
    return bool(n)


@retrying
def list_assignments(db: Database, user: str | None = None, project_id: int | None = None,
                     status: str | None = None, *, doc_id: int | None = None) -> list[Assignment]:
    """Assignments filtered by user, project, status and/or document, ordered by user then position.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> ids = store.add_documents(db, pid, [Document("note-1", "Seen on 2070-01-02."), Document("note-2", "No dates.")])
    >>> _ = [store.assign(db, doc_id, "ana") for doc_id in reversed(ids)]
    >>> [(a.doc_name, a.position) for a in store.list_assignments(db, user="ana")]
    [('note-2', 0), ('note-1', 1)]
    """
    where, params = [], []  # type: ignore[var-annotated]
    if user is not None:
        where.append("a.user = ?")
        params.append(user)
    if project_id is not None:
        where.append("d.project_id = ?")
        params.append(project_id)
    if status is not None:
        check_choice(status, ASSIGNMENT_STATUSES, "assignment status")
        where.append("a.status = ?")
        params.append(status)
    if doc_id is not None:
        where.append("a.doc_id = ?")
        params.append(int(doc_id))
    sql = _SELECT + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY a.user, a.position, a.id"
    return [_assignment(r) for r in db.query(sql, params)]


@retrying
def set_assignment_status(db: Database, doc_id: int, user: str, status: str, *, by: str | None = None) -> None:
    """Move an assignment to ``assigned`` | ``in_progress`` | ``finished`` (stamping start/finish).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu in Boston on 2070-01-02.")])
    >>> _ = store.assign(db, doc_id, "ana")
    >>> store.set_assignment_status(db, doc_id, "ana", "finished")
    >>> [a] = store.list_assignments(db, user="ana")
    >>> a.status, a.finished_at is not None
    ('finished', True)
    """
    check_choice(status, ASSIGNMENT_STATUSES, "assignment status")
    at = now_iso()
    with transaction(db):
        cur = db.execute(
            """UPDATE assignments SET status = ?,
                   started_at = CASE WHEN ? = 'in_progress' AND started_at IS NULL THEN ? ELSE started_at END,
                   finished_at = CASE WHEN ? = 'finished' THEN ? ELSE NULL END
               WHERE doc_id = ? AND user = ?""",
            [status, status, at, status, at, int(doc_id), user])
        if cur.rowcount == 0:
            raise NotFoundError(f"document {doc_id} is not assigned to {user}")
        audit(db, by if by is not None else user, "assignment.status", f"document:{doc_id}", doc_id=int(doc_id),
              detail={"user": user, "status": status})


@retrying
def record_time(db: Database, doc_id: int, user: str, seconds: float) -> float:
    """Add ``seconds`` of work to the assignment; returns the new total.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu in Boston on 2070-01-02.")])
    >>> _ = store.assign(db, doc_id, "ana")
    >>> store.record_time(db, doc_id, "ana", 90)
    90.0
    >>> store.record_time(db, doc_id, "ana", 30.5)
    120.5
    """
    seconds = float(seconds)
    if seconds < 0:
        raise InvalidValueError("time spent cannot be negative")
    with transaction(db):
        cur = db.execute("UPDATE assignments SET seconds_spent = seconds_spent + ? WHERE doc_id = ? AND user = ?",
                         [seconds, int(doc_id), user])
        if cur.rowcount == 0:
            raise NotFoundError(f"document {doc_id} is not assigned to {user}")
        total = float(db.execute("SELECT seconds_spent FROM assignments WHERE doc_id = ? AND user = ?",
                                 [int(doc_id), user]).fetchone()[0])
        audit(db, user, "assignment.time", f"document:{doc_id}", doc_id=int(doc_id),
              detail={"seconds": round(seconds, 1), "total": round(total, 1)})
    return total


def _assignment(r: dict) -> Assignment:
    return Assignment(id=r["id"], doc_id=r["doc_id"], user=r["user"], status=r["status"],
                      seconds_spent=float(r["seconds_spent"]), position=r["position"], assigned_at=r["assigned_at"],
                      started_at=r["started_at"], finished_at=r["finished_at"], assigned_by=r["assigned_by"],
                      project_id=r["project_id"], doc_name=r["doc_name"])
