"""A user's unsaved work on one layer of one document: what a page keeps between reruns
(:class:`WorkState`) and its JSON form for the annotator to keep when a save is refused.

Apart from :mod:`pipeline.annotation.edits` (the editor's offsets and the span edits) because a
page's session state changes for other reasons than an edit does.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from pipeline.annotation.edits import AnnotationError, same_spans
from pipeline.schemas import LabelSchema
from pipeline.spans import PROVENANCES, Span


# --------------------------------------------------------------------------- unsaved work as JSON

def spans_to_json(doc_id: int | str, layer: str, base_version: int, spans: Iterable[Span]) -> str:
    """Unsaved work as a JSON document (offsets and labels; no text), for the annotator to keep
    when a save is refused."""
    return json.dumps({"doc_id": str(doc_id), "layer": layer, "base_version": int(base_version),
                       "spans": [{"start": s.start, "end": s.end, "category": s.category, "type": s.type,
                                  "source": s.source, "score": s.score, "provenance": s.provenance}
                                 for s in spans]},
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
        provenance = d.get("provenance") or ""
        if provenance not in PROVENANCES:
            raise AnnotationError(f"span {i + 1} of the spans file has an unknown provenance")
        out.append(Span(doc_id=str(doc_id), start=start, end=end, category=cat, type=typ,
                        source=str(d.get("source") or ""), score=float(score if score is not None else 1.0),
                        layer=layer, provenance=provenance))
    return sorted(out, key=lambda s: (s.start, s.end, s.label))


# --------------------------------------------------------------------------- work in a session

_GENERATIONS = itertools.count(1)


@dataclass
class WorkState:
    """One user's work on one layer of one document, as a page keeps it between reruns.

    ``base`` is what the editor was (re)started from, ``base_version`` the stored version of the
    layer being written when the work started (sent with the save, so a save over someone else's
    newer version is refused), ``current`` the latest spans (the editor's draft or an edit),
    ``saved`` the spans of the last successful save (or the loaded ones), ``stale`` the message of
    a refused save while one is pending. A refused save leaves ``current`` as it was: nothing the
    user did is dropped.

    ``generation`` names one start of the editor (unique in the process): the page keys the
    editor with it, so a new generation (:meth:`restart_from`) shows ``base`` afresh, while the
    same one keeps what the browser holds. ``seq`` is the editor's edit counter last taken in,
    so an older draft never overwrites newer spans.
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
    generation: int = field(default_factory=lambda: next(_GENERATIONS))
    seq: int = 0

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
        """Show ``spans`` in a fresh editor (after loading a file, a reload, a new draft)."""
        self.base = list(spans)
        self.current = list(spans)
        self.generation = next(_GENERATIONS)
        self.seq = 0

    def take(self, spans: Sequence[Span], seq: int) -> bool:
        """Take the editor's spans of edit ``seq`` unless newer ones were taken already."""
        if int(seq) < self.seq:
            return False
        self.seq = int(seq)
        self.current = list(spans)
        return True

    def saved_as(self, version: int, now: float) -> None:
        self.base_version = int(version)
        self.saved = list(self.current)
        self.opened_at = now
        self.stale = None

    def rebase(self, version: int) -> None:
        """Keep the current spans but build on stored ``version`` (the user chose to overwrite)."""
        self.base_version = int(version)
        self.stale = None
