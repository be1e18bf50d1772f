"""Quasi-identifiers: the generalised facts of a document that, combined, can single a person out.

From each document's spans *left readable* (action ``keep``, or ``none``: a detection not
applied; a replaced, shifted or redacted value is gone from the released note, so it identifies
no one) and their value (the original value where the caller gives one, else the surface in the
de-identified text, which is what a reader sees) we derive a tuple of generalised fields and count ``k``, the number of *individuals* in the corpus whose
documents show the same tuple (documents of the same ``patient_id`` count once; a document
without one counts as its own individual). A small ``k`` means the tuple points to few people
(Sweeney's k-anonymity). Fields:

- ``age_band``: first AGE span with a number: 10-year band (``40-49``), ``90+`` above 89 (as
  HIPAA Safe Harbor), ``0-9`` for ages given in days, weeks or months.
- ``location``: city/state-level LOCATION types (CITY, STATE, MEDDOCAN TERRITORIO, German
  City/State); purely numeric values (postal codes) are skipped; all distinct values, sorted.
- ``profession``: every PROFESSION span, distinct, sorted.
- ``year``: four-digit years (1800-2099) found in DATE spans, distinct, sorted.
- ``sex``: schema types that carry it (MEDDOCAN SEXO_SUJETO_ASISTENCIA; SEX/GENDER), mapped to
  ``female``/``male``; anything else is left out.
``RiskConfig.quasi_fields`` chooses which fields make the tuple (default all five). Measured on
MEDDOCAN train+dev (750 documents, original values): with all five fields every document's
tuple is shared by fewer than 5 individuals; age band + sex flags 9; age band + sex + first
city 475. Small corpora cannot hide detailed tuples: that is a finding, not noise.
Values are lower-cased with accents removed. A redaction mark (``[EDAD]``, ``<NAME>``, ``***``,
``XXXX``) yields no field. A document with no field at all is not assessed.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

from pipeline.risk.types import QI_FIELDS, DeidDocument, DeidSpan
#: actions that leave a span's value readable in the released note
READABLE_ACTIONS = frozenset({"keep", "none"})
LOCATION_TYPES = frozenset({"CITY", "STATE", "TERRITORIO"})
SEX_TYPES = frozenset({"SEXO_SUJETO_ASISTENCIA", "SEX", "GENDER"})
_SPANISH_SEX_TYPES = frozenset({"SEXO_SUJETO_ASISTENCIA"})

_NUMBER = re.compile(r"\d+")
_YEAR = re.compile(r"(?<!\d)(18\d\d|19\d\d|20\d\d)(?!\d)")
_SUBYEAR_UNITS = re.compile(r"^\W*(mes|meses|month|months|mo|dia|dias|day|days|semana|semanas|week|weeks|"
                            r"monat|monate|monaten|tag|tage|tagen|woche|wochen)\b")
_NUMBER_WORDS = {
    w: i for i, ws in enumerate([
        [], ["un", "uno", "una", "one", "ein", "eins", "eine"], ["dos", "two", "zwei"],
        ["tres", "three", "drei"], ["cuatro", "four", "vier"], ["cinco", "five", "funf"],
        ["seis", "six", "sechs"], ["siete", "seven", "sieben"], ["ocho", "eight", "acht"],
        ["nueve", "nine", "neun"], ["diez", "ten", "zehn"], ["once", "eleven", "elf"],
        ["doce", "twelve", "zwolf"],
    ]) for w in ws
}
_MALE = frozenset({"h", "v", "hombre", "varon", "masculino", "nino", "male", "man", "boy",
                   "mannlich", "mann", "junge", "senor"})
_FEMALE = frozenset({"mujer", "femenino", "femenina", "f", "nina", "anciana", "female", "woman", "girl",
                     "weiblich", "frau", "madchen", "senora"})


def normalise(value: str) -> str:
    """Lower case, accents removed, inner whitespace collapsed, outer punctuation stripped."""
    v = unicodedata.normalize("NFKD", value)
    v = "".join(c for c in v if not unicodedata.combining(c)).casefold()
    return " ".join(v.split()).strip(" .,;:()[]{}\"'")


_MARK = re.compile(r"^\s*(\[[^\]]*\]|<[^>]*>|\{[^}]*\}|[\W_]+|x{3,}|X{3,})\s*$")


def is_mark(value: str) -> bool:
    """A redaction mark or placeholder (``[EDAD]``, ``<NAME>``, ``****``, ``XXXX``): no value."""
    return not value.strip() or bool(_MARK.match(value))


def age_band(value: str) -> str | None:
    if is_mark(value):
        return None
    v = normalise(value)
    m = _NUMBER.search(v)
    if m:
        age, rest = int(m.group()), v[m.end():]
    else:
        words = v.split()
        hit = next(((i, _NUMBER_WORDS[w]) for i, w in enumerate(words) if w in _NUMBER_WORDS), None)
        if hit is None:
            return None
        age, rest = hit[1], " " + " ".join(words[hit[0] + 1:])
    if _SUBYEAR_UNITS.match(rest):
        age = 0
    if age > 130:
        return None
    if age >= 90:
        return "90+"
    lo = age // 10 * 10
    return f"{lo}-{lo + 9}"


def sex_of(value: str, type_: str) -> str | None:
    if is_mark(value):
        return None
    v = normalise(value)
    if v == "m":
        return "female" if type_.upper() in _SPANISH_SEX_TYPES else "male"
    first = v.split()[0] if v else ""
    if v in _MALE or first in _MALE:
        return "male"
    if v in _FEMALE or first in _FEMALE:
        return "female"
    return None


@dataclass(frozen=True)
class QuasiIdentifiers:
    age_band: str | None = None
    location: str | None = None
    profession: str | None = None
    year: str | None = None
    sex: str | None = None

    def key(self, names: Sequence[str] | None = None) -> tuple[str | None, ...]:
        return tuple(getattr(self, n) for n in (names or QI_FIELDS))

    def as_dict(self, names: Sequence[str] | None = None) -> dict[str, str]:
        return {n: getattr(self, n) for n in (names or QI_FIELDS) if getattr(self, n) is not None}

    def is_empty(self, names: Sequence[str] | None = None) -> bool:
        return all(v is None for v in self.key(names))

    @property
    def empty(self) -> bool:
        return self.is_empty()


def _value(doc: DeidDocument, s: DeidSpan) -> str:
    return s.value if s.value is not None else doc.text[s.start:s.end]


def derive(doc: DeidDocument) -> QuasiIdentifiers:
    """The quasi-identifier tuple of one document (see the module doc for each field)."""
    age: str | None = None
    sex: str | None = None
    locations: set[str] = set()
    professions: set[str] = set()
    years: set[str] = set()
    for s in sorted(doc.spans, key=lambda s: (s.start, s.end)):
        if s.action not in READABLE_ACTIONS:
            continue
        value = _value(doc, s)
        if is_mark(value):
            continue
        cat, typ = s.category.upper(), s.type.upper()
        if cat == "AGE" and age is None:
            age = age_band(value)
        elif cat == "LOCATION" and typ in LOCATION_TYPES:
            v = normalise(value)
            if any(c.isalpha() for c in v):
                locations.add(v)
        elif cat == "PROFESSION":
            v = normalise(value)
            if any(c.isalpha() for c in v):
                professions.add(v)
        elif cat == "DATE":
            years.update(_YEAR.findall(value))
        if typ in SEX_TYPES and sex is None:
            sex = sex_of(value, s.type)
    join = " | ".join
    return QuasiIdentifiers(
        age_band=age,
        location=join(sorted(locations)) or None,
        profession=join(sorted(professions)) or None,
        year=",".join(sorted(years)) or None,
        sex=sex,
    )


def individual(doc: DeidDocument) -> str:
    return f"patient:{doc.patient_id}" if doc.patient_id else f"doc:{doc.doc_id}"


def k_counts(tuples: dict[str, QuasiIdentifiers], individuals: dict[str, str],
             names: Sequence[str] | None = None) -> dict[str, int]:
    """For each document with a non-empty tuple (over the fields ``names``, default all), how
    many individuals share its tuple."""
    groups: dict[tuple, set[str]] = {}
    for doc_id, q in tuples.items():
        if not q.is_empty(names):
            groups.setdefault(q.key(names), set()).add(individuals[doc_id])
    return {d: len(groups[q.key(names)]) for d, q in tuples.items() if not q.is_empty(names)}
