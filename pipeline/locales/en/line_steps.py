"""The English pack's step for a model span that runs over a line break.

* ``cut_model_spans_at_lines`` (model stage): a model's span that crosses a line break becomes one
  span per line. A sequence model reads a note's tokens in a row, so in a line in one case it
  runs a name at the end of one line into the first word of the next ("CORDELIA FAIRWEATHER" +
  "ROSE" of the address "ROSE COTTAGE" below it, found on the invented PII notes' find half in
  UPPER and lower case, benchmarks/pii_invented.py --cases), and the merge then lets that span
  take the rule's place. No English gold type runs over a line, and de-identification cuts every
  span at line breaks before rewriting anyway (:mod:`pipeline.deid.span_hygiene`); the part on
  the next line stays a span of its own, which a rule span holding it replaces in the merge
  (:data:`pipeline.detection.merge_policy.RULE_CONTAINS_WINS`).
"""
from __future__ import annotations

import re

from pipeline.detection.combine import CombinePolicy, clean_span
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span

_LINE_BREAK = re.compile(r"\s*[\r\n]\s*")


@boundary_step("cut_model_spans_at_lines", "model")
def cut_model_spans_at_lines(model_spans: list[Span], ctx: StepContext) -> list[Span]:
    """Each model span that crosses a line break, cut into its lines' parts (cleaned as any
    machine span; a part left empty goes); others as they are.

    >>> text = "CORDELIA FAIRWEATHER\\nROSE COTTAGE"
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = cut_model_spans_at_lines([Span("d", 0, 25, "NAME", "PATIENT", source="model:v")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['CORDELIA FAIRWEATHER', 'ROSE']
    """
    text = ctx.text
    if not any(_LINE_BREAK.search(text, m.start, m.end) for m in model_spans):
        return model_spans
    policy = CombinePolicy(words=ctx.words)
    out: list[Span] = []
    for m in model_spans:
        if not _LINE_BREAK.search(text, m.start, m.end):
            out.append(m)
            continue
        start = m.start
        for br in _LINE_BREAK.finditer(text, m.start, m.end):
            part = clean_span(m.with_(start=start, end=br.start()), text, policy) if br.start() > start else None
            out += [part] if part is not None else []
            start = br.end()
        part = clean_span(m.with_(start=start, end=m.end), text, policy) if m.end > start else None
        out += [part] if part is not None else []
    return sorted(out, key=lambda s: (s.start, s.end))
