"""Surface forms of PHI values: registries of small functions, one per format.

Each registry maps a format name to a function, so the tests can require that every hard case
(``4/66``, ``Dec 1st``, ``spring of 2070``, ``89+``, ``x4321`` ...) occurs, and a note template can
ask for a random one. Values are obviously fake: years 2060-2090 (future-shifted as in i2b2),
555-01xx telephone numbers, SSNs starting with 9, documentation IP ranges, ``example`` domains.
"""
from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Callable

from pipeline.synthetic.builder import Phi, Piece

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
MONTHS_ABBR = tuple(m[:3] for m in MONTHS)
YEAR_MIN, YEAR_MAX = 2060, 2090


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def season(d: date) -> str:
    return ("winter", "winter", "spring", "spring", "spring", "summer", "summer", "summer",
            "fall", "fall", "fall", "winter")[d.month - 1]


# --- dates -----------------------------------------------------------------------------------
DATE_FORMATS: dict[str, Callable[[date], str]] = {
    "iso": lambda d: f"{d.year:04d}-{d.month:02d}-{d.day:02d}",                 # 2070-12-01
    "mdy_slash": lambda d: f"{d.month:02d}/{d.day:02d}/{d.year}",               # 12/01/2070
    "mdy_slash_nopad": lambda d: f"{d.month}/{d.day}/{d.year}",                 # 12/1/2070
    "mdy_slash_yy": lambda d: f"{d.month:02d}/{d.day:02d}/{d.year % 100:02d}",  # 12/01/70
    "m_yy": lambda d: f"{d.month}/{d.year % 100:02d}",                          # 4/66
    "md_slash": lambda d: f"{d.month}/{d.day}",                                 # 12/1
    "mon_day_ord": lambda d: f"{MONTHS_ABBR[d.month - 1]} {ordinal(d.day)}",     # Dec 1st
    "month_day_year": lambda d: f"{MONTHS[d.month - 1]} {d.day}, {d.year}",     # December 1, 2070
    "mon_day_year": lambda d: f"{MONTHS_ABBR[d.month - 1]} {d.day}, {d.year}",  # Dec 1, 2070
    "dd_mon_yyyy": lambda d: f"{d.day:02d}-{MONTHS_ABBR[d.month - 1]}-{d.year}",  # 01-Dec-2070
    "month_year": lambda d: f"{MONTHS[d.month - 1]} {d.year}",                  # December 2070
    "season_year": lambda d: f"{season(d)} of {d.year}",                        # spring of 2070
    "day_ord_of_month": lambda d: f"{ordinal(d.day)} of {MONTHS[d.month - 1]}",  # 1st of December
    "year": lambda d: f"{d.year}",                                              # 2070
}
# Formats that state a full day; headers use these, narrative may use any.
FULL_DATE_FORMATS = ("iso", "mdy_slash", "mdy_slash_nopad", "mdy_slash_yy", "month_day_year",
                     "mon_day_year", "dd_mon_yyyy")
NARRATIVE_DATE_FORMATS = tuple(DATE_FORMATS)


def date_phi(d: date, fmt: str) -> Phi:
    return Phi(DATE_FORMATS[fmt](d), "DATE", fmt)


def random_date(rng: random.Random, lo: int = YEAR_MIN, hi: int = YEAR_MAX) -> date:
    start = date(lo, 1, 1).toordinal()
    end = date(hi, 12, 31).toordinal()
    return date.fromordinal(rng.randint(start, end))


def shift(d: date, days: int) -> date:
    """Move a date, clamped to the 2060-2090 window (all generated dates stay future-shifted)."""
    out = d + timedelta(days=days)
    lo, hi = date(YEAR_MIN, 1, 1), date(YEAR_MAX, 12, 31)
    return min(max(out, lo), hi)


# --- ages ------------------------------------------------------------------------------------
# The span is the age itself ("45" in "45-year-old"), as i2b2 2014 marks it; "89+" keeps its plus.
AGE_FORMATS: dict[str, Callable[[int], Piece]] = {
    "yo": lambda a: Piece(Phi(str(a), "AGE", "yo"), " yo"),                  # 45 yo
    "year_old": lambda a: Piece(Phi(str(a), "AGE", "year_old"), "-year-old"),  # 45-year-old
    "y_o": lambda a: Piece(Phi(str(a), "AGE", "y_o"), " y/o"),                # 45 y/o
    "aged": lambda a: Piece("aged ", Phi(str(a), "AGE", "aged")),             # aged 45
    "years_old": lambda a: Piece(Phi(str(a), "AGE", "years_old"), " years old"),  # 45 years old
    "yo_attached": lambda a: Piece(Phi(str(a), "AGE", "yo_attached"), "yo"),  # 45yo
    "plus89": lambda a: Piece(Phi("89+", "AGE", "plus89")),                   # 89+ (only for a > 89)
}
NARRATIVE_AGE_FORMATS = ("yo", "year_old", "y_o", "aged", "years_old", "yo_attached")


def age_piece(age: int, rng: random.Random, formats: tuple[str, ...] = NARRATIVE_AGE_FORMATS) -> Piece:
    fmt = rng.choice(formats)
    return AGE_FORMATS[fmt](age)


def header_age(age: int, rng: random.Random) -> Piece:
    """The age field of a header: ``89+`` for the very old half of the time, else the number."""
    if age > 89 and rng.random() < 0.5:
        return AGE_FORMATS["plus89"](age)
    return Piece(Phi(str(age), "AGE", "bare"))


# --- contact ---------------------------------------------------------------------------------
AREA_CODES = ("617", "508", "781", "978", "413", "774", "857", "401", "603", "207", "802", "860",
              "212", "718", "215", "412", "312", "713", "305", "206", "415", "303", "602", "504")


def _line(rng: random.Random) -> str:
    return f"555-01{rng.randint(0, 99):02d}"


PHONE_FORMATS: dict[str, Callable[[random.Random], str]] = {
    "paren": lambda r: f"({r.choice(AREA_CODES)}) {_line(r)}",                     # (617) 555-0123
    "dash": lambda r: f"{r.choice(AREA_CODES)}-{_line(r)}",                         # 617-555-0123
    "dot": lambda r: f"{r.choice(AREA_CODES)}.{_line(r).replace('-', '.')}",        # 617.555.0123
    "intl": lambda r: f"+1 {r.choice(AREA_CODES)} {_line(r).replace('-', ' ')}",    # +1 617 555 0123
    "ext": lambda r: f"x{r.randint(1000, 9999)}",                                   # x4321
    "pager": lambda r: f"{r.randint(1000, 99999)}",                                 # (pager #)1234
}
FULL_PHONE_FORMATS = ("paren", "dash", "dot", "intl")


def phone_phi(rng: random.Random, fmt: str | None = None, type_: str = "PHONE") -> Phi:
    fmt = fmt or rng.choice(FULL_PHONE_FORMATS)
    return Phi(PHONE_FORMATS[fmt](rng), type_, fmt)


EMAIL_DOMAINS = ("example.org", "example.com", "example.net", "mail.example.org", "post.example.com")


def email_phi(first: str, last: str, rng: random.Random) -> Phi:
    f = "".join(ch for ch in first.lower() if ch.isalnum()) or "x"
    la = "".join(ch for ch in last.lower() if ch.isalnum()) or "x"
    local = rng.choice((f"{f}.{la}", f"{f[0]}{la}", f"{la}{rng.randint(1, 99)}", f"{f}_{la}{rng.randint(60, 90)}"))
    return Phi(f"{local}@{rng.choice(EMAIL_DOMAINS)}", "EMAIL", "email")


def slug(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())[:24] or "clinic"


def url_phi(org: str, rng: random.Random) -> Phi:
    s = slug(org)
    fmt = rng.choice(("https", "www", "path"))
    if fmt == "https":
        value = f"https://www.{s}.example.org/patients"
    elif fmt == "www":
        value = f"www.{s}.example.com"
    else:
        value = f"http://portal.{s}.example.net/u/{rng.randint(1000, 99999)}"
    return Phi(value, "URL", fmt)


def ip_phi(rng: random.Random) -> Phi:
    fmt = rng.choice(("doc192", "doc198", "doc203", "private10"))
    if fmt == "doc192":
        value = f"192.0.2.{rng.randint(1, 254)}"
    elif fmt == "doc198":
        value = f"198.51.100.{rng.randint(1, 254)}"
    elif fmt == "doc203":
        value = f"203.0.113.{rng.randint(1, 254)}"
    else:
        value = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    return Phi(value, "IPADDR", fmt)


# --- identifiers -----------------------------------------------------------------------------
_LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randint(0, 9)) for _ in range(n))


def _letters(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_LETTERS) for _ in range(n))


def mrn_phi(rng: random.Random) -> Phi:
    fmt = rng.choice(("digits7", "digits8", "dashed", "prefixed"))
    if fmt == "digits7":
        v = _digits(rng, 7)
    elif fmt == "digits8":
        v = _digits(rng, 8)
    elif fmt == "dashed":
        v = f"{_digits(rng, 3)}-{_digits(rng, 2)}-{_digits(rng, 2)}"
    else:
        v = f"{_letters(rng, 2)}{_digits(rng, 6)}"
    return Phi(v, "MEDICALRECORD", fmt)


def ssn_phi(rng: random.Random) -> Phi:
    return Phi(f"9{_digits(rng, 2)}-{_digits(rng, 2)}-{_digits(rng, 4)}", "SSN", "ssn")


def healthplan_phi(rng: random.Random) -> Phi:
    fmt = rng.choice(("alpha_num", "medicaid", "group"))
    if fmt == "alpha_num":
        v = f"{_letters(rng, 3)}{_digits(rng, 9)}"
    elif fmt == "medicaid":
        v = f"{_digits(rng, 8)}{_letters(rng, 1)}"
    else:
        v = f"{_letters(rng, 1)}{_digits(rng, 2)}-{_digits(rng, 6)}-{_digits(rng, 2)}"
    return Phi(v, "HEALTHPLAN", fmt)


def account_phi(rng: random.Random) -> Phi:
    fmt = rng.choice(("dashed", "digits", "spaced"))
    if fmt == "dashed":
        v = f"{_digits(rng, 5)}-{_digits(rng, 6)}"
    elif fmt == "digits":
        v = _digits(rng, 10)
    else:
        v = f"{_digits(rng, 4)} {_digits(rng, 4)} {_digits(rng, 4)}"
    return Phi(v, "ACCOUNT", fmt)


def license_phi(rng: random.Random) -> tuple[str, Phi]:
    """A clinician's licence with the words that introduce it."""
    fmt = rng.choice(("dea", "state", "npi_like"))
    if fmt == "dea":
        return "DEA #", Phi(f"{_letters(rng, 2)}{_digits(rng, 7)}", "LICENSE", fmt)
    if fmt == "state":
        return "Lic. no.", Phi(f"{rng.choice(('MD', 'RN', 'NP', 'PA'))}-{_digits(rng, 6)}", "LICENSE", fmt)
    return "license", Phi(f"L{_digits(rng, 9)}", "LICENSE", fmt)


def vehicle_phi(rng: random.Random) -> tuple[str, Phi]:
    fmt = rng.choice(("plate", "plate_dash", "vin"))
    if fmt == "plate":
        return "license plate", Phi(f"{rng.randint(1, 9)}{_letters(rng, 3)}{_digits(rng, 3)}", "VEHICLE", fmt)
    if fmt == "plate_dash":
        return "plate", Phi(f"{_letters(rng, 3)}-{_digits(rng, 4)}", "VEHICLE", fmt)
    return "VIN", Phi(f"{_digits(rng, 1)}{_letters(rng, 4)}{_digits(rng, 2)}{_letters(rng, 2)}{_digits(rng, 8)}",
                      "VEHICLE", fmt)


def device_phi(rng: random.Random) -> Phi:
    fmt = rng.choice(("serial", "dashed"))
    if fmt == "serial":
        v = f"{_letters(rng, 3)}{_digits(rng, 7)}{_letters(rng, 1)}"
    else:
        v = f"SN-{_digits(rng, 4)}-{_digits(rng, 5)}"
    return Phi(v, "DEVICE", fmt)


def bioid_phi(rng: random.Random) -> Phi:
    return Phi(f"BB-{rng.randint(60, 90)}-{_digits(rng, 6)}", "BIOID", "biobank")


def idnum_phi(rng: random.Random) -> tuple[str, Phi]:
    fmt = rng.choice(("accession", "order", "encounter", "requisition"))
    if fmt == "accession":
        return "Accession #", Phi(f"S{rng.randint(60, 90)}-{_digits(rng, 5)}", "IDNUM", fmt)
    if fmt == "order":
        return "Order #", Phi(_digits(rng, 8), "IDNUM", fmt)
    if fmt == "encounter":
        return "Encounter ID", Phi(f"E{_digits(rng, 9)}", "IDNUM", fmt)
    return "Requisition no.", Phi(f"RQ{_digits(rng, 6)}", "IDNUM", fmt)


def room_phi(rng: random.Random) -> tuple[str, Phi]:
    fmt = rng.choice(("room", "rm", "bed", "dashed"))
    if fmt == "room":
        return "Room", Phi(str(rng.randint(100, 1299)), "ROOM", fmt)
    if fmt == "rm":
        return "Rm", Phi(f"{rng.randint(1, 19)}{rng.choice('ABCD')}", "ROOM", fmt)
    if fmt == "bed":
        return "Bed", Phi(f"{rng.randint(1, 40)}", "ROOM", fmt)
    return "Room", Phi(f"{rng.randint(2, 14)}-{rng.randint(100, 299)}", "ROOM", fmt)


def zip_phi(prefix: str, rng: random.Random) -> Phi:
    if rng.random() < 0.15:
        return Phi(f"{prefix}{_digits(rng, 2)}-{_digits(rng, 4)}", "ZIP", "zip9")
    return Phi(f"{prefix}{_digits(rng, 2)}", "ZIP", "zip5")
