"""Pure operations behind the Annotate and Review pages: converting to and from the
``text_labeler`` component, "mark all occurrences", "remove this one / all", overlap checks and
the JSON form of unsaved work.

Why pure functions: the pages only wire buttons to these, so the behaviour an annotator relies
on (which occurrences get marked, which spans get removed, what happens to labels outside the
schema) is tested here without a browser.

The component (``streamlit_annotation_tools.text_labeler``) takes and returns
``{label: [{"start", "end", "label": covered text}]}``. Its offsets are JavaScript string
indices (UTF-16 code units), which differ from Python's for characters outside the Basic
Multilingual Plane; :func:`to_labeler` and :func:`from_labeler` convert both ways. Labels are
the schema's fine types; each maps to its category. The component also has a free "Add Label"
box that cannot be hidden: :func:`from_labeler` drops spans under labels outside the schema and
reports how many, so the page can warn.
"""
from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from pipeline.errors import WorkbenchError
from pipeline.schemas import LabelSchema
from pipeline.spans import Span, SpanError


class AnnotationError(WorkbenchError):
    """Unusable annotation input (e.g. a malformed JSON file of spans); safe to show."""


# --------------------------------------------------------------------------- UTF-16 offsets

def _has_astral(text: str) -> bool:
    return any(ord(c) > 0xFFFF for c in text)


def _astral_positions(text: str) -> list[int]:
    """Python indices of characters that take two UTF-16 code units."""
    return [i for i, c in enumerate(text) if ord(c) > 0xFFFF]


def to_utf16(text: str, index: int, astral: Sequence[int] | None = None) -> int:
    """Python string index -> UTF-16 code unit index."""
    astral = _astral_positions(text) if astral is None else astral
    return index + bisect.bisect_left(astral, index)


def from_utf16(text: str, unit: int, astral: Sequence[int] | None = None) -> int:
    """UTF-16 code unit index -> Python string index (a unit inside a surrogate pair maps to the
    character that contains it)."""
    astral = _astral_positions(text) if astral is None else astral
    lo, hi = 0, len(text)
    while lo < hi:  # smallest python index whose utf-16 index is >= unit
        mid = (lo + hi) // 2
        if mid + bisect.bisect_left(astral, mid) < unit:
            lo = mid + 1
        else:
            hi = mid
    return lo


# --------------------------------------------------------------------------- component I/O

def to_labeler(text: str, spans: Iterable[Span], schema: LabelSchema) -> dict[str, list[dict]]:
    """The component's ``labels`` argument: every schema type (in schema order, empty lists
    included, so each label is offered) with its spans. A span without a fine type is shown
    under its category's first type."""
    astral = _astral_positions(text) if _has_astral(text) else []
    out: dict[str, list[dict]] = {t: [] for t in schema.types}
    for s in sorted(spans, key=lambda s: (s.start, s.end)):
        label = s.type if s.type in out else (schema.categories.get(s.category, ("",))[0] or None)
        if label not in out:
            continue
        start, end = (to_utf16(text, s.start, astral), to_utf16(text, s.end, astral)) if astral else (s.start, s.end)
        out[label].append({"start": start, "end": end, "label": text[s.start:s.end]})
    return out


@dataclass
class LabelerResult:
    """Spans read back from the component, and what had to be left out (counts, labels and
    offsets only: safe to show)."""

    spans: list[Span]
    ignored_labels: dict[str, int] = field(default_factory=dict)   # label outside the schema -> spans dropped
    invalid: int = 0                                                # spans with unusable offsets
    restored_labels: dict[str, int] = field(default_factory=dict)  # label chip removed -> spans kept

    @property
    def has_warnings(self) -> bool:
        return bool(self.ignored_labels) or bool(self.invalid) or bool(self.restored_labels)

    def warnings(self) -> list[str]:
        """Messages a page shows (labels and counts only)."""
        out = []
        if self.ignored_labels:
            out.append("Ignored spans under labels that are not in the project's schema: " + ", ".join(
                f"{label} ({n})" for label, n in sorted(self.ignored_labels.items())) + ". Use the schema's labels only.")
        if self.invalid:
            out.append(f"Ignored {self.invalid} span(s) with offsets outside the document.")
        if self.restored_labels:
            out.append("Removing a whole label would delete all its spans at once, so it was undone: " + ", ".join(
                f"{label} ({n})" for label, n in sorted(self.restored_labels.items()))
                + ". Remove spans one at a time, or use 'remove all' below.")
        return out


def from_labeler(value: Mapping[str, Any] | None, text: str, schema: LabelSchema, doc_id: str, *,
                 previous: Sequence[Span] = (), source: str = "", layer: str = "") -> LabelerResult:
    """Spans from the component's return value.

    A span equal (offsets and type) to one in ``previous`` keeps that span's source and score,
    so accepted machine suggestions stay recognisable; new spans get ``source`` and score 1.
    Duplicates collapse; spans under labels outside the schema are dropped and counted in
    ``ignored_labels``; spans with offsets outside the text are dropped and counted. A schema
    label missing from the value altogether was removed with the component's label chip (one click
    that drops every span under it): its spans from ``previous`` are kept and counted in
    ``restored_labels``, so no work is lost to a stray click.
    """
    if not value:
        return LabelerResult(spans=[])
    astral = _astral_positions(text) if _has_astral(text) else []
    before = {(s.start, s.end, s.label): s for s in previous}
    types = set(schema.types)
    seen: dict[tuple[int, int, str], Span] = {}
    ignored: dict[str, int] = {}
    invalid = 0
    for label, items in value.items():
        items = list(items or [])
        if label not in types:
            if items:
                ignored[str(label)] = ignored.get(str(label), 0) + len(items)
            continue
        category = schema.category_of(label)
        for it in items:
            try:
                start, end = int(it["start"]), int(it["end"])
            except (KeyError, TypeError, ValueError):
                invalid += 1
                continue
            if astral:
                start, end = from_utf16(text, start, astral), from_utf16(text, end, astral)
            if not (0 <= start < end <= len(text)):
                invalid += 1
                continue
            key = (start, end, label)
            if key in seen:
                continue
            old = before.get(key)
            seen[key] = old.with_(doc_id=doc_id, layer=layer or old.layer) if old else Span(
                doc_id=doc_id, start=start, end=end, category=category, type=label, source=source, score=1.0,
                layer=layer)
    restored: dict[str, int] = {}
    for old in previous:
        if old.label in types and old.label not in value:
            restored[old.label] = restored.get(old.label, 0) + 1
            seen.setdefault((old.start, old.end, old.label), old.with_(doc_id=doc_id, layer=layer or old.layer))
    spans = sorted(seen.values(), key=lambda s: (s.start, s.end, s.label))
    return LabelerResult(spans=spans, ignored_labels=ignored, invalid=invalid, restored_labels=restored)


# --------------------------------------------------------------------------- span edits

def span_keys(spans: Iterable[Span]) -> set[tuple[int, int, str, str]]:
    return {(s.start, s.end, s.category, s.type) for s in spans}


def same_spans(a: Iterable[Span], b: Iterable[Span]) -> bool:
    """Same offsets and labels (source, score and layer ignored): "are there unsaved changes"."""
    return span_keys(a) == span_keys(b)


def find_overlaps(spans: Iterable[Span]) -> list[tuple[Span, Span]]:
    """Pairs of overlapping spans (the store refuses overlapping spans in a layer)."""
    out = []
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            if b.start >= a.end:
                break
            out.append((a, b))
    return out


def word_occurrences(text: str, surface: str, *, ignore_case: bool = False) -> list[tuple[int, int]]:
    """Offsets of every whole-word occurrence of ``surface`` in ``text``: no letter, digit or
    underscore right before or after it (so "Ann" does not match inside "Anna")."""
    if not surface or not surface.strip():
        return []
    flags = re.IGNORECASE if ignore_case else 0
    pattern = re.compile(r"(?<!\w)" + re.escape(surface) + r"(?!\w)", flags)
    return [(m.start(), m.end()) for m in pattern.finditer(text)]


def mark_all_occurrences(text: str, spans: Sequence[Span], span: Span, *, ignore_case: bool = False,
                         source: str | None = None) -> tuple[list[Span], int]:
    """Label every other whole-word occurrence of ``span``'s text like ``span``.

    Occurrences that overlap an existing span are left alone (the annotator decided something
    there already). Returns the new span list (sorted) and how many spans were added. New spans
    copy ``span``'s category, type and layer; their source is ``source`` (default: ``span``'s)
    and their score 1.
    """
    if not (0 <= span.start < span.end <= len(text)):
        raise SpanError(f"{span.doc_id}: span {span.start}-{span.end} lies outside the text (length {len(text)})")
    surface = text[span.start:span.end]
    out = list(spans)
    added = 0
    for start, end in word_occurrences(text, surface, ignore_case=ignore_case):
        if any(s.start < end and start < s.end for s in out):
            continue
        out.append(span.with_(start=start, end=end, source=source if source is not None else span.source, score=1.0))
        added += 1
    out.sort(key=lambda s: (s.start, s.end, s.label))
    return out, added


def remove_span(spans: Sequence[Span], span: Span) -> list[Span]:
    """All spans but ``span`` (matched on offsets and label)."""
    key = (span.start, span.end, span.label)
    return [s for s in spans if (s.start, s.end, s.label) != key]


def remove_same_text(text: str, spans: Sequence[Span], span: Span, *,
                     ignore_case: bool = False) -> tuple[list[Span], int]:
    """Remove every span whose covered text equals ``span``'s (whatever its label); returns the
    remaining spans and how many were removed."""
    surface = text[span.start:span.end]
    norm = (lambda s: s.casefold()) if ignore_case else (lambda s: s)
    target = norm(surface)
    kept = [s for s in spans if norm(text[s.start:s.end]) != target]
    return kept, len(spans) - len(kept)


# --------------------------------------------------------------------------- unsaved work as JSON

def spans_to_json(doc_id: int | str, layer: str, base_version: int, spans: Iterable[Span]) -> str:
    """Unsaved work as a JSON document (offsets and labels; no text), for the annotator to keep
    when a save is refused."""
    return json.dumps({"doc_id": str(doc_id), "layer": layer, "base_version": int(base_version),
                       "spans": [{"start": s.start, "end": s.end, "category": s.category, "type": s.type,
                                  "source": s.source, "score": s.score} for s in spans]},
                      ensure_ascii=False, indent=1)


def spans_from_json(data: str | bytes, doc_id: int | str, text: str, schema: LabelSchema, *,
                    layer: str = "") -> list[Span]:
    """Read back :func:`spans_to_json` for the same document; spans are checked against the
    text and the schema. Raises :class:`AnnotationError` (no text in the message)."""
    try:
        obj = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise AnnotationError(f"the spans file is not valid JSON ({type(e).__name__})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("spans"), list):
        raise AnnotationError('the spans file must be an object with a "spans" list')
    if str(obj.get("doc_id", "")) != str(doc_id):
        raise AnnotationError(f"the spans file is for document {obj.get('doc_id')!r}, not {doc_id}")
    out = []
    for i, d in enumerate(obj["spans"]):
        try:
            start, end, cat, typ = int(d["start"]), int(d["end"]), str(d["category"]), str(d.get("type") or "")
        except (KeyError, TypeError, ValueError):
            raise AnnotationError(f"span {i + 1} of the spans file lacks start, end or category") from None
        if not (0 <= start < end <= len(text)):
            raise AnnotationError(f"span {i + 1} ({start}-{end}) lies outside the document (length {len(text)})")
        if not schema.has(cat, typ):
            raise AnnotationError(f"span {i + 1} has label {cat}/{typ or '-'}, which is not in the schema")
        score = d.get("score", 1.0)
        out.append(Span(doc_id=str(doc_id), start=start, end=end, category=cat, type=typ,
                        source=str(d.get("source") or ""), score=float(score if score is not None else 1.0),
                        layer=layer))
    return sorted(out, key=lambda s: (s.start, s.end, s.label))


# --------------------------------------------------------------------------- work in a session

@dataclass
class WorkState:
    """One user's work on one layer of one document, as a page keeps it between reruns.

    ``base`` is what the labeler was started from, ``base_version`` the stored version of the
    layer being written when the work started (sent with the save, so a save over someone else's
    newer version is refused), ``current`` the latest spans (labeler output or an edit), ``saved``
    the spans of the last successful save (or the loaded ones), ``stale`` the message of a
    refused save while one is pending. A refused save leaves ``current`` as it was: nothing the
    user did is dropped.
    """

    doc_id: int
    layer: str
    base: list[Span]
    base_version: int
    opened_at: float
    current: list[Span] = field(default_factory=list)
    saved: list[Span] = field(default_factory=list)
    stale: str | None = None
    notice: str | None = None

    @property
    def unsaved(self) -> bool:
        return not same_spans(self.current, self.saved)

    def status_line(self) -> str:
        """What the save area says: untouched machine suggestions are not "changes" of the user's."""
        if not self.unsaved:
            return "No unsaved changes."
        if self.base_version == 0 and same_spans(self.current, self.base):
            return "Machine suggestions, not saved yet."
        return "Unsaved changes."

    def restart_from(self, spans: Sequence[Span]) -> None:
        """Show ``spans`` in a fresh labeler (after an edit button or loading a file)."""
        self.base = list(spans)
        self.current = list(spans)

    def saved_as(self, version: int, now: float) -> None:
        self.base_version = int(version)
        self.saved = list(self.current)
        self.opened_at = now
        self.stale = None

    def rebase(self, version: int) -> None:
        """Keep the current spans but build on stored ``version`` (the user chose to overwrite)."""
        self.base_version = int(version)
        self.stale = None
