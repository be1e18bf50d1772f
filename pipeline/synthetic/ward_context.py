"""The ward generator's people, value formats, casing and typing slips: what a ward note is made of.

:class:`WardContext` fills the PHI slots of the phrase pools as nurses write them and writes
clinical text with the occasional slip; :func:`ward_formats` gives each part its own formats
(:mod:`pipeline.synthetic.ward` says why and how the notes are built).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Callable

from pipeline.synthetic import values as V
from pipeline.synthetic.builder import NoteBuilder, Phi, Piece
from pipeline.synthetic.partition import part_of
from pipeline.synthetic.people import Patient, Person
from pipeline.synthetic.pools import Hospital, Pools
from pipeline.synthetic.ward_phrases import expand
from pipeline.synthetic.ward_places import KINDS as PLACE_KINDS, PlaceMaker

# --- formats (each family split into parts) ------------------------------------------------------
WARD_DATE_FORMATS: dict[str, Callable[[date], str]] = {
    "m_d": lambda d: f"{d.month}/{d.day}",                                   # 3/14
    "m_d_yy": lambda d: f"{d.month}/{d.day}/{d.year % 100:02d}",             # 3/14/70
    "mm_dd": lambda d: f"{d.month:02d}/{d.day:02d}",                         # 03/14
    "m_dash_d": lambda d: f"{d.month}-{d.day}",                              # 3-14
    "d_mon": lambda d: f"{d.day} {V.MONTHS_ABBR[d.month - 1]}",              # 14 Mar
    "mon_d": lambda d: f"{V.MONTHS_ABBR[d.month - 1]} {d.day}",              # Mar 14
    "m_d_yyyy": lambda d: f"{d.month}/{d.day}/{d.year}",                     # 3/14/2070
    "iso": lambda d: d.isoformat(),                                          # 2070-03-14
}
YEAR_FORMATS = frozenset({"m_d_yy", "m_d_yyyy", "iso"})
WARD_AGE_FORMATS = {"yo": " yo", "y_o": " y/o", "yo_attached": "yo", "upper_yo": " YO", "year_old": " year old",
                    "y_dot_o": " y.o.", "yr_old": " yr old", "dash_year_old": "-year-old"}
WARD_PHONE_FORMATS: dict[str, Callable[[random.Random], str]] = {
    "dash": lambda r: f"{r.choice(V.AREA_CODES)}-555-01{r.randint(0, 99):02d}",
    "paren": lambda r: f"({r.choice(V.AREA_CODES)}) 555-01{r.randint(0, 99):02d}",
    "seven": lambda r: f"555-01{r.randint(0, 99):02d}",
    "dots": lambda r: f"{r.choice(V.AREA_CODES)}.555.01{r.randint(0, 99):02d}",
    "plain10": lambda r: f"{r.choice(V.AREA_CODES)}55501{r.randint(0, 99):02d}",
}
# How a clinician is named: the title stays outside the span, the name (or initials) is the span.
DOCTOR_FORMS = ("dr_last", "dr_nodot_last", "dr_initial_last", "dr_full", "dr_lower_last", "dr_upper_last")
SIGN_FORMS = ("rn_initial_last", "initial_last_rn", "last_comma_rn", "initials", "dash_initials",
              "first_last_rn", "first_l_rn")
HOSPITAL_FORMS = ("acronym", "short", "full", "lower_acronym")


@dataclass(frozen=True)
class WardFormats:
    dates: tuple[str, ...]
    ages: tuple[str, ...]
    phones: tuple[str, ...]
    doctors: tuple[str, ...]
    signs: tuple[str, ...]
    hospitals: tuple[str, ...]


@lru_cache(maxsize=8)
def ward_formats(part: str = "all", split_seed: int = 0) -> WardFormats:
    def sel(kind, values):
        return part_of(f"ward_formats:{kind}", tuple(values), part, split_seed)

    return WardFormats(dates=sel("dates", WARD_DATE_FORMATS), ages=sel("ages", WARD_AGE_FORMATS),
                       phones=sel("phones", WARD_PHONE_FORMATS), doctors=sel("doctors", DOCTOR_FORMS),
                       signs=sel("signs", SIGN_FORMS), hospitals=sel("hospitals", HOSPITAL_FORMS))


def acronym(name: str) -> str:
    """"Mercy General Hospital" -> "MGH": how a ward names the hospitals it knows."""
    words = [w for w in re.split(r"[\s\-]+", name) if w and w[0].isalpha() and w[0].isupper()]
    return "".join(w[0] for w in words) or name


def recase(text: str, casing: str) -> str:
    """``text`` in ``casing``, one character for one character (offsets stay valid)."""
    if casing == "mixed":
        return text
    f = str.upper if casing == "upper" else str.lower
    out = f(text)
    return out if len(out) == len(text) else "".join(c2 if len(c2 := f(c)) == 1 else c for c in text)


_WORD = re.compile(r"[A-Za-z]{5,}")


def misspell(text: str, rng: random.Random, rate: float) -> str:
    """Typing slips in clinical text (never in PHI): a swapped, dropped or doubled letter."""
    if rate <= 0:
        return text

    def slip(m: re.Match) -> str:
        w = m.group(0)
        if rng.random() >= rate:
            return w
        i = rng.randint(1, len(w) - 2)
        kind = rng.randint(0, 2)
        if kind == 0:
            return w[:i] + w[i + 1] + w[i] + w[i + 2:]
        return w[:i] + w[i + 1:] if kind == 1 else w[:i] + w[i] + w[i:]

    return _WORD.sub(slip, text)


# --- one patient's ward ----------------------------------------------------------------------------
@dataclass
class WardContext:
    """The people, places and formats of one note, and the slot fillers its phrases use."""

    rng: random.Random
    pools: Pools
    formats: WardFormats
    phrases: dict[str, tuple[str, ...]]
    patient: Patient
    note_date: date
    doctors: tuple[Person, ...]
    nurses: tuple[Person, ...]
    other_hospital: Hospital
    typo_rate: float = 0.02
    lower_names: float = 0.15
    places: PlaceMaker | None = None     # facilities, employers, ... (None: the slots are not filled)

    def pick(self, seq):
        return self.rng.choice(seq)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    @property
    def age(self) -> int:
        return self.patient.age_on(self.note_date)

    def _cased(self, s: str) -> str:
        return s.lower() if self.chance(self.lower_names) else s

    # PHI slots ---------------------------------------------------------------------------------
    def date(self, d: date | None = None, *, with_year: bool = False) -> Phi:
        """``d`` (default: a day of the last week) in one of the part's formats; ``with_year``:
        a format that writes the year where the part has one (a date of birth)."""
        fmts = [f for f in self.formats.dates if f in YEAR_FORMATS] if with_year else []
        fmt = self.pick(fmts or self.formats.dates)
        return Phi(WARD_DATE_FORMATS[fmt](d or V.shift(self.note_date, -self.rng.randint(0, 6))), "DATE", fmt)

    def age_piece(self) -> Piece:
        fmt = self.pick(self.formats.ages)
        return Piece(Phi(str(self.age), "AGE", fmt), WARD_AGE_FORMATS[fmt])

    def phone(self) -> Phi:
        fmt = self.pick(self.formats.phones)
        return Phi(WARD_PHONE_FORMATS[fmt](self.rng), "PHONE", fmt)

    def relative(self) -> tuple[str, Person]:
        pt = self.patient
        p = self.pick((pt.spouse, pt.child, pt.child, pt.sibling))
        if p is pt.spouse:
            return self.pick(("wife", "wife", "spouse") if p.sex == "F" else ("husband", "husband", "spouse")), p
        if p is pt.child:
            return self.pick(("dtr", "daughter", "daughter") if p.sex == "F" else ("son", "son", "son")), p
        return ("sister" if p.sex == "F" else "brother"), p

    def famname(self, p: Person) -> Piece:
        """A relative as a nurse writes one: mostly the first name, sometimes lower case."""
        form = self.pick(("first", "first", "first", "full", "last_title"))
        if form == "last_title":
            return Piece("Mrs. " if p.sex == "F" else "Mr. ", Phi(p.last, "PATIENT", form))
        return Piece(Phi(self._cased(p.first if form == "first" else f"{p.first} {p.last}"), "PATIENT", form))

    def doctor(self, p: Person | None = None) -> Piece:
        p = p or self.pick(self.doctors)
        form = self.pick(self.formats.doctors)
        title, value = {"dr_last": ("Dr. ", p.last), "dr_nodot_last": ("Dr ", p.last),
                        "dr_initial_last": ("Dr. ", f"{p.first[0]}. {p.last}"), "dr_full": ("Dr. ", f"{p.first} {p.last}"),
                        "dr_lower_last": ("dr ", p.last.lower()), "dr_upper_last": ("DR. ", p.last.upper())}[form]
        return Piece(title, Phi(value, "DOCTOR", form))

    def drlast(self) -> Phi:
        return Phi(self._cased(self.pick(self.doctors).last), "DOCTOR", "last")

    def staff(self) -> Phi:
        p = self.pick(self.nurses)
        return Phi(self._cased(self.pick((p.first, p.last))), "DOCTOR", "staff")

    def sign(self, p: Person | None = None, creds: tuple[str, ...] = ("RN", "RN", "SN", "RRT")) -> Piece:
        """A staff sign-off: the credential is context, the name or initials the span."""
        p = p or self.nurses[0]
        form, ini = self.pick(self.formats.signs), p.initials
        cred = self.pick(creds) if form != "initials" else ""
        return {"rn_initial_last": Piece(f"{cred} ", Phi(f"{p.first[0]}. {p.last}", "DOCTOR", form)),
                "initial_last_rn": Piece(Phi(f"{p.first[0]}. {p.last}", "DOCTOR", form), f" {cred}"),
                "last_comma_rn": Piece(Phi(self._cased(p.last), "DOCTOR", form), f", {cred}"),
                "initials": Piece(Phi(ini, "DOCTOR", form)),
                "dash_initials": Piece("-", Phi(ini.lower(), "DOCTOR", form)),
                "first_last_rn": Piece(Phi(f"{p.first} {p.last}", "DOCTOR", form), f", {cred}"),
                "first_l_rn": Piece(Phi(f"{p.first} {p.last[0]}", "DOCTOR", form), f" {cred}")}[form]

    def hospital(self, h: Hospital | None = None) -> Phi:
        h = h or self.pick((self.patient.hospital, self.other_hospital, self.other_hospital))
        form = self.pick(self.formats.hospitals)
        value = {"acronym": acronym(h.name), "lower_acronym": acronym(h.name).lower(), "short": h.short,
                 "full": h.name}[form]
        return Phi(value, "HOSPITAL", form)

    def town(self) -> Phi:
        return Phi(self._cased(self.pick((self.patient.address.city, self.pick(self.pools.cities))).name), "CITY", "town")

    # places besides hospitals (:mod:`pipeline.synthetic.ward_places`) --------------------------------
    def place_name(self, kind: str) -> Phi | Piece:
        """A facility, dialysis unit, hospice, employer, congregation, ambulance service or shelter;
        the ``fmt`` is ``kind:shape`` (the shape it was made from); now and then a word that a note
        writes after such a name, outside the span ("SNF", "parish", "crew")."""
        if self.places is None:
            raise ValueError("this ward context has no place lists")
        name, typ, shape = self.places.make(kind, self.rng, self.patient.address.city.name)
        phi = Phi(self._cased(name), typ, f"{kind}:{shape}")
        after = self.places.parts.get(f"{kind}_after")
        if after and self.chance(0.35):     # "Golden Acres SNF", "St. Casimir parish": the word is not the name
            return Piece(phi, " " + self.pick(after))
        return phi

    def abroad(self) -> Piece:
        """A foreign city, a country, or both ("Manila", "the Philippines", "Krakow, Poland")."""
        city, country = self.pick(self.places.abroad)
        form = self.pick(("city", "city", "country", "city_country"))
        if form == "country":
            return Piece(Phi(country, "COUNTRY", "abroad"))
        c = Phi(self._cased(city), "CITY", "abroad")
        return Piece(c, ", ", Phi(country, "COUNTRY", "abroad")) if form == "city_country" else Piece(c)

    def _city(self):
        return self.pick((self.patient.address.city, self.pick(self.pools.cities)))

    def place(self) -> Piece:
        """A town, with its state now and then ("Fairview", "Fairview, OH", "Fairview Ohio")."""
        c = self._city()
        form = self.pick(("town", "town", "comma_abbr", "comma_abbr", "space_abbr", "comma_state"))
        town = Phi(self._cased(c.name), "CITY", f"place_{form}")
        if form == "town":
            return Piece(town)
        state = c.state if form == "comma_state" else c.state_abbr
        return Piece(town, " " if form == "space_abbr" else ", ", Phi(state, "STATE", f"place_{form}"))

    def state(self) -> Phi:
        c = self._city()
        return Phi(self.pick((c.state, c.state, c.state_abbr)), "STATE", "state")

    def county(self) -> Phi:
        return Phi(f"{self.places.county(self.rng)} County", "LOCATION-OTHER", "county")

    def address(self) -> Piece:
        """The patient's street address, alone or with town, state and ZIP as a social worker writes it."""
        a = self.patient.address
        form = self.pick(("street", "street_town", "full", "full", "full_nocomma"))
        street = a.street_phi()
        if form == "street":
            return Piece(street)
        town = Phi(a.city.name, "CITY", "address")
        if form == "street_town":
            return Piece(street, " in ", town)
        state = Phi(a.city.state_abbr, "STATE", "address")
        sep = ", " if form == "full" else " "
        return Piece(street, sep, town, sep, state, " ", a.zip)

    def slots(self) -> dict[str, Callable]:
        rel_word, rel = self.relative()   # one relative per phrase: "{rel} {famname}" agree
        fam_form = lambda: Piece(rel_word, " ", self.famname(rel))  # noqa: E731
        clinical = lambda name: lambda: "".join(  # noqa: E731
            p for p in expand(self.pick(self.phrases[name]), self.rng, {}) if isinstance(p, str))
        return {"fam": fam_form, "famname": lambda: self.famname(rel), "rel": lambda: rel_word,
                "dr": self.doctor, "drlast": self.drlast, "staff": self.staff, "hosp": self.hospital,
                "town": self.town, "date": self.date, "age": self.age_piece, "phone": self.phone,
                "mrn": lambda: self.patient.mrn,
                "pt": lambda: Piece(self.patient.person.title + " ", Phi(self.patient.person.last, "PATIENT", "last")),
                "drip": clinical("drips"), "abx": clinical("abx"), "lab": clinical("labs"),
                **{k: (lambda k=k: self.place_name(k)) for k in PLACE_KINDS},
                "abroad": self.abroad, "place": self.place, "state": self.state, "county": self.county,
                "address": self.address}

    # writing -----------------------------------------------------------------------------------------
    def write(self, b: NoteBuilder, piece) -> None:
        """Append a piece; clinical text may be misspelt, PHI never is."""
        if isinstance(piece, str):
            b.text(misspell(piece, self.rng, self.typo_rate))
        elif isinstance(piece, Piece):
            for p in piece.parts:
                self.write(b, p)
        else:
            b.put(piece)

    def say(self, b: NoteBuilder, section: str, n: int = 1, sep: str = " ") -> None:
        """``n`` distinct phrases of ``section`` (fewer when the part has fewer)."""
        pool = self.phrases[section]
        for i, t in enumerate(self.rng.sample(pool, min(n, len(pool)))):
            if i:
                b.text(sep)
            for p in expand(t, self.rng, self.slots()):
                self.write(b, p)


__all__ = ["WardContext", "WardFormats", "ward_formats", "recase", "misspell", "acronym", "WARD_DATE_FORMATS",
           "WARD_AGE_FORMATS", "WARD_PHONE_FORMATS", "YEAR_FORMATS", "DOCTOR_FORMS", "SIGN_FORMS", "HOSPITAL_FORMS"]
