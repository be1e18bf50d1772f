"""A span of years: "served in the Army 1974-77", "lived in Tulsa from 1998-2003", "(2001-2004)".

Why: HIPAA counts every year of a date as an identifier, and a social history dates a person's
life by ranges of years that no date rule reads (a year alone needs "in" or "since"; a range has
neither). A ward writes volumes, goals and a shift's clock times in the same shape ("TF goal 1800-2000", "UO 1900-2000
cc"), so a range is a date only when it reads as years: "1974-77" (the second part two digits and
later than the first's), or two full years a few decades apart after a word of time ("from",
"between", "during", "served", "worked", "lived", "married", "years") or in brackets; never before
a unit, and never two clock times ("1900-30", "2000-2030": both ends on :00, :15, :30 or :45).
Found on ed_invented find f06 ("1974-77").
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

_RANGE = re.compile(r"(?<![\w/.-])(?P<a>(?:19|20)\d\d)[ \t]*[-–][ \t]*(?P<b>(?:19|20)\d\d|\d\d)(?![\w/%-]|\.\d)")
_UNIT_AFTER = re.compile(r"(?i)[ \t]*(?:ml|cc|cal|kcal|mg|mcg|units?|l\b|%|/|x\b|kg|g\b|per\b)")
_TIME_BEFORE = re.compile(r"(?i)(?:\b(?:from|between|during|in|served|worked|lived|living|married|divorced|"
                          r"years?|yrs?|employed|enlisted|deployed|incarcerated|attended)\b[^\n.;]{0,24}|\()[ \t]*$")


#: the minutes a clock's range is written with ("1900-30", "2000-2030": a shift's times, not years)
_CLOCK = frozenset({"00", "15", "30", "45"})


def _is_years(text: str, m: re.Match) -> bool:
    if _UNIT_AFTER.match(text, m.end()):
        return False
    a, b = m.group("a"), m.group("b")
    if a[2:] in _CLOCK and b[-2:] in _CLOCK:
        return False
    if len(b) == 2:
        return int(b) > int(a[2:])   # "1990-10": no later year
    # "TF goal 1800-2000", "UO 1900-2000": volumes, with no word of time before them
    return 0 < int(b) - int(a) <= 60 and _TIME_BEFORE.search(text[max(0, m.start() - 40):m.start()]) is not None


def year_range_at(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a range of years this module reads (the number-context step
    asks it, since a year alone needs "in" or "since")."""
    m = _RANGE.fullmatch(text, start, end)
    return m is not None and _is_years(text, m)


@register(LOCALE, "year_ranges", "DATE", score=0.82)
def year_ranges(text: str, doc_id: str) -> list[Span]:
    """Ranges of years: a year and the later two digits of another, or two years after a word of
    time or in brackets; never before a unit."""
    return [mk(doc_id, *m.span(), "DATE") for m in _RANGE.finditer(text) if _is_years(text, m)]
