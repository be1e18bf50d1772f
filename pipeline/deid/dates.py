"""Parse, shift and re-render dates in the format they were written in (English and Spanish).

A date span is split into tokens (numbers, words, separators). Numbers and month/season/weekday
words get roles (day, month, year); everything else is kept literally when it is a separator or
an allowed filler word ("of", "de", "del", "año", ...). Shifting changes only the role-bearing
tokens, so "Dec 1st, 2070", "1 de diciembre de 2070", "12/01/70" and "spring of 2070" come out
in exactly their own shape, with zero padding, two- or four-digit years, abbreviations, trailing
dots, letter case and ordinal suffixes preserved, and weekdays recomputed.

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

import calendar
import datetime as _dt
import re
from dataclasses import dataclass, field
from functools import lru_cache

from pipeline.deid.normalize import case_style, strip_accents

REF_YEAR = 2000            # leap year used when a date has a day and month but no year
PIVOT_2DIGIT = 40          # '00-'40 -> 2000s, '41-'99 -> 1900s (unless a nearby year is given)
DAY, MONTH, SEASON, YEAR = "day", "month", "season", "year"
UNIT_DAYS = {DAY: 1.0, MONTH: 30.436875, SEASON: 91.310625, YEAR: 365.2425}

_EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
              "october", "november", "december")
_ES_MONTHS = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
              "octubre", "noviembre", "diciembre")
_EN_ABBR = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_ES_ABBR = ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic")
_EN_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_EN_WD_ABBR = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ES_WEEKDAYS = ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")
# season index: 0 winter, 1 spring, 2 summer, 3 autumn (winter of Y = the one starting Dec Y-1)
_EN_SEASONS = ("winter", "spring", "summer", "autumn")
_ES_SEASONS = ("invierno", "primavera", "verano", "otoño")

_FILLERS = {
    "of", "the", "in", "on", "year", "early", "mid", "late", "around", "about", "circa", "ca", "approximately",
    "de", "del", "el", "en", "año", "ano", "mes", "a", "principios", "mediados", "finales", "hacia", "durante",
    "los", "las", "dia", "día",
}
_TIME_FILLERS = {"h", "hs", "hrs", "horas", "hours", "hr"}
_ORDINALS = {"st", "nd", "rd", "th", "º", "ª", "er", "o"}
_SEPARATORS = set(" \t\n\r/-.,'’()–\u00a0")

_TOKEN = re.compile(
    r"(?P<time>\d{1,2}:\d{2}(?::\d{2})?(?:\s*[aApP]\.?\s?[mM]\.?)?|\d{1,2}\s*[aApP]\.?[mM]\.?(?!\w))"
    r"|(?P<num>\d+)"
    r"|(?P<word>[^\W\d_]+\.?)"
    r"|(?P<other>.)",
    re.S,
)


def _lookup() -> tuple[dict[str, list[tuple[str, int, str]]], dict[str, tuple[str, int]], dict[str, tuple[str, int]]]:
    months: dict[str, list[tuple[str, int, str]]] = {}
    for lang, full, abbr in (("en", _EN_MONTHS, _EN_ABBR), ("es", _ES_MONTHS, _ES_ABBR)):
        for i, name in enumerate(full):
            months.setdefault(name, []).append((lang, i + 1, "full"))
        for i, name in enumerate(abbr):
            if name not in full:
                months.setdefault(name, []).append((lang, i + 1, "abbr"))
    months.setdefault("sept", []).extend([("en", 9, "abbr4"), ("es", 9, "abbr4")])
    months.setdefault("setiembre", []).append(("es", 9, "full"))
    months.setdefault("set", []).append(("es", 9, "abbr"))
    weekdays: dict[str, tuple[str, int]] = {}
    for i, name in enumerate(_EN_WEEKDAYS):
        weekdays[name] = ("en", i)
    for i, name in enumerate(_EN_WD_ABBR):
        weekdays[name] = ("en", i)
    weekdays.update({"tues": ("en", 1), "thur": ("en", 3), "thurs": ("en", 3)})
    for i, name in enumerate(_ES_WEEKDAYS):
        weekdays[strip_accents(name)] = ("es", i)
    seasons: dict[str, tuple[str, int]] = {}
    for i, name in enumerate(_EN_SEASONS):
        seasons[name] = ("en", i)
    seasons["fall"] = ("en", 3)
    for i, name in enumerate(_ES_SEASONS):
        seasons[strip_accents(name)] = ("es", i)
    return months, weekdays, seasons


_MONTHS, _WEEKDAYS, _SEASONS = _lookup()


@dataclass
class _Tok:
    kind: str        # time, num, word, other
    text: str
    role: str = ""   # day, month, year, month_name, weekday, season, ordinal, literal
    lang: str = ""
    form: str = ""   # full / abbr / abbr4 for month names; fall/autumn for seasons


@dataclass
class ParsedDate:
    """A date as written: its values, its precision and the tokens to re-render it."""

    precision: str
    year: int | None
    month: int | None = None
    day: int | None = None
    season: int | None = None
    tokens: list[_Tok] = field(default_factory=list, repr=False)
    pad: bool = True

    @property
    def has_year(self) -> bool:
        return self.year is not None

    def ordinal(self) -> int:
        """Position on the precision's own time line (days, months, seasons or years)."""
        y = self.year if self.year is not None else REF_YEAR
        if self.precision == DAY:
            return _dt.date(y, self.month, self.day).toordinal()  # type: ignore[arg-type]
        if self.precision == MONTH:
            return y * 12 + (self.month or 1) - 1
        if self.precision == SEASON:
            return y * 4 + (self.season or 0)
        return y


class DateParseError(ValueError):
    """The span is not a date this module can re-render (the message carries no text)."""


def units_for(offset_days: int, precision: str) -> int:
    """The patient's offset in the unit of ``precision``; never zero for a non-zero offset."""
    if precision == DAY:
        return offset_days
    k = int(round(offset_days / UNIT_DAYS[precision]))
    if k == 0:
        k = 1 if offset_days > 0 else -1
    return k


def _year_from_2digit(yy: int, near: int | None) -> int:
    if near is not None:
        base = near - near % 100
        cands = (base - 100 + yy, base + yy, base + 100 + yy)
        return min(cands, key=lambda c: abs(c - near))
    return 2000 + yy if yy <= PIVOT_2DIGIT else 1900 + yy


def _valid_day(y: int | None, m: int, d: int) -> bool:
    if not 1 <= m <= 12 or d < 1:
        return False
    return d <= calendar.monthrange(y if y is not None else REF_YEAR, m)[1]


def _day_month(vals: dict[int, int], a: int, b: int, year: int | None, dayfirst: bool) -> tuple[int, int]:
    """(day index, month index) for the numbers at ``a`` and ``b``: the locale's preferred order
    first, then the other; DateParseError when neither is a valid day and month."""
    orders = [(a, b), (b, a)] if dayfirst else [(b, a), (a, b)]
    for di, mi in orders:
        if _valid_day(year, vals[mi], vals[di]):
            return di, mi
    raise DateParseError("no valid day/month reading")


def tokenize(text: str) -> list[_Tok]:
    return [_Tok(m.lastgroup or "other", m.group()) for m in _TOKEN.finditer(text)]


def parse_date(text: str, locale: str = "en", near_year: int | None = None) -> ParsedDate:
    """Parse a date span; raises :class:`DateParseError` when it cannot be re-rendered.

    Results are cached (a patient's dates are parsed again for every candidate offset); a
    :class:`ParsedDate` is never modified after parsing.

    ``locale`` decides ambiguous numeric dates (``es``/``de``: day first; ``en``: month first)
    and the language of shared month abbreviations; ``near_year`` picks the century of a
    two-digit year (the nearest one), which keeps round trips exact across century pivots.
    """
    return _parse_cached(text, locale, near_year)


@lru_cache(maxsize=1 << 14)
def _parse_cached(text: str, locale: str, near_year: int | None) -> ParsedDate:
    """Tokens get roles in two passes: words first (:func:`_mark_words`), then numbers, read by
    what stands beside them (a month name, a season word, or other numbers only)."""
    toks = tokenize(text)
    words = _mark_words(toks, locale)
    r = _Reading(toks, words.nums, near_year)
    if words.month is not None:
        _read_with_month_name(r, words.month)
    elif words.season is not None:
        _read_with_season(r, words.season)
    else:
        _read_numbers(r, dayfirst=locale != "en")
    for i in r.nums:
        toks[i].role = r.roles.get(i, "")
        if not toks[i].role:
            raise DateParseError("number without a role")
    precision = _precision(r)
    if words.weekday is not None and (precision != DAY or r.year is None):
        raise DateParseError("weekday without a full date")
    return ParsedDate(precision, r.year, r.month, r.day, r.season, toks, _padded(r, words.month))


@dataclass
class _Words:
    """Token indices of a date's numbers and of its month, season and weekday words."""

    nums: list[int] = field(default_factory=list)
    month: int | None = None
    season: int | None = None
    weekday: int | None = None


def _mark_words(toks: list[_Tok], locale: str) -> _Words:
    """Give every token that is not a number its role (literal, ordinal, month name, season,
    weekday) and say where the numbers are; raises on anything a date cannot hold."""
    words = _Words()
    has_time = any(t.kind == "time" for t in toks)
    for i, t in enumerate(toks):
        if t.kind == "num":
            words.nums.append(i)
        elif t.kind == "time":
            t.role = "literal"
        elif t.kind == "other":
            if t.text not in _SEPARATORS:
                raise DateParseError("unexpected character in date")
            t.role = "literal"
        else:
            _mark_word(toks, i, locale, has_time, words)
    if words.month is not None and words.season is not None:
        raise DateParseError("month and season in one date")
    return words


def _mark_word(toks: list[_Tok], i: int, locale: str, has_time: bool, words: _Words) -> None:
    """The role of the word ``toks[i]``: an ordinal suffix after a number, a month name (in the
    locale's language where both have it), a season, the first weekday, or a filler word."""
    t = toks[i]
    bare = strip_accents(t.text.rstrip(".")).lower()
    prev = toks[i - 1] if i else None
    if prev is not None and prev.kind == "num" and bare in _ORDINALS:
        t.role = "ordinal"
    elif bare in _MONTHS:
        if words.month is not None:
            raise DateParseError("more than one month name")
        words.month = i
        cands = _MONTHS[bare]
        lang, _, form = next((c for c in cands if c[0] == locale), cands[0])
        t.role, t.lang = "month_name", lang
        t.form = "abbr" if t.text.endswith(".") and form == "full" and bare == "may" else form
    elif bare in _SEASONS:
        if words.season is not None:
            raise DateParseError("more than one season")
        words.season = i
        t.role, t.lang = "season", _SEASONS[bare][0]
        t.form = bare
    elif bare in _WEEKDAYS and words.weekday is None:
        words.weekday = i
        t.role, t.lang = "weekday", _WEEKDAYS[bare][0]
        t.form = "abbr" if len(bare) <= 4 else "full"
    elif bare in _FILLERS or (has_time and bare in _TIME_FILLERS):
        t.role = "literal"
    else:
        raise DateParseError("word that is not part of a date")


@dataclass
class _Reading:
    """A date's numbers (token indices, values, digit counts) and what they were read as so far."""

    toks: list[_Tok]
    nums: list[int]
    near_year: int | None
    year: int | None = None
    month: int | None = None
    day: int | None = None
    season: int | None = None
    roles: dict[int, str] = field(default_factory=dict)
    vals: dict[int, int] = field(init=False)
    lens: dict[int, int] = field(init=False)

    def __post_init__(self) -> None:
        self.vals = {i: int(self.toks[i].text) for i in self.nums}
        self.lens = {i: len(self.toks[i].text) for i in self.nums}

    def apostrophe(self, i: int) -> bool:
        """The number follows an apostrophe ('04): a two-digit year."""
        return i > 0 and self.toks[i - 1].text in ("'", "’")

    def ordinal(self, i: int) -> bool:
        """The number carries an ordinal suffix (1st, 3º): a day."""
        return i + 1 < len(self.toks) and self.toks[i + 1].role == "ordinal"

    def set_year(self, i: int) -> None:
        if self.lens[i] == 4:
            self.year = self.vals[i]
        elif self.lens[i] == 2:
            self.year = _year_from_2digit(self.vals[i], self.near_year)
        else:
            raise DateParseError("year must have two or four digits")
        self.roles[i] = "year"

    def set_month(self, i: int) -> None:
        self.roles[i] = "month"
        self.month = self.vals[i]

    def set_day_month(self, di: int, mi: int) -> None:
        self.roles[di], self.roles[mi] = "day", "month"
        self.day, self.month = self.vals[di], self.vals[mi]


def _read_with_month_name(r: _Reading, month_word: int) -> None:
    """At most two numbers beside a month name: a four-digit or apostrophed one is the year, one
    with an ordinal suffix a day, the others are read by :func:`_read_free_number`."""
    r.month = _MONTHS[strip_accents(r.toks[month_word].text.rstrip(".")).lower()][0][1]
    if len(r.nums) > 2:
        raise DateParseError("too many numbers for a date with a month name")
    free = []
    for i in r.nums:
        if r.lens[i] == 4 or r.apostrophe(i):
            if r.year is not None:
                raise DateParseError("two years")
            r.set_year(i)
        elif r.ordinal(i):
            r.roles[i] = "day"
        else:
            free.append(i)
    for i in free:
        _read_free_number(r, i, month_word)
    for i, role in r.roles.items():
        if role == "day":
            r.day = r.vals[i]


def _read_free_number(r: _Reading, i: int, month_word: int) -> None:
    """A number beside a month name that is neither plainly a year nor an ordinal: the year once
    there is a day, the later of two numbers (or one over 31), a two-digit number right after
    "month-" ("mar-04"); else the day."""
    nums = r.nums
    if "day" in r.roles.values():
        if r.year is not None:
            raise DateParseError("two days")
        r.set_year(i)
    elif len(nums) == 2 and r.year is None and (r.vals[i] > 31 or i == max(nums)):
        r.set_year(i)
    elif len(nums) == 1 and (r.vals[i] > 31 or (i > month_word and r.lens[i] == 2 and month_word + 2 == i
                                                 and r.toks[month_word + 1].text in "-/'’.")):
        r.set_year(i)
    else:
        r.roles[i] = "day"


def _read_with_season(r: _Reading, season_word: int) -> None:
    """A season word with at most one number, its year."""
    r.season = _SEASONS[strip_accents(r.toks[season_word].text.rstrip(".")).lower()][1]
    if len(r.nums) > 1:
        raise DateParseError("too many numbers for a season")
    if r.nums:
        r.set_year(r.nums[0])


def _read_numbers(r: _Reading, dayfirst: bool) -> None:
    """One to three numbers and no month or season word: a year; a year and a month; or a day,
    a month and a year (``dayfirst``: the locale's order of an ambiguous day and month)."""
    nums = r.nums
    if len(nums) == 1:
        i = nums[0]
        if r.lens[i] == 4 or (r.apostrophe(i) and r.lens[i] == 2):
            r.set_year(i)
        else:
            raise DateParseError("a lone number that is not a year")
    elif len(nums) == 2:
        _read_two_numbers(r, dayfirst)
    elif len(nums) == 3:
        _read_three_numbers(r, dayfirst)
    elif nums:
        raise DateParseError("too many numbers for a date")
    if not nums:
        raise DateParseError("no date in span")
    for i in nums:
        if r.roles.get(i) not in ("day", "month", "year"):
            raise DateParseError("number without a role")


def _read_two_numbers(r: _Reading, dayfirst: bool) -> None:
    """A year and a month (either order), or a day and a month without a year."""
    a, b = r.nums
    lens = r.lens
    if lens[a] == 4 and lens[b] <= 2:
        r.set_year(a)
        r.set_month(b)
    elif lens[b] == 4 and lens[a] <= 2:
        r.set_year(b)
        r.set_month(a)
    elif lens[a] <= 2 and lens[b] <= 2:
        if r.vals[b] > 31 or r.apostrophe(b):
            r.set_year(b)
            r.set_month(a)
        else:
            r.set_day_month(*_day_month(r.vals, a, b, None, dayfirst))
    else:
        raise DateParseError("numbers do not form a date")


def _read_three_numbers(r: _Reading, dayfirst: bool) -> None:
    """Year-month-day, or a day and a month (the locale's order first) then the year."""
    a, b, c = r.nums
    lens = r.lens
    if lens[a] == 4 and lens[b] <= 2 and lens[c] <= 2:
        r.set_year(a)
        r.roles[b], r.roles[c] = "month", "day"
        r.month, r.day = r.vals[b], r.vals[c]
    elif lens[c] in (2, 4) and lens[a] <= 2 and lens[b] <= 2:
        r.set_year(c)
        r.set_day_month(*_day_month(r.vals, a, b, r.year, dayfirst))
    else:
        raise DateParseError("numbers do not form a date")


def _precision(r: _Reading) -> str:
    """The finest unit the values give (after checking their ranges)."""
    if r.year is not None and not 1 <= r.year <= 9999:
        raise DateParseError("year out of range")
    if r.month is not None and not 1 <= r.month <= 12:
        raise DateParseError("month out of range")
    if r.day is not None:
        if r.month is None or not _valid_day(r.year, r.month, r.day):
            raise DateParseError("day out of range")
        return DAY
    if r.month is not None:
        return MONTH
    if r.season is not None:
        return SEASON
    if r.year is not None:
        return YEAR
    raise DateParseError("no date in span")  # pragma: no cover - every reading sets a value or raises


def _padded(r: _Reading, month_word: int | None) -> bool:
    """Whether a re-rendered day or month is zero-padded: as written (a leading zero, or no
    one-digit day or month); beside a month name only with a leading zero."""
    dm = [i for i in r.nums if r.toks[i].role in ("day", "month")]
    pad = any(r.toks[i].text.startswith("0") for i in dm) or not any(r.lens[i] == 1 for i in dm)
    if month_word is not None and not any(r.toks[i].text.startswith("0") for i in dm):
        pad = False
    return pad


# -- rendering ----------------------------------------------------------------------------------

def _en_suffix(n: int) -> str:
    if 11 <= n % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _cased(word: str, like: str) -> str:
    style = case_style(like)
    if style == "upper":
        return word.upper()
    if style == "lower":
        return word.lower()
    return word[:1].upper() + word[1:]


def _month_name(t: _Tok, month: int) -> str:
    bare = t.text.rstrip(".")
    if t.form == "full":
        name = (_EN_MONTHS if t.lang == "en" else _ES_MONTHS)[month - 1]
    elif t.form == "abbr4" and month == 9:
        name = "sept"
    else:
        name = (_EN_ABBR if t.lang == "en" else _ES_ABBR)[month - 1]
    return _cased(name, bare) + ("." if t.text.endswith(".") else "")


def _season_name(t: _Tok, season: int) -> str:
    bare = t.text.rstrip(".")
    if t.lang == "en":
        name = _EN_SEASONS[season]
        if season == 3 and t.form == "fall":
            name = "fall"
    else:
        name = _ES_SEASONS[season]
    return _cased(name, bare)


def _weekday_name(t: _Tok, wd: int) -> str:
    bare = t.text.rstrip(".")
    if t.lang == "en":
        name = _EN_WEEKDAYS[wd] if t.form == "full" else _EN_WD_ABBR[wd]
    else:
        name = _ES_WEEKDAYS[wd]
    return _cased(name, bare) + ("." if t.text.endswith(".") else "")


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
