"""Parse a date span into its values, its precision and the tokens to re-render it.

The words get their roles first (:func:`pipeline.deid.date_words._mark_words`); the numbers
are then read by what stands beside them: a month name, a season word, or other numbers only
(the locale decides an ambiguous day and month, a nearby year the century of a two-digit one).
The finest unit the values give is the date's precision (day, month, season or year), which
decides how :mod:`pipeline.deid.dates` shifts it.

Anything that does not fit (two months in one span, "Christmas", a hospital name mislabelled
as a date) is unparseable: :class:`~pipeline.deid.date_words.DateParseError`, and the caller
falls back to a placeholder and counts it.
"""
from __future__ import annotations

import calendar
import datetime as _dt
from dataclasses import dataclass, field
from functools import lru_cache

from pipeline.deid.date_words import _MONTHS, _SEASONS, DateParseError, _Tok, _mark_words, tokenize
from pipeline.deid.normalize import strip_accents

REF_YEAR = 2000            # leap year used when a date has a day and month but no year
PIVOT_2DIGIT = 40          # '00-'40 -> 2000s, '41-'99 -> 1900s (unless a nearby year is given)
DAY, MONTH, SEASON, YEAR = "day", "month", "season", "year"


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

