"""brat standoff: ``X.txt`` holds the text, ``X.ann`` one ``T`` line per span.

``T1<TAB>LABEL START END<TAB>span text``. Labels resolve through the project's schema. The span
text is checked against the document at those offsets: a mismatch means the offsets were made
for a different text (another encoding, a stripped BOM, changed newlines) and every span would be
misplaced, so it is refused. Discontinuous spans (``0 5;8 10``) are refused too: a span here is
one stretch of text. Notes (``#``), attributes, relations and events are ignored. Errors name the
file, the line and the column; they never repeat the id or label column's value (a patient's
name typed into the wrong column must not end up on a screen or in a log).

MEDDOCAN counts a leading BOM as character 0 (its XML copy agrees), so the text keeps it. If
every span of a file that starts with a BOM matches only when the BOM is not counted, the file
was written by a tool that stripped it, and the offsets are shifted by one instead of refused.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, Sequence

from pipeline.errors import FormatError
from pipeline.formats._common import (check_offsets, parse_offset, refuse_overlaps, require_text, resolve_label,
                                      same_text, sorted_unique)
from pipeline.formats._output import check_spans_fit, target_paths, write_file
from pipeline.formats._sources import (Entry, Limits, PathLike, Progress, check_unique_ids, decode_utf8,
                                       open_entries)
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

SOURCE = "import:brat"
_IGNORED_PREFIXES = ("#", "A", "R", "E", "M", "N", "*")


def _expand(paths: PathLike | Sequence[PathLike]) -> list[PathLike]:
    """A ``.txt`` or ``.ann`` named directly brings its partner along."""
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    out: list[PathLike] = []
    for item in items:
        p = Path(item)
        if p.is_file() and p.suffix.lower() in (".txt", ".ann"):
            for partner in (p.with_suffix(".txt"), p.with_suffix(".ann")):
                if partner not in out:
                    out.append(partner)
        else:
            out.append(item)
    return out


def parse_ann(ann: str, text: str, schema: LabelSchema, doc_id: str, display: str, *,
              allow_overlap: bool = True) -> list[Span]:
    """The ``T`` lines of one ``.ann`` as spans of ``text``; raises :class:`FormatError` (file, line),
    with ``allow_overlap=False`` also for overlapping spans (naming both lines)."""
    raw: list[tuple[int, int, int, str, str, str]] = []  # line, start, end, category, type, ann text
    for lineno, line in enumerate(ann.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        if line.startswith(_IGNORED_PREFIXES):
            continue
        if not line.startswith("T"):
            raise FormatError(display, "not a brat annotation line (expected T, A, R, E, M, N, * or #)", lineno)
        fields = line.split("\t", 2)
        if len(fields) != 3:
            raise FormatError(display, "a T line needs three tab-separated fields: id, 'LABEL START END', text",
                              lineno)
        _ann_id, middle, ann_text = fields  # the id is never quoted: it could be anything typed there
        if ";" in middle:
            raise FormatError(display, "discontinuous spans (';' in the second column) are not supported", lineno)
        parts = middle.split()
        if len(parts) != 3:
            raise FormatError(display, "the second column must be 'LABEL START END'", lineno)
        label, s_raw, e_raw = parts
        start = parse_offset(s_raw, "start", display, lineno)
        end = parse_offset(e_raw, "end", display, lineno)
        category, type_ = resolve_label(schema, label, display, lineno, field="the label (second column)")
        raw.append((lineno, start, end, category, type_, ann_text))

    shift = 0
    if text.startswith("\ufeff") and raw:
        def fits(off: int) -> bool:
            return all(0 <= s + off < e + off <= len(text) and same_text(t, text[s + off:e + off])
                       for _, s, e, _, _, t in raw)
        if not fits(0) and fits(1):
            shift = 1

    placed: list[tuple[Span, int]] = []
    for lineno, start, end, category, type_, ann_text in raw:
        start, end = start + shift, end + shift
        check_offsets(start, end, len(text), display, lineno)
        if not same_text(ann_text, text[start:end]):
            raise FormatError(display, f"span {start - shift}-{end - shift} ({type_ or category}): the text in the "
                                       "annotation does not match the document at those offsets", lineno)
        placed.append((Span(doc_id=doc_id, start=start, end=end, category=category, type=type_, source=SOURCE),
                       lineno))
    if not allow_overlap:
        refuse_overlaps(placed, display)
    return sorted_unique(s for s, _ in placed)


def _pairs(entries: list[Entry]) -> list[tuple[Entry, Entry]]:
    # ``doc1.txt`` and ``doc1.TXT`` (or their .ann) share a stem: refused, where a mapping by stem
    # would keep one silently and drop the other note with its spans
    for suffix in (".txt", ".ann"):
        check_unique_ids([(e.stem_id, e.display) for e in entries if e.suffix == suffix])
    txt = {e.stem_id: e for e in entries if e.suffix == ".txt"}
    ann = {e.stem_id: e for e in entries if e.suffix == ".ann"}
    for stem, e in ann.items():
        if stem not in txt:
            raise FormatError(e.display, "annotation file has no matching .txt")
    pairs = []
    for stem, t in sorted(txt.items()):
        if stem not in ann:
            raise FormatError(t.display, "text file has no matching .ann (write an empty .ann for a document "
                                         "without PHI, or import it as plain text)")
        pairs.append((t, ann[stem]))
    return pairs


def read_brat(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
              progress: Progress | None = None, allow_overlap: bool = True) -> list[Document]:
    """Every ``.txt``/``.ann`` pair under ``paths`` (files, folders or zips); all checked before any
    document is returned (``allow_overlap=False``: overlapping spans refused, with file and line)."""
    return list(iter_brat(paths, schema, limits=limits, progress=progress, allow_overlap=allow_overlap))


def iter_brat(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
              progress: Progress | None = None, allow_overlap: bool = True,
              spans: bool = True) -> Iterator[Document]:
    """The documents of :func:`read_brat` one at a time, each read when asked for (a command that
    streams thousands of notes holds a few, not all). Names are checked before the first one; a
    broken file is met (and raised) when its turn comes. ``spans=False``: the ``.ann`` files are
    not read (a command that replaces the spans)."""
    with open_entries(_expand(paths), (".txt", ".ann"), limits) as entries:
        pairs = _pairs(entries)
        if not pairs:
            raise FormatError(str(paths), "no .txt/.ann pairs found")
        check_unique_ids([(t.stem_id, t.display) for t, _ in pairs])
        for i, (t, a) in enumerate(pairs):
            text = decode_utf8(t.read(), t.display)
            require_text(text, t.display)
            found: list = []
            if spans:
                ann = decode_utf8(a.read(), a.display)
                if ann.startswith("\ufeff"):
                    ann = ann[1:]  # a BOM on the annotation file is an encoding mark, not data
                found = parse_ann(ann, text, schema, t.stem_id, a.display, allow_overlap=allow_overlap)
            yield Document(doc_id=t.stem_id, text=text, spans=found, meta={}, source_file=t.display)
            if progress:
                progress(i + 1, len(pairs))


def format_ann(doc: Document) -> str:
    """The ``.ann`` body for one document: T ids numbered in offset order; newlines, tabs and
    carriage returns inside a span's text are written as spaces (brat's convention)."""
    lines = []
    spans = sorted(doc.spans, key=lambda s: (s.start, s.end, s.label))
    for i, s in enumerate(spans, start=1):
        frag = doc.text[s.start:s.end].replace("\r", " ").replace("\n", " ").replace("\t", " ")
        lines.append(f"T{i}\t{s.label} {s.start} {s.end}\t{frag}\n")
    return "".join(lines)


def write_brat(docs: Sequence[Document], out_dir: str | os.PathLike) -> list[Path]:
    """``<doc_id>.txt`` (verbatim) and ``<doc_id>.ann`` per document; labels are the fine type
    (the category where a span has none)."""
    txt_paths = target_paths(docs, out_dir, ".txt")
    for doc in docs:
        check_spans_fit(doc, out_dir)
        for s in doc.spans:
            if any(c.isspace() for c in s.label):
                raise FormatError(str(out_dir), f"document {doc.doc_id!r}: label {s.label!r} contains whitespace")
    written: list[Path] = []
    for doc, p in zip(docs, txt_paths):
        write_file(p, doc.text)
        ann_path = p.with_suffix(".ann")
        write_file(ann_path, format_ann(doc))
        written += [p, ann_path]
    return written
