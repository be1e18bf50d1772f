"""Writing a project's documents and one layer of spans to files (brat, i2b2 XML, JSONL, plain
text, CoNLL, and the annotation tools' formats). Files leaving the database hold PHI, so every
export is audited (counts, format and folder; never text).

Label Studio and Prodigy files can carry the model's suggestions beside the exported layer
(``predictions``, the ``pre`` layer by default on the command line): every document that has
either goes out, so notes nobody annotated yet reach the annotation tool with suggestions and
no annotation, never as notes a person found free of PHI.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sqlite_utils import Database

import store
from pipeline.errors import WorkbenchError
from pipeline.formats import SUGGESTION_FORMATS, write_collection
from pipeline.layers import PRE
from pipeline.spans import Document
from services import access
from services.settings import project_locale


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


def _with_suggestions(db: Database, project: store.Project, layer: str, predictions: str,
                      split: str | None) -> tuple[list[Document], list[str]]:
    """Documents having ``layer`` or ``predictions``, the latter's spans marked ``pre``; and the
    names of those without ``layer``."""
    main = store.read_project_layer(db, project.id, layer, split=split)
    pre = store.read_project_layer(db, project.id, predictions, split=split)
    docs: list[Document] = []
    without: list[str] = []
    if not main and not pre:
        return docs, without
    for d in store.load_documents(db, project.id, split=split, ids=sorted(set(main) | set(pre))):
        rid = int(d.doc_id)
        d.spans = [s.with_(layer="") for s in main.get(rid, [])] + [s.with_(layer=PRE) for s in pre.get(rid, [])]
        docs.append(named(d))
        if rid not in main:
            without.append(docs[-1].doc_id)
    return docs, without


def _options(project: store.Project, fmt: str, label: str, without: list[str]) -> dict:
    """What a writer needs from the project: the XML root, CoNLL tag names, the tokenizer's
    language, the label set a Label Studio config lists, which documents have no annotation."""
    options: dict = {}
    if fmt == "xml" and project.schema.name == "meddocan":
        options["root"] = "MEDDOCAN"
    if fmt == "conll":
        options["label"] = label
    if fmt == "spacy":
        options["lang"] = project_locale(project)
    if fmt == "label-studio":
        options["labels"] = list(project.schema.types)
    if fmt in SUGGESTION_FORMATS:
        options["without_annotations"] = without
    return options


def export_layer(db: Database, user: store.User | str | None, project: store.Project, out: str | os.PathLike,
                 fmt: str, *, layer: str = "gold", split: str | None = None, label: str = "type",
                 predictions: str | None = None) -> ExportSummary:
    """Write the documents that have ``layer`` (plain text: every document) into ``out``.

    Only documents that have the layer are written: a document never annotated must not look
    like one without PHI. ``predictions`` (Label Studio, Prodigy): also documents that have that
    layer, its spans written as the model's suggestions."""
    who = access.actor(user, "export")
    layer_or_none = None if fmt == "text" else layer
    without: list[str] = []
    if predictions and fmt in SUGGESTION_FORMATS:
        docs, without = _with_suggestions(db, project, layer, predictions, split)
    else:
        predictions = None
        docs = [named(d) for d in store.load_documents(db, project.id, layer=layer_or_none, split=split)]
    if not docs:
        raise ExportError(f"project {project.name!r} has no documents with layer {layer!r}"
                          + (f" or {predictions!r}" if predictions else "") + (f" in split {split!r}" if split else ""))
    files = write_collection(docs, out, fmt, **_options(project, fmt, label, without))
    n_spans = sum(len(d.spans) for d in docs)
    store.audit(db, who, "export", f"project:{project.id}",
                detail={"format": fmt, "layer": layer_or_none, "split": split, "documents": len(docs),
                        "spans": n_spans, "files": len(files), "out": str(Path(out).resolve()),
                        **({"predictions": predictions} if predictions else {})})
    return ExportSummary(documents=len(docs), spans=n_spans, files=len(files), layer=layer_or_none)
