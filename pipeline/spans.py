"""The one span type that flows through import, detection, annotation, metrics and de-identification.

Offsets are character offsets into the document's text (Python ``str`` indices), end exclusive.
Every module meets the others only through :class:`Span` and :class:`Document`, so a
recognizer, an annotator's layer and a de-identifier's output can be compared directly.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Sequence


class SpanError(ValueError):
    """A span that cannot be placed on its document (offsets outside, empty, unknown label).

    Messages name the document and the offsets, never the document's text (no PHI in errors).
    """


@dataclass(frozen=True, order=True)
class Span:
    """A labelled stretch of a document.

    ``category`` is the coarse i2b2 2014 class (NAME, PROFESSION, LOCATION, AGE, DATE, CONTACT,
    ID, OTHER); ``type`` the fine class of the project's schema. ``source`` says who produced it
    (``rule:<name>``, ``dict:<name>``, ``model:<version>``, ``human:<user>``), ``layer`` where it
    lives (``pre``, ``annotator:<user>``, ``gold``). ``provenance`` says how a person's span came
    to be (:data:`PROVENANCES`): ``created`` or ``changed`` by them, a suggestion they ``accepted``
    one by one, or one accepted in ``bulk`` (nobody looked at it); ``""`` when unknown (machine
    output, imports, layers saved before it was recorded).
    """

    doc_id: str
    start: int
    end: int
    category: str
    type: str = ""
    source: str = ""
    score: float = 1.0
    layer: str = ""
    provenance: str = ""

    @property
    def key(self) -> tuple[str, int, int, str]:
        """Identity used by strict matching: offsets plus fine type (falls back to category)."""
        return (self.doc_id, self.start, self.end, self.type or self.category)

    @property
    def label(self) -> str:
        return self.type or self.category

    def overlaps(self, other: "Span") -> bool:
        return self.doc_id == other.doc_id and self.start < other.end and other.start < self.end

    def text_in(self, text: str) -> str:
        return text[self.start:self.end]

    def with_(self, **changes) -> "Span":
        return replace(self, **changes)

    def to_dict(self) -> dict:
        return {
            "doc_id": self.doc_id, "start": self.start, "end": self.end,
            "category": self.category, "type": self.type, "source": self.source,
            "score": self.score, "layer": self.layer, "provenance": self.provenance,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Span":
        return cls(
            doc_id=str(d.get("doc_id", "")), start=int(d["start"]), end=int(d["end"]),
            category=str(d.get("category", "")), type=str(d.get("type", "") or ""),
            source=str(d.get("source", "") or ""), score=float(d.get("score", 1.0) if d.get("score") is not None else 1.0),
            layer=str(d.get("layer", "") or ""), provenance=str(d.get("provenance", "") or ""),
        )


#: How a person's span came to be (see :class:`Span`): the values of ``Span.provenance``.
CREATED, CHANGED, ACCEPTED, BULK = "created", "changed", "accepted", "bulk"
PROVENANCES = ("", CREATED, CHANGED, ACCEPTED, BULK)
#: Source prefixes of machine output (a span with one is a suggestion nobody decided).
MACHINE_SOURCES = ("model:", "rule:", "dict:", "llm:")


def is_unreviewed(span: Span) -> bool:
    """Whether no person looked at ``span``: accepted in bulk, or machine output nobody decided.
    Agreement, the annotators-vs-gold figures and Review keep such spans apart, so they measure
    the annotators and not the model.

    >>> [is_unreviewed(Span("d", 0, 4, "NAME", source=s, provenance=p)) for s, p in
    ...  (("human:ana", "bulk"), ("human:ana", "accepted"), ("model:v1", ""), ("", ""))]
    [True, False, True, False]
    """
    return span.provenance == BULK or span.source.startswith(MACHINE_SOURCES)


@dataclass
class Document:
    """A document as the formats read and write it: id, text, metadata and its spans."""

    doc_id: str
    text: str
    spans: list[Span] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    patient_id: str | None = None
    source_file: str | None = None


def validate_spans(doc_id: str, text: str, spans: Iterable[Span], *, allow_overlap: bool = False) -> list[Span]:
    """Check offsets lie inside ``text`` and are non-empty; optionally refuse overlaps.

    Returns the spans sorted by (start, end). Raises :class:`SpanError` naming the document and
    offsets (not the covered text).
    """
    n = len(text)
    out = sorted(spans, key=lambda s: (s.start, s.end, s.label))
    for s in out:
        if not (0 <= s.start < s.end <= n):
            raise SpanError(f"{doc_id}: span {s.start}-{s.end} ({s.label}) lies outside the text (length {n})")
        if not s.category:
            raise SpanError(f"{doc_id}: span {s.start}-{s.end} has no category")
    if not allow_overlap:
        for a, b in zip(out, out[1:]):
            if b.start < a.end:
                raise SpanError(
                    f"{doc_id}: spans {a.start}-{a.end} ({a.label}) and {b.start}-{b.end} ({b.label}) overlap"
                )
    return out


def sort_spans(spans: Iterable[Span]) -> list[Span]:
    return sorted(spans, key=lambda s: (s.doc_id, s.start, s.end, s.label))


def by_doc(spans: Iterable[Span]) -> dict[str, list[Span]]:
    """Group spans by document id, each list sorted by offsets."""
    out: dict[str, list[Span]] = {}
    for s in spans:
        out.setdefault(s.doc_id, []).append(s)
    for v in out.values():
        v.sort(key=lambda s: (s.start, s.end, s.label))
    return out


def rewrite(text: str, edits: Sequence[tuple[Span, str]]) -> tuple[str, list[tuple[Span, int, int]]]:
    """Replace each span's stretch of ``text`` with its new string, right to left.

    The one function that rewrites text: de-identification, surrogate insertion and any other
    edit go through it. ``edits`` must not overlap. Returns the new text and, for each edit in
    input order, ``(span, new_start, new_end)`` in the new text.
    """
    order = sorted(range(len(edits)), key=lambda i: edits[i][0].start)
    for a, b in zip(order, order[1:]):
        if edits[b][0].start < edits[a][0].end:
            sa, sb = edits[a][0], edits[b][0]
            raise SpanError(f"{sa.doc_id}: cannot rewrite overlapping spans {sa.start}-{sa.end} and {sb.start}-{sb.end}")
    pieces: list[str] = []
    cursor = len(text)
    for i in reversed(order):
        span, new = edits[i]
        if not (0 <= span.start <= span.end <= len(text)):
            raise SpanError(f"{span.doc_id}: span {span.start}-{span.end} lies outside the text (length {len(text)})")
        pieces.append(text[span.end:cursor])
        pieces.append(new)
        cursor = span.start
    pieces.append(text[:cursor])
    new_text = "".join(reversed(pieces))
    # second pass, left to right, to compute new offsets
    positions: dict[int, tuple[int, int]] = {}
    delta = 0
    for i in order:
        span, new = edits[i]
        ns = span.start + delta
        positions[i] = (ns, ns + len(new))
        delta += len(new) - (span.end - span.start)
    return new_text, [(edits[i][0], *positions[i]) for i in range(len(edits))]


def marked_by_another(spans: Iterable[Span], span: Span, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` overlaps any of ``spans`` other than ``span`` (by offsets): the
    check a step makes before it grows ``span`` over the text after it.

    >>> a, b = Span("d", 0, 4, "NAME", "PATIENT"), Span("d", 9, 12, "NAME", "PATIENT")
    >>> marked_by_another([a, b], a, 4, 9), marked_by_another([a, b], a, 4, 10)
    (False, True)
    """
    return any(o.start < end and start < o.end for o in spans if (o.start, o.end) != (span.start, span.end))


def dedupe(spans: Iterable[Span]) -> list[Span]:
    """``spans`` in their order with exact repeats (same offsets, category and type) left out;
    overlapping spans are kept (deciding between them is :mod:`pipeline.detection.combine`'s job).

    >>> a = Span("d", 0, 4, "NAME", "PATIENT")
    >>> [(s.start, s.end) for s in dedupe([a, a.with_(source="rule:x"), a.with_(end=5)])]
    [(0, 4), (0, 5)]
    """
    seen: set[tuple[int, int, str, str]] = set()
    out: list[Span] = []
    for s in spans:
        k = (s.start, s.end, s.category, s.type)
        if k not in seen:
            seen.add(k)
            out.append(s)
    return out
