"""``replace``: a realistic surrogate of the span's type from the locale's lists
(:mod:`pipeline.deid.surrogates`); the placeholder when none is safe (counted as a fallback)."""
from __future__ import annotations

from pipeline.deid.operators.base import DocRewrite, Outcome, list_surrogate, surrogate_outcome
from pipeline.deid.operators.registry import register


@register("replace")
def replace(run: DocRewrite, i: int) -> Outcome:
    """A list surrogate of the span's type, keyed on the secret, the patient and the value."""
    new_core, unparseable = list_surrogate(run, i)
    return surrogate_outcome(run, i, "replace", new_core, unparseable=unparseable)
