"""De-identify one document: resolve overlaps, choose each span's replacement, rewrite, check leaks.

Each span's replacement comes from the operator registered for the profile's action on it
(:mod:`pipeline.deid.operators`: keep, redact, replace, shift, paraphrase); this module only
looks it up, so it holds no branch per action.

The text is rewritten by :func:`pipeline.spans.rewrite` only (right to left, new offsets back),
so every output span's offsets are exact: ``result.text[s.start:s.end]`` is the surrogate,
placeholder or kept original.

Overlapping input spans are never resolved by dropping one: "Pedro Garcia" and "Garcia Lopez"
on "Pedro Garcia Lopez" become one span over the union of their characters (see
:func:`pipeline.deid.overlaps.overlap_groups`), so no character of either survives. The output's id, patient id and
metadata are pseudonymised and filtered here too (:mod:`pipeline.deid.pseudonyms`), so every
engine and every caller writes the same names, and the leak check (:mod:`pipeline.deid.leaks`)
sees everything a written document exposes.

The steps around the rewrite live in their own modules: the spans made ready and the values to
avoid in :mod:`pipeline.deid.resolved`, the leak check in :mod:`pipeline.deid.leak_check`, the
result in :mod:`pipeline.deid.result`; this module runs them in order and applies the operators.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from pipeline.deid.context import DeidContext
from pipeline.deid.leak_check import check_leaks
from pipeline.deid.operators import DocRewrite, Outcome, QualityRecord, operator_for, prepare_document
from pipeline.deid.profile import Profile
from pipeline.deid.pseudonyms import document_pseudonym, explicit_patient_id, filter_meta, patient_pseudonym
from pipeline.deid.resolved import resolve_spans, state_for
from pipeline.deid.result import DeidResult
from pipeline.deid.span_hygiene import clean_spans
from pipeline.spans import Document, Span, SpanError, rewrite


def patient_id_of(doc: Document) -> str:
    """Document.patient_id, else ``meta['patient_id']`` (or ``meta['patient']``), else the doc id."""
    if doc.patient_id not in (None, ""):
        return str(doc.patient_id)
    for key in ("patient_id", "patient"):
        v = doc.meta.get(key) if isinstance(doc.meta, dict) else None
        if v not in (None, ""):
            return str(v)
    return str(doc.doc_id)


def _locale(profile: Profile, ctx: DeidContext) -> str:
    return profile.locale or ctx.locale


def deidentify(doc: Document, spans: Sequence[Span] | None, profile: Profile, ctx: DeidContext, *,
               patient_id: str | None = None) -> DeidResult:
    """De-identify ``doc`` given its PHI ``spans`` (``None``: the document's own spans).

    Overlapping spans become one span over their union (:func:`pipeline.deid.overlaps.overlap_groups`). A span outside
    the text raises :class:`SpanError` (offsets only): leaving it out could leave PHI behind.
    Each span is then rewritten by the operator of its action (:mod:`pipeline.deid.operators`).
    Spans are first cut at line breaks and cleared of field labels
    (:mod:`pipeline.deid.span_hygiene`), for every profile, and the leak check reads those spans.
    """
    text = doc.text
    spans = list(doc.spans if spans is None else spans)
    _check_inside(doc, spans)
    spans = clean_spans(text, spans)
    named_pid = patient_id or explicit_patient_id(doc)
    pid = patient_id or patient_id_of(doc)
    res = resolve_spans(doc, spans, profile, ctx, pid)
    state = state_for(ctx, pid, res.originals, res.others)
    run = DocRewrite(text, res.spans, res.originals[:len(res.spans)], profile, ctx, state, pid, _locale(profile, ctx))
    out = _apply_operators(run)
    new_text, placed = rewrite(text, out.edits)
    new_spans = [Span(s.doc_id, ns, ne, s.category, s.type, s.source, s.score, s.layer) for s, ns, ne in placed]

    output_id = document_pseudonym(ctx.secret, doc.doc_id)
    output_pid = patient_pseudonym(ctx.secret, named_pid) if named_pid else None
    meta, meta_dropped = filter_meta(doc.meta, profile.meta_keys)
    leaks, n_uncovered = check_leaks(doc, spans, profile, new_text=new_text, placed=placed, actions=out.actions,
                                     prepared=res.needles, output_id=output_id, output_patient_id=output_pid,
                                     meta=meta, patient_id=named_pid,
                                     project_hits=(lambda t, c: ctx.project_value_hits(t, run.locale, c))
                                     if ctx.project_values is not None else None)
    return DeidResult(
        doc_id=doc.doc_id, patient_id=pid, text=new_text, spans=new_spans, actions=out.actions,
        counts={c: dict(v) for c, v in sorted(out.counts.items())}, unparseable_dates=out.unparseable_dates,
        unparseable_ages=out.unparseable_ages, fallbacks=out.fallbacks, merged_overlaps=res.merged,
        propagated=res.propagated, leaks=leaks, leak_check_skipped=res.skipped, quality=out.quality,
        source_spans=list(res.spans), meta=meta, source_file=doc.source_file, output_id=output_id,
        output_patient_id=output_pid, meta_dropped=meta_dropped, uncovered_chars=n_uncovered,
        alternatives=res.alternatives, paraphrased=Counter(out.actions)["paraphrase"],
        paraphrase_fallbacks={k: int(v) for k, v in sorted(Counter(run.paraphrase.fallbacks.values()).items())},
    )


def _check_inside(doc: Document, spans: Sequence[Span]) -> None:
    """SpanError (offsets and label only) for the first span outside the text."""
    for s in spans:
        if not (0 <= s.start < s.end <= len(doc.text)):
            raise SpanError(f"{doc.doc_id}: span {s.start}-{s.end} ({s.label}) lies outside the text "
                            f"(length {len(doc.text)})")



def _has_break(value: str) -> bool:
    return len(value.splitlines()) > 1 or value.endswith(("\n", "\r"))


@dataclass
class _Rewritten:
    """The operators' outcomes for a document's spans, gathered for the result."""

    edits: list[tuple[Span, str]] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    counts: dict[str, Counter] = field(default_factory=dict)
    quality: list[QualityRecord] = field(default_factory=list)
    unparseable_dates: int = 0
    unparseable_ages: int = 0
    fallbacks: int = 0

    def add(self, span: Span, out: Outcome) -> None:
        # a surrogate keeps the line structure: the span holds no line break (span_hygiene), so
        # neither may what replaces it (a language model's infill could bring one)
        self.edits.append((span, " ".join(out.text.splitlines()) if _has_break(out.text) else out.text))
        self.actions.append(out.action)
        self.counts.setdefault(span.category, Counter())[out.action] += 1
        if out.quality is not None:
            self.quality.append(out.quality)
        self.fallbacks += out.fallback
        if out.unparseable:
            if span.category == "DATE":
                self.unparseable_dates += 1
            else:
                self.unparseable_ages += 1


def _apply_operators(run: DocRewrite) -> _Rewritten:
    """Each span rewritten by the operator of the profile's action for it, in offset order (the
    operators' once-per-document steps first: the keyed draws come in the same order every run)."""
    prepare_document(run)
    out = _Rewritten()
    for i, span in enumerate(run.spans):
        out.add(span, operator_for(run.profile.action_for(span.category, span.type))(run, i))
    return out
