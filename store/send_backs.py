"""A risk reviewer's "send back (fix annotation)" as work: the decision, the annotator's
assignment (re-opened if they had finished it) and the reasons they will read in their queue,
written in one transaction; closed when the run re-de-identifies the document.

Reasons are the scorer's reasons in words (categories and counts, never document text) and the
reviewer's own note, which the page asks them to keep free of PHI.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database

from store.assignments import assign, set_assignment_status
from store.audit import audit
from store.db import dumps, loads, now_iso, retrying, transaction
from store.errors import InvalidValueError, NotFoundError
from store.risk import decide_risk


@dataclass(frozen=True)
class SendBack:
    run_id: int
    doc_id: int
    doc_name: str
    annotator: str
    reasons: list
    note: str
    sent_by: str | None
    sent_at: str
    redone_at: str | None

    @property
    def open(self) -> bool:
        return self.redone_at is None


@retrying
def send_back(db: Database, run_id: int, doc_id: int, annotator: str, *, reasons: list | None = None,
              note: str = "", user: str | None = None) -> None:
    """Decide ``sent_back`` and give the document back to ``annotator`` with the reasons: their
    assignment is added (or re-opened when finished) at the front of their queue. All or nothing.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu, aged 97.")])
    >>> run_id = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> _ = store.save_risk_scores(db, run_id, [{"doc_id": doc, "score": 0.8, "colour": "red"}])
    >>> store.send_back(db, run_id, doc, "ana", reasons=["age over 89 kept"], note="age missed", user="rev")
    >>> [(s.doc_name, s.annotator, s.reasons, s.note) for s in store.list_send_backs(db, annotator="ana")]
    [('note-1', 'ana', ['age over 89 kept'], 'age missed')]
    >>> [(a.doc_name, a.status) for a in store.list_assignments(db, user="ana")]
    [('note-1', 'assigned')]
    """
    if not annotator:
        raise InvalidValueError("a document sent back needs an annotator to go to")
    reasons = list(reasons or [])
    with transaction(db):
        decide_risk(db, run_id, doc_id, "sent_back", user)
        db.execute(
            """INSERT INTO risk_send_backs (run_id, doc_id, annotator, reasons_json, note, sent_by, sent_at)
               VALUES (?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (run_id, doc_id) DO UPDATE SET annotator = excluded.annotator,
               reasons_json = excluded.reasons_json, note = excluded.note, sent_by = excluded.sent_by,
               sent_at = excluded.sent_at, redone_at = NULL""",
            [int(run_id), int(doc_id), annotator, dumps(reasons), str(note or ""), user, now_iso()])
        assign(db, doc_id, annotator, position=-1, by=user)
        set_assignment_status(db, doc_id, annotator, "assigned", by=user)
        audit(db, user, "risk.send_back", f"deid_run:{run_id}", doc_id=int(doc_id),
              detail={"annotator": annotator, "reasons": len(reasons), "note": bool(note)})


@retrying
def list_send_backs(db: Database, *, annotator: str | None = None, run_id: int | None = None,
                    doc_id: int | None = None, open_only: bool = True) -> list[SendBack]:
    """Documents sent back, newest first (by default those not re-de-identified yet).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> store.list_send_backs(db, annotator="ana")
    []
    """
    where, params = [], []  # type: ignore[var-annotated]
    for col, val in (("b.annotator", annotator), ("b.run_id", run_id), ("b.doc_id", doc_id)):
        if val is not None:
            where.append(f"{col} = ?")
            params.append(val)
    if open_only:
        where.append("b.redone_at IS NULL")
    sql = ("SELECT b.*, d.name AS doc_name FROM risk_send_backs b JOIN documents d ON d.id = b.doc_id"
           + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY b.sent_at DESC, b.id DESC")
    return [SendBack(run_id=r["run_id"], doc_id=r["doc_id"], doc_name=r["doc_name"], annotator=r["annotator"],
                     reasons=loads(r["reasons_json"], []), note=r["note"], sent_by=r["sent_by"],
                     sent_at=r["sent_at"], redone_at=r["redone_at"]) for r in db.query(sql, params)]


@retrying
def close_send_back(db: Database, run_id: int, doc_id: int, *, user: str | None = None) -> None:
    """The run re-de-identified the document: close its send-back and clear the decision, so the
    new output is triaged again.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu, aged 97.")])
    >>> run_id = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> _ = store.save_risk_scores(db, run_id, [{"doc_id": doc, "score": 0.8, "colour": "red"}])
    >>> store.send_back(db, run_id, doc, "ana", user="rev")
    >>> store.close_send_back(db, run_id, doc, user="lead")
    >>> store.list_send_backs(db, annotator="ana"), store.risk_queue(db, run_id)[0].decision
    ([], None)
    """
    with transaction(db):
        cur = db.execute("UPDATE risk_send_backs SET redone_at = ? WHERE run_id = ? AND doc_id = ? "
                         "AND redone_at IS NULL", [now_iso(), int(run_id), int(doc_id)])
        if cur.rowcount == 0:
            raise NotFoundError(f"document {doc_id} of run {run_id} is not sent back")
        db.execute("UPDATE risk_scores SET decision = NULL, decided_by = NULL, decided_at = NULL "
                   "WHERE run_id = ? AND doc_id = ?", [int(run_id), int(doc_id)])
        audit(db, user, "risk.redo", f"deid_run:{run_id}", doc_id=int(doc_id))
