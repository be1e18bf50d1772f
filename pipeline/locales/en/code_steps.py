"""The English pack's steps for a model's span that is, or ends in, a ward's code.

* ``drop_ward_codes`` (model stage): a model's state that is a US postal code a ward also writes
  for something else ("VT 380-450" is a tidal volume, "PER NH" a nursing home, "PA line", "MS",
  "NC", "CT") goes unless an address says it is a state: a town and a comma before it ("Portland,
  ME") or a ZIP after it ("NH 03301"); a model's ZIP of fewer than four digits ("380" of that
  tidal volume) is no postal code anywhere the pack's notes come from. A rule that read a state's
  context ("lives in NH" in a mixed-case line, :mod:`pipeline.detection.rules.en.state_codes`)
  keeps its own span: this step reads the model's spans only. Found on the third invented ICU
  set's find half (benchmarks/icu_invented_c.py: f08, f15), where the cold start's model marked
  "VT" and "NH" in ventilator and nursing-home lines, and checked on the other invented sets and
  the clean ICU lines.
* ``strip_slashed_with`` (model stage): a model's span that ends on the "w" of a ward's "w/"
  ("FROM ALDERSGATE MANOR W/ CHF": icu_invented_f find f04, in UPPER and lower case) ends before
  it: "w/" is "with", never a name's or a place's last letter.
"""
from __future__ import annotations

import re

from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span

#: postal codes that are also a ward's abbreviations (tidal volume, nursing home, pulmonary artery,
#: cardiac output, infectious disease, left atrium, operating room, myocardial infarction, ...);
#: not "MA", which a Massachusetts ward writes for its state far more than for anything else
WARD_CODES = frozenset("""VT NH PA CO ID MD DE LA GA NE OR ME IN OK MS MI CT SC NC VA UT AR AL HI""".split())
_TOWN_COMMA_BEFORE = re.compile(r"[A-Za-z][A-Za-z.'-]*,[ \t]*$")
_ZIP_AFTER = re.compile(r"\.?,?[ \t]+\d{5}(?:-\d{4})?(?!\d)")


def _ward_code(span: Span, text: str) -> bool:
    if span.type != "STATE" or text[span.start:span.end].upper() not in WARD_CODES:
        return False
    return not (_TOWN_COMMA_BEFORE.search(text, max(0, span.start - 40), span.start)
                or _ZIP_AFTER.match(text, span.end))


def _short_zip(span: Span, text: str) -> bool:
    value = text[span.start:span.end]
    return span.type == "ZIP" and value.isdigit() and len(value) < 4


@boundary_step("drop_ward_codes", "model")
def drop_ward_codes(model_spans: list[Span], ctx: StepContext) -> list[Span]:
    """The model's spans without its states that are a ward's codes outside an address and its
    ZIPs of fewer than four digits.

    >>> text = "VT 380-450, RR 18. Lives in Portland, ME."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = drop_ward_codes([Span("d", 0, 2, "LOCATION", "STATE", source="model:v"),
    ...     Span("d", 3, 6, "LOCATION", "ZIP", source="model:v"),
    ...     Span("d", 38, 40, "LOCATION", "STATE", source="model:v")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['ME']
    """
    return [s for s in model_spans if not (_ward_code(s, ctx.text) or _short_zip(s, ctx.text))]


_SLASHED_WITH = re.compile(r"[ \t]+[Ww]$")


@boundary_step("strip_slashed_with", "model")
def strip_slashed_with(model_spans: list[Span], ctx: StepContext) -> list[Span]:
    """The model's spans without a last "w" that a slash follows.

    >>> text = "92 Y/O F FROM ALDERSGATE MANOR W/ CHF"
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = strip_slashed_with([Span("d", 14, 32, "LOCATION", "HOSPITAL", source="model:v")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['ALDERSGATE MANOR']
    """
    out = []
    for s in model_spans:
        m = _SLASHED_WITH.search(ctx.text, s.start, s.end) if ctx.text[s.end:s.end + 1] == "/" else None
        out.append(s.with_(end=m.start()) if m and m.start() > s.start else s)
    return out
