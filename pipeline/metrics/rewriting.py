"""What a rewriting member is judged on: how much PHI its placeholders found, and how much of the
rest of the note its rewrite kept.

* **note recall**: the share of notes with PHI whose every reference PHI character lies inside
  some found span (:attr:`pipeline.metrics.report.EvaluationReport.document_recall`, the same
  figure the other members report);
* **span recall / precision**: exact offsets, label ignored (``span_strict``); the generic
  ``[PHI]`` placeholder carries no fine type, so typed strict figures would say nothing;
* **token recall / precision**: PHI vs not, per whitespace token (``binary_token``), what
  de-identification needs (a span one word too wide still removes the PHI);
* **content preservation**: corpus BLEU (:mod:`pipeline.metrics.bleu`, 0-100) of the rewrites
  against the originals, *both with PHI removed*: the reference is the note with its reference
  spans cut out, the hypothesis the rewrite with its placeholders cut out. A rewrite that copies
  everything but the PHI scores 100 whatever the PHI was; invented, dropped or reworded text
  lowers it, and so does PHI the model left in place (extra n-grams);
* **speed**: notes per second of wall time for the rewriting (the caller times it).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Mapping, Sequence

from pipeline.detection.rewrite_placeholders import DEFAULT_PLACEHOLDER, Placeholder, strip_placeholders
from pipeline.metrics.bleu import text_bleu
from pipeline.metrics.report import evaluate
from pipeline.spans import Span


@dataclass(frozen=True)
class RewriteMeasures:
    notes: int
    notes_with_phi: int
    note_recall: float
    span_recall: float
    span_precision: float
    token_recall: float
    token_precision: float
    bleu: float                 # 0-100
    seconds: float
    notes_per_s: float

    def to_dict(self) -> dict:
        return asdict(self)


def without_spans(text: str, spans: Sequence[Span]) -> str:
    """``text`` with the characters of ``spans`` cut out (a space in their place, so the words on
    either side stay apart)."""
    keep = bytearray(b"\x01") * len(text)
    for s in spans:
        keep[s.start:s.end] = b"\x00" * (s.end - s.start)
    out, k = [], 0
    while k < len(text):
        if keep[k]:
            out.append(text[k])
            k += 1
        else:
            out.append(" ")
            while k < len(text) and not keep[k]:
                k += 1
    return "".join(out)


def content_preservation(texts: Mapping[str, str], reference: Mapping[str, Sequence[Span]],
                         rewrites: Mapping[str, str],
                         placeholder: Placeholder | str = DEFAULT_PLACEHOLDER) -> float:
    """Corpus BLEU (0-100) of the rewrites (placeholders removed) against the notes (reference
    PHI removed), over the notes that have a rewrite."""
    ids = [d for d in texts if d in rewrites]
    if not ids:
        return 0.0
    refs = [without_spans(texts[d], reference.get(d, ())) for d in ids]
    hyps = [strip_placeholders(rewrites[d], placeholder) for d in ids]
    return 100.0 * text_bleu(refs, hyps)


def measure_rewrites(texts: Mapping[str, str], reference: Mapping[str, Sequence[Span]],
                     found: Mapping[str, Sequence[Span]], rewrites: Mapping[str, str], seconds: float,
                     placeholder: Placeholder | str = DEFAULT_PLACEHOLDER) -> RewriteMeasures:
    """Every figure above for notes ``texts`` (doc id -> text), their ``reference`` spans, the
    member's ``found`` spans and ``rewrites``, and the wall ``seconds`` the rewriting took."""
    ids = sorted(texts)
    rep = evaluate({d: list(found.get(d, ())) for d in ids}, {d: list(reference.get(d, ())) for d in ids},
                   texts, doc_ids=ids)
    return RewriteMeasures(
        notes=len(ids), notes_with_phi=rep.documents_with_phi, note_recall=rep.document_recall,
        span_recall=rep.span_strict.micro.recall, span_precision=rep.span_strict.micro.precision,
        token_recall=rep.binary_token.micro.recall, token_precision=rep.binary_token.micro.precision,
        bleu=content_preservation(texts, reference, rewrites, placeholder),
        seconds=seconds, notes_per_s=(len(ids) / seconds) if seconds > 0 else 0.0)
