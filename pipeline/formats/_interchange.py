"""What the annotation-tool formats share (Label Studio, doccano, Prodigy, spaCy, Hugging Face).

Why a module of its own: these formats carry spans of several *layers* in one file (Label
Studio's ``annotations`` per annotator next to its ``predictions``), while brat, XML and JSONL
carry one. A span read here says its layer in :attr:`Span.layer`: ``""`` is the layer the
import writes into (gold by default, as for every other format), ``pre`` the machine
suggestions, ``annotator:<name>`` one person's annotations. Overlap checks and duplicate removal
are therefore per layer: a prediction equal to a gold span is not a duplicate of it.

Every check the old readers make is made here too, through the same helpers
(:mod:`pipeline.formats._common`): offsets are non-negative integers inside the text, labels
resolve through the project's schema, a span's quoted text must match the document, document
ids are names the writers can write back, unique even ignoring letter case. Errors name the
file and the line (JSON Lines), the task or row, and the field; never a value read from the file.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

from pipeline.errors import FormatError
from pipeline.formats._common import (check_offsets, parse_offset, refuse_overlaps, resolve_label, same_text,
                                      sorted_unique)
from pipeline.formats._output import check_spans_fit, name_key, name_problem
from pipeline.formats._sources import Entry, Limits, PathLike, Progress, decode_utf8, open_entries
from pipeline.formats.jsonl import MAX_DEPTH, check_values
from pipeline.layers import PRE
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

#: The layer the import writes into (``--layer``, gold by default).
MAIN = ""
#: Metadata key a reader sets on a document nobody annotated (a Label Studio task without an
#: annotation, a Prodigy example without an answer): the import then gives it no layer, rather
#: than an empty one that would say "a person found no PHI here". Writers read it the same way
#: and never write it (:func:`json_safe_meta`).
UNANNOTATED = "_unannotated"
#: Metadata key listing the ``annotator:<name>`` layers of a document that hold no span (an
#: annotator who submitted and found nothing): the import keeps them as empty layers, not absent.
EMPTY_LAYERS = "_empty_layers"
#: The marks a reader sets; a file's own metadata never carries them in (:func:`file_meta`).
MARKS = (UNANNOTATED, EMPTY_LAYERS)


@dataclass(frozen=True)
class Place:
    """Where a value was read: the file, the line (JSON Lines; None for one JSON document or a
    binary file) and the item inside it (``task 3``, ``row 12``, ``doc 4``) for the message."""

    display: str
    line: int | None = None
    item: str = ""

    def error(self, message: str) -> FormatError:
        return FormatError(self.display, f"{self.item}: {message}" if self.item else message, self.line)


def load_json(raw: str, place: Place) -> object:
    """``raw`` parsed as JSON, refused (one line, no value quoted) when it is not, when it nests
    deeper than the JSONL reader allows, or holds unpaired surrogate escapes."""
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as e:
        line = place.line if place.line is not None else e.lineno
        raise FormatError(place.display, f"not valid JSON: {e.msg} (column {e.colno})", line) from None
    except RecursionError:
        raise place.error(f"JSON is nested more than {MAX_DEPTH} levels deep") from None
    except ValueError:  # a number longer than Python's digit limit
        raise place.error("not valid JSON here: a number has too many digits") from None
    check_values(obj, place.display, place.line)
    return obj


def require_text(obj: object, place: Place, field: str = '"text"') -> str:
    """A document's text: a non-empty string without a NUL character."""
    if not isinstance(obj, str) or not obj.strip():
        raise place.error(f"missing or empty {field}")
    if "\x00" in obj:
        raise place.error(f"{field} holds binary data (a NUL character)")
    return obj


def document_id(value: object, default: str, place: Place, field: str) -> str:
    """The document id read from ``field`` (or ``default`` when it is absent), checked with the
    writers' rule (:func:`pipeline.formats._output.name_problem`); never quoted."""
    if value is None:
        value = default
    if not isinstance(value, (str, int)) or isinstance(value, bool) or str(value).strip() == "":
        raise place.error(f"{field} must be a non-empty string or integer")
    doc_id = str(value)
    problem = name_problem(doc_id)
    if problem:
        raise place.error(f"the document id ({field}) cannot be used as a file name: {problem}")
    return doc_id


def optional_string(value: object, place: Place, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise place.error(f"{field} must be a string or integer")
    return str(value)


def make_span(schema: LabelSchema, text: str, doc_id: str, place: Place, what: str, *, start: object,
              end: object, label: object, quoted: object = None, source: str, layer: str = MAIN,
              score: object = None) -> Span:
    """One span read from a file, checked like the JSONL reader's: offsets, label, quoted text.

    ``what`` names the span in messages (``annotation 0, result 2``); the label and the quoted
    text are never repeated, only the offsets and the schema's own names."""
    named = f"{place.item}, {what}" if place.item else what
    s = parse_offset(start, f"{named} start", place.display, place.line)
    e = parse_offset(end, f"{named} end", place.display, place.line)
    if not isinstance(label, str) or not label:
        raise place.error(f"{what} needs a string label")
    cat, typ = resolve_label(schema, label, place.display, place.line, field=f"{named}'s label")
    try:
        check_offsets(s, e, len(text), place.display, place.line)
    except FormatError:
        raise place.error(f"{what}: span {s}-{e} lies outside the text (length {len(text)}) or is empty") from None
    if quoted is not None:
        if not isinstance(quoted, str):
            raise place.error(f'{what}: its "text" must be a string')
        if not same_text(quoted, text[s:e]):
            raise place.error(f"{what} ({s}-{e}, {typ or cat}): its text does not match the document at those offsets")
    return Span(doc_id=doc_id, start=s, end=e, category=cat, type=typ, source=source, score=_score(score, place, what),
                layer=layer)


def _score(value: object, place: Place, what: str) -> float:
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0.0 <= float(value) <= 1.0):
        raise place.error(f"{what}: a score must be a number from 0 to 1")
    return float(value)


def new_document(doc_id: str, text: str, spans: Iterable[Span], place: Place, *, meta: dict, patient: object,
                 patient_field: str, allow_overlap: bool) -> Document:
    """The document a reader returns: spans finished per layer, the patient id checked."""
    return Document(doc_id=doc_id, text=text, spans=finish_spans(spans, place, allow_overlap=allow_overlap),
                    meta=dict(meta), patient_id=optional_string(patient, place, patient_field),
                    source_file=place.display)


def finish_spans(spans: Iterable[Span], place: Place, *, allow_overlap: bool) -> list[Span]:
    """Spans sorted, exact repeats dropped and (``allow_overlap=False``) overlaps refused, each
    within its own layer."""
    by_layer: dict[str, list[Span]] = defaultdict(list)
    for s in spans:
        by_layer[s.layer].append(s)
    out: list[Span] = []
    for layer in sorted(by_layer):
        if not allow_overlap:
            refuse_overlaps([(s, place.line) for s in by_layer[layer]], place.display, place.line)
        out += sorted_unique(by_layer[layer])
    return sorted(out, key=lambda s: (s.start, s.end, s.label, s.layer))


class UniqueIds:
    """Refuses a document id used twice in one import (letter case, Unicode form and trailing
    dots aside), naming both places."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def add(self, doc_id: str, place: Place) -> None:
        key = name_key(doc_id)
        if key in self._seen:
            raise place.error(f"the document id repeats the one at {self._seen[key]} (letter case, Unicode form "
                              "and trailing dots aside)")
        where = f"{place.display}:{place.line}" if place.line is not None else place.display
        self._seen[key] = f"{where} ({place.item})" if place.item else where


def layer_spans(doc: Document) -> dict[str, list[Span]]:
    """A document's spans by layer (``""``: the layer exported; ``pre``: suggestions), each list
    sorted by offsets."""
    out: dict[str, list[Span]] = defaultdict(list)
    for s in sorted(doc.spans, key=lambda s: (s.start, s.end, s.label)):
        out[s.layer if s.layer == PRE or s.layer.startswith("annotator:") else MAIN].append(s)
    return dict(out)


def check_for_writing(docs: Sequence[Document], out_dir: str) -> None:
    """Every document checked before a byte is written: spans inside the text, ids usable as
    names and unique (as the other writers refuse them)."""
    seen: set[str] = set()
    for doc in docs:
        check_spans_fit(doc, out_dir)
        problem = name_problem(str(doc.doc_id))
        if problem:
            raise FormatError(out_dir, f"document id {doc.doc_id!r} cannot be used as a name: {problem}")
        key = name_key(str(doc.doc_id))
        if key in seen:
            raise FormatError(out_dir, f"two documents share the id {doc.doc_id!r} "
                                       "(letter case, Unicode form and trailing dots aside)")
        seen.add(key)


def json_safe_meta(meta: dict) -> dict:
    """The metadata a writer puts in a file: JSON values only (what the JSONL writer writes),
    without the readers' :data:`MARKS`."""
    meta = {k: v for k, v in meta.items() if k not in MARKS}
    return json.loads(json.dumps(meta, ensure_ascii=False, default=str)) if meta else {}


def is_annotated(doc: Document, without: Iterable[str] = ()) -> bool:
    """Whether a writer gives ``doc`` an annotation: not in ``without`` and not marked
    :data:`UNANNOTATED` by the reader it came from."""
    return not doc.meta.get(UNANNOTATED) and doc.doc_id not in set(without)


def json_lines(paths: PathLike | Sequence[PathLike], limits: Limits | None,
               progress: Progress | None) -> Iterator[tuple[Place, dict, str]]:
    """``(place, object, default id)`` for every non-blank line of every ``.jsonl`` under
    ``paths``: the line parsed and checked to be a JSON object; the default id is
    ``<file stem>-<line>``, as the JSONL reader's. A file without a line is refused."""
    with open_entries(paths, (".jsonl", ".ndjson"), limits) as entries:
        if not entries:
            raise Place(str(paths)).error("no .jsonl files found")
        for n, e in enumerate(entries):
            content = decode_utf8(e.read(), e.display)
            if content.startswith("\ufeff"):
                content = content[1:]
            seen = False
            for lineno, raw in enumerate(content.split("\n"), start=1):
                if not raw.strip():
                    continue
                place = Place(e.display, lineno)
                obj = load_json(raw, place)
                if not isinstance(obj, dict):
                    raise place.error("each line must be a JSON object")
                seen = True
                yield place, obj, f"{e.stem_id}-{lineno}"
            if not seen:
                raise Place(e.display).error("file is empty")
            if progress:
                progress(n + 1, len(entries))


def file_meta(value: object, place: Place, field: str = '"meta"') -> dict:
    """A document's metadata as the file gives it (an object, or nothing), without the keys the
    readers use as :data:`MARKS`: a file cannot ask the import to skip or add a layer."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise place.error(f"{field} must be an object")
    return {k: v for k, v in value.items() if k not in MARKS}


#: ``(place, item, default id)`` for every item (task, line, row, doc) of every file read.
Items = Iterator[tuple[Place, object, str]]


def file_items(paths: PathLike | Sequence[PathLike], suffixes: tuple[str, ...], limits: Limits | None,
               progress: Progress | None, items: Callable[[Entry], list], noun: str) -> Items:
    """The items ``items(entry)`` finds in every file under ``paths`` with one of ``suffixes``,
    each with its place (``<noun> <index>``) and default id ``<file stem>-<index>``. A folder
    without such a file, or a file without an item, is refused."""
    with open_entries(paths, suffixes, limits) as entries:
        if not entries:
            raise Place(str(paths)).error(f"no {'/'.join(suffixes)} files found")
        for n, e in enumerate(entries):
            found = items(e)
            if not found:
                raise Place(e.display).error(f"file holds no {noun}s")
            for k, item in enumerate(found):
                yield Place(e.display, None, f"{noun} {k}"), item, f"{e.stem_id}-{k}"
            if progress:
                progress(n + 1, len(entries))


def collect(found: Items, parse: Callable[[object, str, Place], Document | None]) -> list[Document]:
    """The documents ``parse`` makes of the items (None: an item left out, a rejected example),
    ids unique in the whole import."""
    ids = UniqueIds()
    docs: list[Document] = []
    for place, item, default_id in found:
        doc = parse(item, default_id, place)
        if doc is not None:
            ids.add(doc.doc_id, place)
            docs.append(doc)
    return docs
