"""Shift dates and re-render them in the format they were written in (English and Spanish).

A date is parsed into tokens with roles (:mod:`pipeline.deid.date_parse`, with the words of
:mod:`pipeline.deid.date_words`). Shifting changes only the role-bearing tokens, so
"Dec 1st, 2070", "1 de diciembre de 2070", "12/01/70" and "spring of 2070" come out in exactly
their own shape, with zero padding, two- or four-digit years, abbreviations, trailing dots,
letter case and ordinal suffixes preserved, and weekdays recomputed.

Precision decides what "shift by the patient's offset" means:

* ``day`` (a day and a month): the date moves by the offset in days, so intervals between a
  patient's dates are preserved exactly (when the year is written; without a year the day and
  month move the same way, in a leap reference year).
* ``month`` / ``season`` / ``year``: the value moves by the offset converted to that unit,
  rounded, and never by zero units (a 20-day offset still moves "2005" to 2006 or 2004), so
  a surrogate never equals its original and all of a patient's dates of one precision keep
  their intervals in that unit.

Anything that does not fit (two months in one span, "Christmas", a hospital name mislabelled
as a date) is unparseable: the caller falls back to a placeholder and counts it.
"""
from __future__ import annotations

import datetime as _dt
from functools import lru_cache

from pipeline.deid.date_parse import DAY, MONTH, REF_YEAR, SEASON, YEAR, ParsedDate, parse_date
from pipeline.deid.date_words import DateParseError, _cased, _en_suffix, _month_name, _season_name, _weekday_name

UNIT_DAYS = {DAY: 1.0, MONTH: 30.436875, SEASON: 91.310625, YEAR: 365.2425}


def units_for(offset_days: int, precision: str) -> int:
    """The patient's offset in the unit of ``precision``; never zero for a non-zero offset."""
    if precision == DAY:
        return offset_days
    k = int(round(offset_days / UNIT_DAYS[precision]))
    if k == 0:
        k = 1 if offset_days > 0 else -1
    return k


def _num(value: int, original: str, pad: bool) -> str:
    if original.startswith("0") or (pad and len(original) == 2):
        return f"{value:02d}"
    return str(value)


def render(p: ParsedDate, year: int | None, month: int | None, day: int | None, season: int | None) -> str:
    """Write new values into the tokens of ``p`` (everything else is kept as written)."""
    out: list[str] = []
    toks = p.tokens
    for i, t in enumerate(toks):
        if t.role == "year":
            out.append(f"{year % 100:02d}" if len(t.text) == 2 else f"{year:04d}")
        elif t.role == "month":
            out.append(_num(month, t.text, p.pad))
        elif t.role == "day":
            out.append(_num(day, t.text, p.pad))
        elif t.role == "ordinal":
            bare = t.text.rstrip(".")
            prev_is_day = i > 0 and toks[i - 1].role == "day"
            if prev_is_day and bare.lower() in ("st", "nd", "rd", "th"):
                out.append(_cased(_en_suffix(day), bare))
                if t.text.endswith("."):
                    out.append(".")
            else:
                out.append(t.text)
        elif t.role == "month_name":
            out.append(_month_name(t, month))
        elif t.role == "season":
            out.append(_season_name(t, season))
        elif t.role == "weekday":
            out.append(_weekday_name(t, _dt.date(year, month, day).weekday()))
        else:
            out.append(t.text)
    return "".join(out)


def shift_parsed(p: ParsedDate, offset_days: int) -> tuple[int | None, int | None, int | None, int | None]:
    """New (year, month, day, season) of ``p`` moved by the patient's offset."""
    k = units_for(offset_days, p.precision)
    y = p.year if p.year is not None else REF_YEAR
    if p.precision == DAY:
        d = _dt.date(y, p.month, p.day) + _dt.timedelta(days=k)  # type: ignore[arg-type]
        return d.year, d.month, d.day, None
    if p.precision == MONTH:
        total = y * 12 + p.month - 1 + k  # type: ignore[operator]
        return total // 12, total % 12 + 1, None, None
    if p.precision == SEASON:
        total = y * 4 + p.season + k  # type: ignore[operator]
        return total // 4, None, None, total % 4
    return y + k, None, None, None


def shift_date(text: str, offset_days: int, locale: str = "en") -> str:
    """``text`` moved by ``offset_days`` in its own format; raises :class:`DateParseError`."""
    if offset_days == 0:
        raise ValueError("a date offset of 0 would leave the date unchanged")
    p = parse_date(text, locale)
    y, m, d, s = shift_parsed(p, offset_days)
    if y is None or not 1 <= y <= 9999:
        raise DateParseError("shifted year out of range")
    if p.has_year and len(str(y)) > 4:
        raise DateParseError("shifted year out of range")
    return render(p, y, m, d, s)


@lru_cache(maxsize=1 << 14)
def is_partial_date(text: str) -> bool:
    """True for a date too coarse to identify anyone on its own: only a year ("2006", "año
    2006", "'70"), or a month or season without a year ("septiembre", "spring")."""
    try:
        p = parse_date(text)
    except DateParseError:
        return False
    return p.precision == YEAR or (p.precision in (MONTH, SEASON) and p.year is None)
