"""Re-identification risk of de-identified notes, scored as the ``risk`` command and job score them."""
from __future__ import annotations

from typing import Sequence

from pipeline.deid import BatchResult, DeidResult
from pipeline.risk import DeidDocument, DeidSpan, RiskConfig, RiskReport, RiskScorer, triage_order


def as_risk_document(result: DeidResult) -> DeidDocument:
    """A de-identified result as the scorer reads it: each span with the action applied to it,
    unreviewed (machine spans), named by its output pseudonym."""
    spans = [DeidSpan(start=s.start, end=s.end, category=s.category, type=s.type or "", action=a,
                      score=float(s.score), reviewed=False, source=s.source)
             for s, a in zip(result.spans, result.actions)]
    return DeidDocument(doc_id=result.output_id or result.doc_id, text=result.text, spans=spans,
                        human_seen=False, patient_id=result.output_patient_id)


def score_risk(results: BatchResult | Sequence[DeidResult], *, config: RiskConfig | None = None) -> list[RiskReport]:
    """One :class:`~pipeline.risk.RiskReport` per document (``colour``, ``score``, ``reasons``), in
    triage order (red first). Uniqueness is a property of the whole set: score a run together."""
    items = results.results if isinstance(results, BatchResult) else list(results)
    return triage_order(RiskScorer(config or RiskConfig()).score([as_risk_document(r) for r in items]))
