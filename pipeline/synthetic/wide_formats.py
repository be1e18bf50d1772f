"""The wide generator's value formats: dates written out, ages in words, phone, id, name and
address shapes, each split into a train and a held-out part (:func:`formats_for`).

Apart from the lists, the note context and the note kinds (:mod:`pipeline.synthetic.wide_lists`,
:mod:`~pipeline.synthetic.wide_context`, :mod:`~pipeline.synthetic.wide_notes`) because a format
is a small function of a random generator and a value, tested on its own.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Callable

from pipeline.synthetic import values as V
from pipeline.synthetic.builder import Phi, Piece
from pipeline.synthetic.partition import part_of

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_SMALL = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen").split()
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def number_words(n: int) -> str:
    """``45`` -> ``forty-five`` (0-199)."""
    if n < 20:
        return _SMALL[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _SMALL[n % 10])
    rest = n - 100
    return "one hundred" + ("" if rest == 0 else " and " + number_words(rest))


NEW_DATE_FORMATS: dict[str, Callable[[date], str]] = {
    "d_month_yyyy": lambda d: f"{d.day} {V.MONTHS[d.month - 1]} {d.year}",                  # 1 December 2070
    "month_d": lambda d: f"{V.MONTHS[d.month - 1]} {d.day}",                                 # December 1
    "month_dth_yyyy": lambda d: f"{V.MONTHS[d.month - 1]} {V.ordinal(d.day)}, {d.year}",     # December 1st, 2070
    "dmy_dot": lambda d: f"{d.day:02d}.{d.month:02d}.{d.year}",                              # 01.12.2070
    "mdy_dash": lambda d: f"{d.month:02d}-{d.day:02d}-{d.year}",                             # 12-01-2070
    "mon_dot_d_yyyy": lambda d: f"{V.MONTHS_ABBR[d.month - 1]}. {d.day}, {d.year}",          # Dec. 1, 2070
    "d_mon_yy": lambda d: f"{d.day}-{V.MONTHS_ABBR[d.month - 1]}-{d.year % 100:02d}",        # 1-Dec-70
    "dow_month_d": lambda d: f"{DAYS[d.weekday()]}, {V.MONTHS[d.month - 1]} {d.day}",        # Tuesday, December 1
    "yyyymmdd": lambda d: f"{d.year:04d}{d.month:02d}{d.day:02d}",                           # 20701201
    "upper_dd_mon_yyyy": lambda d: f"{d.day:02d} {V.MONTHS_ABBR[d.month - 1].upper()} {d.year}",  # 01 DEC 2070
}
# Ages: the span is the age (digits or words), as i2b2 marks it.
NEW_AGE_FORMATS: dict[str, Callable[[int], Piece]] = {
    "words_year_old": lambda a: Piece(Phi(number_words(a), "AGE", "words_year_old"), "-year-old"),
    "words_years_of_age": lambda a: Piece(Phi(number_words(a), "AGE", "words_years_of_age"), " years of age"),
    "yrs": lambda a: Piece(Phi(str(a), "AGE", "yrs"), " yrs"),
    "age_word": lambda a: Piece("age ", Phi(str(a), "AGE", "age_word")),
    "y_suffix": lambda a: Piece(Phi(str(a), "AGE", "y_suffix"), "y"),
    "in_her_words": lambda a: Piece("now ", Phi(number_words(a), "AGE", "in_her_words")),
}


def _line4(r: random.Random) -> str:
    return f"01{r.randint(0, 99):02d}"


NEW_PHONE_FORMATS: dict[str, Callable[[random.Random], str]] = {
    "paren_nospace": lambda r: f"({r.choice(V.AREA_CODES)})555-{_line4(r)}",        # (617)555-0123
    "plain10": lambda r: f"{r.choice(V.AREA_CODES)}555{_line4(r)}",                  # 6175550123
    "one_dash": lambda r: f"1-{r.choice(V.AREA_CODES)}-555-{_line4(r)}",             # 1-617-555-0123
    "spaces": lambda r: f"{r.choice(V.AREA_CODES)} 555 {_line4(r)}",                 # 617 555 0123
    "ext_words": lambda r: f"{r.choice(V.AREA_CODES)}-555-{_line4(r)} ext. {r.randint(10, 999)}",
    "plus_dots": lambda r: f"+1.{r.choice(V.AREA_CODES)}.555.{_line4(r)}",           # +1.617.555.0123
}


def _d(r: random.Random, n: int) -> str:
    return "".join(str(r.randint(0, 9)) for _ in range(n))


def _l(r: random.Random, n: int) -> str:
    return "".join(r.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(n))


# Identifiers: (type, format) -> value; the words introducing them stay outside the span.
NEW_ID_FORMATS: dict[str, tuple[str, Callable[[random.Random], str]]] = {
    "mrn_zero_padded": ("MEDICALRECORD", lambda r: "000" + _d(r, 7)),
    "mrn_alpha_dash": ("MEDICALRECORD", lambda r: f"{_l(r, 2)}-{_d(r, 6)}"),
    "mrn_dotted": ("MEDICALRECORD", lambda r: f"{_d(r, 3)}.{_d(r, 3)}.{_d(r, 3)}"),
    "mrn_trailing_letter": ("MEDICALRECORD", lambda r: f"{_d(r, 8)}{_l(r, 1)}"),
    "ssn_spaces": ("SSN", lambda r: f"9{_d(r, 2)} {_d(r, 2)} {_d(r, 4)}"),
    "ssn_plain": ("SSN", lambda r: "9" + _d(r, 8)),
    "account_prefixed": ("ACCOUNT", lambda r: f"AC{_d(r, 9)}"),
    "account_slash": ("ACCOUNT", lambda r: f"{_d(r, 4)}/{_d(r, 5)}"),
    "license_npi": ("LICENSE", lambda r: "1" + _d(r, 9)),
    "license_rn": ("LICENSE", lambda r: f"RN{_d(r, 7)}"),
    "healthplan_policy": ("HEALTHPLAN", lambda r: f"{_l(r, 1)}{_d(r, 3)}-{_d(r, 3)}-{_d(r, 3)}"),
    "healthplan_member": ("HEALTHPLAN", lambda r: f"MBR{_d(r, 8)}"),
    "idnum_case": ("IDNUM", lambda r: f"CASE-{_d(r, 6)}"),
    "idnum_claim": ("IDNUM", lambda r: f"CLM{_d(r, 10)}"),
}
NEW_NAME_FORMS = ("upper_full", "lower_full", "first_middle_last", "upper_last_first_mixed", "first_initial",
                  "lower_first")
SHARED_NAME_FORMS = ("full", "first")
NEW_ADDRESS_STYLES = ("one_line", "po_box", "no_zip", "intl", "city_state_words")


@dataclass(frozen=True)
class Formats:
    """The new formats a part may use, by kind of value."""

    dates: tuple[str, ...]
    ages: tuple[str, ...]
    phones: tuple[str, ...]
    ids: tuple[str, ...]
    names: tuple[str, ...]
    addresses: tuple[str, ...]


@lru_cache(maxsize=8)
def formats_for(part: str = "all", split_seed: int = 0) -> Formats:
    def sel(kind, values):
        return part_of(kind, tuple(values), part, split_seed)

    ids: list[str] = []
    for type_ in dict.fromkeys(t for t, _ in NEW_ID_FORMATS.values()):   # a split per id type
        ids += sel(f"ids:{type_}", [k for k, (t, _) in NEW_ID_FORMATS.items() if t == type_])
    return Formats(dates=sel("date_formats", NEW_DATE_FORMATS), ages=sel("age_formats", NEW_AGE_FORMATS),
                   phones=sel("phone_formats", NEW_PHONE_FORMATS), ids=tuple(ids),
                   names=SHARED_NAME_FORMS + sel("name_forms", NEW_NAME_FORMS),
                   addresses=sel("address_styles", NEW_ADDRESS_STYLES))
