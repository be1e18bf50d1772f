"""Sections several note templates share: family history, social history and the signature
block (electronic signature, dictation initials, dictated and typed dates).
"""
from __future__ import annotations

from datetime import date

from pipeline.synthetic import values as V
from pipeline.synthetic.builder import NoteBuilder, Phi, Piece
from pipeline.synthetic.clinical import FAMILY_CONDITIONS, SUBSTANCE
from pipeline.synthetic.note_context import NoteContext
from pipeline.synthetic.people import Clinician


def family_history(b: NoteBuilder, ctx: NoteContext) -> None:
    pt = ctx.patient
    b.line("FAMILY HISTORY:")
    b.fill("Mother died {at} of {cond}. ", at=ctx.pick((Piece("at age ", Phi(str(pt.mother_death_age), "AGE", "bare")),
                                                         V.AGE_FORMATS["aged"](pt.mother_death_age))),
           cond=ctx.pick(FAMILY_CONDITIONS))
    b.fill("Father is {age}, with {cond}. ", age=V.age_piece(pt.father_age, ctx.rng, ("years_old", "yo", "y_o")),
           cond=ctx.pick(FAMILY_CONDITIONS))
    if ctx.chance(0.6):
        sib = pt.sibling
        b.fill("{rel} {name} ({age}) has {cond}.", rel="Brother" if sib.sex == "M" else "Sister",
               name=sib.name(ctx.pick(("first", "full")), "PATIENT"),
               age=V.age_piece(max(18, ctx.age + ctx.rng.randint(-12, 12)), ctx.rng, ("yo", "y_o")),
               cond=ctx.pick(FAMILY_CONDITIONS))
    else:
        b.text("No family history of early coronary disease.")
    b.text("\n\n")


def social_history(b: NoteBuilder, ctx: NoteContext) -> None:
    pt, p = ctx.patient, ctx.patient.person
    b.line("SOCIAL HISTORY:")
    spouse_rel = "husband" if pt.spouse.sex == "M" else "wife"
    variant = ctx.rng.randint(0, 2)
    if variant == 0:
        b.fill("Lives with {his} {rel} {spouse} in {city}. ", his=p.his, rel=spouse_rel,
               spouse=pt.spouse.name(ctx.pick(("first", "full")), "PATIENT"),
               city=Phi(pt.address.city.name, "CITY", "city"))
    elif variant == 1:
        b.fill("Lives alone at {street} in {city}; {his} {rel} {spouse} died ", street=pt.address.street_phi(),
               city=Phi(pt.address.city.name, "CITY", "city"), his=p.his, rel=spouse_rel,
               spouse=pt.spouse.name("first", "PATIENT"))
        b.fill("{when}. ", when=ctx.when(ctx.before(400, 3000)))
    else:
        b.fill("Lives with {his} {child_rel} {child} near {place}. ", his=p.his,
               child_rel="son" if pt.child.sex == "M" else "daughter",
               child=pt.child.name(ctx.pick(("first", "full")), "PATIENT"),
               place=Phi(pt.leisure_place, "LOCATION-OTHER", "landmark"))
    if ctx.age >= 70 and ctx.chance(0.5):
        b.fill("Retired {prof}, formerly with {org}. ", prof=Phi(pt.profession, "PROFESSION", "profession"),
               org=Phi(pt.employer, "ORGANIZATION", "employer"))
    else:
        b.fill("Works as {a} {prof} at {org}. ", a="an" if pt.profession[0] in "aeiou" else "a",
               prof=Phi(pt.profession, "PROFESSION", "profession"),
               org=Phi(pt.employer, "ORGANIZATION", "employer"))
    if ctx.chance(0.45):
        b.fill("Born in {country}; moved to the US {when}. ",
               country=Phi(pt.country, "COUNTRY", "country"), when=ctx.when(ctx.before(365, 3650)))
    if ctx.chance(0.25):
        b.fill("Enjoys fishing at {place}. ", place=Phi(ctx.pick(ctx.pools.locations_other), "LOCATION-OTHER", "landmark"))
    b.text(ctx.pick(SUBSTANCE))
    b.text("\n\n")


def signature(b: NoteBuilder, ctx: NoteContext, signer: Clinician, dictated: date) -> None:
    b.fill("Electronically signed by {name}", name=ctx.doctor(signer, ("full", "full_middle")))
    if ctx.chance(0.6):
        b.fill(" [{user}]", user=Phi(signer.username, "USERNAME", "username"))
    b.fill(" on {d}\n", d=ctx.date(dictated, ("mdy_slash", "iso", "mdy_slash_yy")))
    # Dictation initials: "JS/mk", both DOCTOR in i2b2.
    b.fill("{dr}/{tr}\n", dr=Phi(signer.person.initials, "DOCTOR", "initials"),
           tr=Phi(ctx.transcriptionist.initials.lower(), "DOCTOR", "initials"))
    dt = V.shift(dictated, 1)
    b.fill("DD: {dd}  DT: {dt}\n", dd=V.date_phi(dictated, "mdy_slash_yy"), dt=V.date_phi(dt, "mdy_slash_yy"))
