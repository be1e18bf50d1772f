"""Identifiers and logins named in a sentence rather than a field: "her passport number is
533380006", "Customer ID 558203917", "(badge 40718)", "driver's license is D1234-56789-01234",
"username: lily_chen92", "van reg KM68 PXT", "IMEI 490154203237518", "frequent flyer no. TP 448 2210 93".

Why a rule beside :func:`.contact.record_numbers`: that one reads a form's field ("MRN: 123", "Acct
#: 55") and needs the label right before the value; letters, e-mails, call notes and the free text
of forms say "is" between them, or leave the punctuation out. The labels here are only those
that never head a clinical section (no bare "ID", "Record", "Chart"); a value named as one ("number",
"#", "is", ":") needs four digits, a value right after the label five digits or letters with four,
never a year (a login: a letter and three characters), so "license is pending", "badge 3",
"insurance 2000" or "member since 2019" stay. "bank", "frequent flyer", "loyalty", "membership",
"applicant", "IMEI" and "serial number" were added on the second invented PII set's find half
(f_chat_29, f_travel_19, f_edu_25, f_it_12).
"""
from __future__ import annotations

import re

from pipeline.detection.dictionary_lower import lower_line
from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, zipf
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_LABELS: list[tuple[str, str]] = [
    (r"passport", "IDNUM"),
    (r"driver'?s[ \t]+licen[cs]e|driving[ \t]+licen[cs]e|licen[cs]e", "LICENSE"),
    (r"(?:bank[ \t]+|checking[ \t]+|savings[ \t]+)?account|acct|iban|routing|card|credit[ \t]+card|debit[ \t]+card|"
     r"(?:my[ \t]+)?bank|frequent[ \t]+flyer|loyalty|membership|loan|mortgage", "ACCOUNT"),
    (r"imei|meid|device[ \t]+serial|serial[ \t]+(?:number|no\.?)", "DEVICE"),
    (r"member|policy|insurance|subscriber|medicare|medicaid", "HEALTHPLAN"),
    (r"customer|client|employee|staff|badge|tax|national|student|applicant|voter|case|claim|ticket|order|booking|"
     r"reservation|tracking|confirmation|"
     # a jail's number for its inmate ("24 YO M INMATE, 207731": ed_invented find f15)
     r"inmate|prisoner|offender|doc|jail|"
     # a clinical trial's subject ("Enrolled. Study ID PANC-3317-0042": spec_invented find f16)
     r"study|trial|subject|participant|enrollment|enrolment|"
     # an ambulance run's number ("INCIDENT #: 03-118842", "Run#: 09-31275": ed_invented find f19, f30)
     r"incident|run|pcr|"
     # an organ donor's number ("UNOS donor ID BAH2231", "Donor UNOS ID CCL0946": icu_invented_p find f378, f382)
     r"donor|unos|opo|"
     # a court's number for a guardianship ("petition is 7/9 (docket # MI08P2214GD": icu_invented_p find f768)
     r"docket", "IDNUM"),
    (r"social[ \t]+security|ssn", "SSN"),
]
# the label, then what names the value ("number", "no.", "#", "ID", "is", ":"): the value needs four
# digits; or the label and the value alone ("badge 40718"): five digits, or letters with the digits
_NAMED = (r"(?:(?:[ \t]+(?:number|num|no\.?|#|id|code|ref|reference))[ \t]*(?:(?:is|was|reads|=)[ \t]+|[:#][ \t]*|[ \t]*)"
          r"|[ \t]*(?:(?:is|was|reads|=)[ \t]+|#[ \t]*:?[ \t]*|:[ \t]*))(?:#[ \t]*)?")   # "Run#: 09-31275"
_GROUPS = r"(?:(?-i:[A-Z]{2,3})[ ])?\d{3,6}(?:[ ]\d{2,6}){1,4}(?![ ]?\d)"      # "0047 1123 9981", "TP 448 2210 93"
_CODE = r"[A-Za-z]{0,6}-?\d[\dA-Za-z]*(?:[-/][\dA-Za-z]+)*"   # "MENSA705304AB9CD": a UK licence's five letters
# nor the first number of a setting or a ratio ("PSV trial 1400 10/5": a time, then pressure support
# over PEEP; icu_invented_s find f16)
_END = r"(?![\w/-])(?![.,]\d)"
_ID_RES = [(re.compile(rf"(?i)(?<![\w-])(?:{label})(?:{_NAMED}(?P<id>(?=(?:[^\s\d]*\d){{4}}|(?-i:[A-Z]{{2,3}})[ ](?:\d[ ]?){{6}}){_GROUPS}|{_CODE}){_END}"
                       rf"|,?[ \t]+(?P<bare>{_GROUPS}|(?=[\dA-Za-z-]*[A-Za-z])(?=(?:[^\s\d]*\d){{4}}){_CODE}|\d{{5,}}){_END})"), gtype)
           for label, gtype in _LABELS]
# an interpreter's number after their name, "ID" before it ("INTERPRETER FERNANDA MOTTA (ID 4471)":
# icu_invented_p find f163): three digits or more, on the interpreter's line
# ("interpreter for ID 2000 consult": a clock time after the infectious-disease team stays, unless a
# bracket or a number's sign holds it)
# (or a number's sign in brackets alone: "CANTONESE INTERPRETER ALBERT CHU (#3319)": icu_invented_p find f444)
# (and a number's sign after the name, "interp" short, or "id" inside the bracket the name opened: "interp
# Joaquim #3318", "staff interpreter (rosario, #118)", "interpreter marie-claude (in person, id 2207)":
# icu_invented_p find f737, f748, f738)
_INTERPRETER_ID = re.compile(r"(?i)\binterp(?:reter)?\b[^\n]{0,40}?(?:(?<![\w])(?P<open>\(?)id[ \t]*(?P<sign>#|no\.?|number)?[ \t]*:?[ \t]*|"
                             r"(?:\(|(?<![\w#]))(?P<hash>#)[ \t]*)(?P<id>\d{3,8})(?![\w/-]|\.\d)")
# a room's or a bed's number is no interpreter's ("interp paged, pt in rm #512")
_ROOM_SIGN = re.compile(r"(?i)\b(?:rm|room|bed|bay|unit|ext)[ \t]*$")


def _in_open_bracket(m: re.Match) -> bool:
    """Whether a bracket opened after the interpreter's word is still open where the number starts."""
    before = m.string[m.start():m.start("id")]
    return before.rfind("(") > before.rfind(")")


# a year is no identifier ("claim 2019", "policy is 2024")
_YEAR = re.compile(r"(?:19|20)\d\d")
# a login after its label: a letter and three characters or more, no spaces ("lily_chen92", "j.doe")
_USER = re.compile(r"(?i)(?<![\w-])(?:user[ \t]?name|user[ \t]?id|login|log-in|handle|screen[ \t]+name|"
                   r"user(?=[ \t]+[A-Za-z][\w-]*[._\d]))"
                   r"(?:[ \t]+(?:is|was)[ \t]+|[ \t]*[:=][ \t]*|[ \t]+)@?"
                   r"(?P<user>(?=[\w.-]*[A-Za-z])[A-Za-z0-9][\w.-]{2,31})(?<![.-])(?![\w@-])")
# a transcriptionist's login after a dictation's "transcribed" ("dictated 1623, transcribed rmedina2":
# rad_invented find f01): letters, then the digits that make a login of a name
_TRANSCRIBER = re.compile(r"(?i)(?<![\w-])(?:transcribed|transcriptionist|typed)(?:[ \t]+by)?[ \t]*:?[ \t]*"
                          r"(?P<user>[A-Za-z][A-Za-z._]{1,15}\d{1,4})(?![\w@-])")
# a dose written with its unit is no identifier ("order reads 400mg": spec_invented find f46)
_DOSE = re.compile(r"(?i)\d+(?:\.\d+)?(?:mg|mcg|ml|g|kg|units?|u|meq|mmol)")
# a measurement after the value is no identifier ("card 2000 units", "policy 1000 mg")
_UNIT_AFTER = re.compile(r"(?i)[ \t]*(?:units?|mg|mcg|ml|cc|kg|lbs?|%|mmhg|bpm)\b")
# words a login never is ("username is required", "login is pending")
_NOT_A_LOGIN = frozenset("required pending unknown invalid incorrect forgotten locked expired none same below above "
                         "attempts attempt failed page screen".split())


# a vehicle's registration after its word ("van reg KM68 PXT", "plate CBLR 229", "vehicle YD21 OPR"):
# capitals and digits only, a British plate's two groups, or one group with a letter and a digit
_VEHICLE_WORD = r"vehicle|van|car|truck|lorry|taxi"
_PLATE = re.compile(rf"(?<![\w-])(?i:(?:(?:{_VEHICLE_WORD})[ \t]+)?(?:(?:licen[cs]e|number)[ \t]+)?"
                    rf"(?:reg(?:istration)?|plates?)\b\.?(?:[ \t]+(?:no\b\.?|number\b|mark\b))?|(?:{_VEHICLE_WORD})\b)"
                    r"[ \t]*(?:[:#(][ \t]*|is[ \t]+)?"
                    r"(?P<plate>[A-Z]{2}\d{2}[ ]?[A-Z]{3}|[A-Z]{1,4}[ -]\d{2,4}(?:-\d{2,4})?|"
                    r"(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z\d]{3,4}[ ]\d{2,4}|(?=[A-Z\d-]*\d)(?=[A-Z\d-]*[A-Z])"
                    r"[A-Z\d]{2,4}-?[A-Z\d]{2,5}|(?P<lower>[a-z]{2}\d{2} [a-z]{3}))(?![\w-])")


# a phone's IMEI after its label, digits in groups ("IMEI 01-324500-822917-4"), and a vehicle's VIN
# after its word that its check digit need not prove ("vehicle JTDKB20U793456781"; checked_ids marks
# the valid ones anywhere): second invented PII set's find half (f_it_43, f_ins_56)
_IMEI = re.compile(r"(?i)\b(?:imei|meid)[ \t]*(?:(?:no\.?|number|#)[ \t]*)?[:#]?[ \t]*"
                   r"(?P<id>\d{2}(?:[ -]?\d){12,15})(?![\w-])")
_VIN = re.compile(r"(?i)\b(?:vin|vehicle|chassis(?:[ \t]+(?:no\.?|number))?)[ \t]*[:#]?[ \t]*"
                  r"(?P<id>(?=(?:[A-Z]*\d){5})(?=(?:\d*[A-Z]){3})(?-i:[A-HJ-NPR-Z0-9]{17}))(?![\w-])")


def device_and_vin(text: str, doc_id: str) -> list[Span]:
    """IMEIs after their label and VINs after a vehicle's word."""
    return [mk(doc_id, *m.span("id"), "DEVICE") for m in _IMEI.finditer(text)] + \
        [mk(doc_id, *m.span("id"), "VEHICLE") for m in _VIN.finditer(text)]

# a clock's or a trip's word before a number ("VAN TIME 0445 FOR 1ST SHIFT": spec_invented find f15)
_TRIP_WORD = re.compile(r"(?i)time|pickup|pick-up|ride|trip|run|route|shift|at|by|due|eta|arrives?|leaves?")


def vehicle_plates(text: str, doc_id: str) -> list[Span]:
    """A registration plate after a vehicle's or a plate's word (``VEHICLE``); in a line all in
    lower case only a British plate's two groups ("van reg km68 pxt": the other shapes need their
    capitals; found on the invented PII texts' find half in lower case, email_10, misc_59). A
    function word is no plate's letters: "VAN AT 10 AM" in a line of capitals (written for the
    tests)."""
    return [mk(doc_id, *m.span("plate"), "VEHICLE") for m in _PLATE.finditer(text)
            if (not m.group("lower") or lower_line(text, m.start("plate")))
            and m.group("plate").split(" ")[0].lower() not in FUNCTION_WORDS
            and not _TRIP_WORD.fullmatch(m.group("plate").split(" ")[0])]


@register(LOCALE, "sentence_ids", "ID", score=0.88)
def sentence_ids(text: str, doc_id: str) -> list[Span]:
    """An identifier a sentence names ("passport number is 533380006", "Customer ID 558203917",
    "badge 40718") and a login after "username"/"login"/"handle"."""
    out: list[Span] = []
    for rx, gtype in _ID_RES:
        for m in rx.finditer(text):
            group = "id" if m.group("id") else "bare"
            if not (_UNIT_AFTER.match(text, m.end(group)) or _YEAR.fullmatch(m.group(group)) or _DOSE.fullmatch(m.group(group))):
                out.append(mk(doc_id, *m.span(group), gtype))
    for m in _USER.finditer(text):
        user = m.group("user")
        if user.lower() in _NOT_A_LOGIN:
            continue
        if user.isalpha() and re.fullmatch(r"(?i)(?:handle|login|log-in)[ \t]+", text[m.start():m.start("user")]) \
                and (zipf(user) or 0.0) >= 3.0:
            continue   # "company will handle paperwork": a verb and its object, no label's sign before an
            # English word (icu_invented_p find f73)
        out.append(mk(doc_id, *m.span("user"), "USERNAME"))
    out += [mk(doc_id, *m.span("user"), "USERNAME") for m in _TRANSCRIBER.finditer(text)]
    out += [mk(doc_id, *m.span("id"), "IDNUM") for m in _INTERPRETER_ID.finditer(text)
            if not (m.group("hash") and _ROOM_SIGN.search(text[max(0, m.start("hash") - 12):m.start("hash")]))
            and (m.group("open") or m.group("sign") or m.group("hash") or _in_open_bracket(m)
                 or not re.fullmatch(r"(?:[01]\d|2[0-3])[0-5]\d", m.group("id")))]
    return dedupe(out + vehicle_plates(text, doc_id) + device_and_vin(text, doc_id))
