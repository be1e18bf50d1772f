"""Dismissed misses: candidate spans a reviewer looked at and judged not PHI, so the same
suggestion (e.g. from a model or a leak check) is not raised again for that document."""
from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database

from store.audit import audit
from store.db import now_iso, retrying, transaction
from store.errors import InvalidValueError, NotFoundError


@dataclass(frozen=True)
class DismissedMiss:
    id: int
    doc_id: int
    start: int
    end: int
    category: str
    type: str
    reason: str | None
    dismissed_by: str | None
    at: str


@retrying
def dismiss_miss(db: Database, doc_id: int, start: int, end: int, category: str, type: str = "", *,
                 user: str | None, reason: str | None = None) -> int:
    """Record (idempotently) that this stretch/label was checked and is not PHI. ``reason`` must not
    quote the text.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu in Boston on 2070-01-02.")])
    >>> store.dismiss_miss(db, doc_id, 0, 4, "NAME", "PATIENT", user="ana", reason="a verb, not a name")
    1
    >>> store.dismiss_miss(db, doc_id, 0, 4, "NAME", "PATIENT", user="ben")   # already dismissed: same row
    1
    """
    if not (0 <= int(start) < int(end)):
        raise InvalidValueError(f"document {doc_id}: {start}-{end} is not a valid span")
    with transaction(db):
        row = db.execute("SELECT length(text) FROM documents WHERE id = ?", [int(doc_id)]).fetchone()
        if row is None:
            raise NotFoundError(f"document {doc_id} does not exist")
        if int(end) > row[0]:
            raise InvalidValueError(f"document {doc_id}: {start}-{end} lies outside the text (length {row[0]})")
        db.execute(
            """INSERT INTO dismissed_misses (doc_id, start, "end", category, type, reason, dismissed_by, at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING""",
            [int(doc_id), int(start), int(end), category, type or "", reason, user, now_iso()])
        mid = int(db.execute(
            'SELECT id FROM dismissed_misses WHERE doc_id = ? AND start = ? AND "end" = ? AND category = ? AND type = ?',
            [int(doc_id), int(start), int(end), category, type or ""]).fetchone()[0])
        audit(db, user, "miss.dismiss", f"document:{doc_id}", doc_id=int(doc_id),
              detail={"start": int(start), "end": int(end), "category": category, "type": type})
    return mid


@retrying
def list_dismissed_misses(db: Database, *, doc_id: int | None = None, project_id: int | None = None) -> list[DismissedMiss]:
    """Dismissed misses of a document and/or project, by document and offsets.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu in Boston on 2070-01-02.")])
    >>> _ = store.dismiss_miss(db, doc_id, 0, 4, "NAME", "PATIENT", user="ana")
    >>> [(m.doc_id, m.start, m.end, m.category, m.type, m.dismissed_by)
    ...  for m in store.list_dismissed_misses(db, project_id=pid)]
    [(1, 0, 4, 'NAME', 'PATIENT', 'ana')]
    """
    sql = "SELECT m.* FROM dismissed_misses m JOIN documents d ON d.id = m.doc_id"
    where, params = [], []  # type: ignore[var-annotated]
    if doc_id is not None:
        where.append("m.doc_id = ?")
        params.append(int(doc_id))
    if project_id is not None:
        where.append("d.project_id = ?")
        params.append(project_id)
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += ' ORDER BY m.doc_id, m.start, m."end"'
    return [DismissedMiss(id=r["id"], doc_id=r["doc_id"], start=r["start"], end=r["end"], category=r["category"],
                          type=r["type"], reason=r["reason"], dismissed_by=r["dismissed_by"], at=r["at"])
            for r in db.query(sql, params)]
