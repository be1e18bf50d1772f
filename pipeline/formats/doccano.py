"""doccano JSONL (sequence labeling): ``{"text": ..., "label": [[start, end, "LABEL"], ...]}``.

doccano's newer exports (with relations) write ``"entities": [{"start_offset", "end_offset",
"label"}]`` instead; both forms are read, the ``label`` form (what doccano's import takes for
sequence labeling) is written. Offsets count Unicode code points. The document id is
``doc_id``, else ``<file stem>-<line>``; ``patient_id`` and ``meta`` come along when present.
A ``label`` list of plain strings is a text-classification project, not spans: refused. Errors
name the file, the line and the span, never a value read from the line.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

from pipeline.formats._interchange import (MAIN, Place, check_for_writing, collect, document_id, file_meta,
                                           json_lines, json_safe_meta, layer_spans, make_span, new_document,
                                           require_text)
from pipeline.formats._output import write_file
from pipeline.formats._sources import Limits, PathLike, Progress
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

SOURCE = "import:doccano"


def _raw_spans(obj: dict, place: Place) -> list[tuple[object, object, object]]:
    """``(start, end, label)`` of every span, from either form."""
    if "entities" in obj:
        ents = obj["entities"]
        if not isinstance(ents, list) or not all(isinstance(x, dict) for x in ents):
            raise place.error('"entities" must be a list of objects')
        return [(x.get("start_offset"), x.get("end_offset"), x.get("label")) for x in ents]
    labels = obj.get("label", []) or []
    if not isinstance(labels, list):
        raise place.error('"label" must be a list of [start, end, label]')
    out = []
    for k, x in enumerate(labels):
        if isinstance(x, str):
            raise place.error('"label" holds plain categories (a text-classification project), not spans')
        if not isinstance(x, list) or len(x) != 3:
            raise place.error(f'"label" item {k} must be [start, end, label]')
        out.append((x[0], x[1], x[2]))
    return out


def parse_doccano(obj: dict, schema: LabelSchema, default_id: str, place: Place, *,
                  allow_overlap: bool = True) -> Document:
    text = require_text(obj.get("text"), place)
    doc_id = document_id(obj.get("doc_id"), default_id, place, '"doc_id"')
    spans: list[Span] = [make_span(schema, text, doc_id, place, f"span {k}", start=s, end=e, label=lab, source=SOURCE)
                         for k, (s, e, lab) in enumerate(_raw_spans(obj, place))]
    return new_document(doc_id, text, spans, place, meta=file_meta(obj.get("meta"), place), patient=obj.get("patient_id"),
                        patient_field='"patient_id"', allow_overlap=allow_overlap)


def read_doccano(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
                 progress: Progress | None = None, allow_overlap: bool = True) -> list[Document]:
    """Every line of every ``.jsonl`` under ``paths``; all checked before returning."""
    return collect(json_lines(paths, limits, progress),
                   lambda obj, default_id, place: parse_doccano(obj, schema, default_id, place,
                                                                allow_overlap=allow_overlap))


def to_doccano(doc: Document) -> dict:
    """One document as a doccano line (the exported layer's spans as ``label``).

    >>> to_doccano(Document("n1", "Seen by Dr Wu.", [Span("n1", 11, 13, "NAME", "DOCTOR")]))["label"]
    [[11, 13, 'DOCTOR']]
    """
    rec: dict = {"text": doc.text, "label": [[s.start, s.end, s.label] for s in layer_spans(doc).get(MAIN, [])],
                 "doc_id": doc.doc_id}
    if doc.patient_id is not None:
        rec["patient_id"] = doc.patient_id
    if doc.meta:
        rec["meta"] = json_safe_meta(doc.meta)
    return rec


def write_jsonl_records(docs: Sequence[Document], out_dir: str | os.PathLike, filename: str, records: list[dict]
                        ) -> list[Path]:
    """One JSON object per line into ``out_dir/<filename>`` (documents checked first)."""
    out = Path(out_dir)
    check_for_writing(docs, str(out))
    path = out / filename
    write_file(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return [path]


def write_doccano(docs: Sequence[Document], out_dir: str | os.PathLike, *,
                  filename: str = "doccano.jsonl") -> list[Path]:
    """All documents into ``out_dir/<filename>``, the exported layer's spans as ``label``."""
    return write_jsonl_records(docs, out_dir, filename, [to_doccano(d) for d in docs])
