"""``paraphrase``: a surrogate of the span's shape that the project's masked language model
infills in the note's context (:mod:`pipeline.deid.paraphrase`).

The model is called once per document (:func:`prepare`, before any span); a span it could not
fill gets the list surrogate of ``replace`` instead, recorded as ``replace`` and counted by
reason in the run's ``paraphrase_fallbacks``; so does a fill that is, or contains, a real PHI
value of the project (:func:`gate_project_values`, reason ``project_value``), a span whose fills
all lacked the shape of its type (:mod:`pipeline.deid.shapes`, reason ``shape``: the draw is
repeated while a fill fails, and a fill the patient's memory brings back is checked again) and
a part of an address drawn together with its other parts (:mod:`pipeline.deid.addresses`,
reason ``address``)."""
from __future__ import annotations

from typing import Callable

from pipeline.deid.operators.base import DocRewrite, Outcome, surrogate_outcome
from pipeline.deid.operators.registry import register
from pipeline.deid.operators.replace import replace
from pipeline.deid.normalize import norm_key
from pipeline.deid.paraphrase import (ADDRESS, PROJECT_VALUE, SHAPE, ParaphraseOutcome, ParaphraseTarget, PatientMemory,
                                      paraphrase_document, plan_slots)
from pipeline.deid.shapes import shape_ok
from pipeline.deid.surrogates import generator_name

NAME = "paraphrase"


def prepare(run: DocRewrite) -> None:
    """Fills for the document's ``paraphrase`` spans (one call to the model), by span index.

    A span with nothing a model could fill (only format words) falls back at once (``no_slot``);
    the others go to :func:`pipeline.deid.paraphrase.paraphrase_document` with the same
    acceptance test as list surrogates: not the original, no real value of the note or the
    patient in it."""
    targets: list[ParaphraseTarget] = []
    out = ParaphraseOutcome()
    run.paraphrase = out
    for i, (span, orig) in enumerate(zip(run.spans, run.originals)):
        if run.profile.action_for(span.category, span.type) != NAME:
            continue
        if i in run.addresses.grouped:
            out.fallbacks[i] = ADDRESS     # drawn with the other parts of its address
            continue
        original = orig.text
        core = original.strip()
        lead = len(original) - len(original.lstrip())
        plan = plan_slots(core, span.category, span.type, generator_name(span.category, span.type)) if core else None
        if plan is None:
            out.fallbacks[i] = "no_slot"
            continue
        targets.append(ParaphraseTarget(i, span.start + lead, span.start + lead + len(core), span.category,
                                        span.type, plan))
    if not targets:
        return
    ctx = run.ctx

    misshapen: set[tuple[str, str, str]] = set()     # values a fill was refused for its shape

    def accept_for(t: ParaphraseTarget) -> Callable[[str], bool]:
        safe = run.surrogate_context(t.category, t.type).acceptable(t.plan.core, project_values=False)
        gen = generator_name(t.category, t.type)

        def accept(fill: str) -> bool:
            if not safe(fill):
                return False
            if shape_ok(gen, fill, run.locale):
                return True
            misshapen.add((t.category, t.type, norm_key(t.plan.core)))
            return False
        return accept

    if ctx._paraphrased is None:
        ctx._paraphrased = PatientMemory()
    done = paraphrase_document(run.text, targets, ctx.infiller, secret=ctx.secret,  # type: ignore[arg-type]
                               patient_id=run.patient_id, accept_for=accept_for,
                               memory=ctx._paraphrased, real_words=run.state.all_words)  # type: ignore[arg-type]
    out.fills.update(done.fills)
    out.fallbacks.update(done.fallbacks)
    for t in targets:            # no acceptable fill because every one was misshapen: say so
        if out.fallbacks.get(t.index) == "no_candidate" and (t.category, t.type, norm_key(t.plan.core)) in misshapen:
            out.fallbacks[t.index] = SHAPE
    gate_project_values(run, out)


def gate_project_values(run: DocRewrite, out: ParaphraseOutcome) -> None:
    """Every fill, and every run of its words, checked against the project's keyed values
    (:mod:`pipeline.deid.project_values`): a hit that is not a public list entry is dropped, so
    the span takes its list surrogate, counted as ``project_value``."""
    for i, fill in sorted(out.fills.items()):
        span = run.spans[i]
        if run.ctx.project_value_hits(fill, run.locale, span.category):
            del out.fills[i]
            out.fallbacks[i] = PROJECT_VALUE


@register(NAME, prepare=prepare)
def paraphrase(run: DocRewrite, i: int) -> Outcome:
    """The model's fill for the span, else (no model, no slot, nothing acceptable) ``replace``."""
    if i not in run.paraphrase.fills:
        return replace(run, i)      # counted in the run's paraphrase_fallbacks
    return surrogate_outcome(run, i, NAME, run.paraphrase.fills[i], project_checked=True)
