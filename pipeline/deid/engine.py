"""De-identify one document: resolve overlaps, choose each span's replacement, rewrite, check leaks.

Each span's replacement comes from the operator registered for the profile's action on it
(:mod:`pipeline.deid.operators`: keep, redact, replace, shift, paraphrase); this module only
looks it up, so it holds no branch per action.

The text is rewritten by :func:`pipeline.spans.rewrite` only (right to left, new offsets back),
so every output span's offsets are exact: ``result.text[s.start:s.end]`` is the surrogate,
placeholder or kept original.

Overlapping input spans are never resolved by dropping one: "Pedro Garcia" and "Garcia Lopez"
on "Pedro Garcia Lopez" become one span over the union of their characters (see
:func:`overlap_groups`), so no character of either survives. The output's id, patient id and
metadata are pseudonymised and filtered here too (:mod:`pipeline.deid.pseudonyms`), so every
engine and every caller writes the same names, and the leak check (:mod:`pipeline.deid.leaks`)
sees everything a written document exposes.
"""
from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from pipeline.deid.context import DeidContext, DocState, Original
from pipeline.deid.span_hygiene import clean_spans
from pipeline.deid.leaks import (Leak, Needle, field_text, find_leaks, merge_needles, needles, propagate, scan_fields,
                                 uncovered)
from pipeline.deid.normalize import norm_key
# QualityRecord, trigram_similarity and the digest live with the operators that make them; they
# stay importable from here (the quality report and the ray engine read them from the engine)
from pipeline.deid.operators import (DocRewrite, Outcome, QualityRecord, fixed_text, operator_for, prepare_document,
                                     rewrites, trigram_similarity)
from pipeline.deid.operators import quality_digest as _digest  # noqa: F401
from pipeline.deid.profile import Profile
from pipeline.deid.pseudonyms import (blank_generated, document_pseudonym, explicit_patient_id, file_names,
                                      filter_meta, patient_pseudonym)
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


from pipeline.deid.overlaps import (CATEGORY_RANK, ActionOf, OverlapGroup, overlap_groups,  # noqa: F401
                                    resolve_overlaps, strength)


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
    resolved, _ = resolve_overlaps(valid, _action_of(profile))
    return _originals(text, resolved, valid, profile)


def _action_of(profile: Profile) -> ActionOf:
    return lambda s: profile.action_for(s.category, s.type)


def _identifier_needles(doc: Document, pid: str | None) -> list[Needle]:
    """The input's own names (document id, patient id, file name) as needles for the non-text
    locations: an output id or metadata value that repeats one of them is a leak."""
    values = [("ID", "DOCUMENT_ID", str(doc.doc_id), "document")]
    if pid:
        values.append(("ID", "PATIENT_ID", str(pid), "patient"))
    if doc.source_file:
        stem = str(doc.source_file).replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        values.append(("ID", "FILE_NAME", stem, "document"))
    return needles(values)[0]


def _output_offsets(placed: Sequence[tuple[Span, int, int]]) -> Callable[[int], int]:
    """Maps an input offset outside every edit to its output offset."""
    edits = sorted(((s.start, s.end, ne - ns) for s, ns, ne in placed))
    ends = [e for _, e, _ in edits]
    shift = [0]
    for start, end, new_len in edits:
        shift.append(shift[-1] + new_len - (end - start))

    def to_output(pos: int) -> int:
        return pos + shift[bisect.bisect_right(ends, pos)]
    return to_output


ProjectHits = Callable[[str, str], list[tuple[int, int]]]


def project_value_leaks(doc_id: str, new_text: str, placed: Sequence[tuple[Span, int, int]],
                        actions: Sequence[str], project_hits: ProjectHits) -> list[Leak]:
    """Real project values inside the surrogates written (output offsets; never the value)."""
    out = []
    for (s, ns, ne), a in zip(placed, actions):
        if not rewrites(a) or fixed_text(a):
            continue
        for x, y in project_hits(new_text[ns:ne], s.category):
            out.append(Leak(doc_id, s.category, s.type, ns + x, ns + y, "project", "text", "project_value"))
    return out


def check_leaks(doc: Document, spans: Sequence[Span], profile: Profile, *, new_text: str,
                placed: Sequence[tuple[Span, int, int]], actions: Sequence[str], prepared: Sequence[Needle],
                output_id: str, output_patient_id: str | None, meta: dict,
                patient_id: str | None = None,
                project_hits: ProjectHits | None = None) -> tuple[list[Leak], int]:
    """The leak check of one output, from the *input* spans; returns (leaks, uncovered characters).

    * coverage: each input span the profile does not keep must lie inside rewritten spans
      (``placed``/``actions``: the engine's edits); a stretch outside them is a leak at its
      output offsets;
    * strings: ``prepared`` (every original of the input spans and of the patient's other
      notes, see :func:`pipeline.deid.leaks.needles`) searched in the text outside kept spans
      and placeholders, and with the input's own ids in the metadata, the ids and the file names;
    * project values: ``project_hits(text, category)`` (the run's keyed set of the project's PHI
      values, :meth:`pipeline.deid.context.DeidContext.project_value_hits`) over every surrogate
      the engine made up (not kept text, not placeholders): a real value of *another* note of the
      project, not a public list entry, is a leak too (``kind="project_value"``).
    """
    rewritten = [(s.start, s.end) for (s, _, _), a in zip(placed, actions) if rewrites(a)]
    must = [s for s in spans if rewrites(profile.action_for(s.category, s.type))]
    to_output = _output_offsets(placed)
    leaks: list[Leak] = []
    holes: list[tuple[int, int]] = []
    n_uncovered = 0
    for s, a, b in uncovered(must, rewritten, doc.text):
        n_uncovered += sum(not c.isspace() for c in doc.text[a:b])
        oa, ob = to_output(a), to_output(b)
        holes.append((oa, ob))
        leaks.append(Leak(doc.doc_id, s.category, s.type, oa, ob, "document", "text", "uncovered"))
    # not leaks: hits inside a kept span (the profile keeps it) or inside a placeholder (the
    # profile's template, "[AGE]", whatever the original was: a patient called "Age" is not in it)
    fixed = [(ns, ne) for (_, ns, ne), a in zip(placed, actions) if fixed_text(a)]
    found, _ = find_leaks(doc.doc_id, new_text, kept_ranges=fixed, prepared=prepared)
    leaks += [lk for lk in found if not any(a <= lk.start and lk.end <= b for a, b in holes)]
    if project_hits is not None:
        leaks += project_value_leaks(doc.doc_id, new_text, placed, actions, project_hits)
    # the prefix and extension the tool writes are no one's PHI ("Ann" is not in "doc-….ann")
    fields = {"meta": field_text([meta]) if meta else "",
              "id": blank_generated("id", field_text([output_id, output_patient_id])),
              "name": blank_generated("name", field_text(file_names(output_id)))}
    leaks += scan_fields(doc.doc_id, fields, merge_needles(prepared, _identifier_needles(doc, patient_id)))
    order = {"text": 0, "meta": 1, "id": 2, "name": 3}
    leaks.sort(key=lambda x: (order.get(x.location, 9), x.start, x.end, x.category, x.kind))
    return leaks, n_uncovered


def deidentify(doc: Document, spans: Sequence[Span] | None, profile: Profile, ctx: DeidContext, *,
               patient_id: str | None = None) -> DeidResult:
    """De-identify ``doc`` given its PHI ``spans`` (``None``: the document's own spans).

    Overlapping spans become one span over their union (:func:`overlap_groups`). A span outside
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
    res = _resolve(doc, spans, profile, ctx, pid)
    state = _state_for(ctx, pid, res.originals, res.others)
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


@dataclass
class _Resolved:
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


def _resolve(doc: Document, spans: list[Span], profile: Profile, ctx: DeidContext, pid: str) -> _Resolved:
    """One span per group of overlapping input spans, their values and needles; then (if the
    profile propagates) unannotated copies of those values as spans of their own."""
    groups = overlap_groups(spans, _action_of(profile))
    resolved = [g.span for g in groups]
    doc_originals = _originals(doc.text, resolved, spans, profile)
    others = ctx.patient_originals.get(pid, [])
    doc_needles, skipped = needles((o.category, o.type, o.text, "document") for o in doc_originals if not o.kept)
    res = _Resolved(resolved, [g.alternatives for g in groups], doc_originals, others,
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
