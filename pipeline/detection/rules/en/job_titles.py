"""Job titles that HR, legal and business text gives beside a name or after a promotion's verb:
"promoted to Director of Operations", "the position of Senior Logistics Coordinator",
"Dervla Keohane, shift supervisor, will", "Babajide Ogunleye, Junior Data Analyst, employee no.".

Why: i2b2 2014 counts professions (PROFESSION), and the public synthetic PII sets label JOBTITLE;
:mod:`.professions` and :mod:`.form_fields` read a job after "works as", "Occupation:" or before
an employer ("Analyst at Kairos"), but letters, memos and rosters also put the title between
commas after a name, or after "promoted to", "appointed", "hired as", "the role of". The title
must end in a word that heads job titles (Analyst, Supervisor, Coordinator, Director of X, Head of
X, ...; :data:`_HEADS`), with up to three words before it, all in title case or all in lower case;
after a name's comma, bracket or a record's "|" it must be closed by a comma, a bracket, a "|" or
a line's end, and the word before must be a capitalised word (a name: "Rasmus (Senior Backend
Developer, 31)", "Vidar Skjelbred | EMP-77104 | Forklift Operator" does not pass: an ID stands before), so ward lists ("BP stable, nurse aware") stay.
Lines written in one case are left alone (any comma phrase would do there). Found on the second
invented PII set's find half (benchmarks/pii_invented.py --set b: f_hr_memo_03, f_hr_disc_04, f_hr_38, f_hr_80).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case_at
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_HEADS = ("analyst|engineer|manager|director|supervisor|coordinator|officer|researcher|accountant|hygienist|"
          "consultant|administrator|technician|designer|developer|specialist|planner|executive|architect|"
          "scientist|advisor|adviser|representative|secretary|controller|auditor|recruiter|strategist|"
          "paralegal|attorney|solicitor|surveyor|inspector|programmer|receptionist|librarian|cashier|"
          "operator|underwriter|actuary|economist|editor|journalist|producer|foreman|dispatcher|buyer|"
          "head|chief|vp|vice[ \\t]+president|president|lead|associate|assistant|intern|clerk|teacher|lecturer")
_OF = r"(?:[ \t]+(?:of|for)[ \t]+(?:the[ \t]+)?[A-Z][a-z]+(?:[ \t]+(?:and|&)[ \t]+[A-Z][a-z]+)?)?"
_TITLE_JOB = rf"(?:[A-Z][A-Za-z]+[ \t]+){{0,3}}(?=[A-Z])(?i:{_HEADS})\b{_OF}"
_LOWER_JOB = rf"(?:[a-z]+[ \t]+){{0,2}}(?=[a-z])(?:{_HEADS})\b"
_JOB = rf"(?P<job>{_TITLE_JOB}|{_LOWER_JOB})"
_PROMOTED = re.compile(rf"\b(?i:promoted[ \t]+to|appointed(?:[ \t]+as)?|hired[ \t]+as|position[ \t]+of|"
                       rf"role[ \t]+of|post[ \t]+of|title[ \t]+of|join(?:s|ed|ing)?[ \t]+us[ \t]+as)[ \t]+"
                       rf"(?:(?i:the|an?)[ \t]+)?{_JOB}")
_AFTER_NAME = re.compile(rf"(?<=[a-z])(?:,|[ \t]*[(|])[ \t]*{_JOB}(?=[ \t]*(?:[,()|]|\n|$))")
_NOT_TITLE = frozenset("the a an and or of for to in on at with our your his her their new".split())
# a ward's roles are the care team's, not a patient's calling ("Smith, case manager, re dispo")
_WARD_ROLES = frozenset("case nurse nursing charge social unit ward floor clinical attending resident respiratory "
                        "physical occupational care medical house night day shift-lead pharmacy".split())


def _title_ok(job: str) -> bool:
    words = job.lower().split()
    return words[0] not in _NOT_TITLE and not any(w in _WARD_ROLES for w in words)


def _after_a_name(text: str, comma: int) -> bool:
    """The word before the comma or bracket is capitalised (a name's last word, "Keohane", "Ogunleye")."""
    m = re.search(r"([^\W\d_][\w'-]*)[ \t]*$", text[max(0, comma - 40):comma])
    return bool(m) and m.group(1)[0].isupper()


@register(LOCALE, "job_titles", "PROFESSION", score=0.78)
def job_titles(text: str, doc_id: str) -> list[Span]:
    """Job titles after a promotion's or a role's words, and between commas after a name."""
    out: list[Span] = []
    for m in _PROMOTED.finditer(text):
        if _title_ok(m.group("job")) and not one_case_at(text, m.start("job")):
            out.append(mk(doc_id, *m.span("job"), "PROFESSION"))
    for m in _AFTER_NAME.finditer(text):
        if "," not in m.group()[:2] and not m.group("job")[0].isupper():
            continue   # after a bracket or a "|", a title in capitals only ("Pt (ventilator operator)" stays)
        if _title_ok(m.group("job")) and _after_a_name(text, m.start()) and not one_case_at(text, m.start("job")):
            out.append(mk(doc_id, *m.span("job"), "PROFESSION"))
    return dedupe(out)
