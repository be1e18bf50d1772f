"""``shift``: a date or an age moved by the patient's offset, written in its own format
(:mod:`pipeline.deid.dates`, :mod:`pipeline.deid.ages`, through their surrogate generators);
the placeholder when the value cannot be read (counted as unparseable)."""
from __future__ import annotations

from pipeline.deid.operators.base import DocRewrite, Outcome, list_surrogate, surrogate_outcome
from pipeline.deid.operators.registry import register


@register("shift")
def shift(run: DocRewrite, i: int) -> Outcome:
    """The date or age shifted by the patient's keyed offset (only dates and ages get ``shift``)."""
    new_core, unparseable = list_surrogate(run, i)
    return surrogate_outcome(run, i, "shift", new_core, unparseable=unparseable)
