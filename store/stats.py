"""Project figures for the Home page and ``python -m pipeline stats``: counts only, no text."""
from __future__ import annotations

from typing import Any

from sqlite_utils import Database

from store.db import read_snapshot, retrying
from store.projects import get_project

DOCUMENT_STATUSES = ("new", "assigned", "in_progress", "annotated", "gold")

# A document's status (see :func:`stats`), as an SQL expression over ``documents d``.
_STATUS_SQL = """CASE
    WHEN EXISTS (SELECT 1 FROM layers l WHERE l.doc_id = d.id AND l.layer = 'gold'
                 AND l.status = 'finished') THEN 'gold'
    ELSE COALESCE((SELECT CASE MAX(CASE a.status WHEN 'finished' THEN 3 WHEN 'in_progress' THEN 2 ELSE 1 END)
                          WHEN 3 THEN 'annotated' WHEN 2 THEN 'in_progress' WHEN 1 THEN 'assigned' END
                   FROM assignments a WHERE a.doc_id = d.id), 'new')
    END"""


@retrying
def document_statuses(db: Database, project_id: int) -> dict[int, str]:
    """Each document's status, as :func:`stats` counts them: for choosing documents by status.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> text = "Seen by Dr Wu in Boston on 2070-01-02."
    >>> ids = store.add_documents(db, pid, [Document("note-1", text, [Span("", 11, 13, "NAME", "DOCTOR")]),
    ...                                     Document("note-2", "No names here."), Document("note-3", "None here.")])
    >>> _ = store.assign(db, ids[1], "ana")
    >>> store.document_statuses(db, pid)
    {1: 'gold', 2: 'assigned', 3: 'new'}
    """
    rows = db.execute(f"SELECT d.id, {_STATUS_SQL} FROM documents d WHERE d.project_id = ? ORDER BY d.id",
                      [int(project_id)]).fetchall()
    return {int(i): s for i, s in rows}


@retrying
def stats(db: Database, project_id: int) -> dict[str, Any]:
    """Counts for one project.

    A document's status is the furthest it has got: ``gold`` (its gold layer is finished),
    else ``annotated`` (an annotator finished it), ``in_progress``, ``assigned``, or ``new``.
    Keys: ``project``, ``documents``, ``documents_by_status``, ``documents_by_split``,
    ``spans_by_layer`` {layer: n}, ``spans_by_layer_category`` {layer: {category: n}},
    ``gold_documents`` (with a gold layer), ``gold_finished``, ``gold_spans``,
    ``assignments_by_user`` {user: {assigned, in_progress, finished, seconds}}, ``active_model``.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> text = "Seen by Dr Wu in Boston on 2070-01-02."
    >>> ids = store.add_documents(db, pid, [Document("note-1", text, [Span("", 11, 13, "NAME", "DOCTOR")]),
    ...                                     Document("note-2", "No names here.")])
    >>> _ = store.assign(db, ids[1], "ana")
    >>> figures = store.stats(db, pid)
    >>> figures["documents"], figures["gold_spans"], figures["spans_by_layer_category"]
    (2, 1, {'gold': {'NAME': 1}})
    >>> figures["documents_by_status"]
    {'new': 0, 'assigned': 1, 'in_progress': 0, 'annotated': 0, 'gold': 1}
    """
    with read_snapshot(db):
        project = get_project(db, project_id)
        by_status = {s: 0 for s in DOCUMENT_STATUSES}
        for (status, n) in db.execute(
            f"SELECT {_STATUS_SQL} AS status, COUNT(*) FROM documents d WHERE d.project_id = ? GROUP BY status",
            [project_id]):
            by_status[status] = n
        by_split = {(split if split is not None else "none"): n for split, n in db.execute(
            "SELECT split, COUNT(*) FROM documents WHERE project_id = ? GROUP BY split ORDER BY split", [project_id])}
        spans_by_layer: dict[str, int] = {}
        by_layer_cat: dict[str, dict[str, int]] = {}
        for layer, cat, n in db.execute(
                """SELECT s.layer, s.category, COUNT(*) FROM spans s JOIN documents d ON d.id = s.doc_id
                   WHERE d.project_id = ? GROUP BY s.layer, s.category ORDER BY s.layer, s.category""", [project_id]):
            spans_by_layer[layer] = spans_by_layer.get(layer, 0) + n
            by_layer_cat.setdefault(layer, {})[cat] = n
        gold_docs, gold_finished = db.execute(
            """SELECT COUNT(*), COALESCE(SUM(l.status = 'finished'), 0) FROM layers l
               JOIN documents d ON d.id = l.doc_id WHERE d.project_id = ? AND l.layer = 'gold'""",
            [project_id]).fetchone()
        per_user: dict[str, dict[str, float]] = {}
        for user, status, n, secs in db.execute(
                """SELECT a.user, a.status, COUNT(*), SUM(a.seconds_spent) FROM assignments a
                   JOIN documents d ON d.id = a.doc_id WHERE d.project_id = ? GROUP BY a.user, a.status
                   ORDER BY a.user""", [project_id]):
            u = per_user.setdefault(user, {"assigned": 0, "in_progress": 0, "finished": 0, "seconds": 0.0})
            u[status] = n
            u["seconds"] += float(secs or 0)
        active = db.execute("SELECT name FROM model_versions WHERE project_id = ? AND active = 1",
                            [project_id]).fetchone()
    return {
        "project": project.name,
        "documents": sum(by_status.values()),
        "documents_by_status": by_status,
        "documents_by_split": by_split,
        "spans_by_layer": spans_by_layer,
        "spans_by_layer_category": by_layer_cat,
        "gold_documents": int(gold_docs),
        "gold_finished": int(gold_finished),
        "gold_spans": spans_by_layer.get("gold", 0),
        "assignments_by_user": per_user,
        "active_model": active[0] if active else None,
    }
