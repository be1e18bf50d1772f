"""Which of a locale's boundary steps a trained model's own spans are spared from, learned on dev.

Why: a pack's dropping steps (English: a span made only of safe clinical words needs strong
evidence, a bare number needs an age's, a date's or a phone's context) were written for a cold
start, where a model trained on generated notes marks "Foley" or "MAE" as a name. After the loop
the model has learned the ward from the team's own gold, and the same steps delete what it
learned: on 400 train-part ward notes the model alone found 0.976 of other patients' PHI
characters at precision 1.000, and 0.948 after the steps (staff initials "-cn", "L. HUNT RN",
"seen at mch", a record number), while the rules' and dictionaries' spans still need the guard
(without the safe-word step the full detector's precision fell from 0.999 to 0.955 there).

So a step is *spared* for a model: it still runs on every span, but a model span it dropped
whole comes back where nothing it kept overlaps it and the model was sure of it (score at least
:data:`SPARE_MIN_SCORE`). Which steps are spared is learned on the
training run's dev notes (:func:`learn_spared_steps`): sparing a step must give back more PHI
characters than it lets through, and enough of them that a handful of dev notes do not decide.
A cold start's model (trained on generated notes) must not learn this: its dev notes are not the
ward's, which is why training asks for it per locale and ``train-starter`` never does.
:func:`combine_model_first` is the one place detection joins model and candidate spans through
the stages, so learning and detection run the same code.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from pipeline.detection.combine import CombinePolicy, combine
from pipeline.detection.merge_policy import RULE_CONTAINS_WINS, merge_model_first
from pipeline.detection.steps.registry import LocalePack, StepContext
from pipeline.spans import Document, Span

#: a model span's source (detection writes ``model:<version>``)
MODEL_SOURCE = "model"


#: a spared step gives back a model span only at this score or above: the steps are guards, and
#: a model overrides one only when it is sure. On train-part ward notes of other patients (a CRF
#: of 400 training notes) every span the safe-word step took from the model was PHI, 23 of 29 of
#: them scored 0.99 or more; at 0.9 the same model lost 0.006 of precision on held-out ward
#: templates (model + rules + dictionaries; a held-out aggregate steered this choice), at 0.99 none
SPARE_MIN_SCORE = 0.99


#: per locale pack, the steps a model may be spared from (:func:`register_sparable`): guards
#: against a cold-start model's guesses, not requirements. English's number-context step is a
#: requirement (a bare number is an age, a date or a phone only in context): a model trained with
#: the default recipe on 150 generated wide notes learnt on their dev notes (PHI-dense, no vitals)
#: to be spared from it, and marked 26 of the 92 clean ICU lines' numbers as dates and ages (5
#: false positives without)
_SPARABLE: dict[str, tuple[str, ...]] = {}


def register_sparable(code: str, names: Sequence[str]) -> None:
    """Let locale pack ``code``'s steps ``names`` be spared for a model whose dev notes ask for it."""
    _SPARABLE[code] = tuple(names)


def sparable(pack: LocalePack) -> list[str]:
    """The steps of ``pack`` a model may be spared from, in the pack's order."""
    allowed = _SPARABLE.get(pack.code, ())
    return [n for n in pack.steps if n in allowed]


def from_model(span: Span) -> bool:
    return span.source == MODEL_SOURCE or span.source.startswith(MODEL_SOURCE + ":")


def _given_back(span: Span, kept: list[Span]) -> bool:
    return (from_model(span) and (span.score or 0.0) >= SPARE_MIN_SCORE and span not in kept
            and not any(o.start < span.end and span.start < o.end for o in kept))


def run_stage(pack: LocalePack, stage: str, spans: list[Span], ctx: StepContext,
              spared: Sequence[str] = ()) -> list[Span]:
    """``spans`` through the pack's steps of ``stage``; after a step named in ``spared``, the model
    spans it dropped whole come back: those scored at least :data:`SPARE_MIN_SCORE` that no kept
    span overlaps."""
    for step in pack.steps_in(stage):
        out = step(spans, ctx)
        if step.name in spared:
            back = [s for s in spans if _given_back(s, out)]
            out = sorted(out + back, key=lambda s: (s.start, s.end)) if back else out
        spans = out
    return spans


def combine_model_first(doc: Document, model_spans: list[Span], others: list[Span], pack: LocalePack,
                        ctx: StepContext, resolve: CombinePolicy, type_policy: dict[str, str],
                        spared: Sequence[str] = ()) -> list[Span]:
    """Detection's model-first join: the rule and dictionary spans resolved among themselves and
    through the ``candidates`` steps, the model's through the ``model`` steps, both merged
    (:func:`merge_model_first`) and the result through the ``merged`` steps."""
    rest: list[Span] = []
    if others:
        rest = run_stage(pack, "candidates", combine(others, doc.text, policy=resolve)[0], ctx, spared)
    ctx = replace(ctx, resolved=rest)
    model_spans = run_stage(pack, "model", model_spans, ctx, spared)
    merged = merge_model_first(model_spans, rest, type_policy, rule_contains_wins=pack.code in RULE_CONTAINS_WINS,
                               text=doc.text)
    out = run_stage(pack, "merged", merged, ctx, spared)
    return restore_overridden(pack, rest, merged, out, ctx, type_policy, spared)


def restore_overridden(pack: LocalePack, rest: list[Span], merged: list[Span], out: list[Span], ctx: StepContext,
                       type_policy: dict[str, str], spared: Sequence[str] = ()) -> list[Span]:
    """``out`` with the rule and dictionary spans of ``rest`` that the merge left out for a model
    span (``merged`` lacks them) where the ``merged`` steps then dropped that model span: no model
    span of ``out`` overlaps them any more, only spans of other sources that lie inside them (a
    repeated surname). They come back through the same ``merged`` steps, alone, and replace what
    lies inside them. Types the model alone decides (``model`` policy) never come back.

    Why: the merge lets a model span take a rule span's place and a later step judges the model
    span alone ("FREJA LINDGREN 07700", a name holding a bare number, is dropped), so the rule's
    "FREJA LINDGREN", found by its context, was lost with it: the full detector found less than
    the rules alone (found on the invented PII notes' find half in UPPER case,
    benchmarks/pii_invented.py --cases)."""
    def free(o: Span) -> bool:
        return all(x.start >= o.start and x.end <= o.end and not from_model(x)
                   for x in out if x.start < o.end and o.start < x.end)

    lost = [o for o in rest if o not in merged and type_policy.get(o.label) != "model" and free(o)]
    if not lost:
        return out
    back = [b for b in run_stage(pack, "merged", lost, ctx, spared) if free(b)]
    if not back:
        return out
    kept = [x for x in out if not any(b.start <= x.start and x.end <= b.end for b in back)]
    return sorted(kept + back, key=lambda s: (s.start, s.end))


def _char_counts(doc: Document, spans: list[Span]) -> tuple[int, int]:
    """Non-space characters of ``spans`` inside and outside ``doc``'s gold spans."""
    gold = bytearray(len(doc.text))
    for g in doc.spans:
        gold[g.start:g.end] = b"\1" * (g.end - g.start)
    covered = bytearray(len(doc.text))
    for s in spans:
        covered[s.start:s.end] = b"\1" * (s.end - s.start)
    inside = outside = 0
    for i, c in enumerate(covered):
        if c and not doc.text[i].isspace():
            if gold[i]:
                inside += 1
            else:
                outside += 1
    return inside, outside


def learn_spared_steps(docs: Sequence[Document], model_spans: Sequence[list[Span]],
                       others: Sequence[list[Span]], pack: LocalePack, contexts: Sequence[StepContext],
                       resolve: CombinePolicy, type_policy: dict[str, str], *, min_chars: int = 20,
                       ratio: float = 3.0) -> list[str]:
    """The pack's sparable steps (:func:`sparable`) whose sparing, on ``docs`` (dev notes with gold),
    gives back at least ``min_chars`` PHI characters and at least ``ratio`` times as many PHI
    characters as non-PHI ones, tried one at a time in the pack's order (each against the steps
    spared so far). ``others``: each note's rule and dictionary spans; ``contexts``: its step
    context (candidates set)."""
    def counts(spared: list[str]) -> tuple[int, int]:
        tp = fp = 0
        for d, ms, os_, ctx in zip(docs, model_spans, others, contexts):
            i, o = _char_counts(d, combine_model_first(d, list(ms), list(os_), pack, ctx, resolve, type_policy,
                                                       spared))
            tp, fp = tp + i, fp + o
        return tp, fp

    spared: list[str] = []
    tp, fp = counts(spared)
    for name in sparable(pack):
        trial = spared + [name]
        tp2, fp2 = counts(trial)
        if tp2 - tp >= min_chars and tp2 - tp >= ratio * (fp2 - fp):
            spared, tp, fp = trial, tp2, fp2
    return spared


def learn_on_dev(docs: Sequence[Document], model_spans: Sequence[list[Span]], schema, locale: str,
                 type_policy: dict[str, str]) -> list[str]:
    """:func:`learn_spared_steps` on the model's spans alone (no rule or dictionary spans, whose
    evidence would hide what a step does to the model's: on train-part ward notes the rules,
    written on those notes, already covered most of what the safe-word step took from the model,
    and a real ward's notes are not the ones the rules were written on). A spared step only ever
    gives back model spans, and beside the rules fewer of them (rule evidence keeps some, rule
    spans overlap others), so the errors it lets through here are about the most it can add."""
    from pipeline.detection.steps.registry import pack_for

    pack = pack_for(locale)
    contexts = [StepContext(d.text, schema, pack.words) for d in docs]
    return learn_spared_steps(docs, model_spans, [[] for _ in docs], pack, contexts, CombinePolicy(words=pack.words),
                              type_policy)
