"""The English pack's step for a model span that runs over a line break or a sentence's end.

* ``cut_model_spans_at_lines`` (model stage): a model's span that crosses a line break becomes one
  span per line. A sequence model reads a note's tokens in a row, so in a line in one case it
  runs a name at the end of one line into the first word of the next ("CORDELIA FAIRWEATHER" +
  "ROSE" of the address "ROSE COTTAGE" below it, found on the invented PII notes' find half in
  UPPER and lower case, benchmarks/pii_invented.py --cases), and the merge then lets that span
  take the rule's place. No English gold type runs over a line, and de-identification cuts every
  span at line breaks before rewriting anyway (:mod:`pipeline.deid.span_hygiene`); the part on
  the next line stays a span of its own, which a rule span holding it replaces in the merge
  (:data:`pipeline.detection.merge_policy.RULE_CONTAINS_WINS`).

  A sentence's end inside a model span cuts it too ("UMass Boston. Mother Gloria", "Woburn.
  Grandson": found on the first invented ICU set's find half, f14, f36): no name or place goes on
  over a full stop, unless the stop closes an abbreviation or an initial ("St. Anne's", "Mt.
  Auburn", "J. Smith", "Boston Med. Ctr."); the full stop that ends a model span's sentence is
  left out of it, and a form's column gap (two blanks or a tab) cuts it as a line break does. A
  model's name or place that is a piece of a word ("g." of "e.g.", "Xa" of "Anti-Xa") goes.
"""
from __future__ import annotations

import re

from pipeline.detection.combine import CombinePolicy, clean_span
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.locales import load_vocabulary
from pipeline.spans import Span

_LINE_BREAK = re.compile(r"\s*[\r\n]\s*")
# a sentence's end: a full stop, a semicolon, "!" or "?" and a blank, after a word of two letters or
# more that is no abbreviation a name or a place is written with
_SENTENCE_END = re.compile(r"(?<=[^\W\d_]{2})[.;!?][ \t]+|[\r\n]")
_ABBREVIATIONS = frozenset("""st mt ft dr mr mrs ms jr sr sgt prof rev fr hon med ctr hosp univ inst assoc gen mem reg
comm co inc corp ltd bros ave av rd blvd ln hwy dept div intl natl no vs""".split())
_LAST_WORD = re.compile(r"([^\W\d_]+)$")
# a form's column gap: two blanks or a tab ("Attending: Dr. Hardesty   Written by: ...": icu_invented_g find f14)
_COLUMN_GAP = re.compile(r"[ ]*\t[ \t]*|[ ]{2,}")


def _breaks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Where a span cuts between ``start`` and ``end``: its line breaks and its sentences' ends."""
    out = []
    for m in _SENTENCE_END.finditer(text, start, end):
        if m.group()[0] not in "\r\n":
            word = _LAST_WORD.search(text, start, m.start())
            if word is None or word.group(1).lower() in _ABBREVIATIONS:
                continue
            out.append((m.start(), m.end()))
    for m in _LINE_BREAK.finditer(text, start, end):
        out.append((m.start(), m.end()))
    for m in _COLUMN_GAP.finditer(text, start, end):
        out.append((m.start(), m.end()))
    merged: list[tuple[int, int]] = []
    for a, b in sorted(out):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def _without_stop(span: Span, text: str) -> Span:
    """A model span without the full stop that ends its sentence ("per dr wexler.", "TEACHER AT
    BELMONT HIGH SCHOOL.": icu_invented find f20, f94; icu_invented_d find f16); an abbreviation's
    or an initial's stop stays ("St.", "J.")."""
    if text[span.end - 1:span.end] != "." or span.end - span.start < 2:
        return span
    word = _LAST_WORD.search(text, span.start, span.end - 1)
    if word is None or len(word.group(1)) < 2 or word.group(1).lower() in _ABBREVIATIONS:
        return span
    return span.with_(end=span.end - 1)


def _piece_of_a_word(span: Span, text: str) -> bool:
    """A model's name or place that is the last letter of an abbreviation ("g." of "e.g.") or the
    half of a compound after a ward word and its hyphen ("Xa" of "Anti-Xa"): icu_invented_g find
    f16, f26."""
    if span.category not in ("NAME", "LOCATION"):
        return False
    piece = text[span.start:span.end]
    if re.fullmatch(r"[A-Za-z]\.?", piece) and re.search(r"(?<![\w.])[A-Za-z]\.$", text[max(0, span.start - 3):span.start]):
        return True
    if re.search(r"\s", piece):
        return False   # "law Suzanne" of "Daughter-in-law Suzanne": the name after it stays
    before = re.search(r"([A-Za-z]+)-$", text[max(0, span.start - 20):span.start])
    return before is not None and before.group(1).lower() in load_vocabulary("en").safe


@boundary_step("cut_model_spans_at_lines", "model")
def cut_model_spans_at_lines(model_spans: list[Span], ctx: StepContext) -> list[Span]:
    """Each model span that crosses a line break or a sentence's end, cut into its parts (cleaned
    as any machine span; a part left empty goes); others as they are.

    >>> text = "CORDELIA FAIRWEATHER\\nROSE COTTAGE"
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = cut_model_spans_at_lines([Span("d", 0, 25, "NAME", "PATIENT", source="model:v")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['CORDELIA FAIRWEATHER', 'ROSE']
    >>> text = "Student at UMass Boston. Mother Gloria notified. Seen at St. Anne's."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = cut_model_spans_at_lines([Span("d", 11, 38, "LOCATION", "ORGANIZATION", source="model:v"),
    ...                                 Span("d", 57, 67, "LOCATION", "HOSPITAL", source="model:v")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['UMass Boston', 'Mother Gloria', "St. Anne's"]
    """
    text = ctx.text
    model_spans = [_without_stop(m, text) for m in model_spans if not _piece_of_a_word(m, text)]
    cuts = [_breaks(text, m.start, m.end) for m in model_spans]
    if not any(cuts):
        return model_spans
    policy = CombinePolicy(words=ctx.words)
    out: list[Span] = []
    for m, breaks in zip(model_spans, cuts):
        if not breaks:
            out.append(m)
            continue
        start = m.start
        for a, b in breaks:
            part = clean_span(m.with_(start=start, end=a), text, policy) if a > start else None
            out += [part] if part is not None else []
            start = b
        part = clean_span(m.with_(start=start, end=m.end), text, policy) if m.end > start else None
        out += [part] if part is not None else []
    return sorted(out, key=lambda s: (s.start, s.end))
