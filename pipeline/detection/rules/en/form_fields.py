"""People and job titles named by a form's field: "Customer: Percival Ngcobo", "Account holder:
MR ALISTAIR J PENHALIGON", "Surname: OYELOWO", "Emergency contact: Kofi Quaye (husband)",
"Position: Warehouse Supervisor", "Occupation: Bus Driver".

Why: forms, exports, tickets and letters head a person's name with the role they play in the
business at hand (customer, applicant, policyholder, tenant, cardholder), not with the ward's
words :mod:`.context_names` reads ("name:", "patient:", "wife"); and they give a job in a field
of its own (i2b2 2014 counts professions). The field sits at a line's start or a sentence's, or
after a "|", a ";", a dash, a tab or two spaces, and ends with a colon; the name is one to four title-case words or initials (or
one case, in a line of one case), each a name after a strong context
(:func:`.name_words.looks_like_name`), cut at the first word that is not; a job title is up to
five words to the line's end or a comma. In a line written in one case ("CUSTOMER: PERCIVAL
NGCOBO", "surname: oyelowo") the patterns read :func:`.caseless.titled`'s view and each word
must pass as a name in a caseless line; a job after a name's comma needs a workplace that is no
ward word after its "at" ("LINES, MONITOR AT BEDSIDE" stays). Found on the invented PII texts'
"find" half (benchmarks/pii_invented.py) and its UPPER and lower copies.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case_at, titled
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word, looks_like_name, zipf
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_ROLES = (r"customer|client|applicant|visitor|guest|passenger|member|owner|seller|buyer|tenant|policy[ \t]?holder|"
          r"insured|beneficiary|subscriber|card[ \t]?holder|account[ \t]+holder|name[ \t]+on[ \t]+card|employee|"
          r"student|parent|guardian|parent/guardian|emergency[ \t]+contact|next[ \t]+of[ \t]+kin|consignee|renter|"
          r"attendee|caller|requester|reporter|donor|driver|surname|last[ \t]+name|family[ \t]+name|first[ \t]+name|"
          r"given[ \t]+names?|full[ \t]+name|middle[ \t]+name|to|from|attn|recipient|sender|payee|payer|"
          r"account[ \t]+name|cardholder[ \t]+name|holder|signed|signature|witness|assigned[ \t]+to|deliver[ \t]+to|"
          r"dictated[ \t]+by|referred[ \t]+by|ordering[ \t]+provider|prescriber|surgeon|assistant|manager|supervisor|"
          r"teacher|employer[ \t]+contact|contact[ \t]+person|submitted[ \t]+by|approved[ \t]+by|reviewer|reviewee")
_TOKEN = r"[A-ZÀ-Þ][^\W\d_]*(?:['’-][^\W\d_]+)*\.?"
_TITLES = r"(?:(?i:mr|mrs|ms|miss|mx|dr|prof|rev)\.?[ \t]+)?"
_FIELD = re.compile(rf"(?m)(?:^|[|;\t—–][ \t]*|[ \t]{{2,}}|(?<=[.!?])[ \t]+)[ \t]*(?i:{_ROLES})(?:[ \t]+(?i:name))?[ \t]*\*?[ \t]*:[ \t]*{_TITLES}"
                    rf"(?P<name>{_TOKEN}(?:,?[ \t]+{_TOKEN}){{0,3}})")
_JOB = re.compile(r"(?m)(?:^|[|;\t][ \t]*|[ \t]{2,})[ \t]*(?i:position|occupation|job[ \t]+title|role|profession|"
                  r"designation)[ \t]*:[ \t]*(?P<job>[A-Za-z][A-Za-z'-]*(?:[ \t]+(?:of[ \t]+)?[A-Za-z][A-Za-z'-]*){0,4})"
                  r"(?=[ \t]*(?:[,;|(]|$))")
# what a job field holds that is no job ("Position: supine" in a note): the last word must end as
# jobs do ("Supervisor", "Analyst", "Technician", "Chief Mate")
_NOT_JOBS = frozenset("none n/a na unknown retired unemployed student self homemaker other tbd fowler semi-fowler "
                      "sitter resident attending fellow intern registrar provider covering".split())   # a ward's roles
_JOB_ENDING = re.compile(r"(?i)(?:er|or|ist|ian|ant|ent|man|woman|person|ee|eer|ary|mate|lead|head|chef|cook|nurse|"
                         r"clerk|agent|officer|staff|midwife|nanny|pilot|director|analyst|partner|associate|"
                         r"executive|specialist|architect|coordinator)$")


# a job in prose: after "as (a)" or a name's comma, before "at"/"for"/"with"/"since" and a capital
# ("worked as a Pharmacy Technician at", "Hildegard Wainscott, Marketing Director at Pemberly Foods")
_AS_JOB = re.compile(r"(?:\bas[ \t]+(?:an?[ \t]+|the[ \t]+)?|(?<=[a-z]),[ \t]+)(?P<job>(?:[A-Z][a-z]+[ \t]+){0,3}[A-Z][a-z]+)"
                     r"[ \t]+(?:(?:at|for|with)[ \t]+[A-Z]|since[ \t]+[A-Z\d])")


# a party's role in prose, then the name ("the plaintiff Ezeudu alleges", "tenant Kieran Ó
# Súilleabháin, Flat 12", "driver Mthunzi, truck"): legal, rental and logistics text names people by
# the part they play where no colon follows (second invented PII set's find half: f_legal_06,
# f_re_22, f_log_28, f_cs_68); the ward's roles ("patient", "nurse") are context_names' business
_PROSE_ROLES = (r"plaintiff|defendant|claimant|respondent|petitioner|appellant|tenant|landlord|lessee|lessor|"
                r"driver|courier|applicant|policy[ \t]?holder|beneficiary|executor|executrix|testator|borrower|"
                r"guarantor|renter|cardholder|account[ \t]+holder|taxpayer|registrant|assistant|coach|customer|client|"
                r"caller|guest|passenger|visitor|subscriber")
_TITLE_WORDS = frozenset("deacon pastor reverend rev father fr sister brother officer deputy dr doctor mr mrs ms miss".split())
_ROLE_NAME = re.compile(rf"\b(?i:{_PROSE_ROLES})[ \t]+(?P<name>{_TOKEN}(?:[ \t]+{_TOKEN}){{0,2}})")


_CREDENTIAL = re.compile(r"(?i)(?:md|do|rn|np|pa|pa-c|pharmd|phd|msw|lcsw|dds|dmd|cna|lpn|aprn|crna|mbbs|frcp|"
                         r"m\.?d|r\.?n|esq|jr|sr|ii|iii)\.?$")


def _name_end(text: str, start: int, value: str) -> int:
    """Where the name at ``start`` ends: after its last word that may be a name (initials pass)."""
    mixed = not one_case_at(text, start)
    end, words = start, 0
    for m in re.finditer(r"[^\s,]+", value):
        w = m.group().strip(".")
        initial = len(w) == 1 and w.isalpha()
        after_comma = "," in value[:m.start()][-3:]
        if after_comma and (words != 1 or initial):
            break   # only "Bellamy, Horatio" reads on past a comma: "Blaze Vaughan, PharmD" and "Abner, M." stop
        z = zipf(w)
        if _CREDENTIAL.match(w) or (not initial and (w.lower() in FUNCTION_WORDS or (z is not None and z >= 5.0)
                                                     or not looks_like_name(w, strong=True, cased=mixed))):
            break
        words += 1
        end = start + m.end() - (1 if m.group().endswith(".") and not initial else 0)
    return end


def _caseless_job(m: re.Match, view: str) -> bool:
    """In a line in one case, a job after a comma needs a workplace after it that is no safe word."""
    if not view[m.start()] == ",":
        return True
    place = re.match(r"[ \t]+(?:at|for|with|since)[ \t]+([\w'’-]+)", view[m.end("job"):])
    return bool(place) and not is_safe_word(place.group(1))


@register(LOCALE, "form_fields", "NAME", score=0.8)
def form_fields(text: str, doc_id: str) -> list[Span]:
    """Names after a form's role fields ("Customer:", "Cardholder name:", "Surname:") and job titles
    after "Position:", "Occupation:", "Role:"; lines in one case read in title case (:func:`.caseless.titled`)."""
    out: list[Span] = []
    view = titled(text)
    for m in _FIELD.finditer(view):
        end = _name_end(text, m.start("name"), m.group("name"))
        if end > m.start("name"):
            out.append(mk(doc_id, m.start("name"), end, "PATIENT"))
    for m in _ROLE_NAME.finditer(view):
        first = m.group("name").split()[0].strip(".")
        if is_safe_word(first) or (zipf(first) or 0.0) >= 4.0 or first.lower() in _TITLE_WORDS:
            continue   # "coach Bus arrives", "driver Side airbag"; "DRIVER DEACON PRICE": a title's name is
            # the title rules' (spec_invented find f18)
        end = _name_end(text, m.start("name"), m.group("name"))
        if end > m.start("name"):
            out.append(mk(doc_id, m.start("name"), end, "PATIENT"))
    for m in _JOB.finditer(text):
        job = m.group("job")
        if job.lower() not in _NOT_JOBS and job.split()[-1].lower() not in _NOT_JOBS and _JOB_ENDING.search(job):
            out.append(mk(doc_id, *m.span("job"), "PROFESSION"))
    for m in _AS_JOB.finditer(view):
        if _JOB_ENDING.search(m.group("job")) and m.group("job").split()[-1].lower() not in _NOT_JOBS \
                and (not one_case_at(text, m.start()) or _caseless_job(m, view)):
            out.append(mk(doc_id, *m.span("job"), "PROFESSION"))
    return dedupe(out)
