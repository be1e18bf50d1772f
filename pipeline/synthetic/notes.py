"""Note templates: one small function per kind of note, registered in :data:`NOTE_KINDS`.

Each function writes one note into a :class:`NoteBuilder` from a :class:`NoteContext` (the patient,
the date of the note, the clinicians, a clinical scenario and a seeded ``random.Random``; see
:mod:`pipeline.synthetic.note_context`). Wording varies by chance so that detectors cannot learn
one template; PHI is always inserted through ``Phi`` values so its offsets are exact. The
sections several kinds share are :mod:`pipeline.synthetic.note_sections`.
"""
from __future__ import annotations

from typing import Callable

from pipeline.synthetic import values as V
from pipeline.synthetic.builder import NoteBuilder, Phi, Piece
from pipeline.synthetic.note_context import NoteContext
from pipeline.synthetic.note_sections import family_history, signature, social_history
from pipeline.synthetic.people import Address, make_address


def discharge_summary(b: NoteBuilder, ctx: NoteContext) -> None:
    """Header, history, course and plan, in that order (each section draws from ``ctx.rng`` in turn)."""
    admit = ctx.before(3, 14)
    discharge = ctx.note_date
    _discharge_header(b, ctx, admit, discharge)
    _discharge_history(b, ctx, admit)
    _discharge_course(b, ctx, admit)
    family_history(b, ctx)
    social_history(b, ctx)
    _discharge_plan(b, ctx)
    signature(b, ctx, ctx.attending, discharge)


def _discharge_header(b: NoteBuilder, ctx: NoteContext, admit, discharge) -> None:
    pt, p, rng = ctx.patient, ctx.patient.person, ctx.rng
    b.line("{hosp}", hosp=Phi(pt.hospital.name, "HOSPITAL", "full"))
    ctx.hospital_address(b)
    b.text("\n\nDISCHARGE SUMMARY\n\n")
    b.line("Patient: {name}    MRN: {mrn}", name=ctx.patient_name(("upper_last_first", "last_first", "full")), mrn=pt.mrn)
    b.line("DOB: {dob}    Age: {age}    Sex: {sex}", dob=ctx.date(pt.dob), age=V.header_age(ctx.age, rng), sex=p.sex)
    if ctx.chance(0.7):
        b.line("Account #: {acct}", acct=pt.account)
    b.line("Admission Date: {a}    Discharge Date: {d}", a=ctx.date(admit), d=ctx.date(discharge))
    room_intro, room = V.room_phi(rng)
    b.line("Attending: {att}    Unit: {dept}, {ri} {room}", att=ctx.doctor(ctx.attending, ("full", "last_first")),
           dept=Phi(pt.department, "DEPARTMENT", "unit"), ri=room_intro, room=room)
    b.line("Primary care: {pcp}, {tel}", pcp=ctx.doctor(pt.pcp), tel=V.phone_phi(rng))
    b.text("\n")


def _discharge_history(b: NoteBuilder, ctx: NoteContext, admit) -> None:
    pt, p, rng, sc = ctx.patient, ctx.patient.person, ctx.rng, ctx.scenario
    b.line("HISTORY OF PRESENT ILLNESS:")
    b.fill("{who} is a {age} {man} with {hx} who presented to the {hosp} Emergency Department {when} with {cc}. ",
           who=ctx.mr_last() if ctx.chance(0.6) else ctx.patient_name(("full", "first")),
           age=V.age_piece(ctx.age, rng, ("year_old",)), man=p.man, hx=", ".join(sc.history[:3]),
           hosp=Phi(pt.hospital.short, "HOSPITAL", "short"), when=ctx.when(admit), cc=sc.complaint)
    prior = ctx.before(60, 900)
    b.fill("{He} was last seen by {dr} at {other} {when}. ", He=p.he.capitalize(),
           dr=ctx.doctor(ctx.consultant, ("initial_last", "full", "last")),
           other=Phi(ctx.other_hospital.name, "HOSPITAL", "full"), when=ctx.when(prior))
    if ctx.chance(0.5):
        past = ctx.before(200, 2500)
        b.fill("Last colonoscopy {m_yy} was unremarkable. ", m_yy=Piece(V.date_phi(past, "m_yy")))
    b.text("\n\n")

    b.line("PAST MEDICAL HISTORY:")
    for item in sc.history:
        b.line("- {item}", item=item)
    b.text("\n")
    b.line("PHYSICAL EXAMINATION ON ADMISSION:")
    b.line("{exam}.", exam=sc.exam)
    b.text("\n")


def _discharge_course(b: NoteBuilder, ctx: NoteContext, admit) -> None:
    pt, p, rng = ctx.patient, ctx.patient.person, ctx.rng
    b.line("HOSPITAL COURSE:")
    course = ctx.course()
    for i, sentence in enumerate(course):
        if i == 1 and ctx.chance(0.7):
            day = V.shift(admit, rng.randint(1, 3))
            b.fill("{When}, ", When=ctx.pick((Piece("On ", ctx.date(day, ("mon_day_ord", "md_slash", "mdy_slash"))),
                                             Piece("On the ", V.date_phi(day, "day_ord_of_month")))))
            if sentence[1:2].islower():  # "The ..." -> "the ...", but "MRI ..." stays
                sentence = sentence[0].lower() + sentence[1:]
        b.text(sentence + " ")
    if ctx.chance(0.35):
        b.fill("Pacemaker interrogation (device serial {sn}) showed normal function. ", sn=pt.device)
    if ctx.chance(0.3):
        intro, idn = V.idnum_phi(rng)
        b.fill("Pathology ({intro} {idn}) is pending. ", intro=intro, idn=idn)
    if ctx.chance(0.2):
        b.fill("{He} consented to the research biobank (sample ID {bio}). ", He=p.he.capitalize(), bio=pt.bioid)
    if ctx.chance(0.3):
        b.fill("Case discussed with {dr} of {dept}. ", dr=ctx.doctor(ctx.resident),
               dept=Phi(ctx.pick(ctx.pools.departments), "DEPARTMENT", "unit"))
    b.text("\n\n")


def _discharge_plan(b: NoteBuilder, ctx: NoteContext) -> None:
    pt, rng, sc = ctx.patient, ctx.rng, ctx.scenario
    b.line("DISCHARGE MEDICATIONS:")
    for i, med in enumerate(sc.meds, 1):
        b.line("{i}. {med}", i=str(i), med=med)
    b.text("\n")
    b.line("DISPOSITION: home with services. Plan: {plan}.", plan=sc.plan)
    fu = ctx.after(7, 30)
    b.fill("Follow up with {dr} in {dept} {when}", dr=ctx.doctor(pt.pcp, ("full", "last")),
           dept=Phi(ctx.pick(ctx.pools.departments), "DEPARTMENT", "unit"),
           when=Piece("on ", ctx.date(fu, ("mon_day_ord", "mon_day_year", "month_day_year", "mdy_slash"))))
    b.fill("; clinic phone {tel}", tel=V.phone_phi(rng))
    if ctx.chance(0.4):
        b.fill(", fax {fax}", fax=V.phone_phi(rng, type_="FAX"))
    b.text(".\n")
    if ctx.chance(0.5):
        b.line("Insurance: {plan_id}", plan_id=pt.healthplan)
    if ctx.chance(0.15):
        intro, plate = pt.vehicle
        b.line("Parking validation issued for {intro} {plate}.", intro=intro, plate=plate)
    b.text("\n")


def progress_note(b: NoteBuilder, ctx: NoteContext) -> None:
    pt, p, rng, sc = ctx.patient, ctx.patient.person, ctx.rng, ctx.scenario
    b.line("{dept} - Progress Note", dept=Phi(pt.department, "DEPARTMENT", "unit"))
    b.line("Date: {d}   Time: {t}", d=ctx.date(ctx.note_date, ("iso", "mdy_slash", "mdy_slash_nopad")),
           t=f"{rng.randint(6, 21):02d}:{rng.choice(('00', '15', '30', '45'))}")
    room_intro, room = V.room_phi(rng)
    b.line("Pt: {name} ({mrn_intro} {mrn})   {ri} {room}", name=ctx.patient_name(("last_first", "full", "initial_last")),
           mrn_intro=ctx.pick(("MRN", "MR#", "Unit No.")), mrn=pt.mrn, ri=room_intro, room=room)
    b.text("\n")
    hd = rng.randint(2, 9)
    b.fill("S: {age} {sex} with {problem}, hospital day {hd}. ", age=V.age_piece(ctx.age, rng, ("y_o", "yo", "yo_attached")),
           sex=p.sex, problem=sc.problem, hd=str(hd))
    b.fill("Reports feeling better overnight. {rel} {name} at bedside", rel=ctx.pick(("Daughter", "Son", "Spouse")),
           name=ctx.pick((pt.child.name("first", "PATIENT"), pt.spouse.name("full", "PATIENT"))))
    if ctx.chance(0.6):
        b.fill(", can be reached at {tel}", tel=pt.cell_phone)
    b.text(".\n")
    b.line("O: {exam}.", exam=sc.exam)
    b.line("Labs notable for Na 134, K 4.1, Cr 1.3, WBC 11.2, Hgb 10.4, INR 1.2.")
    b.text("A/P: ")
    course = ctx.course()
    b.text(" ".join(course[:2]) + " ")
    if ctx.chance(0.5):
        b.fill("Started on the {d}. ", d=V.date_phi(ctx.before(1, 3), "day_ord_of_month"))
    b.fill("Discussed with {dr} ({spec}), pager #{pager}", dr=ctx.doctor(ctx.consultant, ("initial_last", "last", "full")),
           spec=ctx.consultant.specialty, pager=V.phone_phi(rng, "pager"))
    if ctx.chance(0.4):
        b.fill(" or {ext}", ext=V.phone_phi(rng, "ext"))
    b.text(". ")
    if ctx.chance(0.3):
        b.fill("Continuous telemetry streams to gateway {ip}. ", ip=V.ip_phi(rng))
    if ctx.chance(0.25):
        b.fill("Family prefers updates by email ({email}). ", email=pt.email)
    if ctx.chance(0.3):
        b.fill("Home {dev} (serial {sn}) checked. ", dev=ctx.pick(("CPAP", "insulin pump", "glucose monitor")), sn=V.device_phi(rng))
    if ctx.chance(0.15):
        intro, idn = V.idnum_phi(rng)
        b.fill("Blood cultures ({intro} {idn}) no growth to date. ", intro=intro, idn=idn)
    b.fill("Plan: {plan}. Anticipate discharge {when}.\n\n", plan=sc.plan, when=ctx.when(ctx.after(1, 4)))
    user = Phi(ctx.resident.username, "USERNAME", "username")
    b.fill("{res}, {title} / {user}\n", res=ctx.resident.person.name(ctx.pick(("full", "initial_last")), "DOCTOR"),
           title=ctx.pick(("PGY-2", "PGY-1", "intern", "resident")), user=user)
    if ctx.chance(0.5):
        b.fill("Attending attestation: seen and examined with the team. {att}\n", att=ctx.doctor(ctx.attending))


def letter(b: NoteBuilder, ctx: NoteContext) -> None:
    pt, p, rng, sc = ctx.patient, ctx.patient.person, ctx.rng, ctx.scenario
    writer = ctx.consultant
    b.line("{hosp}", hosp=Phi(pt.hospital.name, "HOSPITAL", "full"))
    b.line("{dept}", dept=Phi(ctx.pick(ctx.pools.departments), "DEPARTMENT", "unit"))
    ctx.hospital_address(b)
    b.text("\n")
    b.fill("Tel {tel} | Fax {fax}\n", tel=V.phone_phi(rng), fax=V.phone_phi(rng, type_="FAX"))
    if ctx.chance(0.6):
        b.line("{url}", url=V.url_phi(pt.hospital.name, rng))
    b.text("\n")
    b.line("{d}", d=ctx.date(ctx.note_date, ("month_day_year", "mon_day_year", "mdy_slash")))
    b.text("\n")
    b.line("{dr}", dr=ctx.doctor(pt.pcp, ("full", "full_middle")))
    b.line("{org}", org=Phi(ctx.other_hospital.name, "HOSPITAL", "full"))
    ctx.address_block(b, _clinic_address(ctx))
    b.text("\n\n")
    b.line("Re: {name}    DOB: {dob}    MRN: {mrn}", name=ctx.patient_name(("full", "full_middle")),
           dob=ctx.date(pt.dob), mrn=pt.mrn)
    b.text("\n")
    b.line("Dear Dr. {last},", last=pt.pcp.person.name("last", "DOCTOR"))
    b.text("\n")
    b.fill("Thank you for referring {who}, a {age} {prof} from {city}, whom I saw in the {dept} clinic {when}. ",
           who=ctx.mr_last(), age=V.age_piece(ctx.age, rng, ("year_old",)),
           prof=Phi(pt.profession, "PROFESSION", "profession"), city=Phi(pt.address.city.name, "CITY", "city"),
           dept=writer.specialty.lower(), when=ctx.when(ctx.note_date))
    b.fill("As you know, {he} was recently admitted with {problem}. ", he=p.he, problem=sc.problem)
    b.text(" ".join(ctx.course()[:2]) + "\n\n")
    b.fill("On examination today: {exam}.\n\n", exam=sc.exam)
    b.fill("I have recommended the following: {plan}. ", plan=sc.plan)
    b.fill("I will see {him} again {when}", him="him" if p.sex == "M" else "her",
           when=ctx.pick((Piece("in the ", V.date_phi(ctx.after(60, 200), "season_year")),
                          Piece("on ", V.date_phi(ctx.after(20, 90), "mon_day_ord")),
                          Piece("in ", V.date_phi(ctx.after(30, 120), "month_year")))))
    b.text(". ")
    if ctx.chance(0.4):
        b.fill("{He} may return to work at {org} when cleared. ", He=p.he.capitalize(),
               org=Phi(pt.employer, "ORGANIZATION", "employer"))
    if ctx.chance(0.2):
        intro, plate = pt.vehicle
        b.fill("{He} should not drive (vehicle {intro} {plate}) until reviewed. ", He=p.he.capitalize(),
               intro=intro, plate=plate)
    b.text("Please do not hesitate to contact me with any questions.\n\n")
    b.text("Sincerely,\n\n")
    b.line("{dr}", dr=ctx.doctor(writer, ("full", "full_middle")))
    b.line("{spec}, {hosp}", spec=writer.specialty, hosp=Phi(pt.hospital.short, "HOSPITAL", "short"))
    if ctx.chance(0.6):
        b.line("{intro} {lic}", intro=writer.license_intro, lic=writer.license)
    b.line("Email: {email}", email=V.email_phi(writer.person.first, writer.person.last, rng))
    b.fill("cc: {pt}", pt=ctx.patient_name(("full",)))
    if ctx.chance(0.5):
        b.text(", ")
        ctx.address_block(b, pt.address, sep=", ")
    b.text("\n")


def _clinic_address(ctx: NoteContext) -> Address:
    return make_address(ctx.rng, ctx.pools)


def referral(b: NoteBuilder, ctx: NoteContext) -> None:
    pt, p, rng, sc = ctx.patient, ctx.patient.person, ctx.rng, ctx.scenario
    ref = pt.pcp
    b.text("REFERRAL REQUEST\n\n")
    b.line("Date of referral: {d}", d=ctx.date(ctx.note_date))
    b.line("Referring provider: {dr}, {hosp}", dr=ctx.doctor(ref, ("full", "last_first")),
           hosp=Phi(ctx.other_hospital.name, "HOSPITAL", "full"))
    b.fill("Phone: {tel}", tel=V.phone_phi(rng))
    if ctx.chance(0.6):
        b.fill("   Pager: #{pg}", pg=V.phone_phi(rng, "pager"))
    if ctx.chance(0.7):
        b.fill("   Fax: {fax}", fax=V.phone_phi(rng, type_="FAX"))
    b.text("\n")
    b.line("{intro} {lic}", intro=ref.license_intro, lic=ref.license)
    b.line("Referred to: {dept}, {hosp}", dept=Phi(pt.department, "DEPARTMENT", "unit"),
           hosp=Phi(pt.hospital.name, "HOSPITAL", "full"))
    b.text("\nPATIENT\n")
    b.line("Name: {name}", name=ctx.patient_name(("last_first", "full", "upper_last_first")))
    b.line("DOB: {dob}   Age: {age}   Sex: {sex}", dob=ctx.date(pt.dob), age=V.header_age(ctx.age, rng), sex=p.sex)
    b.line("MRN: {mrn}   SSN: {ssn}", mrn=pt.mrn, ssn=pt.ssn)
    b.text("Address: ")
    ctx.address_block(b, pt.address, sep=", ")
    b.text("\n")
    b.line("Home: {home}   Cell: {cell}", home=pt.home_phone, cell=pt.cell_phone)
    if ctx.chance(0.7):
        b.line("Email: {email}", email=pt.email)
    b.line("Insurance: {plan_name} member ID {plan_id}", plan_name=ctx.pick(("Medicare", "Medicaid", "commercial plan")),
           plan_id=pt.healthplan)
    if ctx.chance(0.5):
        b.line("Emergency contact: {name} ({rel}), {tel}", name=pt.spouse.name(ctx.pick(("full", "last_first")), "PATIENT"),
               rel="spouse", tel=V.phone_phi(rng))
    if ctx.chance(0.3):
        b.line("Interpreter: needed (born in {country}; limited English)",
               country=Phi(pt.country, "COUNTRY", "country"))
    b.text("\nREASON FOR REFERRAL\n")
    b.fill("{age} {sex} with {problem}; {cc}. ", age=V.age_piece(ctx.age, rng, ("yo", "y_o", "year_old")),
           sex=p.sex, problem=sc.problem, cc=sc.complaint)
    b.fill("Symptoms began {when}. ", when=ctx.when(ctx.before(20, 400)))
    b.text("Relevant history: " + "; ".join(sc.history) + ".\n")
    if ctx.chance(0.3):
        b.fill("Outside records: imaging shared via {url} (workstation {ip}).\n",
               url=V.url_phi(ctx.other_hospital.name, rng), ip=V.ip_phi(rng))
    if ctx.chance(0.2):
        b.fill("Implanted device: serial {sn}.\n", sn=pt.device)
    if ctx.chance(0.15):
        b.fill("Genetic sample on file: {bio}.\n", bio=pt.bioid)
    if ctx.chance(0.15):
        intro, plate = pt.vehicle
        b.fill("Transport: drives own car ({intro} {plate}).\n", intro=intro, plate=plate)
    b.line("Urgency: {u}", u=ctx.pick(("routine", "within 2 weeks", "urgent")))
    b.text("\n")
    b.fill("Requested by {dr}", dr=ctx.doctor(ref, ("initial_last", "full")))
    if ctx.chance(0.5):
        b.fill(" ({user})", user=Phi(ref.username, "USERNAME", "username"))
    b.text("\n")


NOTE_KINDS: dict[str, Callable[[NoteBuilder, NoteContext], None]] = {
    "discharge_summary": discharge_summary,
    "progress_note": progress_note,
    "letter": letter,
    "referral": referral,
}
