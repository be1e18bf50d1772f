"""Layers: one versioned set of spans per (document, layer) — ``pre``, ``annotator:<user>``, ``gold``.

A save carries the version it started from. If someone else saved in between, the save is
refused with :class:`StaleSaveError` rather than silently overwriting their work; the check
and the write happen under one write lock (``BEGIN IMMEDIATE``), so two saves racing from two
processes cannot both win. A layer that does not exist yet has version 0.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from sqlite_utils import Database

from pipeline.errors import StaleSaveError
from pipeline.layers import ANNOTATOR_PREFIX, HUMAN_LAYER_SQL
from pipeline.spans import Document, Span, SpanError
from pipeline.schemas import LabelSchema
from store.audit import audit
from store.db import now_iso, read_snapshot, retrying, transaction
from store.documents import check_spans, insert_spans, list_documents
from store.errors import InvalidValueError, NotFoundError

LAYER_STATUSES = ("in_progress", "finished")


@dataclass(frozen=True)
class LayerState:
    """The spans of one layer of one document and the version they belong to."""

    spans: list[Span]
    version: int
    status: str | None = None
    updated_by: str | None = None
    updated_at: str | None = None


@dataclass(frozen=True)
class LayerInfo:
    layer: str
    version: int
    status: str
    updated_by: str | None
    updated_at: str
    n_spans: int = 0


def span_from_row(r: dict) -> Span:
    return Span(doc_id=str(r["doc_id"]), start=r["start"], end=r["end"], category=r["category"],
                type=r["type"] or "", source=r["source"] or "", score=float(r["score"]), layer=r["layer"],
                provenance=r.get("provenance") or "")


def _doc_and_schema(db: Database, doc_id: int) -> tuple[str, LabelSchema]:
    row = db.execute(
        "SELECT d.text, p.schema_json FROM documents d JOIN projects p ON p.id = d.project_id WHERE d.id = ?",
        [int(doc_id)]).fetchone()
    if row is None:
        raise NotFoundError(f"document {doc_id} does not exist")
    return row[0], LabelSchema.from_json(row[1])


@retrying
def read_layer(db: Database, doc_id: int, layer: str) -> LayerState:
    """Spans (sorted) and version of a layer; ``LayerState([], 0)`` if it does not exist yet.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> text = "Seen by Dr Wu in Boston on 2070-01-02."
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", text, [Span("", 11, 13, "NAME", "DOCTOR")])])
    >>> state = store.read_layer(db, doc_id, "gold")
    >>> state.version, [(s.start, s.end, s.category, s.type) for s in state.spans]
    (1, [(11, 13, 'NAME', 'DOCTOR')])
    >>> store.read_layer(db, doc_id, "pre")                   # no such layer yet
    LayerState(spans=[], version=0, status=None, updated_by=None, updated_at=None)
    """
    with read_snapshot(db):
        if db.execute("SELECT 1 FROM documents WHERE id = ?", [int(doc_id)]).fetchone() is None:
            raise NotFoundError(f"document {doc_id} does not exist")
        rows = list(db.query("SELECT * FROM layers WHERE doc_id = ? AND layer = ?", [int(doc_id), layer]))
        if not rows:
            return LayerState(spans=[], version=0)
        info = rows[0]
        spans = [span_from_row(r) for r in db.query(
            'SELECT * FROM spans WHERE doc_id = ? AND layer = ? ORDER BY start, "end", category, type',
            [int(doc_id), layer])]
    return LayerState(spans=spans, version=info["version"], status=info["status"],
                      updated_by=info["updated_by"], updated_at=info["updated_at"])


@retrying
def layers_of(db: Database, doc_id: int) -> dict[str, LayerInfo]:
    """Every layer of a document with version, status, who saved it last and its span count.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> text = "Seen by Dr Wu in Boston on 2070-01-02."
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", text, [Span("", 11, 13, "NAME", "DOCTOR")])])
    >>> _ = store.save_layer(db, doc_id, "annotator:ana", [], expected_version=0, user="ana")
    >>> [(name, i.version, i.status, i.n_spans) for name, i in store.layers_of(db, doc_id).items()]
    [('annotator:ana', 1, 'in_progress', 0), ('gold', 1, 'finished', 1)]
    """
    rows = db.query(
        """SELECT l.*, (SELECT COUNT(*) FROM spans s WHERE s.doc_id = l.doc_id AND s.layer = l.layer) AS n_spans
           FROM layers l WHERE l.doc_id = ? ORDER BY l.layer""", [int(doc_id)])
    return {r["layer"]: LayerInfo(layer=r["layer"], version=r["version"], status=r["status"],
                                  updated_by=r["updated_by"], updated_at=r["updated_at"], n_spans=r["n_spans"])
            for r in rows}


@retrying
def annotator_layers(db: Database, doc_id: int) -> dict[str, LayerState]:
    """All ``annotator:<user>`` layers of a document, keyed by layer name (for adjudication).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu in Boston on 2070-01-02.")])
    >>> _ = store.save_layer(db, doc_id, "annotator:ana", [Span("", 11, 13, "NAME", "DOCTOR")],
    ...                      expected_version=0, user="ana")
    >>> _ = store.save_layer(db, doc_id, "annotator:ben", [], expected_version=0, user="ben")
    >>> {name: len(state.spans) for name, state in store.annotator_layers(db, doc_id).items()}
    {'annotator:ana': 1, 'annotator:ben': 0}
    """
    with read_snapshot(db):
        names = [r[0] for r in db.execute(
            "SELECT layer FROM layers WHERE doc_id = ? AND layer LIKE ? ORDER BY layer",
            [int(doc_id), ANNOTATOR_PREFIX + "%"])]
        return {name: read_layer(db, doc_id, name) for name in names}


@retrying
def save_layer(db: Database, doc_id: int, layer: str, spans: Iterable[Span], *, expected_version: int,
               user: str | None, status: str | None = None, allow_overlap: bool = False) -> int:
    """Replace a layer's spans, atomically; return the new version (``expected_version + 1``).

    Spans are checked against the text and the project's schema (no overlaps unless
    ``allow_overlap``) before anything is written. Raises :class:`StaleSaveError` when the
    stored version is not ``expected_version``: nothing is written and the stored spans stay.
    ``status`` (``in_progress`` | ``finished``) is kept as it was when ``None``.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu in Boston on 2070-01-02.")])
    >>> store.save_layer(db, doc_id, "gold", [Span("", 17, 23, "LOCATION", "CITY")], expected_version=0, user="ana")
    1
    >>> store.save_layer(db, doc_id, "gold", [], expected_version=0, user="ben")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pipeline.errors.StaleSaveError: document 1, layer gold: you started from version 0 but version 1 was saved by ana ...
    """
    if not layer:
        raise InvalidValueError("a layer needs a name (pre, annotator:<user>, gold)")
    if status is not None and status not in LAYER_STATUSES:
        raise InvalidValueError(f"layer status must be one of {', '.join(LAYER_STATUSES)}, not {status!r}")
    doc_id = int(doc_id)
    spans = list(spans)
    for s in spans:
        if s.doc_id not in ("", str(doc_id)):
            raise SpanError(f"document {doc_id}: a span {s.start}-{s.end} belongs to document {s.doc_id}")
    with transaction(db):
        text, schema = _doc_and_schema(db, doc_id)
        checked = check_spans(f"document {doc_id}", text, spans, schema, allow_overlap=allow_overlap)
        row = db.execute("SELECT version, updated_by, updated_at FROM layers WHERE doc_id = ? AND layer = ?",
                         [doc_id, layer]).fetchone()
        current = int(row[0]) if row else 0
        if current != int(expected_version):
            err = StaleSaveError(
                f"document {doc_id}, layer {layer}: you started from version {expected_version} but version "
                f"{current} was saved by {(row[1] if row else None) or 'the system'} at "
                f"{_readable_utc(row[2]) if row else 'an unknown time'}; your changes were not saved; reload to see "
                "theirs"
            )
            err.doc_id, err.layer = doc_id, layer  # type: ignore[attr-defined]
            err.expected_version, err.stored_version = int(expected_version), current  # type: ignore[attr-defined]
            err.saved_by = row[1] if row else None  # type: ignore[attr-defined]
            raise err
        new_version = current + 1
        db.execute(
            """INSERT INTO layers (doc_id, layer, version, status, updated_by, updated_at) VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT (doc_id, layer) DO UPDATE SET version = excluded.version,
               status = COALESCE(?, layers.status), updated_by = excluded.updated_by, updated_at = excluded.updated_at""",
            (doc_id, layer, new_version, status or "in_progress", user, now_iso(), status),
        )
        db.execute("DELETE FROM spans WHERE doc_id = ? AND layer = ?", [doc_id, layer])
        insert_spans(db, doc_id, layer, checked)
        audit(db, user, "layer.save", f"document:{doc_id}/{layer}", doc_id=doc_id,
              detail={"layer": layer, "version": new_version, "spans": len(checked), "status": status})
    return new_version


def _readable_utc(ts: str | None) -> str:
    """A stored timestamp for a message people read: ``2026-11-23 16:26 UTC``, not ISO with
    microseconds (the store has no reader's time zone; the pages show theirs)."""
    return f"{str(ts)[:16].replace('T', ' ')} UTC" if ts else "an unknown time"


@retrying
def set_layer_status(db: Database, doc_id: int, layer: str, status: str, *, user: str | None) -> None:
    """Mark a layer ``in_progress`` or ``finished`` without touching its spans or version.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> text = "Seen by Dr Wu in Boston on 2070-01-02."
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", text, [Span("", 11, 13, "NAME", "DOCTOR")])])
    >>> store.set_layer_status(db, doc_id, "gold", "in_progress", user="ana")
    >>> state = store.read_layer(db, doc_id, "gold")
    >>> state.status, state.version                           # the version does not move
    ('in_progress', 1)
    """
    if status not in LAYER_STATUSES:
        raise InvalidValueError(f"layer status must be one of {', '.join(LAYER_STATUSES)}, not {status!r}")
    with transaction(db):
        cur = db.execute("UPDATE layers SET status = ?, updated_by = ?, updated_at = ? WHERE doc_id = ? AND layer = ?",
                         [status, user, now_iso(), int(doc_id), layer])
        if cur.rowcount == 0:
            raise NotFoundError(f"document {doc_id} has no layer {layer}")
        audit(db, user, "layer.status", f"document:{doc_id}/{layer}", doc_id=int(doc_id),
              detail={"layer": layer, "status": status})


@retrying
def read_project_layer(db: Database, project_id: int, layer: str, *, split: str | None = None,
                       status: str | None = None) -> dict[int, list[Span]]:
    """``{doc_id: [Span]}`` for every document of the project that has ``layer`` (an existing but
    empty layer maps to ``[]``; documents without the layer are absent).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> text = "Seen by Dr Wu in Boston on 2070-01-02."
    >>> _ = store.add_documents(db, pid, [Document("note-1", text, [Span("", 11, 13, "NAME", "DOCTOR")]),
    ...                                   Document("note-2", "No names here."), Document("note-3", "None here.")])
    >>> _ = store.save_layer(db, 2, "gold", [], expected_version=0, user="ana")
    >>> {doc_id: [s.type for s in spans] for doc_id, spans in store.read_project_layer(db, pid, "gold").items()}
    {1: ['DOCTOR'], 2: []}
    """
    where = ["d.project_id = ?", "l.layer = ?"]
    params: list = [project_id, layer]
    if split is not None:
        where.append("d.split = ?")
        params.append(split)
    if status is not None:
        where.append("l.status = ?")
        params.append(status)
    out: dict[int, list[Span]] = {}
    with read_snapshot(db):
        for (doc_id,) in db.execute(
                f"SELECT l.doc_id FROM layers l JOIN documents d ON d.id = l.doc_id WHERE {' AND '.join(where)} "
                "ORDER BY l.doc_id", params):
            out[int(doc_id)] = []
        for r in db.query(
                f"""SELECT s.* FROM spans s JOIN layers l ON l.doc_id = s.doc_id AND l.layer = s.layer
                    JOIN documents d ON d.id = s.doc_id WHERE {' AND '.join(where)}
                    ORDER BY s.doc_id, s.start, s."end", s.category, s.type""", params):
            out[int(r["doc_id"])].append(span_from_row(r))
    return out


@retrying
def load_documents(db: Database, project_id: int, *, layer: str | None = None, split: str | None = None,
                   ids: Sequence[int] | None = None, status: str | None = None) -> list[Document]:
    """The project's documents as pipeline :class:`Document` objects (``doc_id = str(id)``, name in
    ``meta["name"]``), with the spans of ``layer`` when given. With ``layer``, only documents that
    have that layer are returned (for training or evaluating on gold).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> text = "Seen by Dr Wu in Boston on 2070-01-02."
    >>> _ = store.add_documents(db, pid, [Document("note-1", text, [Span("", 11, 13, "NAME", "DOCTOR")]),
    ...                                   Document("note-2", "No names here.")])
    >>> [(d.doc_id, d.meta["name"], len(d.spans)) for d in store.load_documents(db, pid, layer="gold")]
    [('1', 'note-1', 1)]
    >>> [d.doc_id for d in store.load_documents(db, pid)]
    ['1', '2']
    """
    with read_snapshot(db):
        records = list_documents(db, project_id, split=split, ids=ids, with_text=True)
        if layer is None:
            return [r.to_document() for r in records]
        spans = read_project_layer(db, project_id, layer, split=split, status=status)
    return [r.to_document(spans[r.id]) for r in records if r.id in spans]


@retrying
def human_seen_doc_ids(db: Database, project_id: int) -> set[int]:
    """Documents a person has worked on (a gold or an annotator layer exists).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> text = "Seen by Dr Wu in Boston on 2070-01-02."
    >>> span = Span("", 11, 13, "NAME", "DOCTOR")
    >>> _ = store.add_documents(db, pid, [Document("note-1", text, [span])])                # into gold
    >>> _ = store.add_documents(db, pid, [Document("note-2", text, [span])], layer="pre")   # machine only
    >>> store.human_seen_doc_ids(db, pid)
    {1}
    """
    rows = db.execute(f"""SELECT DISTINCT l.doc_id FROM layers l JOIN documents d ON d.id = l.doc_id
                          WHERE d.project_id = ? AND {HUMAN_LAYER_SQL}""", [int(project_id)]).fetchall()
    return {int(r[0]) for r in rows}


@retrying
def unseen_doc_ids(db: Database, project_id: int) -> list[int]:
    """Documents with neither a gold nor an annotator layer, in id order.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> text = "Seen by Dr Wu in Boston on 2070-01-02."
    >>> span = Span("", 11, 13, "NAME", "DOCTOR")
    >>> _ = store.add_documents(db, pid, [Document("note-1", text, [span])])                # into gold
    >>> _ = store.add_documents(db, pid, [Document("note-2", text, [span])], layer="pre")   # machine only
    >>> store.unseen_doc_ids(db, pid)
    [2]
    """
    rows = db.execute(f"""SELECT d.id FROM documents d WHERE d.project_id = ? AND NOT EXISTS (
                              SELECT 1 FROM layers l WHERE l.doc_id = d.id AND {HUMAN_LAYER_SQL})
                          ORDER BY d.id""", [int(project_id)]).fetchall()
    return [int(r[0]) for r in rows]


@retrying
def layer_updated_at(db: Database, project_id: int, layer: str) -> dict[int, str]:
    """When each document's ``layer`` was last saved, for the documents that have it.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> text = "Seen by Dr Wu in Boston on 2070-01-02."
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", text, [Span("", 11, 13, "NAME", "DOCTOR")])])
    >>> when = store.layer_updated_at(db, pid, "gold")
    >>> list(when), when[doc_id] == store.read_layer(db, doc_id, "gold").updated_at
    ([1], True)
    """
    rows = db.execute("""SELECT l.doc_id, l.updated_at FROM layers l JOIN documents d ON d.id = l.doc_id
                         WHERE d.project_id = ? AND l.layer = ?""", [int(project_id), layer]).fetchall()
    return {int(r[0]): r[1] for r in rows}
