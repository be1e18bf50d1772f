"""Which rule and dictionary sources a trained model's detector leaves out, learned on dev.

Why: the rules and lists were written for text the project has seen (the generators' notes,
MEDDOCAN), and the merge adds their spans wherever the model marked nothing. On a ward the rules
were not written on, a source can be wrong there far more often than right: a surname list that
holds the ward's device or drug words, a context rule that reads "per" before a unit's name, or an
age rule on a ward that follows HIPAA's Safe Harbor, where ages under 90 are not PHI. The model
trained on the ward's gold has learnt not to mark them (the rule hits are among its features), and
the merge puts them back: after the loop, one such source costs precision on every note.

So a training run on the ward's own notes (the runs that learn spared steps, see
:mod:`pipeline.detection.step_policy`) also tries each source's spans away on its dev notes, with
the full detector: a source is *muted* when leaving it out removes at least ``min_chars``
non-PHI characters and at least ``ratio`` times as many as the PHI characters it loses, and when
its own spans there are mostly wrong (:func:`own_precision`: dev notes share the training notes'
names and places, so what the model finds of a good rule's spans on dev says little about the
ward's next patients). Recall weighs more than precision here (a missed name is a breach), hence
the ratio. Sources are tried
one at a time, the one that gains most first, each against those muted so far. A cold start's
model never learns this (its dev notes are generated, not the ward's), nor does a detector
without a model: the rules alone are all it has.

    >>> from pipeline.spans import Document, Span
    >>> doc = Document("d", "Pt is 67 yo, seen by Dr Hale.", [Span("d", 24, 28, "NAME", "DOCTOR")])
    >>> rule_age = Span("d", 6, 8, "AGE", "AGE", "rule:ages")
    >>> muted_sources([doc], [[]], [[rule_age]], lambda d, ms, os_: os_, min_chars=1)
    ['rule:ages<90']
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Callable, Sequence

from pipeline.spans import Document, Span

#: (a dev note, the model's spans on it, the rule and dictionary spans left) -> the detector's spans
Joiner = Callable[[Document, list[Span], list[Span]], list[Span]]

#: the age below which HIPAA's Safe Harbor does not count an age as PHI
SAFE_HARBOR_AGE = 90
UNDER_AGE_SUFFIX = f"<{SAFE_HARBOR_AGE}"
#: an age is two characters: five young ages wrong (and none right, by the ratio) decide, where
#: another source needs ``min_chars``; a 400-note ward's dev split holds about seven
MIN_AGE_CHARS = 10
_DIGITS = re.compile(r"\d+")


def source_key(span: Span, text: str) -> str:
    """The source a span is muted by: its own, except that an age under 90 of a source counts as
    ``<source><90`` ("rule:ages<90"), so a ward that follows Safe Harbor (ages under 90 are not PHI)
    can mute a rule's young ages and keep its ages over 89, the ones the model has too few of to learn.

    >>> source_key(Span("d", 6, 8, "AGE", "AGE", "rule:ages"), "Pt is 67 yo"), source_key(Span("d", 6, 8, "AGE", "AGE", "rule:ages"), "Pt is 93 yo")
    ('rule:ages<90', 'rule:ages')
    """
    if span.category == "AGE":
        m = _DIGITS.search(text, span.start, span.end)
        if m and int(m.group()) < SAFE_HARBOR_AGE:
            return span.source + UNDER_AGE_SUFFIX
    return span.source


#: a source is never muted when that takes more than this share of the PHI characters the
#: detector found of one category on dev: where the model has not learnt a category (ages over 89
#: on a Safe Harbor ward are a handful in 1,200 notes), the one rule that finds it stays
MAX_CATEGORY_LOSS = 0.25


def _note_counts(doc: Document, spans: list[Span]) -> tuple[Counter, int]:
    """Non-space characters of ``spans`` inside ``doc``'s gold spans, per gold category, and outside."""
    gold: list[str | None] = [None] * len(doc.text)
    for g in doc.spans:
        gold[g.start:g.end] = [g.category] * (g.end - g.start)
    covered = bytearray(len(doc.text))
    for sp in spans:
        covered[sp.start:sp.end] = b"\1" * (sp.end - sp.start)
    inside: Counter = Counter()
    outside = 0
    for i, c in enumerate(covered):
        if c and not doc.text[i].isspace():
            if gold[i] is None:
                outside += 1
            else:
                inside[gold[i]] += 1
    return inside, outside


#: a source is never muted when more than this share of its own spans' non-space characters on dev
#: are PHI, however little leaving it out costs there
MAX_OWN_PRECISION = 0.5


def own_precision(docs: Sequence[Document], others: Sequence[list[Span]]) -> dict[str, float]:
    """Per source (:func:`source_key`), the share of its own spans' non-space characters on
    ``docs`` that are PHI, whatever the model found beside them.

    Why: what leaving a source out costs on dev is what the model did not find of it, and dev
    notes come from the training notes' own pool (their places, their names), so a model that
    finds every place a rule finds on dev may find few of them on the ward's next patients; a
    source that is mostly right stays, one that is mostly wrong may go.

    >>> doc = Document("d", "Pt is 67 yo, at Mercy.", [Span("d", 16, 21, "LOCATION", "HOSPITAL")])
    >>> own_precision([doc], [[Span("d", 6, 8, "AGE", "AGE", "rule:ages"), Span("d", 16, 21, "LOCATION", "HOSPITAL", "rule:ward_places")]])
    {'rule:ages<90': 0.0, 'rule:ward_places': 1.0}
    """
    inside: Counter = Counter()
    outside: Counter = Counter()
    for doc, os_ in zip(docs, others):
        by_source: dict[str, list[Span]] = {}
        for o in os_:
            by_source.setdefault(source_key(o, doc.text), []).append(o)
        for src, spans in by_source.items():
            phi, non_phi = _note_counts(doc, spans)
            inside[src] += sum(phi.values())
            outside[src] += non_phi
    return {src: inside[src] / ((inside[src] + outside[src]) or 1) for src in sorted(set(inside) | set(outside))}


def muted_sources(docs: Sequence[Document], model_spans: Sequence[list[Span]], others: Sequence[list[Span]],
                  join: Joiner, *, min_chars: int = 20, ratio: float = 3.0,
                  max_category_loss: float = MAX_CATEGORY_LOSS,
                  max_own_precision: float = MAX_OWN_PRECISION) -> list[str]:
    """The sources of ``others`` (each dev note's rule and dictionary spans, overlaps allowed)
    whose spans, left out, take at least ``min_chars`` non-PHI characters off the joined output
    (``join``: the detector's own join) and at least ``ratio`` times the PHI characters lost, and
    no more than ``max_category_loss`` of what it found of any category, and whose own spans are
    PHI for no more than ``max_own_precision`` of their characters (:func:`own_precision`);
    greedily, the largest net gain first; sorted by name."""
    def note_counts(k: int, muted: frozenset[str]) -> tuple[Counter, int]:
        kept = [o for o in others[k] if source_key(o, docs[k].text) not in muted]
        return _note_counts(docs[k], join(docs[k], list(model_spans[k]), kept))

    muted: frozenset[str] = frozenset()
    per_note = [note_counts(k, muted) for k in range(len(docs))]
    notes_of: dict[str, list[int]] = {}
    for k, os_ in enumerate(others):
        for src in {source_key(o, docs[k].text) for o in os_}:
            notes_of.setdefault(src, []).append(k)
    precision = own_precision(docs, others)
    left = sorted(src for src in notes_of if precision.get(src, 0.0) <= max_own_precision)
    while left:
        found = sum((c[0] for c in per_note), Counter())
        best = None
        for src in left:
            trial = {k: note_counts(k, muted | {src}) for k in notes_of[src]}
            gained = sum(per_note[k][1] - c[1] for k, c in trial.items())
            lost = Counter()
            for k, c in trial.items():
                lost.update(per_note[k][0])
                lost.subtract(c[0])
            net = gained - ratio * sum(lost.values())
            need = min(min_chars, MIN_AGE_CHARS) if src.endswith(UNDER_AGE_SUFFIX) else min_chars
            if gained >= need and net >= 0 \
                    and all(n <= max_category_loss * found[cat] for cat, n in lost.items()) \
                    and (best is None or net > best[0]):
                best = (net, src, trial)
        if best is None:
            break
        _, src, trial = best
        muted = muted | {src}
        left.remove(src)
        for k, c in trial.items():    # leaving a source out changes only the notes it was in
            per_note[k] = c
    return sorted(muted)


def learn_on_dev(docs: Sequence[Document], model_spans: Sequence[list[Span]], schema, locale: str,
                 type_policy: dict[str, str], spared: Sequence[str] = ()) -> list[str]:
    """:func:`muted_sources` with the detector's model-first join, the locale's rules and shipped
    lists, the ``type_policy`` and ``spared`` steps the run learnt."""
    from pipeline.detection.candidates import candidates, shipped_matcher
    from pipeline.detection.combine import CombinePolicy
    from pipeline.detection.rules import has_pack
    from pipeline.detection.step_policy import combine_model_first
    from pipeline.detection.steps.registry import StepContext, pack_for

    pack = pack_for(locale)
    matcher = shipped_matcher(locale, schema)
    rules = has_pack(locale)
    resolve = CombinePolicy(words=pack.words)
    others = [candidates(d, schema, locale, rules=rules, matcher=matcher) for d in docs]

    def join(doc: Document, ms: list[Span], os_: list[Span]) -> list[Span]:
        ctx = StepContext(doc.text, schema, pack.words, candidates=os_)
        return combine_model_first(doc, ms, os_, pack, ctx, resolve, type_policy, spared)

    return muted_sources(docs, model_spans, others, join)
