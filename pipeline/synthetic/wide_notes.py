"""The wide generator's new note kinds (nursing, triage, telephone, social work, operative,
radiology, portal message, transfer, prior authorisation) and which of them a part uses.

Each kind writes one note through a :class:`~pipeline.synthetic.wide_context.WideContext`; the
kinds themselves are split into a train and a held-out part like the lists (:func:`kinds_for`).
"""
from __future__ import annotations

from typing import Callable

from pipeline.synthetic import values as V
from pipeline.synthetic.builder import NoteBuilder, Phi, Piece
from pipeline.synthetic.notes import NOTE_KINDS
from pipeline.synthetic.partition import part_of
from pipeline.synthetic.wide_context import WideContext
from pipeline.synthetic.wide_formats import number_words


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
