"""``redact``: the profile's placeholder ("[NAME]", "XXX-Name", a run of ``*``) in place of the span."""
from __future__ import annotations

from pipeline.deid.operators.base import DocRewrite, Outcome
from pipeline.deid.operators.registry import register


@register("redact", fixed_text=True)
def redact(run: DocRewrite, i: int) -> Outcome:
    """The profile's placeholder for the span's category and type."""
    span = run.spans[i]
    return Outcome(run.profile.placeholder_for(span.category, span.type, run.originals[i].text), "redact")
