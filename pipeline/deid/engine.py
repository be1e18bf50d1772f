"""De-identify one document: resolve overlaps, choose each span's replacement, rewrite, check leaks.

The text is rewritten by :func:`pipeline.spans.rewrite` only (right to left, new offsets back),
so every output span's offsets are exact: ``result.text[s.start:s.end]`` is the surrogate,
placeholder or kept original.
"""
from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence

from pipeline.deid.ages import OVER_MAX
from pipeline.deid.context import DeidContext, DocState, Original, SurrogateContext
from pipeline.deid.leaks import Leak, Needle, find_leaks, merge_needles, needles, propagate
from pipeline.deid.normalize import norm_key
from pipeline.deid.profile import Profile
from pipeline.deid.surrogates import NoSurrogate, Unparseable, generator_for
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


def resolve_overlaps(spans: Iterable[Span]) -> tuple[list[Span], int]:
    """Keep the longest of overlapping spans (ties: earlier, then higher score); never raises.

    Returns the kept spans sorted by offset and how many were dropped. Exact duplicates count
    as dropped too.
    """
    ranked = sorted(spans, key=lambda s: (-(s.end - s.start), s.start, -s.score, s.label))
    starts: list[int] = []          # kept spans, sorted by start (they never overlap each other)
    kept: list[Span] = []
    dropped = 0
    for s in ranked:
        i = bisect.bisect_right(starts, s.start)
        if (i > 0 and kept[i - 1].end > s.start) or (i < len(kept) and kept[i].start < s.end):
            dropped += 1
            continue
        starts.insert(i, s.start)
        kept.insert(i, s)
    return kept, dropped


@lru_cache(maxsize=1 << 15)
def _trigrams(s: str) -> frozenset[str]:
    s = f"  {s} "
    return frozenset(s[i:i + 3] for i in range(len(s) - 2))


def trigram_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the character trigrams of two normalised strings (1 = same)."""
    ta, tb = _trigrams(norm_key(a)), _trigrams(norm_key(b))
    if not ta and not tb:
        return 1.0
    return len(ta & tb) / len(ta | tb)


@dataclass(frozen=True)
class QualityRecord:
    """One surrogate's quality facts; originals appear only as in-process hashes (no PHI)."""

    category: str
    same: bool
    similarity: float
    original_digest: int
    surrogate_digest: int


@dataclass
class DeidResult:
    """One de-identified document.

    ``spans[i]`` (new offsets, original category/type/source/layer) was handled by
    ``actions[i]`` (``redact``, ``replace``, ``shift``, ``keep``); a replace/shift that fell back
    to a placeholder is recorded as ``redact`` and counted in ``fallbacks``. ``source_spans[i]``
    is the same span at its offsets in the input (after overlap resolution and propagation).
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
    dropped_overlaps: int = 0
    propagated: int = 0
    leaks: list[Leak] = field(default_factory=list)
    leak_check_skipped: int = 0
    quality: list[QualityRecord] = field(default_factory=list, repr=False)
    source_spans: list[Span] = field(default_factory=list, repr=False)
    meta: dict = field(default_factory=dict, repr=False)
    source_file: str | None = None

    def __repr__(self) -> str:  # the text stays out of reprs and logs
        return (f"DeidResult(doc_id={self.doc_id!r}, spans={len(self.spans)}, leaks={len(self.leaks)}, "
                f"unparseable_dates={self.unparseable_dates})")

    def to_document(self) -> Document:
        """The de-identified document with its new spans, ready for ``write_collection``."""
        spans = [s.with_(source=s.source or f"deid:{a}") for s, a in zip(self.spans, self.actions)]
        return Document(doc_id=self.doc_id, text=self.text, spans=spans, meta=dict(self.meta),
                        patient_id=self.patient_id, source_file=self.source_file)

    def summary(self) -> dict:
        """Counts only (JSON-serialisable, no text)."""
        return {"doc_id": self.doc_id, "spans": len(self.spans), "counts": self.counts,
                "unparseable_dates": self.unparseable_dates, "unparseable_ages": self.unparseable_ages,
                "fallbacks": self.fallbacks, "dropped_overlaps": self.dropped_overlaps, "propagated": self.propagated,
                "leaks": [lk.to_dict() for lk in self.leaks], "leak_check_skipped": self.leak_check_skipped}


def _digest(value: str) -> int:
    """An in-process stand-in for a value (Python's per-process salted hash of its normalised
    form): enough to count distinct values in a batch, useless outside this process."""
    return hash(("deid-quality", norm_key(value)))


def _top_coded(span: Span, value: str) -> bool:
    """"90+" is the Safe Harbor group for every age over 89, not anyone's value: it may repeat."""
    return span.category == "AGE" and OVER_MAX in value


def _locale(profile: Profile, ctx: DeidContext) -> str:
    return profile.locale or ctx.locale


def _state_for(ctx: DeidContext, pid: str, doc_originals: list[Original], others: list[Original]) -> DocState:
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


def collect_originals(doc: Document, spans: Sequence[Span], profile: Profile) -> list[Original]:
    """The real PHI values of a document (after overlap resolution) with whether each is kept."""
    kept, _ = resolve_overlaps(spans)
    out = []
    for s in kept:
        if 0 <= s.start < s.end <= len(doc.text):
            out.append(Original(s.category, s.type, doc.text[s.start:s.end],
                                profile.action_for(s.category, s.type) == "keep"))
    return out


def deidentify(doc: Document, spans: Sequence[Span] | None, profile: Profile, ctx: DeidContext, *,
               patient_id: str | None = None) -> DeidResult:
    """De-identify ``doc`` given its PHI ``spans`` (``None``: the document's own spans).

    Overlapping spans are resolved first (longest wins). A span outside the text raises
    :class:`SpanError` (offsets only): leaving it out could leave PHI behind.
    """
    text = doc.text
    spans = list(doc.spans if spans is None else spans)
    for s in spans:
        if not (0 <= s.start < s.end <= len(text)):
            raise SpanError(f"{doc.doc_id}: span {s.start}-{s.end} ({s.label}) lies outside the text "
                            f"(length {len(text)})")
    pid = patient_id or patient_id_of(doc)
    locale = _locale(profile, ctx)
    resolved, dropped = resolve_overlaps(spans)
    doc_originals = [Original(s.category, s.type, text[s.start:s.end],
                              profile.action_for(s.category, s.type) == "keep") for s in resolved]
    others = ctx.patient_originals.get(pid, [])
    doc_needles, skipped = needles((o.category, o.type, o.text, "document") for o in doc_originals if not o.kept)
    all_needles = merge_needles(doc_needles, _patient_needles(ctx, pid, others))
    propagated = 0
    if profile.propagate:
        extra = propagate(doc.doc_id, text, [(s.start, s.end) for s in resolved], prepared=all_needles)
        if extra:
            propagated = len(extra)
            resolved = sorted([*resolved, *extra], key=lambda s: (s.start, s.end))
            doc_originals = [Original(s.category, s.type, text[s.start:s.end],
                                      profile.action_for(s.category, s.type) == "keep") for s in resolved]
    state = _state_for(ctx, pid, doc_originals, others)

    edits: list[tuple[Span, str]] = []
    actions: list[str] = []
    counts: dict[str, Counter] = {}
    quality: list[QualityRecord] = []
    unparseable_dates = unparseable_ages = fallbacks = 0
    for span, orig in zip(resolved, doc_originals):
        original = orig.text
        action = profile.action_for(span.category, span.type)
        if action == "keep":
            new = original
        elif action == "redact":
            new = profile.placeholder_for(span.category, span.type, original)
        else:
            core = original.strip()
            lead = original[:len(original) - len(original.lstrip())]
            trail = original[len(original.rstrip()):]
            gen = generator_for(span.category, span.type)
            new_core = None
            if gen is not None and core:
                sctx = SurrogateContext(ctx, profile, pid, span.category, span.type, locale, state)
                try:
                    new_core = gen(core, sctx)
                except Unparseable:
                    if span.category == "DATE":
                        unparseable_dates += 1
                    else:
                        unparseable_ages += 1
                except NoSurrogate:
                    pass
            if new_core is not None and (norm_key(new_core) == norm_key(core)
                                         or (state.clashes(new_core) and not _top_coded(span, new_core))):
                new_core = None      # never the original, never another real value of the patient
            if new_core is None:
                fallbacks += 1
                action = "redact"
                new = profile.placeholder_for(span.category, span.type, original)
            else:
                new = lead + new_core + trail
                quality.append(QualityRecord(span.category, norm_key(new_core) == norm_key(core),
                                             trigram_similarity(core, new_core),
                                             _digest(core), _digest(new_core)))
        edits.append((span, new))
        actions.append(action)
        counts.setdefault(span.category, Counter())[action] += 1

    new_text, placed = rewrite(text, edits)
    new_spans = [Span(s.doc_id, ns, ne, s.category, s.type, s.source, s.score, s.layer) for s, ns, ne in placed]

    kept_ranges = [(s.start, s.end) for s, a in zip(new_spans, actions) if a == "keep"]
    leaks, _ = find_leaks(doc.doc_id, new_text, kept_ranges=kept_ranges, prepared=all_needles)
    return DeidResult(
        doc_id=doc.doc_id, patient_id=pid, text=new_text, spans=new_spans, actions=actions,
        counts={c: dict(v) for c, v in sorted(counts.items())}, unparseable_dates=unparseable_dates,
        unparseable_ages=unparseable_ages, fallbacks=fallbacks, dropped_overlaps=dropped, propagated=propagated,
        leaks=leaks,
        leak_check_skipped=skipped, quality=quality, source_spans=list(resolved), meta=dict(doc.meta),
        source_file=doc.source_file,
    )
