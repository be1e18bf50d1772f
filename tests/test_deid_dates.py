"""Date parsing, shifting and re-rendering (English and Spanish), tested on the formats clinical
notes use. Strings here are made up for the test, not document text."""
from __future__ import annotations

import datetime as dt
import random
import re

import pytest

from pipeline.deid.date_parse import DAY, MONTH, SEASON, YEAR, parse_date
from pipeline.deid.date_words import DateParseError
from pipeline.deid.dates import is_partial_date, shift_date, units_for

OFFSETS = (1, -1, 45, -200, 365, -400, 1000, -1095)

# (text, locale, precision, (year, month, day, season) as parsed)
FORMATS = [
    ("2070-12-01", "en", DAY, (2070, 12, 1, None)),
    ("12/01/70", "en", DAY, (1970, 12, 1, None)),
    ("4/66", "en", MONTH, (1966, 4, None, None)),
    ("Dec 1st, 2070", "en", DAY, (2070, 12, 1, None)),
    ("December 2070", "en", MONTH, (2070, 12, None, None)),
    ("2070", "en", YEAR, (2070, None, None, None)),
    ("1 de diciembre de 2070", "es", DAY, (2070, 12, 1, None)),
    ("10/10/1963", "es", DAY, (1963, 10, 10, None)),
    ("spring of 2070", "en", SEASON, (2070, None, None, 1)),
    ("December 1, 2070", "en", DAY, (2070, 12, 1, None)),
    ("01-Dec-2070", "en", DAY, (2070, 12, 1, None)),
    ("12/1/2070", "en", DAY, (2070, 12, 1, None)),
    ("1st of December 2070", "en", DAY, (2070, 12, 1, None)),
    ("Monday, December 1, 2070", "en", DAY, (2070, 12, 1, None)),
    ("DEC. 22ND 2070", "en", DAY, (2070, 12, 22, None)),
    ("Sept 3rd, 2069", "en", DAY, (2069, 9, 3, None)),
    ("'70", "en", YEAR, (1970, None, None, None)),
    ("17/06/2016", "es", DAY, (2016, 6, 17, None)),
    ("17/06/2016 10:30 h", "es", DAY, (2016, 6, 17, None)),
    ("mayo del 2005", "es", MONTH, (2005, 5, None, None)),
    ("año 2000", "es", YEAR, (2000, None, None, None)),
    ("septiembre del año 2012", "es", MONTH, (2012, 9, None, None)),
    ("diciembre-99", "es", MONTH, (1999, 12, None, None)),
    ("05-octubre-2009", "es", DAY, (2009, 10, 5, None)),
    ("Enero de 2007", "es", MONTH, (2007, 1, None, None)),
    ("22-7-04", "es", DAY, (2004, 7, 22, None)),
    ("16/05 /2018", "es", DAY, (2018, 5, 16, None)),
    ("primavera de 2010", "es", SEASON, (2010, None, None, 1)),
    ("winter 2071", "en", SEASON, (2071, None, None, 0)),
    ("2070/12/01", "en", DAY, (2070, 12, 1, None)),
    ("01.12.2070", "es", DAY, (2070, 12, 1, None)),
]
NO_YEAR = [
    ("Dec 1st", "en", DAY, (None, 12, 1, None)),
    ("12/1", "en", DAY, (None, 12, 1, None)),
    ("15 de agosto", "es", DAY, (None, 8, 15, None)),
    ("Marzo", "es", MONTH, (None, 3, None, None)),
    ("mes de abril", "es", MONTH, (None, 4, None, None)),
    ("1st of December", "en", DAY, (None, 12, 1, None)),
]
UNPARSEABLE = [
    ("febrero y abril de 2002", "es"), ("Hospital Universitario 12 de Octubre", "es"), ("tío paterno", "es"),
    ("Christmas", "en"), ("14/14/2014", "es"), ("16/018/1961", "es"), ("Colombia", "es"), ("12", "en"),
    ("", "en"), ("31/02/2020", "es"), ("Monday", "en"), ("2020-13-01", "en"), ("99999/9999", "es"),
    ("the 1990s", "en"),
]


@pytest.mark.parametrize("text,locale,precision,values", FORMATS + NO_YEAR)
def test_parse_reads_values_and_precision(text, locale, precision, values):
    p = parse_date(text, locale)
    assert p.precision == precision
    assert (p.year, p.month, p.day, p.season) == values


@pytest.mark.parametrize("text,locale", UNPARSEABLE)
def test_unparseable_dates_raise(text, locale):
    with pytest.raises(DateParseError):
        parse_date(text, locale)


@pytest.mark.parametrize("text,locale,precision,values", FORMATS)
@pytest.mark.parametrize("offset", OFFSETS)
def test_shift_round_trips_with_the_offset(text, locale, precision, values, offset):
    """parse(shifted) - parse(original) == the offset in the precision's unit, and the shape is kept."""
    original = parse_date(text, locale)
    shifted = shift_date(text, offset, locale)
    assert shifted != text
    back = parse_date(shifted, locale, near_year=original.year)
    assert back.precision == original.precision
    assert back.ordinal() - original.ordinal() == units_for(offset, precision)
    # same shape: numeric formats keep every separator and the count of numbers; words keep case
    skeleton = lambda s: re.sub(r"\d+", "9", s)  # noqa: E731
    if not any(c.isalpha() for c in text) or precision == YEAR:
        assert skeleton(shifted) == skeleton(text)
    if text.isupper():
        assert shifted.isupper()
    years = re.findall(r"\d{4}", text)
    assert len(re.findall(r"\d{4}", shifted)) == len(years)


def test_day_precision_preserves_intervals_between_a_patients_dates():
    dates = ["2070-12-01", "12/05/2070", "Jan 3rd, 2071", "February 28, 2071"]
    offset = -413
    parsed = [parse_date(d, "en") for d in dates]
    shifted = [parse_date(shift_date(d, offset, "en"), "en") for d in dates]
    for (a, b), (sa, sb) in zip(zip(parsed, parsed[1:]), zip(shifted, shifted[1:])):
        assert sb.ordinal() - sa.ordinal() == b.ordinal() - a.ordinal()


@pytest.mark.parametrize("text,locale,precision,values", NO_YEAR)
def test_dates_without_year_move_day_and_month(text, locale, precision, values):
    shifted = shift_date(text, 45, locale)
    p = parse_date(shifted, locale)
    assert p.year is None and p.precision == precision
    if precision == DAY:
        new = dt.date(2000, values[1], values[2]) + dt.timedelta(days=45)
        assert (p.month, p.day) == (new.month, new.day)
    else:
        assert p.month == (values[1] - 1 + units_for(45, MONTH)) % 12 + 1


@pytest.mark.parametrize("text,offset,expected", [
    ("2070-12-01", 31, "2071-01-01"),
    ("12/01/70", 31, "01/01/71"),
    ("Dec 1st, 2070", 1, "Dec 2nd, 2070"),
    ("Dec 1st, 2070", 2, "Dec 3rd, 2070"),
    ("Dec 1st, 2070", 10, "Dec 11th, 2070"),
    ("DEC. 22ND 2070", 1, "DEC. 23RD 2070"),
    ("December 2070", 31, "January 2071"),
    ("1 de diciembre de 2070", 31, "1 de enero de 2071"),
    ("10/10/1963", -9, "01/10/1963"),
    ("4/66", -31, "3/66"),
    ("spring of 2070", 92, "summer of 2070"),
    ("Monday, December 1, 2070", 1, "Tuesday, December 2, 2070"),
    ("fall of 2070", 92, "winter of 2071"),
    ("diciembre-99", 31, "enero-00"),
    ("Enero de 2007", -31, "Diciembre de 2006"),
    ("05-octubre-2009", 1, "06-octubre-2009"),
    ("12/1/2070", 9, "12/10/2070"),
    ("17/06/2016 10:30 h", 1, "18/06/2016 10:30 h"),
    ("Sept 3rd, 2069", 1, "Sept 4th, 2069"),
    ("Sept 3rd, 2069", 30, "Oct 3rd, 2069"),
])
def test_exact_renderings(text, offset, expected):
    locale = "es" if any(w in text.lower() for w in ("de", "enero", "octubre", "diciembre", " h")) else "en"
    if text in ("10/10/1963",):
        locale = "es"
    assert shift_date(text, offset, locale) == expected


def test_weekday_is_recomputed():
    out = shift_date("Thursday, March 4, 2071", 3, "en")
    d = parse_date(out, "en")
    assert out.split(",")[0] == dt.date(d.year, d.month, d.day).strftime("%A")


def test_ambiguous_numeric_dates_follow_the_locale():
    assert (parse_date("03/04/2070", "en").month, parse_date("03/04/2070", "en").day) == (3, 4)
    assert (parse_date("03/04/2070", "es").month, parse_date("03/04/2070", "es").day) == (4, 3)
    # a reading that is impossible in the locale's order falls back to the other one
    assert (parse_date("25/04/2070", "en").month, parse_date("25/04/2070", "en").day) == (4, 25)


def test_two_digit_year_round_trip_across_the_century():
    shifted = shift_date("12/31/99", 1, "en")
    assert shifted == "01/01/00"
    back = parse_date(shifted, "en", near_year=1999)
    assert back.year == 2000


def test_coarse_dates_never_stay_the_same():
    for off in (1, -1, 20, -20, 200):
        assert shift_date("2005", off, "es") != "2005"
        assert shift_date("mayo de 2005", off, "es") != "mayo de 2005"
        assert shift_date("spring of 2070", off, "en") != "spring of 2070"


def test_zero_offset_is_refused():
    with pytest.raises(ValueError):
        shift_date("2070-12-01", 0)


def test_partial_dates():
    assert is_partial_date("2006") and is_partial_date("año 2006") and is_partial_date("septiembre")
    assert not is_partial_date("septiembre de 2006") and not is_partial_date("12/01/2070")
    assert not is_partial_date("Colombia")


def test_random_dates_round_trip_in_many_formats():
    rng = random.Random(5)
    en_months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                 "October", "November", "December"]
    es_months = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
                 "octubre", "noviembre", "diciembre"]
    renderers = [
        ("en", lambda d: f"{d.month:02d}/{d.day:02d}/{d.year}"),
        ("en", lambda d: f"{d.month}/{d.day}/{d.year % 100:02d}"),
        ("en", lambda d: f"{d.year}-{d.month:02d}-{d.day:02d}"),
        ("en", lambda d: f"{en_months[d.month - 1]} {d.day}, {d.year}"),
        ("en", lambda d: f"{en_months[d.month - 1][:3]} {d.day}, {d.year}"),
        ("es", lambda d: f"{d.day} de {es_months[d.month - 1]} de {d.year}"),
        ("es", lambda d: f"{d.day:02d}/{d.month:02d}/{d.year}"),
        ("es", lambda d: f"{d.day}-{es_months[d.month - 1]}-{d.year}"),
    ]
    for _ in range(600):
        d = dt.date(1950, 1, 1) + dt.timedelta(days=rng.randint(0, 50000))
        off = rng.choice([-1, 1]) * rng.randint(1, 1500)
        locale, render = rng.choice(renderers)
        text = render(d)
        p = parse_date(text, locale, near_year=d.year)   # two-digit years: the century nearest the truth
        assert (p.year, p.month, p.day) == (d.year, d.month, d.day)
        back = parse_date(shift_date(text, off, locale), locale, near_year=d.year)
        assert back.ordinal() - p.ordinal() == off
