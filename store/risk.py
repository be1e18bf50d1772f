"""Re-identification risk scores per (run, document), the triage queue, and reviewers' decisions.

Rescoring a run replaces scores but keeps decisions already taken: a decision is about the
run's output, which rescoring does not change.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, Iterable

from sqlite_utils import Database

from store.audit import audit
from store.db import check_choice, dumps, loads, now_iso, retrying, transaction
from store.errors import InvalidValueError, NotFoundError

COLOURS = ("red", "amber", "green")
DECISIONS = ("accepted", "sent_back", "withheld")


@dataclass(frozen=True)
class RiskScore:
    run_id: int
    doc_id: int
    doc_name: str
    method: str
    score: float
    colour: str
    reasons: list
    decision: str | None
    decided_by: str | None
    decided_at: str | None
    scored_at: str


def _field(row: Any, name: str, default: Any = None) -> Any:
    if isinstance(row, dict):
        return row.get(name, default)
    return getattr(row, name, default)


def _doc_int(doc_id: Any) -> int:
    try:
        return int(doc_id)
    except (TypeError, ValueError):
        raise InvalidValueError(f"risk rows need the store's document id (str(documents.id)), not {doc_id!r}") from None


@retrying
def save_risk_scores(db: Database, run_id: int, rows: Iterable[Any], *, method: str | None = None,
                     user: str | None = None) -> int:
    """Upsert scores for a run. ``rows`` are RiskReport-like objects or dicts with ``doc_id`` (int
    or its string form), ``score``, ``colour`` (red|amber|green), ``reasons`` and optionally
    ``method``. Returns how many were written.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> ids = store.add_documents(db, pid, [Document("note-1", "Seen on 2070-01-02."),
    ...                                      Document("note-2", "Seen by Dr Wu, aged 97.")])
    >>> run_id = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> store.save_risk_scores(db, run_id, [{"doc_id": ids[0], "score": 0.1, "colour": "green"},
    ...                                     {"doc_id": str(ids[1]), "score": 0.8, "colour": "red",
    ...                                      "reasons": ["age over 89"]}], method="rules", user="ana")
    2
    >>> [(r.doc_name, r.colour, r.method, r.reasons) for r in store.risk_queue(db, run_id)]
    [('note-2', 'red', 'rules', ['age over 89']), ('note-1', 'green', 'rules', [])]
    """
    at = now_iso()
    values = []
    for row in rows:
        colour = str(_field(row, "colour", "")).lower()
        check_choice(colour, COLOURS, "risk colour")
        values.append((int(run_id), _doc_int(_field(row, "doc_id")), str(_field(row, "method", None) or method or ""),
                       float(_field(row, "score")), colour, dumps(list(_field(row, "reasons", None) or [])), at))
    with transaction(db):
        try:
            db.conn.executemany(
                """INSERT INTO risk_scores (run_id, doc_id, method, score, colour, reasons_json, scored_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (run_id, doc_id) DO UPDATE SET method = excluded.method, score = excluded.score,
                   colour = excluded.colour, reasons_json = excluded.reasons_json, scored_at = excluded.scored_at""",
                values)
        except sqlite3.IntegrityError:
            raise NotFoundError(f"run {run_id} or one of the scored documents does not exist") from None
        counts = {c: sum(1 for v in values if v[4] == c) for c in COLOURS}
        audit(db, user, "risk.score", f"deid_run:{run_id}", detail={"documents": len(values), **counts})
    return len(values)


@retrying
def risk_queue(db: Database, run_id: int, *, undecided_only: bool = False, colour: str | None = None) -> list[RiskScore]:
    """Scores of a run for triage: red first, then amber, then green; within a colour by score, then
    number of reasons, descending (the order of ``pipeline.risk``).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> ids = store.add_documents(db, pid, [Document("note-1", "Seen on 2070-01-02."),
    ...                                      Document("note-2", "Seen by Dr Wu, aged 97.")])
    >>> run_id = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> _ = store.save_risk_scores(db, run_id, [{"doc_id": ids[0], "score": 0.4, "colour": "amber"},
    ...                                         {"doc_id": ids[1], "score": 0.8, "colour": "red"}])
    >>> [(r.doc_name, r.colour, r.score) for r in store.risk_queue(db, run_id)]     # red first
    [('note-2', 'red', 0.8), ('note-1', 'amber', 0.4)]
    >>> [r.doc_name for r in store.risk_queue(db, run_id, colour="amber")]
    ['note-1']
    """
    sql = """SELECT r.*, d.name AS doc_name FROM risk_scores r JOIN documents d ON d.id = r.doc_id
             WHERE r.run_id = ?"""
    params: list = [int(run_id)]
    if undecided_only:
        sql += " AND r.decision IS NULL"
    if colour is not None:
        check_choice(colour, COLOURS, "risk colour")
        sql += " AND r.colour = ?"
        params.append(colour)
    sql += " ORDER BY CASE r.colour WHEN 'red' THEN 0 WHEN 'amber' THEN 1 ELSE 2 END, r.score DESC,"
    sql += " json_array_length(r.reasons_json) DESC, r.doc_id"
    return [_score(r) for r in db.query(sql, params)]


@retrying
def decide_risk(db: Database, run_id: int, doc_id: int, decision: str, user: str | None) -> None:
    """Record a reviewer's decision: ``accepted`` (release), ``sent_back`` (fix the annotation),
    ``withheld`` (never release).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> ids = store.add_documents(db, pid, [Document("note-1", "Seen on 2070-01-02."),
    ...                                      Document("note-2", "Seen by Dr Wu, aged 97.")])
    >>> run_id = store.create_deid_run(db, pid, "default", {"actions": {"NAME": "redact"}})
    >>> _ = store.save_risk_scores(db, run_id, [{"doc_id": ids[0], "score": 0.4, "colour": "amber"},
    ...                                         {"doc_id": ids[1], "score": 0.8, "colour": "red"}])
    >>> store.decide_risk(db, run_id, ids[1], "withheld", user="ana")
    >>> [(r.doc_name, r.decision, r.decided_by) for r in store.risk_queue(db, run_id)]
    [('note-2', 'withheld', 'ana'), ('note-1', None, None)]
    >>> [r.doc_name for r in store.risk_queue(db, run_id, undecided_only=True)]
    ['note-1']
    """
    check_choice(decision, DECISIONS, "decision")
    with transaction(db):
        cur = db.execute("UPDATE risk_scores SET decision = ?, decided_by = ?, decided_at = ? WHERE run_id = ? AND doc_id = ?",
                         [decision, user, now_iso(), int(run_id), int(doc_id)])
        if cur.rowcount == 0:
            raise NotFoundError(f"run {run_id} has no risk score for document {doc_id}")
        audit(db, user, "risk.decide", f"deid_run:{run_id}", doc_id=int(doc_id), detail={"decision": decision})


def _score(r: dict) -> RiskScore:
    return RiskScore(run_id=r["run_id"], doc_id=r["doc_id"], doc_name=r["doc_name"], method=r["method"],
                     score=float(r["score"]), colour=r["colour"], reasons=loads(r["reasons_json"], []),
                     decision=r["decision"], decided_by=r["decided_by"], decided_at=r["decided_at"],
                     scored_at=r["scored_at"])
