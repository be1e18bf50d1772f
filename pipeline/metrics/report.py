"""``evaluate``: every detection measure between a system layer and a reference layer at once.

Pure function over spans and texts (no store access): the pages read the two layers and pass
them in; the CLI reads two folders. Documents are the union of both layers' keys unless
``doc_ids`` is given; a document missing from one side has no spans there.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from pipeline.metrics import entity
from pipeline.metrics.characters import character_measure
from pipeline.metrics.confusion import ConfusionTable, confusion_table
from pipeline.metrics.counts import Counts, Measure
from pipeline.metrics.misses import Misses, classify_misses
from pipeline.metrics.operating import DEFAULT_TARGETS, OperatingCurve, operating_curve
from pipeline.metrics.tokens import TokenIndex, binary_measure, per_1000, token_measure
from pipeline.spans import Span, SpanError

Layer = Mapping[str, Sequence[Span]]
MEASURES = ("strict", "relaxed", "span_strict", "span_merged", "token", "binary_token", "characters")


@dataclass(frozen=True)
class DocumentResult:
    """One document's figures: strict counts and whether all its PHI was found.

    ``all_found``: every non-whitespace character of every reference span lies inside some
    system span, whatever its label (a partly covered name still leaks, so it is not found).
    """

    doc_id: str
    n_reference: int
    n_system: int
    strict: Counts
    missed_spans: int
    all_found: bool

    def to_dict(self) -> dict:
        return {"doc_id": self.doc_id, "n_reference": self.n_reference, "n_system": self.n_system,
                "strict": self.strict.to_dict(), "missed_spans": self.missed_spans, "all_found": self.all_found}


@dataclass
class EvaluationReport:
    n_documents: int
    n_tokens: int
    n_reference_spans: int
    n_system_spans: int
    strict: Measure
    relaxed: Measure
    span_strict: Measure
    span_merged: Measure
    token: Measure
    binary_token: Measure
    #: PHI tokens missed / non-PHI tokens flagged, per 1,000 whitespace tokens (binary token level)
    fn_per_1000: float
    fp_per_1000: float
    #: PHI versus not per non-blank character, any label (:mod:`pipeline.metrics.characters`)
    characters: Measure
    #: share of documents with reference PHI whose PHI was all found (1.0 when none has PHI)
    document_recall: float
    documents_with_phi: int
    documents_all_found: int
    per_document: list[DocumentResult]
    confusion: ConfusionTable
    #: why each reference span without an exact-offset match was missed (none, too long, ...)
    misses: Misses = field(default_factory=Misses)
    #: threshold sweep; only when system spans carry more than one distinct score
    operating: OperatingCurve | None = None
    warnings: list[str] = field(default_factory=list)

    def measure(self, name: str) -> Measure:
        if name not in MEASURES:
            raise KeyError(name)
        return getattr(self, name)

    def to_json(self) -> dict:
        """A JSON-serialisable dict (``json.dumps(report.to_json())``); no document text in it."""
        out: dict = {k: getattr(self, k) for k in ("n_documents", "n_tokens", "n_reference_spans", "n_system_spans")}
        for name in MEASURES:
            out[name] = getattr(self, name).to_dict()
        out.update(fn_per_1000=self.fn_per_1000, fp_per_1000=self.fp_per_1000,
                   document_recall=self.document_recall, documents_with_phi=self.documents_with_phi,
                   documents_all_found=self.documents_all_found,
                   per_document=[d.to_dict() for d in self.per_document],
                   confusion=self.confusion.to_dict(), misses=self.misses.to_dict(),
                   operating_points=self.operating.to_dict() if self.operating else None,
                   warnings=list(self.warnings))
        return out


def _check(layer: Layer, texts: Mapping[str, str], doc_ids: Sequence[str], side: str) -> None:
    for doc in doc_ids:
        spans = layer.get(doc, ())
        if not spans:
            continue
        if doc not in texts:
            raise SpanError(f"{doc}: no text given for this document")
        n = len(texts[doc])
        for s in spans:
            if not (0 <= s.start < s.end <= n):
                raise SpanError(f"{doc}: {side} span {s.start}-{s.end} ({s.label}) lies outside the text (length {n})")


def _document_results(system: Layer, reference: Layer, texts: Mapping[str, str],
                      doc_ids: Sequence[str]) -> list[DocumentResult]:
    out = []
    for doc in doc_ids:
        g_sp, p_sp = reference.get(doc, ()), system.get(doc, ())
        g = {(s.start, s.end, s.label) for s in g_sp}
        p = {(s.start, s.end, s.label) for s in p_sp}
        text = texts[doc]
        covered = bytearray(len(text))
        for s in p_sp:
            covered[s.start:s.end] = b"\x01" * (s.end - s.start)
        missed = 0
        for a, b in {(s.start, s.end) for s in g_sp}:
            if any(not covered[i] and not text[i].isspace() for i in range(a, b)):
                missed += 1
        out.append(DocumentResult(doc, len(g), len(p), Counts(len(g & p), len(p - g), len(g - p)), missed, missed == 0))
    return out


def evaluate(system: Layer, reference: Layer, texts: Mapping[str, str], *, doc_ids: Sequence[str] | None = None,
             targets: tuple[float, ...] = DEFAULT_TARGETS) -> EvaluationReport:
    """Compare ``system`` against ``reference`` (both ``doc_id -> spans``) on ``texts``.

    Raises :class:`SpanError` (doc id and offsets only) when a document has no text or a span
    falls outside its text.
    """
    ids = sorted(set(reference) | set(system)) if doc_ids is None else list(doc_ids)
    _check(reference, texts, ids, "reference")
    _check(system, texts, ids, "system")
    idx = TokenIndex(texts, ids)
    gold_t, pred_t = idx.layer(reference), idx.layer(system)
    binary = binary_measure(idx, gold_t, pred_t)
    docs = _document_results(system, reference, texts, ids)
    with_phi = [d for d in docs if d.n_reference]
    found = sum(d.all_found for d in with_phi)
    scores = {s.score for d in ids for s in system.get(d, ())}
    return EvaluationReport(
        n_documents=len(ids), n_tokens=idx.n_tokens,
        n_reference_spans=sum(d.n_reference for d in docs), n_system_spans=sum(d.n_system for d in docs),
        strict=entity.strict(system, reference, ids), relaxed=entity.relaxed(system, reference, ids),
        span_strict=entity.span_strict(system, reference, ids),
        span_merged=entity.span_merged(system, reference, texts, ids),
        token=token_measure(idx, gold_t, pred_t), binary_token=binary,
        characters=character_measure(system, reference, texts, ids),
        fn_per_1000=per_1000(binary.micro.fn, idx.n_tokens), fp_per_1000=per_1000(binary.micro.fp, idx.n_tokens),
        document_recall=found / len(with_phi) if with_phi else 1.0,
        documents_with_phi=len(with_phi), documents_all_found=found, per_document=docs,
        confusion=confusion_table(system, reference, ids), misses=classify_misses(system, reference, ids),
        operating=operating_curve(gold_t, pred_t, idx.n_tokens, targets) if len(scores) > 1 else None,
    )
