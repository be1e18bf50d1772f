"""A document's spans made ready to rewrite: overlapping input spans joined over their union
(:mod:`pipeline.deid.overlaps`), copies of their values propagated (when the profile says so),
and the real values the surrogates must avoid and the leak check must search for (the note's
and its patient's other notes').

Apart from :mod:`pipeline.deid.engine` because a batch reads a patient's values
(:func:`collect_originals`) before any of its notes is rewritten.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from pipeline.deid.context import DeidContext, DocState, Original
from pipeline.deid.leaks import Needle, merge_needles, needles, propagate
from pipeline.deid.normalize import norm_key
from pipeline.deid.operators import rewrites
from pipeline.deid.overlaps import ActionOf, overlap_groups, resolve_overlaps
from pipeline.deid.profile import Profile
from pipeline.deid.span_hygiene import clean_spans
from pipeline.spans import Document, Span


def state_for(ctx: DeidContext, pid: str, doc_originals: list[Original], others: list[Original]) -> DocState:
    """The values to avoid: the document's and the patient's. In a batch the patient's list
    already holds this document's values, so one state per patient serves all their notes."""
    key = (pid, id(others), len(others))
    cached = ctx._states.get(key)
    if cached is not None and all(norm_key(o.text) in cached.exact for o in doc_originals):
        return cached
    state = DocState([*doc_originals, *others])
    if others:
        ctx._states[key] = state
    return state


def _patient_needles(ctx: DeidContext, pid: str, others: list[Original]) -> list[Needle]:
    """Leak-scan needles of the patient's other values, built once per patient and run."""
    if not others:
        return []
    key = (pid, id(others), len(others))
    cached = ctx._needles.get(key)
    if cached is None:
        cached = needles((o.category, o.type, o.text, "patient") for o in others if not o.kept)[0]
        ctx._needles[key] = cached
    return cached


def _original(text: str, span: Span, profile: Profile) -> Original:
    return Original(span.category, span.type, text[span.start:span.end],
                    not rewrites(profile.action_for(span.category, span.type)))


def _with_inputs(resolved: list[Original], inputs: Iterable[Original]) -> list[Original]:
    """The resolved spans' values, then those of input spans not among them (the parts a union
    merged: "Garcia Lopez" of "Pedro Garcia Lopez" must be avoided and searched for too)."""
    have = set(resolved)
    extra = []
    for o in inputs:
        if o not in have:
            have.add(o)
            extra.append(o)
    return [*resolved, *extra]


def _originals(text: str, resolved: Sequence[Span], inputs: Sequence[Span], profile: Profile) -> list[Original]:
    """The values of the resolved spans, then of the input spans merged into them (see
    :func:`_with_inputs`); an input span that is its own group is read once."""
    by_id = {id(s): _original(text, s, profile) for s in inputs}
    own = [by_id.get(id(s)) or _original(text, s, profile) for s in resolved]
    if len(resolved) == len(inputs) and all(id(s) in by_id for s in resolved):
        return own                  # nothing merged: every input span is its own resolved span
    return _with_inputs(own, (by_id[id(s)] for s in inputs))


def collect_originals(doc: Document, spans: Sequence[Span], profile: Profile) -> list[Original]:
    """The real PHI values of a document (overlaps resolved, and every input span's own value)
    with whether each is kept."""
    text = doc.text
    valid = clean_spans(text, [s for s in spans if 0 <= s.start < s.end <= len(text)])
    resolved, _ = resolve_overlaps(valid, action_of(profile))
    return _originals(text, resolved, valid, profile)


def action_of(profile: Profile) -> ActionOf:
    return lambda s: profile.action_for(s.category, s.type)


@dataclass
class Resolved:
    """A document's spans after overlap resolution and propagation, sorted by offset.

    ``alternatives[i]``: the input spans merged into ``spans[i]``; ``originals``: the spans'
    values, then those of the merged input spans; ``others``: the patient's values from other
    notes; ``needles``: the leak scan's needles for both (``skipped`` values too short to search)."""

    spans: list[Span]
    alternatives: list[tuple[Span, ...]]
    originals: list[Original]
    others: list[Original]
    needles: list[Needle]
    skipped: int
    merged: int
    propagated: int = 0


def resolve_spans(doc: Document, spans: list[Span], profile: Profile, ctx: DeidContext, pid: str) -> Resolved:
    """One span per group of overlapping input spans, their values and needles; then (if the
    profile propagates) unannotated copies of those values as spans of their own."""
    groups = overlap_groups(spans, action_of(profile))
    resolved = [g.span for g in groups]
    doc_originals = _originals(doc.text, resolved, spans, profile)
    others = ctx.patient_originals.get(pid, [])
    doc_needles, skipped = needles((o.category, o.type, o.text, "document") for o in doc_originals if not o.kept)
    res = Resolved(resolved, [g.alternatives for g in groups], doc_originals, others,
                    merge_needles(doc_needles, _patient_needles(ctx, pid, others)), skipped, len(spans) - len(groups))
    if not profile.propagate:
        return res
    extra = propagate(doc.doc_id, doc.text, [(s.start, s.end) for s in resolved], prepared=res.needles)
    if extra:
        res.propagated = len(extra)
        pairs = sorted([*zip(res.spans, res.alternatives), *((x, ()) for x in extra)],
                       key=lambda p: (p[0].start, p[0].end))
        res.spans = [p[0] for p in pairs]
        res.alternatives = [p[1] for p in pairs]
        res.originals = _originals(doc.text, res.spans, spans, profile)
    return res
