"""What a note template writes from: :class:`NoteContext` (the patient, the date of the note, the
clinicians, a clinical scenario, a seeded ``random.Random``) and its small helpers that turn
them into ``Phi`` values and pieces (dates with their preposition, names in a drawn form,
addresses).

Every draw goes through ``ctx.rng`` in the order the templates call these helpers, so a seed
gives the same notes. The templates are :mod:`pipeline.synthetic.notes`; the sections several of
them share are :mod:`pipeline.synthetic.note_sections`.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date

from pipeline.synthetic import values as V
from pipeline.synthetic.builder import NoteBuilder, Phi, Piece
from pipeline.synthetic.clinical import Scenario
from pipeline.synthetic.people import Address, Clinician, Patient, Person
from pipeline.synthetic.pools import Hospital, Pools


@dataclass
class NoteContext:
    rng: random.Random
    pools: Pools
    patient: Patient
    note_date: date
    attending: Clinician
    resident: Clinician
    consultant: Clinician
    transcriptionist: Person
    scenario: Scenario
    other_hospital: Hospital

    # -- small helpers used by every template --------------------------------------------------
    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, seq):
        return self.rng.choice(seq)

    def date(self, d: date, formats: tuple[str, ...] = V.FULL_DATE_FORMATS) -> Phi:
        return V.date_phi(d, self.pick(formats))

    def when(self, d: date) -> Piece:
        """A date with the preposition its format needs: "on 12/01/2070", "in the spring of 2070"."""
        fmt = self.pick(V.NARRATIVE_DATE_FORMATS)
        phi = V.date_phi(d, fmt)
        if fmt in ("year", "month_year", "m_yy"):
            return Piece("in ", phi)
        if fmt == "season_year":
            return Piece("in the ", phi)
        if fmt == "day_ord_of_month":
            return Piece("on the ", phi)
        return Piece("on ", phi)

    def before(self, days_lo: int, days_hi: int) -> date:
        return V.shift(self.note_date, -self.rng.randint(days_lo, days_hi))

    def after(self, days_lo: int, days_hi: int) -> date:
        return V.shift(self.note_date, self.rng.randint(days_lo, days_hi))

    @property
    def age(self) -> int:
        return self.patient.age_on(self.note_date)

    def patient_name(self, forms: tuple[str, ...] = ("full", "full_middle", "last_first")) -> Phi:
        person = self.patient.person
        available = [f for f in forms if f in person.forms()]
        return person.name(self.pick(available or ["full"]), "PATIENT")

    def mr_last(self) -> Piece:
        """"Mr. Smith" / "Ms. Smith": the title is context."""
        return Piece(self.patient.person.title + " ", self.patient.person.name("last", "PATIENT"))

    def doctor(self, c: Clinician, forms: tuple[str, ...] = ("full", "full", "initial_last", "last")) -> Piece:
        form = self.pick(forms)
        if form == "last":
            return c.dr("last")
        if self.chance(0.5):
            return c.dr(form)
        return Piece(c.person.name(form, "DOCTOR"), self.pick((", MD", ", M.D.", " MD", "")))

    def address_block(self, b: NoteBuilder, addr: Address, sep: str = "\n") -> None:
        city = addr.city
        state = Phi(city.state_abbr, "STATE", "abbr") if self.chance(0.8) else Phi(city.state, "STATE", "full")
        b.fill("{street}{sep}{city}, {state} {zip}", street=addr.street_phi(), sep=sep,
               city=Phi(city.name, "CITY", "city"), state=state, zip=addr.zip)

    def hospital_address(self, b: NoteBuilder) -> None:
        # The same hospital always has the same address: drawn from its own name, not the note's rng.
        rng = random.Random("hospital:" + self.patient.hospital.name)
        city = rng.choice(self.pools.cities)
        street = Phi(f"{rng.randint(1, 900)} {rng.choice(self.pools.streets)}", "STREET", "street")
        b.fill("{street}, {city}, {state} {zip}", street=street, city=Phi(city.name, "CITY", "city"),
               state=Phi(city.state_abbr, "STATE", "abbr"), zip=V.zip_phi(city.zip_prefix, rng))

    def course(self) -> list[str]:
        p = self.patient.person
        return [s.format(He=p.he.capitalize(), he=p.he, his=p.his) for s in self.scenario.course]
