"""The English pack's step for a model's date that no date can be.

* ``drop_impossible_dates`` (model stage): a model's date that starts inside a decimal number
  ("vbg 7.30/34", "VBG 7.04/19": a blood gas's pH, then its pCO2, read from "30/34"; "36.8-37.0" a
  temperature's range), or that has no digit and no calendar word (a month, a weekday, a season, a
  holiday: "IHS/PUEBLO HEALTH", a quoted "LUNCH"), goes. Found on icu_invented_p find f30 and
  icu_invented_s find f02; on the find halves of every blind set, as written, in UPPER and in lower
  case, the cold start's model had 12 such dates, none PHI. A rule's date is never this step's.
"""
from __future__ import annotations

import re
from functools import lru_cache

from pipeline.detection.rules.en.dates import HOLIDAYS, MONTH_ABBR, MONTHS, SEASONS, WEEKDAYS
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span

_WORD = re.compile(r"[A-Za-z]+")
_DECIMAL_BEFORE = re.compile(r"\d[.,]$")
_WEEKDAY_ABBR = "mon tue tues wed weds thu thur thurs fri sat sun".split()


@lru_cache(maxsize=1)
def _calendar_words() -> frozenset[str]:
    words = {w.lower() for w in MONTHS + MONTH_ABBR + WEEKDAYS + SEASONS} | set(_WEEKDAY_ABBR)
    return frozenset(words | {w.lower() for h in HOLIDAYS for w in _WORD.findall(h)})


def _impossible(span: Span, text: str) -> bool:
    if span.type != "DATE":
        return False
    value = text[span.start:span.end]
    if value[:1].isdigit() and _DECIMAL_BEFORE.search(text, max(0, span.start - 2), span.start):
        return True
    calendar = _calendar_words()
    return not any(c.isdigit() for c in value) and not any(
        w.lower() in calendar or w.lower().rstrip("s") in calendar for w in _WORD.findall(value))


@boundary_step("drop_impossible_dates", "model")
def drop_impossible_dates(model_spans: list[Span], ctx: StepContext) -> list[Span]:
    """The model's spans without its dates inside a decimal number or without digit or calendar word.

    >>> text = "repeat vbg 7.30/34. IHS to call. Seen 3/14, back Sundays."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = drop_impossible_dates([Span("d", 13, 18, "DATE", "DATE", source="model:v"),
    ...     Span("d", 20, 23, "DATE", "DATE", source="model:v"), Span("d", 38, 42, "DATE", "DATE", source="model:v"),
    ...     Span("d", 49, 56, "DATE", "DATE", source="model:v")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['3/14', 'Sundays']
    """
    return [s for s in model_spans if not _impossible(s, ctx.text)]
