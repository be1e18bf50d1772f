"""The context a wide note is written from: a :class:`~pipeline.synthetic.note_context.NoteContext`
that also writes dates, ages, phones, identifiers, names and addresses in the part's new formats.

Apart from the note kinds (:mod:`pipeline.synthetic.wide_notes`) because the kinds only say
what a note holds; how each value is written (and kept the same across a patient's notes) is here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from pipeline.synthetic.builder import NoteBuilder, Phi, Piece
from pipeline.synthetic.note_context import NoteContext
from pipeline.synthetic.people import Address, Clinician, Person
from pipeline.synthetic.wide_formats import (NEW_AGE_FORMATS, NEW_DATE_FORMATS, NEW_ID_FORMATS, NEW_PHONE_FORMATS,
                                             Formats, formats_for)

CREDENTIALS = ("MD", "M.D.", "DO", "RN", "NP", "PA-C", "PhD", "LCSW", "PharmD", "CNM", "MSW", "DPT")


@dataclass
class WideContext(NoteContext):
    """A :class:`NoteContext` that also writes values in the part's new formats."""

    formats: Formats = field(default_factory=formats_for)
    intl_cities: tuple[tuple[str, str], ...] = ()
    part: str = "all"

    def wdate(self, d: date) -> Phi:
        fmt = self.pick(self.formats.dates)
        return Phi(NEW_DATE_FORMATS[fmt](d), "DATE", fmt)

    def wage(self, age: int) -> Piece:
        return NEW_AGE_FORMATS[self.pick(self.formats.ages)](age)

    def wphone(self, type_: str = "PHONE") -> Phi:
        fmt = self.pick(self.formats.phones)
        return Phi(NEW_PHONE_FORMATS[fmt](self.rng), type_, fmt)

    def wid(self, type_: str) -> Phi:
        """A patient's identifier of ``type_`` in one of the part's formats (same value in every
        note of the patient); a fresh one for types that do not belong to the patient."""
        fmts = [f for f in self.formats.ids if NEW_ID_FORMATS[f][0] == type_]
        if not fmts:
            fmts = [f for f, (t, _) in NEW_ID_FORMATS.items() if t == type_]
        key = f"wide-id:{type_}"
        if key not in self.patient.extra or type_ in ("IDNUM", "LICENSE"):
            fmt = self.pick(fmts)
            self.patient.extra[key] = Phi(NEW_ID_FORMATS[fmt][1](self.rng), type_, fmt)
        return self.patient.extra[key]

    def wname(self, p: Person, type_: str) -> Phi:
        form = self.pick(self.formats.names)
        middle_name = self.patient.extra.setdefault(f"middle:{p.first}:{p.last}", self.pick(self.pools.first_names))
        value = {"full": f"{p.first} {p.last}", "first": p.first, "upper_full": f"{p.first} {p.last}".upper(),
                 "lower_full": f"{p.first} {p.last}".lower(), "first_middle_last": f"{p.first} {middle_name} {p.last}",
                 "upper_last_first_mixed": f"{p.last.upper()}, {p.first}", "first_initial": f"{p.first} {p.last[0]}.",
                 "lower_first": p.first.lower()}[form]
        return Phi(value, type_, form)

    def credentialed(self, c: Clinician) -> Piece:
        """"Ann Ortiz, RN": the credential stays outside the span."""
        return Piece(self.wname(c.person, "DOCTOR"), ", " + self.pick(CREDENTIALS))

    def waddress(self, b: NoteBuilder, addr: Address) -> None:
        style = self.pick(self.formats.addresses)
        city = Phi(addr.city.name, "CITY", "city")
        if style == "one_line":
            b.fill("{street}, {city}, {state} {zip}", street=addr.street_phi(), city=city,
                   state=Phi(addr.city.state_abbr, "STATE", "abbr"), zip=addr.zip)
        elif style == "po_box":
            b.fill("{box}, {city}, {state} {zip}", box=Phi(f"PO Box {self.rng.randint(10, 9999)}", "STREET", "po_box"),
                   city=city, state=Phi(addr.city.state_abbr, "STATE", "abbr"), zip=addr.zip)
        elif style == "no_zip":
            b.fill("{street}, {city}", street=addr.street_phi(), city=city)
        elif style == "intl" and self.intl_cities:
            name, country = self.pick(self.intl_cities)
            b.fill("{street}, {city}, {country}", street=addr.street_phi(), city=Phi(name, "CITY", "intl"),
                   country=Phi(country, "COUNTRY", "intl"))
        else:
            b.fill("{city}, {state}", city=city, state=Phi(addr.city.state, "STATE", "full"))

    def relative(self) -> tuple[str, Person]:
        pt = self.patient
        return self.pick((("daughter" if pt.child.sex == "F" else "son", pt.child),
                          ("wife" if pt.spouse.sex == "F" else "husband", pt.spouse),
                          ("sister" if pt.sibling.sex == "F" else "brother", pt.sibling)))
