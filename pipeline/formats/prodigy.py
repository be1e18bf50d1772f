"""Prodigy JSONL: ``{"text": ..., "spans": [{"start", "end", "label"}], "answer": "accept"}``.

Only accepted examples are annotations: their spans go to the import's layer (gold by
default). Rejected and ignored examples are left out (Prodigy's own meaning: the annotation was
wrong, or the example skipped). An example with no ``answer`` is unannotated input: imported,
its spans as ``pre`` suggestions nobody decided. ``token_start``/``token_end`` are Prodigy's
token indices and are not needed: the character offsets are the truth (a span's ``text``, when
present, must match). The document id is ``meta.id``, else ``<file stem>-<_input_hash>``, else
``<file stem>-<line>``: a text accepted twice (a binary ``ner.teach`` dataset, two sessions) is
refused naming both lines rather than imported as two notes. Errors name the file, the line and
the span, never a value read from the line.

Writing: the exported layer as an accepted example; a document whose layer does not exist
(``without_annotations``) goes out with its suggestions and no ``answer``, so Prodigy shows it
as a task to annotate.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Collection, Sequence

from pipeline.formats._interchange import (MAIN, UNANNOTATED, Place, collect, document_id, file_meta,
                                           is_annotated, json_lines, json_safe_meta, layer_spans, make_span,
                                           new_document, require_text)
from pipeline.formats._sources import Limits, PathLike, Progress
from pipeline.formats.doccano import write_jsonl_records
from pipeline.layers import PRE
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

SOURCE = "import:prodigy"
ANSWERS = ("accept", "reject", "ignore")


def parse_prodigy(obj: dict, schema: LabelSchema, default_id: str, place: Place, *,
                  allow_overlap: bool = True) -> Document | None:
    """The document of one example, or None for a rejected or ignored one."""
    answer = obj.get("answer")
    if answer is not None and answer not in ANSWERS:
        raise place.error(f'"answer" must be one of {", ".join(ANSWERS)}')
    if answer in ("reject", "ignore"):
        return None
    text = require_text(obj.get("text"), place)
    meta = file_meta(obj.get("meta"), place)
    input_hash = obj.get("_input_hash")
    if isinstance(input_hash, int) and not isinstance(input_hash, bool):
        default_id = f"{default_id.rsplit('-', 1)[0]}-{input_hash}"  # one note, however often it was shown
    doc_id = document_id(meta.pop("id", None), default_id, place, '"meta.id"')
    raw = obj.get("spans", []) or []
    if not isinstance(raw, list) or not all(isinstance(x, dict) for x in raw):
        raise place.error('"spans" must be a list of objects')
    layer = MAIN if answer == "accept" else PRE
    if answer is None:
        meta[UNANNOTATED] = True
    spans: list[Span] = [make_span(schema, text, doc_id, place, f"span {k}", start=x.get("start"), end=x.get("end"),
                                   label=x.get("label"), quoted=x.get("text"), source=SOURCE, layer=layer,
                                   score=x.get("score") if layer == PRE else None)
                         for k, x in enumerate(raw)]
    return new_document(doc_id, text, spans, place, meta=meta, patient=obj.get("patient_id"),
                        patient_field='"patient_id"', allow_overlap=allow_overlap)


def read_prodigy(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
                 progress: Progress | None = None, allow_overlap: bool = True) -> list[Document]:
    """The accepted (and unanswered) examples of every ``.jsonl`` under ``paths``."""
    docs = collect(json_lines(paths, limits, progress),
                   lambda obj, default_id, place: parse_prodigy(obj, schema, default_id, place,
                                                                allow_overlap=allow_overlap))
    if not docs:
        raise Place(str(paths)).error("no accepted or unanswered example to import")
    return docs


def to_prodigy(doc: Document, *, annotated: bool = True) -> dict:
    layers = layer_spans(doc)
    spans = layers.get(MAIN, []) if annotated else layers.get(PRE, [])
    rec: dict = {"text": doc.text,
                 "spans": [{"start": s.start, "end": s.end, "label": s.label, **({} if annotated else {"score": s.score})}
                           for s in spans],
                 "meta": {**json_safe_meta(doc.meta), "id": doc.doc_id}}
    if annotated:
        rec["answer"] = "accept"
    if doc.patient_id is not None:
        rec["patient_id"] = doc.patient_id
    return rec


def write_prodigy(docs: Sequence[Document], out_dir: str | os.PathLike, *, filename: str = "prodigy.jsonl",
                  without_annotations: Collection[str] = ()) -> list[Path]:
    """All documents into ``out_dir/<filename>``."""
    return write_jsonl_records(docs, out_dir, filename,
                               [to_prodigy(d, annotated=is_annotated(d, without_annotations)) for d in docs])
