"""Synthetic people: a patient with everything that identifies them, and the clinicians around them.

A patient is drawn once and reused for all their notes, so the same name, MRN, date of birth,
address and relatives recur: de-identification must replace them consistently.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date

from pipeline.synthetic import values as V
from pipeline.synthetic.builder import Phi, Piece
from pipeline.synthetic.pools import City, Hospital, Pools


@dataclass(frozen=True)
class Person:
    first: str
    last: str
    middle: str = ""  # one letter, or empty
    sex: str = "F"

    def forms(self) -> dict[str, str]:
        """Every written form of the name, each one span (titles stay outside the span)."""
        out = {
            "full": f"{self.first} {self.last}",
            "last": self.last,
            "first": self.first,
            "last_first": f"{self.last}, {self.first}",
            "initial_last": f"{self.first[0]}. {self.last}",
            "initials": self.initials,
            "upper_last_first": f"{self.last.upper()}, {self.first.upper()}",
        }
        if self.middle:
            out["full_middle"] = f"{self.first} {self.middle}. {self.last}"
        return out

    @property
    def initials(self) -> str:
        parts = [self.first] + self.last.replace("-", " ").split()
        return "".join(p[0].upper() for p in parts if p[0].isalpha())

    def name(self, form: str, type_: str) -> Phi:
        forms = self.forms()
        if form not in forms:  # no middle initial: "full_middle" falls back to "full"
            form = "full"
        return Phi(forms[form], type_, form)

    @property
    def title(self) -> str:
        return "Mr." if self.sex == "M" else "Ms."

    @property
    def he(self) -> str:
        return "he" if self.sex == "M" else "she"

    @property
    def his(self) -> str:
        return "his" if self.sex == "M" else "her"

    @property
    def man(self) -> str:
        return "man" if self.sex == "M" else "woman"


@dataclass(frozen=True)
class Clinician:
    person: Person
    username: str
    specialty: str
    license_intro: str
    license: Phi

    def dr(self, form: str = "full") -> Piece:
        """"Dr. " + the name: the title is context, not PHI."""
        return Piece("Dr. ", self.person.name(form, "DOCTOR"))


@dataclass(frozen=True)
class Address:
    number: int
    street: str
    unit: str
    city: City
    zip: Phi

    def street_phi(self) -> Phi:
        return Phi(f"{self.number} {self.street}{self.unit}", "STREET", "street")


@dataclass
class Patient:
    patient_id: str
    person: Person
    dob: date
    first_seen: date
    mrn: Phi
    ssn: Phi
    healthplan: Phi
    account: Phi
    address: Address
    home_phone: Phi
    cell_phone: Phi
    email: Phi
    profession: str
    employer: str
    country: str
    leisure_place: str
    spouse: Person
    child: Person
    sibling: Person
    mother_death_age: int
    father_age: int
    pcp: Clinician
    hospital: Hospital
    department: str
    vehicle: tuple[str, Phi]
    device: Phi
    bioid: Phi
    notes: int = 1
    extra: dict = field(default_factory=dict)

    def age_on(self, d: date) -> int:
        return d.year - self.dob.year - ((d.month, d.day) < (self.dob.month, self.dob.day))


SPECIALTIES = ("Internal Medicine", "Cardiology", "Pulmonology", "Gastroenterology", "Neurology",
               "Nephrology", "Oncology", "Endocrinology", "Geriatrics", "Family Medicine", "Surgery",
               "Infectious Disease", "Rheumatology", "Psychiatry")


def invented_name(rng: random.Random, pools: Pools) -> str:
    """A pronounceable name found in no dictionary (built from syllables)."""
    onsets, middles, endings = pools.syllables
    n_mid = rng.choice((0, 1, 1, 2))
    word = rng.choice(onsets) + "".join(rng.choice(middles) for _ in range(n_mid)) + rng.choice(endings)
    return word[0].upper() + word[1:].lower()


def pick_first(rng: random.Random, pools: Pools, sex: str) -> str:
    r = rng.random()
    if r < 0.08:
        return invented_name(rng, pools)
    if r < 0.22:
        return rng.choice(pools.ambiguous_first_by_sex[sex])
    return rng.choice(pools.first_by_sex[sex])


def pick_last(rng: random.Random, pools: Pools) -> str:
    r = rng.random()
    if r < 0.10:
        return invented_name(rng, pools)
    if r < 0.25:
        return rng.choice(pools.ambiguous_surnames)
    return rng.choice(pools.surnames)


def make_person(rng: random.Random, pools: Pools, sex: str | None = None, last: str | None = None) -> Person:
    sex = sex or rng.choice("FM")
    middle = rng.choice("ABCDEFGHJKLMNPRSTW") if rng.random() < 0.4 else ""
    return Person(first=pick_first(rng, pools, sex), last=last or pick_last(rng, pools), middle=middle, sex=sex)


def make_username(p: Person, rng: random.Random) -> str:
    base = "".join(ch for ch in (p.first[0] + p.last).lower() if ch.isalnum())
    style = rng.choice(("plain", "digits", "initials"))
    if style == "plain":
        return base[:10]
    if style == "digits":
        return f"{base[:8]}{rng.randint(1, 99)}"
    return f"{p.initials.lower()}{rng.randint(100, 999)}"


def make_clinician(rng: random.Random, pools: Pools) -> Clinician:
    p = make_person(rng, pools)
    intro, lic = V.license_phi(rng)
    return Clinician(person=p, username=make_username(p, rng), specialty=rng.choice(SPECIALTIES),
                     license_intro=intro, license=lic)


def make_address(rng: random.Random, pools: Pools) -> Address:
    city = rng.choice(pools.cities)
    unit = rng.choice(("", "", "", f", Apt {rng.randint(1, 40)}", f" #{rng.randint(1, 9)}{rng.choice('ABC')}"))
    return Address(number=rng.randint(2, 2999), street=rng.choice(pools.streets), unit=unit, city=city,
                   zip=V.zip_phi(city.zip_prefix, rng))


def make_patient(patient_id: str, rng: random.Random, pools: Pools) -> Patient:
    sex = rng.choice("FM")
    person = make_person(rng, pools, sex=sex)
    # Ages: mostly adults, some very old (>89, which HIPAA singles out), a few young adults.
    r = rng.random()
    age = rng.randint(90, 103) if r < 0.08 else rng.randint(18, 40) if r < 0.25 else rng.randint(41, 89)
    first_seen = V.random_date(rng, V.YEAR_MIN + 2, V.YEAR_MAX - 2)
    month, day = rng.randint(1, 12), rng.randint(1, 28)
    # Born so that the drawn age is the age on the first visit.
    birth_year = first_seen.year - age - (1 if (month, day) > (first_seen.month, first_seen.day) else 0)
    dob = date(birth_year, month, day)
    spouse = make_person(rng, pools, sex="M" if sex == "F" else "F",
                         last=person.last if rng.random() < 0.6 else None)
    child = make_person(rng, pools, last=person.last if rng.random() < 0.7 else None)
    sibling = make_person(rng, pools, last=person.last)
    return Patient(
        patient_id=patient_id, person=person, dob=dob, first_seen=first_seen,
        mrn=V.mrn_phi(rng), ssn=V.ssn_phi(rng), healthplan=V.healthplan_phi(rng), account=V.account_phi(rng),
        address=make_address(rng, pools), home_phone=V.phone_phi(rng), cell_phone=V.phone_phi(rng),
        email=V.email_phi(person.first, person.last, rng), profession=rng.choice(pools.professions),
        employer=rng.choice(pools.organizations), country=rng.choice(pools.countries),
        leisure_place=rng.choice(pools.locations_other), spouse=spouse, child=child, sibling=sibling,
        mother_death_age=rng.randint(55, 96), father_age=rng.randint(60, 99) if age < 60 else rng.randint(70, 104),
        pcp=make_clinician(rng, pools), hospital=rng.choice(pools.hospitals),
        department=rng.choice(pools.departments), vehicle=V.vehicle_phi(rng), device=V.device_phi(rng),
        bioid=V.bioid_phi(rng),
    )
