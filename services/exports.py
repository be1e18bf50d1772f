"""Writing a project's documents and one layer of spans to files (brat, i2b2 XML, JSONL, plain
text, CoNLL). Files leaving the database hold PHI, so every export is audited (counts, format
and folder; never text).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sqlite_utils import Database

import store
from pipeline.errors import WorkbenchError
from pipeline.formats import write_collection
from pipeline.spans import Document
from services import access


class ExportError(WorkbenchError):
    """An export that cannot be written as asked (safe to show)."""


@dataclass(frozen=True)
class ExportSummary:
    documents: int
    spans: int
    files: int
    layer: str | None


def named(doc: Document) -> Document:
    """The store's document (id = row id) renamed to the name it was imported under."""
    meta = {k: v for k, v in doc.meta.items() if k != "name" and v is not None}
    name = str(doc.meta.get("name") or doc.doc_id)
    return Document(doc_id=name, text=doc.text, spans=[s.with_(doc_id=name) for s in doc.spans], meta=meta,
                    patient_id=doc.patient_id, source_file=doc.source_file)


def export_layer(db: Database, user: store.User | str | None, project: store.Project, out: str | os.PathLike,
                 fmt: str, *, layer: str = "gold", split: str | None = None, label: str = "type") -> ExportSummary:
    """Write the documents that have ``layer`` (plain text: every document) into ``out``.

    Only documents that have the layer are written: a document never annotated must not look
    like one without PHI."""
    who = access.actor(user, "export")
    layer_or_none = None if fmt == "text" else layer
    docs = [named(d) for d in store.load_documents(db, project.id, layer=layer_or_none, split=split)]
    if not docs:
        raise ExportError(f"project {project.name!r} has no documents with layer {layer!r}"
                          + (f" in split {split!r}" if split else ""))
    options: dict = {}
    if fmt == "xml" and project.schema.name == "meddocan":
        options["root"] = "MEDDOCAN"
    if fmt == "conll":
        options["label"] = label
    files = write_collection(docs, out, fmt, **options)
    n_spans = sum(len(d.spans) for d in docs)
    store.audit(db, who, "export", f"project:{project.id}",
                detail={"format": fmt, "layer": layer_or_none, "split": split, "documents": len(docs),
                        "spans": n_spans, "files": len(files), "out": str(Path(out).resolve())})
    return ExportSummary(documents=len(docs), spans=n_spans, files=len(files), layer=layer_or_none)
