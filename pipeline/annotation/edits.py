"""Pure operations behind the Annotate and Review pages: the span editor's offsets and what it
sends back, word snapping, "mark all occurrences", "remove this one / all" and overlap checks
(a user's unsaved work and its JSON form: :mod:`pipeline.annotation.work`).

Why pure functions: the pages only wire the editor to these, so the behaviour an annotator relies
on (which occurrences get marked, which spans get removed, what a selection snaps to, what
happens to labels outside the schema) is tested here without a browser.

The editor (``dashboard/editor``) works in JavaScript string indices (UTF-16 code units), which
differ from Python's for characters outside the Basic Multilingual Plane (an emoji before a span
shifts it by one); :func:`to_editor` and :func:`from_editor` convert both ways, and
:func:`from_editor` checks every span against the text and the schema: the browser is never
trusted. Labels are the schema's fine types; each maps to its category.
"""
from __future__ import annotations

import bisect
import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from pipeline.errors import WorkbenchError
from pipeline.schemas import LabelSchema
from pipeline.spans import ACCEPTED, BULK, CHANGED, CREATED, Span, SpanError


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


# --------------------------------------------------------------------------- words and whitespace
#
# The editor (``dashboard/editor/core.js``) snaps a selection with the same rules, in UTF-16
# code units; ``tests/test_editor_browser.py`` checks both give the same spans.

def is_word_char(c: str) -> bool:
    """A letter, a mark, a digit or ``_`` (the JavaScript side: ``/[\\p{L}\\p{N}\\p{M}_]/u``)."""
    return c == "_" or unicodedata.category(c)[0] in "LNM"


def is_space(c: str) -> bool:
    """Whitespace as both sides see it (Python's ``isspace`` plus U+FEFF, JavaScript's ``\\s``
    plus U+001C-U+001F and U+0085)."""
    return c.isspace() or c == "\ufeff"


def trim_whitespace(text: str, start: int, end: int) -> tuple[int, int] | None:
    """``[start, end)`` without leading or trailing whitespace (newlines included); ``None`` if
    nothing is left."""
    start, end = max(0, min(start, end)), min(len(text), max(start, end))
    while start < end and is_space(text[start]):
        start += 1
    while end > start and is_space(text[end - 1]):
        end -= 1
    return (start, end) if start < end else None


def snap_to_words(text: str, start: int, end: int) -> tuple[int, int] | None:
    """What a selection of ``[start, end)`` labels: without leading or trailing whitespace, and
    widened to whole words where it starts or ends inside one (``"alter Aust"`` in ``"Walter
    Austin"`` becomes the two names). Punctuation is a boundary: selecting ``"Dr. Smith"`` keeps
    the full stop, selecting ``"Smith"`` inside ``"Dr. Smith,"`` takes neither neighbour.
    ``None`` when the selection holds only whitespace."""
    trimmed = trim_whitespace(text, start, end)
    if trimmed is None:
        return None
    start, end = trimmed
    while start > 0 and is_word_char(text[start - 1]) and is_word_char(text[start]):
        start -= 1
    while end < len(text) and is_word_char(text[end - 1]) and is_word_char(text[end]):
        end += 1
    return start, end


def describe(text: str, span: Span, width: int = 40) -> str:
    """``'Walter Austin' (PATIENT)``: how messages on screen name a span (the covered text,
    shortened, on one line; never offsets). For the screen only, never for logs or errors."""
    surface = " ".join(text[span.start:span.end].split())
    if len(surface) > width:
        surface = surface[: width - 1] + "…"
    return f"'{surface}' ({span.label})"


# --------------------------------------------------------------------------- component I/O

def is_suggestion(span: Span) -> bool:
    """A machine suggestion nobody accepted or changed yet: its source is not ``human:...``."""
    return not span.source.startswith("human:")


def to_editor(text: str, spans: Iterable[Span], schema: LabelSchema) -> list[dict]:
    """Spans as the editor takes them: UTF-16 offsets, fine type (a span without one is shown
    under its category's first type), category, whether it is an open suggestion, and score."""
    astral = _astral_positions(text) if _has_astral(text) else []
    types = set(schema.types)
    out = []
    for s in sorted(spans, key=lambda s: (s.start, s.end)):
        label = s.type if s.type in types else (schema.categories.get(s.category, ("",))[0] or None)
        if label not in types:
            continue
        start, end = (to_utf16(text, s.start, astral), to_utf16(text, s.end, astral)) if astral else (s.start, s.end)
        out.append({"start": start, "end": end, "type": label, "category": schema.category_of(label),
                    "suggestion": is_suggestion(s), "score": round(float(s.score), 3), "how": s.provenance})
    return out


def open_suggestions(spans: Iterable[Span]) -> int:
    """How many spans are machine suggestions nobody decided yet (:func:`is_suggestion`)."""
    return sum(1 for s in spans if is_suggestion(s))


def finish_refusal(spans: Iterable[Span], *, require_decided: bool) -> str | None:
    """Why a note cannot be finished, or ``None``: only when the project requires every
    suggestion decided (``require_decided``) and some are still open. The editor asks before
    sending a finish with open suggestions; this is the server's check of the project's rule.

    >>> s = Span("d", 0, 4, "NAME", "PATIENT", source="model:v1", score=0.9)
    >>> finish_refusal([s], require_decided=True)
    'Not finished: 1 suggestion is still open and this project requires every suggestion decided first.'
    >>> finish_refusal([s], require_decided=False) is None
    True
    """
    n = open_suggestions(spans)
    if not require_decided or not n:
        return None
    return (f"Not finished: {n} suggestion{' is' if n == 1 else 's are'} still open and this project requires "
            "every suggestion decided first.")


@dataclass
class EditorSpans:
    """Spans read back from the editor, checked against the text and the schema, and what had to
    be changed or left out. ``overlaps`` are pairs (kept, dropped)."""

    spans: list[Span]
    invalid: int = 0                                          # unusable offsets
    not_numbers: int = 0                                      # offsets that are not whole finite numbers
    unknown_labels: dict[str, int] = field(default_factory=dict)  # label outside the schema -> spans dropped
    trimmed: int = 0                                          # whitespace taken off an end
    overlaps: list[tuple[Span, Span]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether the spans differ from what the browser sent (the page then shows the result)."""
        return bool(self.invalid or self.not_numbers or self.unknown_labels or self.trimmed or self.overlaps)

    def messages(self, text: str) -> list[str]:
        """What the page says about it, in words (screen only: names spans by their text)."""
        out = [f"{describe(text, b)} overlaps {describe(text, a)} and was not kept." for a, b in self.overlaps[:5]]
        if len(self.overlaps) > 5:
            out.append(f"{len(self.overlaps) - 5} more overlapping spans were not kept.")
        if self.unknown_labels:
            out.append("Left out spans with labels that are not in the project's schema: " + ", ".join(
                f"{label} ({n})" for label, n in sorted(self.unknown_labels.items())) + ".")
        if self.not_numbers:
            out.append(f"Left out {self.not_numbers} span(s) whose offsets are not whole numbers.")
        if self.invalid:
            out.append(f"Left out {self.invalid} span(s) that lie outside the note.")
        if self.trimmed:
            out.append(f"Took spaces or line breaks off the ends of {self.trimmed} span(s).")
        return out


def from_editor(items: Any, text: str, schema: LabelSchema, doc_id: int | str, *, previous: Sequence[Span] = (),
                source: str = "", layer: str = "") -> EditorSpans:
    """Spans from what the editor sent: ``[{"start", "end", "type", "accepted", "how"}]`` in UTF-16
    offsets; ``how`` is how the person's span came to be (``created``, ``changed``, ``accepted``,
    ``bulk``: see :class:`pipeline.spans.Span`).

    Nothing the browser says is trusted: offsets must be integers inside the text (converted to
    Python's), types must be the schema's, whitespace is trimmed off the ends, duplicates collapse
    and of overlapping spans the first (by start, longest first) is kept. A span equal (offsets
    and type) to one in ``previous`` keeps that span's source and score unless the editor says a
    person accepted it (then its provenance is ``bulk`` when the editor says so, else
    ``accepted``); every other span is a person's: ``source``, score 1, provenance ``changed`` when
    the editor says so, else ``created``. Nothing is ever recorded as bulk-accepted unless it was
    an open suggestion before.
    """
    astral = _astral_positions(text) if _has_astral(text) else []
    before = {(s.start, s.end, s.type): s for s in previous}
    types = set(schema.types)
    out = EditorSpans(spans=[])
    seen: dict[tuple[int, int, str], Span] = {}
    for it in items if isinstance(items, (list, tuple)) else []:
        try:
            raw_start, raw_end, label = it["start"], it["end"], str(it["type"])
        except (KeyError, TypeError):
            out.invalid += 1
            continue
        if not_a_whole_number(raw_start) or not_a_whole_number(raw_end):
            out.not_numbers += 1
            continue
        try:
            start, end = int(raw_start), int(raw_end)
        except (TypeError, ValueError, OverflowError):
            out.invalid += 1
            continue
        if label not in types:
            out.unknown_labels[label[:40]] = out.unknown_labels.get(label[:40], 0) + 1
            continue
        if astral:
            start, end = from_utf16(text, start, astral), from_utf16(text, end, astral)
        if not (0 <= start < end <= len(text)):
            out.invalid += 1
            continue
        trimmed = trim_whitespace(text, start, end)
        if trimmed is None:
            out.invalid += 1
            continue
        if trimmed != (start, end):
            out.trimmed += 1
            start, end = trimmed
        old = before.get((start, end, label))
        accepted = it.get("accepted") is True if isinstance(it, Mapping) else False
        how = it.get("how") if isinstance(it, Mapping) else None
        if old is not None and not (accepted and is_suggestion(old)):
            span = old.with_(doc_id=str(doc_id), layer=layer or old.layer)
        else:
            provenance = (BULK if how == BULK else ACCEPTED) if old is not None else (
                CHANGED if how == CHANGED else CREATED)
            span = Span(doc_id=str(doc_id), start=start, end=end, category=schema.category_of(label), type=label,
                        source=source, score=1.0, layer=layer, provenance=provenance)
        seen.setdefault((start, end, label), span)
    kept: list[Span] = []
    # sort and sweep: the kept spans never overlap and come in order of start, so the only one a
    # later span can overlap is the last kept (the one reaching furthest): linear after the sort
    for s in sorted(seen.values(), key=lambda s: (s.start, -s.end)):
        if kept and kept[-1].end > s.start:
            out.overlaps.append((kept[-1], s))
        else:
            kept.append(s)
    out.spans = sorted(kept, key=lambda s: (s.start, s.end, s.label))
    return out


def not_a_whole_number(raw: Any) -> bool:
    """Whether an offset is a number no index can be: ``Infinity``, ``NaN`` (a browser may send
    any JSON number, and Streamlit reads both) or a fraction. ``12.0`` is fine.

    >>> [not_a_whole_number(v) for v in (12, 12.0, "12", float("inf"), float("nan"), 0.5)]
    [False, False, False, True, True, True]
    """
    return isinstance(raw, float) and not (math.isfinite(raw) and raw.is_integer())


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
    """Offsets of every whole-word occurrence of ``surface`` in ``text``: no letter, mark, digit
    or underscore right before or after it (so "Ann" does not match inside "Anna"); the editor's
    ``wordOccurrences`` is the same."""
    if not surface or not surface.strip():
        return []
    flags = re.IGNORECASE if ignore_case else 0
    out = []
    for m in re.finditer(re.escape(surface), text, flags):
        a, b = m.span()
        if (a > 0 and is_word_char(text[a - 1])) or (b < len(text) and is_word_char(text[b])):
            continue
        out.append((a, b))
    return out


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
