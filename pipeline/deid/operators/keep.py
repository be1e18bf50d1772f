"""``keep``: the span stays as it is (the profile accepts the risk; the run counts it)."""
from __future__ import annotations

from pipeline.deid.operators.base import DocRewrite, Outcome
from pipeline.deid.operators.registry import register


@register("keep", rewrites=False, fixed_text=True)
def keep(run: DocRewrite, i: int) -> Outcome:
    """The original, unchanged."""
    return Outcome(run.originals[i].text, "keep")
