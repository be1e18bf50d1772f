"""Building :class:`DeidDocument` from the formats' :class:`pipeline.spans.Document`.

Files on disk (brat, i2b2 XML, JSONL) carry offsets and labels but not what de-identification
did nor who looked, so the caller says it: ``action`` for every span (default ``replace``) and
``reviewed`` when the spans were checked by a person (a gold set). Without that a span counts
as reviewed when its source is ``human:<user>`` or its layer is ``gold`` / ``annotator:<user>``,
and a document as seen by a human when ``meta["human_seen"]`` says so or any span is reviewed.
"""
from __future__ import annotations

from pipeline.risk.types import DeidDocument, DeidSpan
from pipeline.spans import Document, Span


def _reviewed(s: Span) -> bool:
    return s.source.startswith("human:") or s.layer == "gold" or s.layer.startswith("annotator:")


def from_document(doc: Document, *, action: str = "replace", reviewed: bool | None = None) -> DeidDocument:
    """A :class:`DeidDocument` for a de-identified ``doc`` whose spans point into ``doc.text``."""
    spans = [DeidSpan(start=s.start, end=s.end, category=s.category, type=s.type, action=action, score=s.score,
                      reviewed=_reviewed(s) if reviewed is None else reviewed, source=s.source)
             for s in doc.spans]
    meta_seen = doc.meta.get("human_seen") if isinstance(doc.meta, dict) else None
    if reviewed is not None:
        seen = reviewed
    elif isinstance(meta_seen, bool):
        seen = meta_seen
    else:
        seen = any(s.reviewed for s in spans)
    return DeidDocument(doc_id=doc.doc_id, text=doc.text, spans=spans, human_seen=seen, patient_id=doc.patient_id)
