"""The wide generator: more templates, larger name and place lists, more value formats, each
split into a train and a held-out part (:mod:`pipeline.synthetic.partition`).

Why: a model trained on the narrow generator (four note kinds, a few hundred names, fixed
formats) scores F1 0.998 on more of the same and finds only 38 % of the PHI characters of English
notes written by others. The wide generator adds what those notes have and the narrow one lacks:
free-text mentions of relatives and carers ("seen with her daughter Maria"), names in lower case
or capitals, names before credentials ("Ann Ortiz, RN"), one-line and PO-box addresses, foreign
cities, dates written out ("1 December 2070", "Tuesday, December 1"), ages in words, and phone,
MRN, SSN, account and licence numbers in other shapes.

``part="train"``: the narrow generator's four note kinds plus the train part of the new kinds,
formats and lists (every narrow value counts as train). ``part="heldout"``: only held-out note
kinds, held-out value formats, and names, cities, streets, hospitals, organisations and
professions that no train-part note (and no narrow note) uses. Given names ``first``/``full``
forms are shared by both parts (they are how names are written, not a format to hold out).
``part="all"``: everything. Same ``seed``, ``part`` and ``split_seed``: same notes.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Callable

from pipeline.synthetic import values as V
from pipeline.synthetic.builder import NoteBuilder, Phi, Piece, SyntheticNote
from pipeline.synthetic.clinical import SCENARIOS
from pipeline.synthetic.note_context import NoteContext
from pipeline.synthetic.notes import NOTE_KINDS
from pipeline.synthetic.partition import check_part, part_of
from pipeline.synthetic.people import Address, Clinician, Person, make_address, make_clinician, make_patient, make_person
from pipeline.synthetic.pools import DATA_DIR, City, Hospital, Pools, load_pools
from pipeline.synthetic.wide_formats import (NEW_AGE_FORMATS, NEW_DATE_FORMATS, NEW_ID_FORMATS,  # noqa: F401 - re-exported
                                             NEW_NAME_FORMS, NEW_PHONE_FORMATS, Formats, formats_for, number_words)

WIDE_DIR = DATA_DIR / "wide"


# --- lists ------------------------------------------------------------------------------------------
def _lines(name: str) -> list[str]:
    return [ln.strip() for ln in (WIDE_DIR / name).read_text(encoding="utf-8").splitlines()
            if ln.strip() and not ln.startswith("#")]


STREET_SUFFIXES = ("Street", "St", "St.", "Avenue", "Ave", "Ave.", "Road", "Rd", "Lane", "Ln", "Drive", "Dr",
                   "Court", "Ct", "Boulevard", "Blvd", "Way", "Place", "Pl", "Terrace", "Circle", "Parkway", "Pike",
                   "Highway", "Trail", "Row")
TREES = ("Birch", "Cedar", "Willow", "Aspen", "Hawthorn", "Juniper", "Magnolia", "Sycamore", "Chestnut", "Poplar",
         "Linden", "Alder", "Cypress", "Hickory", "Laurel", "Rowan", "Spruce", "Hazel", "Beech", "Mulberry")
HOSPITAL_PATTERNS = ("{city} General Hospital|{city} General", "{city} Medical Center|{city} Medical",
                     "{city} Regional Hospital|{city} Regional", "{last} Memorial Hospital|{last} Memorial",
                     "St. {first}'s Hospital|St. {first}'s", "{city} Community Hospital|{city} Community",
                     "{last} Clinic|{last} Clinic", "{city} Health Center|{city} Health",
                     "University Hospital of {city}|University Hospital", "{last} Children's Hospital|{last} Children's")
ORG_PATTERNS = ("{last} & {last2} LLP", "{city} Public Schools", "{last} Industries", "{city} Transit Authority",
                "{last} Construction", "{city} Fire Department", "{last} Bakery", "{city} County Library",
                "{last} Brothers Trucking", "{city} Police Department", "{last} Dental Group", "{city} Credit Union")
DEPT_PATTERNS = ("{last} {n} Medicine", "{last} {n} Surgical ICU", "{last} {n} Oncology", "{last} Pavilion {n}",
                 "{last} {n} Step-Down", "{last} Wing {n}", "{last} {n} Orthopedics")
LANDMARK_PATTERNS = ("{last} Park", "Lake {last}", "the {city} Zoo", "the {last} Library", "{last} Beach",
                     "the {city} YMCA", "{last} State Forest", "the {city} Mall", "Mount {last}", "{last} Marina")
NEW_PROFESSIONS = ("bus driver", "software engineer", "dental hygienist", "paralegal", "welder", "barista",
                   "line cook", "pharmacist", "school counselor", "librarian", "roofer", "court reporter",
                   "flight attendant", "real estate agent", "veterinary technician", "landscaper", "tailor",
                   "firefighter", "security guard", "bank teller", "machinist", "home health aide", "architect",
                   "social worker", "dock worker", "hairdresser", "plumber's apprentice", "farmhand", "cashier",
                   "massage therapist", "graphic designer", "translator", "crane operator", "pastor",
                   "insurance adjuster", "auto mechanic", "data analyst", "baker", "meat cutter", "postal clerk")
CREDENTIALS = ("MD", "M.D.", "DO", "RN", "NP", "PA-C", "PhD", "LCSW", "PharmD", "CNM", "MSW", "DPT")


def _generated(patterns: tuple[str, ...], count: int, tag: str, lasts, firsts, cities) -> list[str]:
    """``count`` distinct names from ``patterns`` filled from the lists, fixed by ``tag`` alone."""
    rng = random.Random(f"wide-lists:{tag}")
    out: dict[str, None] = {}
    for _ in range(count * 4):
        if len(out) >= count:
            break
        pat = rng.choice(patterns)
        out[pat.format(last=rng.choice(lasts), last2=rng.choice(lasts), first=rng.choice(firsts),
                       city=rng.choice(cities), n=rng.randint(2, 19))] = None
    return list(out)


@dataclass(frozen=True)
class WideLists:
    """Every list of the wide generator, before the split."""

    first: tuple[tuple[str, str], ...]
    surnames: tuple[str, ...]
    cities: tuple[City, ...]
    intl_cities: tuple[tuple[str, str], ...]
    countries: tuple[str, ...]
    hospitals: tuple[Hospital, ...]
    streets: tuple[str, ...]
    organizations: tuple[str, ...]
    departments: tuple[str, ...]
    landmarks: tuple[str, ...]
    professions: tuple[str, ...]


@lru_cache(maxsize=1)
def wide_lists() -> WideLists:
    narrow = load_pools()
    first = [tuple(ln.split("\t")) for ln in _lines("first_names.tsv")]
    first_names = [f for f, _ in first]
    surnames = _lines("surnames.txt")
    cities = [City(*ln.split("\t")) for ln in _lines("cities_us.tsv")]
    city_names = [c.name for c in cities]
    hospitals = []
    for h in _generated(HOSPITAL_PATTERNS, 700, "hospitals", surnames, first_names, city_names):
        full, _, short = h.partition("|")
        hospitals.append(Hospital(full, short or full))
    hosp_full = {h.name for h in narrow.hospitals}
    streets = _generated(tuple(f"{{{k}}} {s}" for k in ("last", "first", "city") for s in STREET_SUFFIXES)
                         + tuple(f"{t} {s}" for t in TREES for s in STREET_SUFFIXES[:6]), 2000, "streets",
                         surnames, first_names, city_names)
    return WideLists(
        first=tuple((f, s) for f, s in first) + tuple((n, "U") for n in narrow.first_names if n not in set(first_names)),
        surnames=tuple(dict.fromkeys(list(narrow.surnames) + surnames)),
        cities=tuple({c.name: c for c in list(narrow.cities) + cities}.values()),
        intl_cities=tuple(tuple(ln.split("\t")) for ln in _lines("cities_intl.tsv")),
        countries=tuple(dict.fromkeys(list(narrow.countries) + _lines("countries.txt"))),
        hospitals=tuple(narrow.hospitals) + tuple(h for h in hospitals if h.name not in hosp_full),
        streets=tuple(dict.fromkeys(list(narrow.streets) + streets)),
        organizations=tuple(dict.fromkeys(list(narrow.organizations)
                                          + _generated(ORG_PATTERNS, 600, "orgs", surnames, first_names, city_names))),
        departments=tuple(dict.fromkeys(list(narrow.departments)
                                        + _generated(DEPT_PATTERNS, 400, "depts", surnames, first_names, city_names))),
        landmarks=tuple(dict.fromkeys(list(narrow.locations_other)
                                      + _generated(LANDMARK_PATTERNS, 400, "landmarks", surnames, first_names, city_names))),
        professions=tuple(dict.fromkeys(list(narrow.professions) + list(NEW_PROFESSIONS))),
    )


@dataclass(frozen=True)
class WidePools:
    """The lists of one part: a :class:`Pools` for the people and the narrow templates, plus
    what only the new templates use."""

    pools: Pools
    intl_cities: tuple[tuple[str, str], ...]


@lru_cache(maxsize=8)
def wide_pools(part: str = "all", split_seed: int = 0) -> WidePools:
    """The lists of ``part``; every value of the narrow lists is in the train part."""
    check_part(part)
    narrow, lists = load_pools(), wide_lists()
    keep = frozenset

    def sel(kind, values, old, key=str):
        return part_of(kind, values, part, split_seed, key=key, always_train=keep(old))

    first = sel("first_names", lists.first, narrow.first_names, key=lambda x: x[0])
    by_sex = {x: tuple(n for n, s in first if s in (x, "U")) for x in ("F", "M")}
    amb_by_sex = narrow.ambiguous_first_by_sex if part != "heldout" else by_sex
    if part == "all":
        amb_by_sex = narrow.ambiguous_first_by_sex
    surnames = sel("surnames", lists.surnames, narrow.surnames)
    pools = Pools(
        first_names=tuple(n for n, _ in first), first_by_sex=by_sex, ambiguous_first_by_sex=amb_by_sex,
        surnames=surnames, ambiguous_first=narrow.ambiguous_first if part != "heldout" else (),
        ambiguous_surnames=narrow.ambiguous_surnames if part != "heldout" else surnames,
        cities=sel("cities", lists.cities, [c.name for c in narrow.cities], key=lambda c: c.name),
        hospitals=sel("hospitals", lists.hospitals, [h.name for h in narrow.hospitals], key=lambda h: h.name),
        streets=sel("streets", lists.streets, narrow.streets),
        professions=sel("professions", lists.professions, narrow.professions),
        organizations=sel("organizations", lists.organizations, narrow.organizations),
        departments=sel("departments", lists.departments, narrow.departments),
        countries=sel("countries", lists.countries, narrow.countries),
        locations_other=sel("landmarks", lists.landmarks, narrow.locations_other),
        syllables=narrow.syllables,
    )
    intl = part_of("intl_cities", lists.intl_cities, part, split_seed, key=lambda x: x[0])
    return WidePools(pools, intl)


# --- the context of a wide note -----------------------------------------------------------------------
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


# --- new note kinds --------------------------------------------------------------------------------
def nursing_note(b: NoteBuilder, w: WideContext) -> None:
    pt, p = w.patient, w.patient.person
    b.line("NURSING NOTE {d}", d=w.wdate(w.note_date))
    rel, person = w.relative()
    b.fill("Pt {name} resting comfortably, {age} {man}. ", name=w.wname(p, "PATIENT"), age=w.wage(w.age), man=p.man)
    b.fill("Seen with {his} {rel} {rname} this morning, who asked for an update and can be reached at {tel}. ",
           his=p.his, rel=rel, rname=w.wname(person, "PATIENT"), tel=w.wphone())
    b.fill("Meds given as ordered per {rn}. ", rn=w.credentialed(w.resident))
    b.fill("Family plans a visit from {city} on {d}.\n", city=Phi(pt.address.city.name, "CITY", "city"),
           d=w.wdate(w.after(1, 5)))


def ed_triage(b: NoteBuilder, w: WideContext) -> None:
    pt, p = w.patient, w.patient.person
    b.line("ED TRIAGE - {hosp}", hosp=Phi(pt.hospital.short, "HOSPITAL", "short"))
    b.fill("{age} {sex} brought in by ambulance from home (", age=w.wage(w.age), sex=p.sex)
    w.waddress(b, pt.address)
    b.fill(") after a fall at {place} on {d}. ", place=Phi(pt.leisure_place, "LOCATION-OTHER", "landmark"),
           d=w.wdate(w.note_date))
    b.fill("Identified as {name}, MRN {mrn}. ", name=w.wname(p, "PATIENT"), mrn=w.wid("MEDICALRECORD"))
    rel, person = w.relative()
    b.fill("Accompanied by {rel} {rname}; contact {tel}.\n", rel=rel, rname=w.wname(person, "PATIENT"), tel=w.wphone())


def phone_encounter(b: NoteBuilder, w: WideContext) -> None:
    pt, p = w.patient, w.patient.person
    rel, person = w.relative()
    b.fill("Telephone encounter {d}. Call from {rname} ({rel}) at {tel} regarding {first}. ",
           d=w.wdate(w.note_date), rname=w.wname(person, "PATIENT"), rel=rel, tel=w.wphone(),
           first=w.wname(p, "PATIENT"))
    b.fill("Caller reports {he} has not eaten since {d}. Advised to call {dr} or come to {hosp}. ",
           he=p.he, d=w.wdate(w.before(1, 3)), dr=Piece("Dr ", Phi(w.attending.person.last, "DOCTOR", "last")),
           hosp=Phi(pt.hospital.name, "HOSPITAL", "full"))
    b.fill("Call back number confirmed: {tel}.\n", tel=w.wphone())


def social_work(b: NoteBuilder, w: WideContext) -> None:
    pt, p = w.patient, w.patient.person
    b.line("SOCIAL WORK ASSESSMENT")
    b.fill("Met with {name} and {his} {rel} {rname}. ", name=w.wname(p, "PATIENT"), his=p.his,
           rel="son" if pt.child.sex == "M" else "daughter", rname=w.wname(pt.child, "PATIENT"))
    b.text("Patient lives at ")
    w.waddress(b, pt.address)
    b.fill(" and worked as a {prof} for {org} until {d}. ", prof=Phi(pt.profession, "PROFESSION", "profession"),
           org=Phi(pt.employer, "ORGANIZATION", "employer"), d=w.wdate(w.before(100, 900)))
    b.fill("Originally from {country}. SSN {ssn} verified for benefits; Medicaid ID {plan}. ",
           country=Phi(pt.country, "COUNTRY", "country"), ssn=w.wid("SSN"), plan=w.wid("HEALTHPLAN"))
    b.fill("Plan discussed with {sw}.\n", sw=w.credentialed(w.consultant))


def operative_note(b: NoteBuilder, w: WideContext) -> None:
    pt, p = w.patient, w.patient.person
    b.line("OPERATIVE REPORT")
    b.line("Patient: {name}   Date of surgery: {d}", name=w.wname(p, "PATIENT"), d=w.wdate(w.note_date))
    b.line("Surgeon: {s}   Assistant: {a}", s=w.credentialed(w.attending), a=w.credentialed(w.resident))
    b.fill("The {age} patient was brought to {dept} at {hosp}. ", age=Piece(Phi(str(w.age), "AGE", "bare"), "-year-old"),
           dept=Phi(pt.department, "DEPARTMENT", "unit"), hosp=Phi(pt.hospital.name, "HOSPITAL", "full"))
    b.fill("Specimen sent to pathology under case {case}. Account {acct}.\n", case=w.wid("IDNUM"),
           acct=w.wid("ACCOUNT"))


def radiology_report(b: NoteBuilder, w: WideContext) -> None:
    pt, p = w.patient, w.patient.person
    b.line("EXAM DATE: {d}    MRN: {mrn}", d=w.wdate(w.note_date), mrn=w.wid("MEDICALRECORD"))
    b.line("PATIENT: {name}   AGE: {age}", name=w.wname(p, "PATIENT"), age=Phi(str(w.age), "AGE", "bare"))
    b.fill("Comparison: outside study from {hosp} dated {d}. ", hosp=Phi(w.other_hospital.name, "HOSPITAL", "full"),
           d=w.wdate(w.before(30, 700)))
    b.text("No acute cardiopulmonary process. ")
    b.fill("Findings called to {dr} at {tel} on {d}.\n", dr=w.wname(w.attending.person, "DOCTOR"), tel=w.wphone(),
           d=w.wdate(w.note_date))


def portal_message(b: NoteBuilder, w: WideContext) -> None:
    pt, p = w.patient, w.patient.person
    rel, person = w.relative()
    b.fill("From: {name} <{email}>\n", name=w.wname(person, "PATIENT"), email=V.email_phi(person.first, person.last, w.rng))
    b.line("Sent: {d}", d=w.wdate(w.note_date))
    b.fill("Hi Dr. {last}, this is {first}, {pname}'s {rel}. ", last=Phi(w.attending.person.last, "DOCTOR", "last"),
           first=w.wname(person, "PATIENT"), pname=w.wname(p, "PATIENT"), rel=rel)
    b.fill("{He} turned {age} last week and is more confused since {d}. ", He=p.he.capitalize(),
           age=Phi(number_words(w.age), "AGE", "words"), d=w.wdate(w.before(3, 20)))
    b.fill("We moved {him} to my place in {city}. Please call {tel}.\n", him="him" if p.sex == "M" else "her",
           city=Phi(pt.address.city.name, "CITY", "city"), tel=w.wphone())


def transfer_summary(b: NoteBuilder, w: WideContext) -> None:
    pt, p = w.patient, w.patient.person
    b.line("TRANSFER SUMMARY")
    b.fill("{name} was transferred from {other} to {hosp} on {d}, accompanied by {his} {rel} {rname}. ",
           name=w.wname(p, "PATIENT"), other=Phi(w.other_hospital.name, "HOSPITAL", "full"),
           hosp=Phi(pt.hospital.name, "HOSPITAL", "full"), d=w.wdate(w.note_date), his=p.his,
           rel="sister" if pt.sibling.sex == "F" else "brother", rname=w.wname(pt.sibling, "PATIENT"))
    b.fill("Outside MRN {mrn}. Accepting physician {dr}. ", mrn=w.wid("MEDICALRECORD"), dr=w.credentialed(w.consultant))
    b.fill("{He} is a retired {prof} who enjoys walks at {place}.\n", He=p.he.capitalize(),
           prof=Phi(pt.profession, "PROFESSION", "profession"), place=Phi(pt.leisure_place, "LOCATION-OTHER", "landmark"))


def prior_authorization(b: NoteBuilder, w: WideContext) -> None:
    pt, p = w.patient, w.patient.person
    b.line("PRIOR AUTHORIZATION REQUEST {d}", d=w.wdate(w.note_date))
    b.fill("Member: {name}, DOB {dob}, member ID {plan}. ", name=w.wname(p, "PATIENT"), dob=w.wdate(pt.dob),
           plan=w.wid("HEALTHPLAN"))
    b.fill("Prescriber: {dr} (NPI {lic}), fax {fax}. ", dr=w.credentialed(w.attending), lic=w.wid("LICENSE"),
           fax=w.wphone("FAX"))
    b.fill("Claim {claim} for the {age} member. Billing account {acct}.\n", claim=w.wid("IDNUM"),
           age=w.wage(w.age), acct=w.wid("ACCOUNT"))


WIDE_KINDS: dict[str, Callable[[NoteBuilder, WideContext], None]] = {
    "nursing_note": nursing_note, "ed_triage": ed_triage, "phone_encounter": phone_encounter,
    "social_work": social_work, "operative_note": operative_note, "radiology_report": radiology_report,
    "portal_message": portal_message, "transfer_summary": transfer_summary, "prior_authorization": prior_authorization,
}


def kinds_for(part: str = "all", split_seed: int = 0) -> dict[str, Callable]:
    """The note kinds of ``part``: the narrow kinds are train; the new ones are split."""
    new = part_of("note_kinds", tuple(WIDE_KINDS), part, split_seed)
    out: dict[str, Callable] = {} if part == "heldout" else dict(NOTE_KINDS)
    out.update({k: WIDE_KINDS[k] for k in new})
    return out


def generate_wide(n: int, seed: int, *, part: str = "all", split_seed: int = 0, start_patient: int = 0):
    """``n`` wide notes of ``part`` (:class:`pipeline.synthetic.generator.SyntheticNote` each)."""
    check_part(part)
    if n < 0:
        raise ValueError("n must be >= 0")
    wp, fmts, kinds = wide_pools(part, split_seed), formats_for(part, split_seed), kinds_for(part, split_seed)
    pools, names = wp.pools, list(kinds)
    out: list[SyntheticNote] = []
    k = start_patient
    while len(out) < n:
        rng = random.Random(f"synthetic-wide:{seed}:{part}:{split_seed}:{k}")
        pid = f"W{k:05d}"
        patient = make_patient(pid, rng, pools)
        attending, resident, consultant = (make_clinician(rng, pools) for _ in range(3))
        others = [h for h in pools.hospitals if h != patient.hospital] or list(pools.hospitals)
        note_date = patient.first_seen
        for j in range(rng.choice((1, 2, 2, 3, 3, 4))):
            if len(out) >= n:
                break
            if j:
                note_date = V.shift(note_date, rng.randint(3, 120))
            kind = rng.choice(names)
            ctx = WideContext(rng=rng, pools=pools, patient=patient, note_date=note_date, attending=attending,
                              resident=resident, consultant=consultant, transcriptionist=make_person(rng, pools),
                              scenario=rng.choice(SCENARIOS), other_hospital=rng.choice(others), formats=fmts,
                              intl_cities=wp.intl_cities, part=part)
            b = NoteBuilder(f"w{seed}{part[0]}-p{k:05d}-n{j + 1}")
            kinds[kind](b, ctx)
            meta = {"kind": kind, "synthetic": True, "seed": seed, "note": j + 1, "variety": "wide", "part": part}
            out.append(SyntheticNote(b.to_document(patient_id=pid, meta=meta), tuple(b.inserted), kind))
        k += 1
    return out


__all__ = ["generate_wide", "kinds_for", "formats_for", "wide_pools", "wide_lists", "WIDE_KINDS", "NEW_DATE_FORMATS",
           "NEW_AGE_FORMATS", "NEW_PHONE_FORMATS", "NEW_ID_FORMATS", "NEW_NAME_FORMS", "number_words", "make_address"]
