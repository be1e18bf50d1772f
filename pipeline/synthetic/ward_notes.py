"""The kinds of note a ward writes, one function each; the two families are split into parts.

Nursing notes (systems, data/action/response, brief, event, admission), the other kinds a
hospital keeps on an ICU patient (discharge summary, radiology report, ED triage, respiratory
therapy) and a few social work and case management notes. Each writes short lines of clinical text from the phrase pools and puts PHI only where
such notes carry it: a header date, a relative or a doctor in the social and event lines, a
sign-off, an outside hospital.
"""
from __future__ import annotations

import random
from typing import Callable

from pipeline.synthetic import values as V
from pipeline.synthetic.builder import NoteBuilder, Piece
from pipeline.synthetic.partition import part_of
from pipeline.synthetic.ward_context import WardContext

UNITS = ("MICU", "SICU", "CCU", "CSRU", "TSICU", "Neuro ICU", "MICU/SICU", "CVICU")
SHIFTS = ("7a-7p", "7p-7a", "0700-1900", "1900-0700", "7a-3p", "3p-11p", "11p-7a", "days", "nights")
HEADERS = {
    "neuro": ("NEURO", "Neuro", "neuro", "N"), "cv": ("CV", "C/V", "Cardiac", "CARDIAC", "cv"),
    "resp": ("RESP", "Resp", "Pulm", "PULM", "resp"), "gi": ("GI", "GI/Nutrition", "gi"),
    "gu": ("GU", "Renal", "GU/Renal", "gu"), "id": ("ID", "Id", "ID/Temp"), "skin": ("SKIN", "Skin", "Integ"),
    "endo": ("ENDO", "Endo"), "heme": ("HEME", "Heme"), "lines": ("ACCESS", "Lines", "LINES"),
    "social": ("SOCIAL", "Social", "Soc", "FAMILY", "Dispo/Family"), "plan": ("PLAN", "Plan", "A/P", "P"),
}
FOCI = ("Resp distress", "Hypotension", "Alteration in comfort", "Sepsis", "Knowledge deficit", "Safety")
SYSTEMS = ("neuro", "cv", "resp", "gi", "gu", "id", "skin", "endo", "heme", "lines")


def _header(b: NoteBuilder, w: WardContext) -> None:
    """The first line of a nursing note; now and then it carries the date."""
    style = w.rng.randint(0, 5)
    if style == 0:
        return
    unit, shift = w.pick(UNITS), w.pick(SHIFTS)
    words = (f"NPN {shift}", f"Nursing Progress Note {shift}", f"{unit} NSG PROGRESS NOTE", f"{unit} Nursing Note",
             f"Nursing note {shift}")[style - 1]
    if w.chance(0.35):
        b.fill("{words} {d}\n", words=words, d=w.date(w.note_date))
    else:
        b.text(words + "\n")


def _sign(b: NoteBuilder, w: WardContext, p: float = 0.75, creds: tuple[str, ...] | None = None) -> None:
    if w.chance(p):
        w.write(b, w.sign(creds=creds) if creds else w.sign())
        b.text("\n")


def _systems(b: NoteBuilder, w: WardContext, stacked: bool) -> None:
    _header(b, w)
    colon = w.pick((": ", ": ", "- ", ":", " - "))
    shown = [s for s in SYSTEMS if w.chance(0.9 if s in SYSTEMS[:6] else 0.35)]
    if w.chance(0.5):
        w.say(b, "vitals")
        b.text("\n")
    bullet = w.pick(("", "- ", "  ", "* "))
    soap = w.chance(0.15)   # "O- Neuro: ..." ... "P- ...": a SOAP note written by systems
    for i, s in enumerate(shown + ["social", "plan"]):
        if s == "social" and not w.chance(0.7):
            continue
        if soap and (i == 0 or s == "plan"):
            b.text("O- " if i == 0 else "A/P- ")
        b.text(w.pick(HEADERS[s]) + (colon.rstrip() + "\n" + bullet if stacked else colon))
        w.say(b, s, w.rng.randint(1, 3), sep="\n" + bullet if stacked else w.pick((" ", " ", "\n")))
        b.text("\n")
    _sign(b, w)


def nursing_systems(b: NoteBuilder, w: WardContext) -> None:
    """"NEURO: ... CV: ..." each system on a line (or a few short lines)."""
    _systems(b, w, stacked=False)


def nursing_systems_stacked(b: NoteBuilder, w: WardContext) -> None:
    """"Neuro:" alone on a line, then one short finding a line (bullets or indents)."""
    _systems(b, w, stacked=True)


def nursing_dar(b: NoteBuilder, w: WardContext) -> None:
    """Focus charting: a focus, then data, action and response."""
    _header(b, w)
    b.text(f"Focus: {w.pick(FOCI)}\n")
    for label, secs in (("D", ("neuro", "cv", "resp")), ("A", ("gi", "gu", "id", "events")), ("R", ("plan", "brief"))):
        b.text(f"{w.pick((label, label.lower()))}{w.pick((': ', ') ', '- '))}")
        w.say(b, w.pick(secs), w.rng.randint(1, 3))
        if label == "A" and w.chance(0.4):
            b.text(" ")
            w.say(b, "social")
        b.text("\n")
    _sign(b, w)


def nursing_brief(b: NoteBuilder, w: WardContext) -> None:
    """A few short lines: what a busy night nurse writes."""
    if w.chance(0.4):
        _header(b, w)
    for s in w.rng.sample(("brief", "brief", "neuro", "cv", "resp", "gi", "gu", "vitals", "plan"), w.rng.randint(3, 6)):
        w.say(b, s)
        b.text("\n")
    if w.chance(0.3):
        w.say(b, "social")
        b.text("\n")
    _sign(b, w, 0.6)


def nursing_event(b: NoteBuilder, w: WardContext) -> None:
    """An event note: what happened, who was called, what was done."""
    b.text(w.pick(("Event note", "EVENT NOTE", "Nursing event note", "Addendum", "Nursing addendum")))
    b.text(w.pick((": ", "\n")))
    w.say(b, "events", w.rng.randint(1, 2))
    b.text("\n")
    w.say(b, w.pick(("cv", "resp", "neuro")), w.rng.randint(1, 2))
    b.text("\n")
    if w.chance(0.5):
        w.say(b, "plan")
        b.text("\n")
    _sign(b, w, 0.85)


def nursing_admit(b: NoteBuilder, w: WardContext) -> None:
    """An admission note: the story, history, allergies, then the systems in short."""
    b.text(w.pick(("Admission note", "ADMIT NOTE", "Nursing admission note", "Pt admitted to unit")) + ": ")
    w.say(b, "admit_hpi")
    b.text("\nPMH: ")
    w.say(b, "pmh", w.rng.randint(2, 6), sep=w.pick((", ", "; ", "\n")))
    b.text(f"\nAll: {w.pick(('NKDA', 'PCN', 'sulfa', 'NKA', 'codeine (rash)'))}\n")
    for s in w.rng.sample(SYSTEMS[:6], 4):
        b.text(w.pick(HEADERS[s]) + ": ")
        w.say(b, s)
        b.text("\n")
    b.text(w.pick(HEADERS["social"]) + ": ")
    w.say(b, "social", w.rng.randint(1, 2))
    b.text("\n")
    _sign(b, w, 0.8)


def discharge_summary(b: NoteBuilder, w: WardContext) -> None:
    b.fill("Admission Date: {a}    Discharge Date: {d}\n", a=w.date(w.note_date),
           d=w.date(V.shift(w.note_date, w.rng.randint(2, 20))))
    if w.chance(0.5):
        b.fill("Date of Birth: {dob}    Sex: {sex}\n", dob=w.date(w.patient.dob, with_year=True), sex=w.patient.person.sex)
    b.text(f"Service: {w.pick(('MEDICINE', 'MICU', 'CARDIOLOGY', 'SURGERY', 'NEUROLOGY'))}\n\n")
    b.text(f"Chief Complaint: {w.pick(('SOB', 'chest pain', 'hypotension', 'GI bleed', 'altered mental status'))}\n\n")
    b.text("HPI: ")
    w.say(b, "admit_hpi")
    b.text(" ")
    w.say(b, "ed_hpi")
    b.text("\n\nPast Medical History:\n")
    w.say(b, "pmh", w.rng.randint(3, 7), sep="\n")
    b.text("\n\nBrief Hospital Course:\n")
    w.say(b, "dc_course", w.rng.randint(3, 6), sep="\n")
    b.text("\n\nDischarge Medications:\n")
    w.say(b, "meds", w.rng.randint(3, 8), sep="\n")
    b.text("\n\nDisposition: ")
    w.say(b, "dc_dispo")
    b.text("\n\nFollowup: ")
    w.say(b, "dc_followup", w.rng.randint(1, 2), sep="\n")
    b.text("\n\n")
    w.write(b, Piece(w.pick(("Dictated By: ", "Electronically signed by ", "")), w.doctor(), w.pick((", MD", " MD", ""))))
    b.text("\n")


def radiology_report(b: NoteBuilder, w: WardContext) -> None:
    b.fill("{d} {exam}\n", d=w.date(w.note_date), exam=w.pick(w.phrases["rad_exam"]))
    b.text(f"Reason: {w.pick(w.phrases['rad_reason'])}\n")
    if w.chance(0.4):
        b.fill("Admitting Dx: {dx}\n", dx=w.pick(("SEPSIS", "PNEUMONIA", "GI BLEED", "CHF", "S/P FALL")))
    b.text(w.pick(("FINDINGS: ", "Findings:\n", "REPORT: ")))
    w.say(b, "rad_findings", w.rng.randint(2, 4), sep=w.pick((" ", "\n")))
    b.text("\n")
    if w.chance(0.6):
        w.say(b, "rad_comm")
        b.text("\n")
    b.text("IMPRESSION: ")
    w.say(b, "rad_impression")
    b.text("\n")


def ed_triage(b: NoteBuilder, w: WardContext) -> None:
    b.text(w.pick(("ED TRIAGE NOTE", "Triage", "ED Triage Assessment")) + "\n")
    b.text("CC: ")
    w.say(b, "ed_cc")
    b.text("\n")
    w.say(b, "ed_hpi", w.rng.randint(1, 3), sep="\n")
    b.text("\n")
    w.say(b, "vitals")
    b.text("\nPMH: ")
    w.say(b, "pmh", w.rng.randint(1, 4), sep=", ")
    b.text(f"\nAllergies: {w.pick(('NKDA', 'PCN', 'sulfa', 'none known'))}\n")
    w.say(b, "ed_plan", w.rng.randint(1, 3), sep="\n")
    b.text("\n")
    _sign(b, w, 0.7)


def rt_note(b: NoteBuilder, w: WardContext) -> None:
    b.text(w.pick(("Respiratory Care", "RESP CARE NOTE", "RT note", "Resp care")) + ": ")
    w.say(b, "rt", w.rng.randint(2, 4), sep=w.pick((" ", "\n")))
    b.text("\n")
    if w.chance(0.3):
        w.say(b, "resp")
        b.text("\n")
    _sign(b, w, 0.7)


def social_work(b: NoteBuilder, w: WardContext) -> None:
    """A social work note: who the patient is (home, work, congregation), family, assessment, plan."""
    b.text(w.pick(("Social Work Note", "SOCIAL WORK NOTE", "SW Progress Note", "Social Work Assessment", "SW note",
                   "MICU Social Work")) + w.pick(("\n", ": ")))
    w.say(b, "sw_info", w.rng.randint(1, 4), sep=w.pick((" ", "\n")))
    b.text("\n")
    if w.chance(0.7):
        b.text(w.pick(("Family: ", "FAMILY: ", "Supports: ", "")))
        w.say(b, "sw_family", w.rng.randint(1, 2))
        b.text("\n")
    b.text(w.pick(("Assessment: ", "A: ", "ASSESSMENT: ", "Impression: ")))
    w.say(b, "sw_assess", w.rng.randint(1, 2))
    b.text("\n" + w.pick(("Plan: ", "P: ", "PLAN: ", "Plan:\n")))
    w.say(b, "sw_plan", w.rng.randint(1, 3), sep=w.pick((" ", "\n")))
    b.text("\n")
    _sign(b, w, 0.85, creds=("LICSW", "MSW", "LSW", "LCSW", "MSW, LSW"))


def case_management(b: NoteBuilder, w: WardContext) -> None:
    """A case management / discharge planning note: where the patient came from and may go."""
    b.text(w.pick(("Case Management Note", "CM NOTE", "Discharge Planning", "CASE MGMT", "RN CM note",
                   "Care Coordination")) + w.pick(("\n", ": ")))
    w.say(b, "cm", w.rng.randint(2, 5), sep=w.pick((" ", "\n")))
    b.text("\n")
    if w.chance(0.6):
        b.text(w.pick(("Plan: ", "Dispo: ", "D/C plan: ", "DCP: ")))
        w.say(b, "cm_plan", w.rng.randint(1, 2))
        b.text("\n")
    _sign(b, w, 0.8, creds=("RN CM", "RN, CM", "CCM", "RN", "LSW"))


SYSTEMS_KINDS: dict[str, Callable[[NoteBuilder, WardContext], None]] = {
    "nursing_systems": nursing_systems, "nursing_systems_stacked": nursing_systems_stacked,
}
NURSING_KINDS: dict[str, Callable[[NoteBuilder, WardContext], None]] = {
    "nursing_dar": nursing_dar, "nursing_brief": nursing_brief, "nursing_event": nursing_event,
    "nursing_admit": nursing_admit,
}
OTHER_KINDS: dict[str, Callable[[NoteBuilder, WardContext], None]] = {
    "discharge_summary": discharge_summary, "radiology_report": radiology_report, "ed_triage": ed_triage,
    "rt_note": rt_note,
}
SOCIAL_KINDS: dict[str, Callable[[NoteBuilder, WardContext], None]] = {
    "social_work": social_work, "case_management": case_management,
}
FAMILIES = {"systems": SYSTEMS_KINDS, "nursing": NURSING_KINDS, "other": OTHER_KINDS, "social": SOCIAL_KINDS}
# an ICU chart is mostly nursing; a few social work and case management notes name where the patient
# lives, works, worships and goes next
FAMILY_WEIGHTS = {"systems": 0.34, "nursing": 0.38, "other": 0.22, "social": 0.06}
WARD_KINDS = {**SYSTEMS_KINDS, **NURSING_KINDS, **OTHER_KINDS, **SOCIAL_KINDS}


def ward_kinds(part: str = "all", split_seed: int = 0) -> dict[str, Callable[[NoteBuilder, WardContext], None]]:
    """The note kinds of ``part``: each family split on its own, so each part has every family."""
    out: dict = {}
    for fam, kinds in FAMILIES.items():
        out.update({k: kinds[k] for k in part_of(f"ward_kinds:{fam}", tuple(kinds), part, split_seed)})
    return out


def choose_kind(rng: random.Random, kinds: dict) -> str:
    """A family by its weight, then one of its kinds in ``kinds``."""
    fams = [f for f, ks in FAMILIES.items() if any(k in kinds for k in ks)]
    fam = rng.choices(fams, [FAMILY_WEIGHTS[f] for f in fams])[0]
    return rng.choice([k for k in FAMILIES[fam] if k in kinds])


__all__ = ["ward_kinds", "choose_kind", "WARD_KINDS", "SYSTEMS_KINDS", "NURSING_KINDS", "OTHER_KINDS", "SOCIAL_KINDS",
           "FAMILIES"]
