"""What de-identifying one document gives back (:class:`DeidResult`): the output text and spans,
each span's action, the counts a run's summary adds up, and the leak check's findings.

Apart from :mod:`pipeline.deid.engine` (which makes it) because batches, engines, the quality
report and the Python API read it without running the engine.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.deid.leaks import Leak
from pipeline.deid.operators import QualityRecord
from pipeline.spans import Document, Span


@dataclass
class DeidResult:
    """One de-identified document.

    ``spans[i]`` (new offsets, original category/type/source/layer) was handled by
    ``actions[i]`` (``redact``, ``replace``, ``paraphrase``, ``shift``, ``keep``); a replace/shift
    that fell back to a placeholder is recorded as ``redact`` and counted in ``fallbacks``. A
    paraphrase that fell back to a list surrogate is recorded as ``replace`` and counted in
    ``paraphrase_fallbacks`` by reason (:data:`pipeline.deid.paraphrase.FALLBACK_REASONS`);
    ``paraphrased`` counts the spans the model filled. ``source_spans[i]``
    is the same span at its offsets in the input (after overlap resolution and propagation) and
    ``alternatives[i]`` the input spans merged into it (``merged_overlaps`` counts them).

    ``doc_id`` and ``patient_id`` are the input's (the caller's handles); what is written uses
    ``output_id`` and ``output_patient_id`` (keyed pseudonyms) and ``meta`` (the metadata the
    profile allows; ``meta_dropped`` keys were left out). ``uncovered_chars``: input PHI
    characters outside every rewritten span (each stretch is also a leak; 0 by construction).
    """

    doc_id: str
    patient_id: str
    text: str
    spans: list[Span]
    actions: list[str]
    counts: dict[str, dict[str, int]]
    unparseable_dates: int = 0
    unparseable_ages: int = 0
    fallbacks: int = 0
    merged_overlaps: int = 0
    propagated: int = 0
    leaks: list[Leak] = field(default_factory=list)
    leak_check_skipped: int = 0
    quality: list[QualityRecord] = field(default_factory=list, repr=False)
    source_spans: list[Span] = field(default_factory=list, repr=False)
    meta: dict = field(default_factory=dict, repr=False)
    source_file: str | None = None
    output_id: str = ""
    output_patient_id: str | None = None
    meta_dropped: int = 0
    uncovered_chars: int = 0
    alternatives: list[tuple[Span, ...]] = field(default_factory=list, repr=False)
    paraphrased: int = 0
    paraphrase_fallbacks: dict[str, int] = field(default_factory=dict)

    def __repr__(self) -> str:  # the text stays out of reprs and logs
        return (f"DeidResult(doc_id={self.doc_id!r}, spans={len(self.spans)}, leaks={len(self.leaks)}, "
                f"unparseable_dates={self.unparseable_dates})")

    def to_document(self) -> Document:
        """The de-identified document with its new spans, ready for ``write_collection``: named by
        its pseudonym (file name and ids), with the allowed metadata only and no source path."""
        oid = self.output_id
        spans = [s.with_(doc_id=oid, source=s.source or f"deid:{a}") for s, a in zip(self.spans, self.actions)]
        return Document(doc_id=oid, text=self.text, spans=spans, meta=dict(self.meta),
                        patient_id=self.output_patient_id, source_file=None)

    def summary(self) -> dict:
        """Counts only (JSON-serialisable, no text); named by the output id."""
        return {"doc_id": self.output_id, "spans": len(self.spans), "counts": self.counts,
                "unparseable_dates": self.unparseable_dates, "unparseable_ages": self.unparseable_ages,
                "fallbacks": self.fallbacks, "merged_overlaps": self.merged_overlaps, "propagated": self.propagated,
                "uncovered_chars": self.uncovered_chars, "meta_dropped": self.meta_dropped,
                "leaks": [{**lk.to_dict(), "doc_id": self.output_id} for lk in self.leaks],
                "leak_check_skipped": self.leak_check_skipped, "paraphrased": self.paraphrased,
                "paraphrase_fallbacks": dict(self.paraphrase_fallbacks)}
