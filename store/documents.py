"""Documents and their import: texts with metadata, plus the spans they arrive with.

An import is all or nothing: every span of every document is checked against its text and the
project's schema before anything is written, and the documents, their layer rows, their spans
and the audit rows are written in one transaction, so a bad file in a batch of 500 leaves the
store exactly as it was.
"""
from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from sqlite_utils import Database

from pipeline.schemas import LabelSchema
from pipeline.spans import PROVENANCES, Document, Span, SpanError, validate_spans
from store.audit import audit
from store.db import dumps, loads, now_iso, retrying, transaction
from store.errors import DuplicateError, InvalidValueError, NotFoundError
from store.projects import get_project

_CHUNK = 500  # stay well under SQLite's host-parameter limit


@dataclass(frozen=True)
class DocumentRecord:
    """A stored document. ``text`` is ``None`` when listed without text (cheap listings)."""

    id: int
    project_id: int
    name: str
    text: str | None
    sha256: str
    patient_id: str | None = None
    split: str | None = None
    source_file: str | None = None
    meta: dict = field(default_factory=dict)
    created_at: str = ""

    def to_document(self, spans: Iterable[Span] = ()) -> Document:
        """The pipeline's :class:`Document`, with ``doc_id = str(id)`` and the name in ``meta``."""
        return Document(doc_id=str(self.id), text=self.text or "", spans=list(spans),
                        meta={**self.meta, "name": self.name, "split": self.split},
                        patient_id=self.patient_id, source_file=self.source_file)


def check_spans(where: str, text: str, spans: Iterable[Span], schema: LabelSchema, *,
                allow_overlap: bool = False) -> list[Span]:
    """Offsets inside the text, non-empty, labels in the schema, no overlaps (unless allowed).

    Returns the spans sorted. Raises :class:`SpanError` naming ``where`` (a document name or
    id), offsets and labels, never the covered text.
    """
    out = validate_spans(where, text, spans, allow_overlap=allow_overlap)
    for s in out:
        if not schema.has(s.category, s.type):
            raise SpanError(f"{where}: span {s.start}-{s.end} has label {s.category}/{s.type or '-'}, "
                            f"which is not in the project's schema {schema.name!r}")
        if s.provenance not in PROVENANCES:
            raise SpanError(f"{where}: span {s.start}-{s.end} has provenance {s.provenance[:20]!r}, "
                            f"not one of {', '.join(p for p in PROVENANCES if p)}")
    return out


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@retrying
def add_documents(db: Database, project_id: int, docs: Sequence[Document], *, layer: str | None = "gold",
                  user: str | None = None, layer_status: str = "finished", empty_layers: bool = False,
                  allow_overlap: bool = False) -> list[int]:
    """Store documents and their spans (in ``layer``) in ONE transaction; return the new ids in
    input order.

    ``Document.doc_id`` becomes the document's name (unique in the project); ``meta["split"]``
    its split. A document with spans gets ``layer`` at version 1 with ``layer_status``; one
    without spans gets no layer row unless ``empty_layers`` (a gold corpus where some notes hold
    no PHI). Raises :class:`SpanError` (bad offsets, label outside the schema, overlap),
    :class:`DuplicateError` (a name twice in the batch or already stored, also where two names
    differ only in letter case: exported to a case-insensitive file system one file would
    overwrite the other), and writes nothing.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> text = "Seen by Dr Wu in Boston on 2070-01-02."
    >>> note = Document("note-1", text, [Span("", 11, 13, "NAME", "DOCTOR")], meta={"split": "train"})
    >>> store.add_documents(db, pid, [note, Document("note-2", "No names here.")], user="ana")
    [1, 2]
    >>> store.read_layer(db, 1, "gold").version, store.read_layer(db, 2, "gold").version
    (1, 0)
    """
    project = get_project(db, project_id)
    checked: list[list[Span]] = []
    seen: dict[str, str] = {}  # _name_key(name) -> name
    dupes: list[str] = []
    case_dupes: list[str] = []
    for d in docs:
        name = str(d.doc_id or "").strip()
        if not name:
            raise InvalidValueError("every document needs a name (its doc_id)")
        if any(unicodedata.category(c) == "Cf" for c in name):   # bidi overrides, zero-width characters
            raise InvalidValueError("a document name holds an invisible formatting character (a zero-width or "
                                    "bidirectional control); nothing was imported")
        key = _name_key(name)
        if key in seen:
            (dupes if seen[key] == name else case_dupes).append(name)
        seen.setdefault(key, name)
        if d.spans and layer is None:
            raise InvalidValueError(f"{name}: has spans but no layer was given to store them in")
        checked.append(check_spans(name, d.text, d.spans, project.schema, allow_overlap=allow_overlap))
    if dupes:
        raise DuplicateError(f"document names appear twice in this import: {_names(dupes)}")
    if case_dupes:
        raise DuplicateError("document names in this import differ only in letter case, Unicode form or trailing "
                             "dots from others in it: "
                             f"{_names(case_dupes)}")

    ids: list[int] = []
    with transaction(db):  # the names are read inside the write transaction: no import can slip in between
        names = [str(d.doc_id).strip() for d in docs]
        _refuse_taken_names(db, project_id, names)
        at = now_iso()
        for d, name, spans in zip(docs, names, checked):
            meta = dict(d.meta or {})
            split = meta.get("split")
            cur = db.execute(
                """INSERT INTO documents (project_id, name, text, sha256, patient_id, split, source_file,
                   meta_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (project_id, name, d.text, sha256_text(d.text), d.patient_id,
                 str(split) if split is not None else None, d.source_file, dumps(meta), at),
            )
            doc_id = int(cur.lastrowid)
            ids.append(doc_id)
            if layer is not None and (spans or empty_layers):
                db.execute(
                    "INSERT INTO layers (doc_id, layer, version, status, updated_by, updated_at) VALUES (?, ?, 1, ?, ?, ?)",
                    (doc_id, layer, layer_status, user, at),
                )
                insert_spans(db, doc_id, layer, spans)
            audit(db, user, "document.add", f"document:{doc_id}", doc_id=doc_id,
                  detail={"name": name, "project_id": project_id, "layer": layer, "spans": len(spans)})
    return ids


def _name_key(name: str) -> str:
    """Names equal under this key are one name to some file system (letter case, Unicode form,
    trailing dots and spaces of a path part); the same rule as the writers'
    (``pipeline.formats._output.name_key``), which the store may not import."""
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())
    return "/".join(part.rstrip(". ") for part in folded.split("/"))


def _refuse_taken_names(db: Database, project_id: int, names: Sequence[str]) -> None:
    """Raise :class:`DuplicateError` if a name is taken in the project, exactly or but for letter case.

    SQLite's ``lower()`` folds ASCII only, so the project's names are compared in Python.
    """
    exact = {r[0] for r in db.execute("SELECT name FROM documents WHERE project_id = ?", [project_id]).fetchall()}
    taken = sorted(n for n in names if n in exact)
    if taken:
        raise DuplicateError(f"project {project_id} already has documents named {_names(taken)}; "
                             "nothing was imported")
    keys = {_name_key(n) for n in exact}
    cased = sorted(n for n in names if _name_key(n) in keys)
    if cased:
        raise DuplicateError(f"project {project_id} already has documents whose names differ only in letter case, "
                             f"Unicode form or trailing dots from {_names(cased)}; nothing was imported")


def insert_spans(db: Database, doc_id: int, layer: str, spans: Sequence[Span]) -> None:
    """Write already-validated spans (inside the caller's transaction). A file still at a schema
    before migration 11 (opened with ``migrate_to``) has no provenance column: it is left out."""
    if "provenance" not in {r[1] for r in db.execute("PRAGMA table_info(spans)")}:
        db.conn.executemany(
            'INSERT INTO spans (doc_id, layer, start, "end", category, type, source, score) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            [(doc_id, layer, s.start, s.end, s.category, s.type or "", s.source or "", float(s.score)) for s in spans])
        return
    db.conn.executemany(
        'INSERT INTO spans (doc_id, layer, start, "end", category, type, source, score, provenance) '
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [(doc_id, layer, s.start, s.end, s.category, s.type or "", s.source or "", float(s.score),
          s.provenance or "") for s in spans],
    )


def _names(names: Sequence[str], n: int = 5) -> str:
    shown = ", ".join(names[:n])
    return shown + (f" and {len(names) - n} more" if len(names) > n else "")


@retrying
def get_document(db: Database, doc_id: int) -> DocumentRecord:
    """The document with that id, text included; :class:`NotFoundError` if there is none.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu in Boston on 2070-01-02.")])
    >>> record = store.get_document(db, doc_id)
    >>> record.name, record.text
    ('note-1', 'Seen by Dr Wu in Boston on 2070-01-02.')
    """
    rows = list(db.query("SELECT * FROM documents WHERE id = ?", [int(doc_id)]))
    if not rows:
        raise NotFoundError(f"document {doc_id} does not exist")
    return _record(rows[0], with_text=True)


@retrying
def find_document(db: Database, project_id: int, name: str) -> DocumentRecord | None:
    """The document of that name in the project, or ``None``.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> [doc_id] = store.add_documents(db, pid, [Document("note-1", "Seen by Dr Wu in Boston on 2070-01-02.")])
    >>> store.find_document(db, pid, "note-1").id == doc_id
    True
    >>> print(store.find_document(db, pid, "note-9"))
    None
    """
    rows = list(db.query("SELECT * FROM documents WHERE project_id = ? AND name = ?", [project_id, name]))
    return _record(rows[0], with_text=True) if rows else None


_LIST_COLUMNS = "id, project_id, name, sha256, patient_id, split, source_file, meta_json, created_at"


@retrying
def list_documents(db: Database, project_id: int, *, split: str | None = None, patient_id: str | None = None,
                   ids: Sequence[int] | None = None, with_text: bool = False, limit: int | None = None,
                   offset: int = 0) -> list[DocumentRecord]:
    """Documents of a project by id; without text unless ``with_text`` (listings stay cheap).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> docs = [Document(f"note-{i}", "Seen on 2070-01-02.", meta={"split": "train" if i < 2 else "test"})
    ...         for i in range(3)]
    >>> _ = store.add_documents(db, pid, docs)
    >>> [(d.name, d.split, d.text) for d in store.list_documents(db, pid, split="train")]
    [('note-0', 'train', None), ('note-1', 'train', None)]
    """
    cols = "*" if with_text else _LIST_COLUMNS
    where, params = ["project_id = ?"], [project_id]  # type: ignore[list-item]
    if split is not None:
        where.append("split = ?")
        params.append(split)
    if patient_id is not None:
        where.append("patient_id = ?")
        params.append(patient_id)
    if ids is not None:
        id_list = [int(i) for i in ids]
        if not id_list:
            return []
        if len(id_list) > _CHUNK:
            out: list[DocumentRecord] = []
            for i in range(0, len(id_list), _CHUNK):
                out += list_documents(db, project_id, split=split, patient_id=patient_id,
                                      ids=id_list[i:i + _CHUNK], with_text=with_text)
            out.sort(key=lambda r: r.id)
            return out[offset:offset + limit] if limit is not None else out[offset:]
        where.append(f"id IN ({','.join('?' * len(id_list))})")
        params += id_list
    sql = f"SELECT {cols} FROM documents WHERE {' AND '.join(where)} ORDER BY id"
    if limit is not None:
        sql += " LIMIT ? OFFSET ?"
        params += [int(limit), int(offset)]
    elif offset:
        sql += " LIMIT -1 OFFSET ?"
        params.append(int(offset))
    return [_record(r, with_text=with_text) for r in db.query(sql, params)]


@retrying
def count_documents(db: Database, project_id: int, *, split: str | None = None) -> int:
    """How many documents the project has (in ``split`` when given).

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> _ = store.add_documents(db, pid, [Document("note-1", "Seen on 2070-01-02.", meta={"split": "test"}),
    ...                                   Document("note-2", "No dates here.")])
    >>> store.count_documents(db, pid), store.count_documents(db, pid, split="test")
    (2, 1)
    """
    if split is None:
        return int(db.execute("SELECT COUNT(*) FROM documents WHERE project_id = ?", [project_id]).fetchone()[0])
    return int(db.execute("SELECT COUNT(*) FROM documents WHERE project_id = ? AND split = ?",
                          [project_id, split]).fetchone()[0])


@retrying
def set_split(db: Database, doc_ids: Sequence[int], split: str | None, *, user: str | None = None) -> int:
    """Put documents in a split (``train``, ``dev``, ``test`` or ``None``); returns how many.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> ids = store.add_documents(db, pid, [Document("note-1", "Seen on 2070-01-02."), Document("note-2", "No dates.")])
    >>> store.set_split(db, ids, "dev", user="ana")
    2
    >>> [d.split for d in store.list_documents(db, pid)]
    ['dev', 'dev']
    """
    ids = [int(i) for i in doc_ids]
    n = 0
    with transaction(db):
        for i in range(0, len(ids), _CHUNK):
            chunk = ids[i:i + _CHUNK]
            n += db.execute(f"UPDATE documents SET split = ? WHERE id IN ({','.join('?' * len(chunk))})",
                            [split, *chunk]).rowcount
        audit(db, user, "document.split", f"split:{split}", detail={"documents": n, "split": split})
    return n


@retrying
def delete_documents(db: Database, doc_ids: Sequence[int], *, user: str | None = None) -> int:
    """Delete documents with everything hanging off them (layers, spans, assignments, outputs,
    risk scores). The audit log keeps one row per deleted document.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> from pipeline.schemas import I2B2_2014
    >>> from pipeline.spans import Document, Span
    >>> pid = store.create_project(db, "Ward 7", I2B2_2014)
    >>> ids = store.add_documents(db, pid, [Document("note-1", "Seen on 2070-01-02."), Document("note-2", "No dates.")])
    >>> store.delete_documents(db, ids[:1], user="ana")
    1
    >>> [d.name for d in store.list_documents(db, pid)]
    ['note-2']
    """
    ids = [int(i) for i in doc_ids]
    n = 0
    with transaction(db):
        for doc_id in ids:
            cur = db.execute("DELETE FROM documents WHERE id = ?", [doc_id])
            if cur.rowcount:
                n += 1
                audit(db, user, "document.delete", f"document:{doc_id}", doc_id=doc_id)
    return n


def _record(r: dict, *, with_text: bool) -> DocumentRecord:
    return DocumentRecord(id=r["id"], project_id=r["project_id"], name=r["name"],
                          text=r["text"] if with_text else None, sha256=r["sha256"], patient_id=r["patient_id"],
                          split=r["split"], source_file=r["source_file"], meta=loads(r["meta_json"], {}),
                          created_at=r["created_at"])
