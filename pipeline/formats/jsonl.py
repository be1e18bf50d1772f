"""JSON Lines: one document per line, ``{"text": ..., "meta": {...}, "spans": [...]}``.

A span is ``{"start", "end", "label"}``, optionally with ``category``, ``type``, ``id`` and
``text``; the label (or type) resolves through the project's schema, and a ``text`` must be the
document's text at those offsets (as brat's and XML's are checked: a mismatch means offsets made
for another text). The document id is ``meta.id``, else ``<file stem>-<line number>``; it must
be a name the writers can write back (:func:`pipeline.formats._output.name_problem`), unique in
the import even ignoring letter case. A bad line is reported by file and line number; JSON
errors by position only (the decoder's message never quotes the line), and no value read from
the line (an id, a label, a text) is ever quoted.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterator, Sequence

from pipeline.errors import FormatError
from pipeline.formats._common import (check_offsets, parse_offset, refuse_overlaps, resolve_label, same_text,
                                      sorted_unique)
from pipeline.formats._output import check_spans_fit, name_key, name_problem, write_file
from pipeline.formats._sources import Limits, PathLike, Progress, decode_utf8, open_entries
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

SOURCE = "import:jsonl"
SUFFIXES = (".jsonl", ".ndjson")
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_DEPTH = 64


def check_values(obj: object, display: str, line: int | None) -> None:
    """Refuse what JSON can hold but a document cannot: unpaired surrogates and deep nesting.

    ``\\ud800`` escapes decode to unpaired surrogates, which are not text and cannot be stored
    (UTF-8 cannot encode them; SQLite and hashing would fail later with an unrelated error).
    Nesting beyond :data:`MAX_DEPTH` would overflow the recursion of whatever serialises the
    metadata next. Walks iteratively, so a hostile line cannot overflow this check either.
    """
    stack: list[tuple[object, int]] = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                raise FormatError(display, "holds an unpaired surrogate escape (\\ud800-\\udfff): "
                                           "not valid Unicode text", line)
        elif isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise FormatError(display, f"JSON is nested more than {MAX_DEPTH} levels deep", line)
            items = [x for kv in value.items() for x in kv] if isinstance(value, dict) else value
            stack.extend((x, depth + 1) for x in items)


def _span(obj: object, k: int, schema: LabelSchema, doc_id: str, text: str, display: str, line: int) -> Span:
    if not isinstance(obj, dict):
        raise FormatError(display, f"span {k} is not an object", line)
    start = parse_offset(obj.get("start", ""), f"span {k} start", display, line)
    end = parse_offset(obj.get("end", ""), f"span {k} end", display, line)
    category = obj.get("category") or None
    type_ = obj.get("type") or None
    label = type_ or obj.get("label") or category
    if not label or not isinstance(label, str) or (category is not None and not isinstance(category, str)):
        raise FormatError(display, f"span {k} needs a string label, type or category", line)
    cat, typ = resolve_label(schema, label, display, line, category_hint=category,
                             field=f'span {k}\'s "type" or "label"')
    check_offsets(start, end, len(text), display, line)
    quoted = obj.get("text")
    if quoted is not None:
        if not isinstance(quoted, str):
            raise FormatError(display, f'span {k}: "text" must be a string', line)
        if not same_text(quoted, text[start:end]):
            raise FormatError(display, f'span {k} ({start}-{end}, {typ or cat}): its "text" does not match the '
                                       "document at those offsets", line)
    return Span(doc_id=doc_id, start=start, end=end, category=cat, type=typ, source=SOURCE)


def parse_line(raw: str, schema: LabelSchema, default_id: str, display: str, line: int, *,
               allow_overlap: bool = True) -> Document:
    """One JSONL line as a document; raises :class:`FormatError` naming the file and line."""
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as e:
        raise FormatError(display, f"not valid JSON: {e.msg} (column {e.colno})", line) from None
    except RecursionError:
        raise FormatError(display, f"JSON is nested more than {MAX_DEPTH} levels deep", line) from None
    except ValueError:
        # json turns a number longer than Python's digit limit (4300) into a ValueError of its own
        raise FormatError(display, "not valid JSON here: a number has too many digits", line) from None
    if not isinstance(obj, dict):
        raise FormatError(display, "each line must be a JSON object", line)
    check_values(obj, display, line)
    text = obj.get("text")
    if not isinstance(text, str) or not text.strip():
        raise FormatError(display, 'missing or empty "text"', line)
    if "\x00" in text:
        raise FormatError(display, '"text" holds binary data (a NUL character)', line)
    meta = obj.get("meta", {}) or {}
    if not isinstance(meta, dict):
        raise FormatError(display, '"meta" must be an object', line)
    doc_id = meta.get("id", default_id)
    if not isinstance(doc_id, (str, int)) or isinstance(doc_id, bool) or str(doc_id).strip() == "":
        raise FormatError(display, '"meta.id" must be a non-empty string or integer', line)
    doc_id = str(doc_id)
    problem = name_problem(doc_id)
    if problem:
        raise FormatError(display, f'the document id ("meta.id", else the file name) cannot be used as a file '
                                   f"name: {problem}", line)
    raw_spans = obj.get("spans", []) or []
    if not isinstance(raw_spans, list):
        raise FormatError(display, '"spans" must be a list', line)
    spans = [_span(s, k, schema, doc_id, text, display, line) for k, s in enumerate(raw_spans)]
    if not allow_overlap:
        refuse_overlaps([(s, None) for s in spans], display, line)
    patient_id = obj.get("patient_id", meta.get("patient_id"))
    if patient_id is not None and not isinstance(patient_id, (str, int)):
        raise FormatError(display, '"patient_id" must be a string or integer', line)
    return Document(doc_id=doc_id, text=text, spans=sorted_unique(spans), meta=dict(meta),
                    patient_id=None if patient_id is None else str(patient_id), source_file=display)


def read_jsonl(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
               progress: Progress | None = None, allow_overlap: bool = True) -> list[Document]:
    """Every line of every ``.jsonl`` under ``paths``; blank lines are skipped; ids must be unique,
    even ignoring letter case; ``allow_overlap=False`` refuses overlapping spans (file and line)."""
    return list(iter_jsonl(paths, schema, limits=limits, progress=progress, allow_overlap=allow_overlap))


def _lines(content: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of ``content``, one at a time (no list of every line)."""
    start, lineno = 0, 1
    while start <= len(content):
        end = content.find("\n", start)
        end = len(content) if end < 0 else end
        yield lineno, content[start:end]
        start, lineno = end + 1, lineno + 1


def iter_jsonl(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
               progress: Progress | None = None, allow_overlap: bool = True) -> Iterator[Document]:
    """The documents of :func:`read_jsonl` one at a time (each file's text is read whole, its
    documents are made when asked for: a command streaming thousands holds a few)."""
    seen: dict[str, str] = {}  # name_key(id) -> "file:line" where it was first used
    with open_entries(paths, SUFFIXES, limits) as entries:
        if not entries:
            raise FormatError(str(paths), "no .jsonl files found")
        for i, e in enumerate(entries):
            content = decode_utf8(e.read(), e.display)
            if content.startswith("\ufeff"):
                content = content[1:]  # an encoding mark before the first object, not data
            n_docs = 0
            for lineno, raw in _lines(content):
                if not raw.strip():
                    continue
                doc = parse_line(raw, schema, f"{e.stem_id}-{lineno}", e.display, lineno,
                                 allow_overlap=allow_overlap)
                key = name_key(doc.doc_id)
                if key in seen:
                    raise FormatError(e.display, "the document id repeats the one at "
                                                 f"{seen[key]} (letter case, Unicode form and trailing dots "
                                                 "aside)", lineno)
                seen[key] = f"{e.display}:{lineno}"
                n_docs += 1
                yield doc
            if not n_docs:
                raise FormatError(e.display, "file is empty")
            if progress:
                progress(i + 1, len(entries))


def to_record(doc: Document) -> dict:
    meta = dict(doc.meta)
    meta["id"] = doc.doc_id
    rec: dict = {"text": doc.text, "meta": meta, "spans": [
        {"start": s.start, "end": s.end, "label": s.label, "category": s.category, "type": s.type}
        for s in sorted(doc.spans, key=lambda s: (s.start, s.end, s.label))
    ]}
    if doc.patient_id is not None:
        rec["patient_id"] = doc.patient_id
    return rec


def write_jsonl(docs: Sequence[Document], out_dir: str | os.PathLike, *, filename: str = "documents.jsonl") -> list[Path]:
    """All documents into ``out_dir/<filename>``, one line each (``meta.id`` holds the id)."""
    out = Path(out_dir)
    ids: set[str] = set()
    for doc in docs:
        check_spans_fit(doc, out)
        if doc.doc_id in ids:
            raise FormatError(str(out), f"two documents share the id {doc.doc_id!r}")
        ids.add(doc.doc_id)
    path = out / filename
    write_file(path, "".join(json.dumps(to_record(d), ensure_ascii=False) + "\n" for d in docs))
    return [path]
