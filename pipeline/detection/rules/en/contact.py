"""English contact details and identifiers: phone, fax and pager numbers, social security,
record, account, licence, health-plan, device and vehicle numbers after their labels, ZIP codes
and street addresses (i2b2 2014 boundaries: phones keep their punctuation, record numbers are the
value after the label)."""
from __future__ import annotations

import re
from functools import lru_cache

from pipeline.detection.rules.common import mk, spans_from, text_before, trimmed_spans
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.numbers import line_before, measure_before
from pipeline.detection.rules.en.state_codes import _state_codes, codes_not_words
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word, looks_like_place
from pipeline.detection.rules.registry import register
from pipeline.locales import load_list
from pipeline.spans import Span, dedupe

_PHONE = re.compile(
    r"(?<![\w/-])(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s./-])\d{3}(?:[\s.-]|[ \t]-[ \t])?\d{4}"
    r"(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w-])"
    r"|(?<![\w/-])\d{3}-\d{4}(?![\w-])"
    # an international number: a country code and three or four groups ("+44 20 7946 0958")
    r"|(?<![\w+])\+(?:[2-9]\d{0,2})(?:[ .-]\d{2,4}){2,4}(?![\w-])"
    # a mobile written in two long groups after its country code ("+44 7911 123456")
    r"|(?<![\w+])\+(?:[2-9]\d{0,2})[ .-]\d{3,5}[ .-]\d{5,7}(?![\w-])"
    # a one-digit area code after the country code ("+56 2 2555 1940", "+353 1 555 2840")
    r"|(?<![\w+])\+(?:[2-9]\d{1,2})[ .-]\d[ .-]\d{3,4}[ .-]\d{4}(?![\w-])")
_PH_LABEL = re.compile(r"(?i)\bph\.?[ \t]*[:#]?[ \t]*$")
_FAX_BEFORE = re.compile(r"(?i)\bfax\b\s*(?:#|no\.?|number)?\s*:?\s*$")
# (and "pg", a pager number in brackets after "paged": "w/ results, pg 4-2213", "PAGED STAT (8-0917)":
# icu_invented_p find f243, f246)
_PAGER = re.compile(r"(?i)\b(?:pager|beeper|pgr|pg|page|p|paged(?:[ \t]+(?:stat|again|x\d))?[ \t]*\()\s*(?:#\s*:?|:\s*#?)?\s*"
                    r"(?P<num>\d{4,6}|\d-\d{4}|\d{3}\.\d{4})(?![\d-]|\.\d)")   # ("pager 555.0158": icu_invented_p find f384)
# an extension written alone after a phone or a pager on the same line ("pager #22522 or x7316")
_EXTENSION = re.compile(r"(?i)(?<![\w])(?P<num>x\d{4,5})(?![\w-])")
_EXTENSION_CONTEXT = re.compile(r"(?i)\b(?:pager|beeper|pgr|phone|tel|call|ext|extension|#\d)")
# a hospital's five-digit extension written "x3-6120": its shape says it alone (icu_invented_d find f03)
_DASH_EXTENSION = re.compile(r"(?i)(?<![\w-])x[ \t]?(?P<num>\d-\d{4})(?![\w-])")
# an extension after its word ("-RN Case Mgr, ext 2213": icu_invented_n find f20)
_EXT_WORD = re.compile(r"(?i)(?<![\w])(?:ext|extension)\.?[ \t]*#?[ \t]*(?P<num>\d{3,5}|\d-\d{4})(?![\w-])")


# ten digits written without a separator ("cell 8575550149"): a phone only after a phone's label,
# or after "at" where the line says someone is called ("paged bonar at 9785550113")
_TEN_DIGITS = re.compile(r"(?<![\w/.-])(?:\+?1)?[2-9]\d{2}[2-9]\d{6}(?![\w/-]|\.\d)")
PHONE_LABEL = re.compile(r"(?i)(?:\bcell|\bphone|\bph|\btel|\btelephone|\bmobile|\bhome|\bwork|\bpager|\bcall|"
                        r"\bcontact|\bnumber|\breached|\bfax|#)\s*[.:#]?\s*(?:at|is|number|#)?\s*:?\s*$")
# "ring me on" is British for a call (found on the invented PII texts' find half: letter_77's kin)
CALL_VERB = re.compile(r"(?i)\b(?:paged?|call(?:ed)?|reach(?:ed)?|contact(?:ed)?|phoned?|text(?:ed)?|ring|rang)\b")


@register(LOCALE, "phones", "CONTACT", score=0.88)
def phones(text: str, doc_id: str) -> list[Span]:
    """Phone numbers (``(617) 555-1234``, ``617-555-1234 x12``, ``555-1234``), FAX after "fax",
    and short pager numbers after "pager"/"pgr"/"beeper". A toll-free line ("1-800-...") is marked
    like any other: i2b2 marks every telephone number, a clinic's or a helpline's too."""
    out: list[Span] = []
    for m in _PHONE.finditer(text):
        before = text_before(text, m.start(), 20)
        if re.search(r"(?i)\b(?:MRN|SSN|record|acct|account)\b[^\n]{0,6}$", before):
            continue
        if re.fullmatch(r"[1-9]\d{2}-[1-9]\d{3}", m.group()) and not _PH_LABEL.search(before) \
                and int(m.group()[:3]) % 50 == 0 and int(m.group()[4:]) % 50 == 0 and not PHONE_LABEL.search(before):
            continue   # "IS 750-1000": a range of round volumes, no phone number (icu_invented_p find f250)
        if re.fullmatch(r"\d{3}-\d{4}", m.group()) and measure_before(text, m.start()) \
                and not _PH_LABEL.search(before):
            continue   # "SVR 900-1100": a measure's range (icu_invented_h find f13); a pH is no range of
            # hundreds, so after "PH" it is the phone's label ("GUARDIAN ..., PH 555-0158": icu_invented_p find f111)
        out.append(mk(doc_id, m.start(), m.end(), "FAX" if _FAX_BEFORE.search(before) else "PHONE"))
    for m in _PAGER.finditer(text):
        if m.group(0)[:1].lower() == "p" and len(m.group(0).split()[0]) == 1 and not re.search(r"#|:", m.group(0)):
            continue  # a lone "p 1234" is too ambiguous
        out.append(mk(doc_id, *m.span("num"), "PHONE"))
    for m in _TEN_DIGITS.finditer(text):
        before = line_before(text, m.start(), 40)
        if PHONE_LABEL.search(before) or (re.search(r"(?i)\bat\s*$", before) and CALL_VERB.search(before)):
            out.append(mk(doc_id, m.start(), m.end(), "FAX" if _FAX_BEFORE.search(before) else "PHONE"))
    for m in _EXTENSION.finditer(text):
        if _EXTENSION_CONTEXT.search(line_before(text, m.start(), 40)):
            out.append(mk(doc_id, *m.span("num"), "PHONE"))
    out += [mk(doc_id, *m.span("num"), "PHONE") for m in _DASH_EXTENSION.finditer(text)]
    out += [mk(doc_id, *m.span("num"), "PHONE") for m in _EXT_WORD.finditer(text)]
    return dedupe(out)


_SSN = re.compile(r"(?<![\w-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])")
_SSN_CTX = re.compile(r"(?i)\b(?:SSN|social security(?: number| no\.?| #)?)\s*:?\s*#?\s*(?P<id>\d{3}[- ]?\d{2}[- ]?\d{4})(?!\d)")


@register(LOCALE, "ssn", "ID", score=0.93)
def ssn(text: str, doc_id: str) -> list[Span]:
    """US social security numbers: ``123-45-6789`` (valid area/group/serial) or after "SSN"."""
    return dedupe(spans_from(_SSN, text, doc_id, "SSN") + spans_from(_SSN_CTX, text, doc_id, "SSN", "id"))


_ID_TRIGGERS: list[tuple[str, str]] = [
    (r"MRN|MR\s?#|Med(?:ical)?\s+Rec(?:ord)?(?:\s+(?:No\.?|Number|#))?|Unit\s+(?:No\.?|Number|#)|Record\s+(?:No\.?|Number|#)|"
     r"Hospital\s+(?:No\.?|Number|#)|Patient\s+ID|Pt\s+ID|EMPI|BWH|MGH|CPI", "MEDICALRECORD"),
    (r"Acct|Acc\.?\s*(?:No\.?|#)|Account(?:\s+(?:No\.?|Number|#))?|Encounter(?:\s+(?:No\.?|Number|#|ID))?|"
     r"(?:Visit|Admission|Adm)\s+(?:No\.?|Number|#|ID)|CSN", "ACCOUNT"),
    (r"License(?:\s+(?:No\.?|Number|#))?|Lic\.?(?:\s*(?:No\.?|Number|#))?|DEA(?:\s+(?:No\.?|Number|#))?|NPI", "LICENSE"),
    (r"Member\s+ID|Policy(?:\s+(?:No\.?|Number|#))?|Health\s*plan(?:\s+(?:No\.?|Number|#|ID))?|"
     r"Insurance(?:\s+(?:ID|No\.?|Number|#))?|"
     r"Medicaid(?:\s+(?:No\.?|Number|#|ID))?|Medicare(?:\s+(?:No\.?|Number|#|ID))?|Group\s+(?:No\.?|Number|#)|"
     # Canada's provincial health numbers ("PHIN 118 205 774", "PHN 9871 442 013", "Health card
     # 7734-118-906-MB", OHIP, RAMQ): clinic_invented find f01, f07, f15
     r"PHIN|PHN|OHIP|RAMQ|HCN|Health\s+card(?:\s+(?:No\.?|Number|#))?", "HEALTHPLAN"),
    (r"Device\s+(?:ID|serial|S/N)|Serial(?:\s+(?:No\.?|Number|#|SN|S/N))?|S/N", "DEVICE"),
    (r"VIN|(?:License\s+)?plate(?:\s+(?:No\.?|Number|#))?", "VEHICLE"),
    # an authorization's number ("auth 88201-5530", "Prior Auth # PA-2025-0043") and a specimen's
    # accession without its sign ("ACCESSION 113-448-2071-0"): clinic_invented find f05, f14
    (r"(?:Prior\s+)?Auth(?:orization)?(?:\s+(?:No\.?|Number|#|code))?|Accession|"
     r"(?:Order|Requisition|Accession)\s*(?:#|No\.?|Number)|Case|Specimen(?:\s+(?:ID|No\.?|Number|#))?|Sample\s+ID|"
     r"(?:Genetic\s+|DNA\s+|Blood\s+)?sample\s+on\s+file|"
     # a police officer's badge ("Det. Medeiros (badge 8814, cell ...)": icu_invented_p find f119)
     r"Badge(?:\s+(?:No\.?|Number|#))?", "IDNUM"),
]
# labels in any case ("member ID", "LICENSE", "Acct #:"); a value with a digit, its dots and slashes inside ("495.179.062",
# "5465/58564"), letters around it in any case ("case-323688")
_ID_RES = [(re.compile(rf"(?<![\w])(?i:{p})\s*(?:[:#]\s*){{0,2}}(?P<id>\d{{3,4}}(?:[ ]\d{{3,4}}){{2,3}}(?![ ]?\d)|[A-Za-z]{{0,4}}[-]?\d(?:[\dA-Za-z-]|[./](?=\d)){{2,18}}|\d{{3,}})"
                       rf"(?![\w-])"), t)
           for p, t in _ID_TRIGGERS]


# labels that also head a note's sections or mean other things ("ID: Tmax 101.2" is infectious
# disease, "Rx" a prescription's sign): their value needs five digits and no decimal, or letters
# and four digits ("ID: 4455667", "Chart #: 44556677", "Employee ID: E44556", "Ref #: AB-99887")
_WEAK_ID_LABELS = (r"ID|Record|Chart|Patient|Pt|Enc(?:ounter)?|Reg(?:istration)?|Ref(?:erence)?|Claim|Rx|Prescription|"
                   r"Study(?:\s+ID)?|Badge|Employee(?:\s+ID)?|Passport(?:\s+No\.?)?|Tracking|"
                   # a record's and a dictation's numbers in a summary's header ("MR: 1198374", "DOC #:
                   # 339102", "Job #: 551902"): "MR" is mitral regurgitation too, so five digits
                   # (notes_invented find f01, f08)
                   r"MR|Doc|Job|Path(?:ology)?")
# (or after the label and a space, a facility's letters, a dash and four digits or more: "MR LSH-77260",
# "MIH ID TMH-4021": clinic_invented find f03, f13)
_WEAK_ID = re.compile(rf"(?<![\w/])(?i:{_WEAK_ID_LABELS})(?:[ \t]*(?:(?:#|no\.?|number)[ \t]*:?|:)[ \t]*|[ \t]+(?=\d{{8,}})"
                      r"|[ \t]+(?=[A-Za-z]{2,4}-\d{4,}(?![\w-])))"
                      r"(?P<id>\d{5,}(?![.,]\d)|[A-Za-z]{1,4}-?\d{4,}(?:-\d+)*|[A-Za-z]{1,4}\d{2}-\d{4,}|\d{4}-\d{4,})(?![\w-])"
                      r"(?![ \t]*(?i:units?|u\b|mg|mcg|ml|cc|l\b|meq|mmol|%|iu\b|x\b|times|doses?))")   # "Rx: 12345 units"


# a record number a header gives with its sign alone: "#0774120" (six digits or more, so no list's
# "#2"), "MR8812043", "MRN 0098123" written onto the number (notes_invented find f20, f26)
_BARE_RECORD = re.compile(r"(?<![\w#&/])(?:#[ \t]?(?P<id>\d{6,})|(?P<glued>(?i:mrn?)\d{6,})|"
                          r"(?i:job|doc)[ \t]+(?P<job>\d{5,}))(?![\w-]|[.,]\d)")   # "K. NOWAK/PLR  JOB 66120" (f33)


@register(LOCALE, "record_numbers", "ID", score=0.92)
def record_numbers(text: str, doc_id: str) -> list[Span]:
    """Identifiers after their labels: MRN/medical record/unit number, account, licence/DEA/NPI,
    health plan/member/policy, device serial and vehicle numbers, and after the weaker labels
    ("ID:", "Chart #", "Ref #") a value that only an identifier has."""
    out: list[Span] = []
    for rx, gtype in _ID_RES:
        out += trimmed_spans(rx, text, doc_id, gtype, "id", trailing=" .,;:-")
    taken = [(sp.start, sp.end) for sp in out]
    weak = trimmed_spans(_WEAK_ID, text, doc_id, "IDNUM", "id", trailing=" .,;:-") + [
        mk(doc_id, *m.span(g), "IDNUM") for m in _BARE_RECORD.finditer(text) for g in ("id", "glued", "job") if m.group(g)]
    out += [sp for sp in weak if not any(a < sp.end and sp.start < b for a, b in taken)]
    return dedupe(out)


STATE_ABBR = ("AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND "
               "OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR").split()
_ZIP_STATE = re.compile(rf"(?<![\w])(?P<state>{'|'.join(STATE_ABBR)})\.?,?\s+(?P<zip>\d{{5}}(?:-\d{{4}})?)(?![\w-])")
_ZIP_LABEL = re.compile(r"(?i)\b(?:zip|zip\s*code|postal\s*code)\s*:?\s*(?P<zip>\d{5}(?:-\d{4})?)(?![\w-])")


@lru_cache(maxsize=1)
def _state_names() -> str:
    names = [e for e in load_list("en", "states") if len(e) > 2]
    return "|".join(re.escape(n).replace("\\ ", r"\s+") for n in sorted(names, key=len, reverse=True))


@lru_cache(maxsize=1)
def _city_state_zip() -> re.Pattern:
    """"<town>, <state> <zip>" in any case: the town is up to three words right before the comma."""
    state = rf"(?:{'|'.join(STATE_ABBR)}|{_state_names()})"
    return re.compile(rf"(?i)(?P<city>(?:[A-Za-z][A-Za-z.'-]*[ \t]+){{0,2}}[A-Za-z][A-Za-z.'-]*),[ \t]*"
                      rf"(?P<state>{state})\.?,?[ \t]+(?P<zip>\d{{5}}(?:-\d{{4}})?)(?![\w-])")


@register(LOCALE, "postal_codes", "LOCATION", score=0.9)
def postal_codes(text: str, doc_id: str) -> list[Span]:
    """ZIP codes after a state abbreviation (``Boston, MA 02114`` gives STATE "MA" and ZIP "02114")
    or after "ZIP"; in an address's "<town>, <state> <zip>", in any case, the town and the state
    (a name or an abbreviation) too ("coral gables, florida 84205")."""
    out: list[Span] = []
    for m in _ZIP_STATE.finditer(text):
        if m.group("state") == "ID" and not re.search(r",[ \t]*$", text[max(0, m.start() - 3):m.start()]):
            continue   # "INTERPRETER ID 40217": an identifier's label; Idaho's code follows its town's comma
            # (icu_invented_p find f381)
        out.append(mk(doc_id, *m.span("state"), "STATE"))
        out.append(mk(doc_id, *m.span("zip"), "ZIP"))
    for m in _city_state_zip().finditer(text):
        out.append(mk(doc_id, *m.span("state"), "STATE"))
        out.append(mk(doc_id, *m.span("zip"), "ZIP"))
        words = list(re.finditer(r"[^ \t]+", m.group("city")))
        # a town the safe vocabulary holds ("Biloxi") stays: an address's comma, state and ZIP say it is one
        while words and ((is_safe_word(words[0].group()) and not looks_like_place(words[0].group(), True))
                         or words[0].group().lower() in ("in", "at", "of")):
            words.pop(0)   # "lives in Burien, WA": the town starts after the ward's words
        if words:
            out.append(mk(doc_id, m.start("city") + words[0].start(), m.end("city"), "CITY"))
    out += spans_from(_ZIP_LABEL, text, doc_id, "ZIP", "zip")
    # a street's town and ZIP with no state between ("1147 Oakwood Ave, Toledo 43607": icu_invented_c find f14)
    for m in _street_town_zip().finditer(text):
        out.append(mk(doc_id, *m.span("zip"), "ZIP"))
    return sorted(dedupe(out), key=lambda sp: (sp.start, sp.end))


@lru_cache(maxsize=1)
def _street_town_zip() -> re.Pattern:
    """A street's suffix, a comma, one to three words of a town and a ZIP, in any case."""
    return re.compile(rf"(?i)\b{_SUFFIX},[ \t]*(?:[A-Za-z][A-Za-z.'-]*[ \t]+){{1,3}}(?P<zip>\d{{5}}(?:-\d{{4}})?)(?![\w-])")


_SUFFIX = (r"(?:Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Boulevard|Blvd\.?|Drive|Dr\.?|Lane|Ln\.?|Way|Court|Ct\.?|Place|Pl\.?|"
           r"Terrace|Ter\.?|Parkway|Pkwy\.?|Circle|Cir\.?|Highway|Hwy\.?|Square|Sq\.?|Trail|Path|Pike|Row|Alley)")
#: a street's suffix, what says a name is a street's (read by :mod:`.highways` too)
STREET_SUFFIX = _SUFFIX
_STREET = re.compile(
    rf"(?<![\w#/-])(?P<st>\d{{1,6}}[A-Z]?\s+(?:[NSEW]\.?\s+)?(?:[A-Z][a-z]+|\d+(?:st|nd|rd|th))(?:\s+[A-Z][a-z]+){{0,3}}\s+{_SUFFIX}"
    rf"(?:,?\s+(?:Apt\.?|Apartment|Unit|Suite|Ste\.?|#)\s*#?\s*[\w-]+)?)(?![\w])")
_PO_BOX = re.compile(r"(?i)\bP\.?\s?O\.?\s+Box\s+\d+\b"
                     # a rural route's box ("RR 1 Box 42, Hartington, NE": icu_invented_n find f20)
                     r"|(?i:\b(?:RR|R\.R\.|rural[ \t]+route|HC|star[ \t]+route)[ \t]*#?[ \t]*\d{1,3}[ \t]*,?[ \t]+box[ \t]*#?[ \t]*\d{1,5}\b)")


# a rural address: a house number on a numbered road, in any case ("4471 COUNTY ROAD 12", "1190 State
# Route 9", "RR"'s box is _PO_BOX's): clinic_invented find f08; "CR", "SR" and "RR" alone are a
# ward's creatinine, sinus rhythm and respiratory rate, so only the long names and "Hwy"
_NUMBERED_ROAD = re.compile(
    r"(?i)(?<![\w#/.-])(?P<st>\d{1,6}[ \t]+(?:(?:[NSEW]\.?|north|south|east|west)[ \t]+)?"
    r"(?:county[ \t]+(?:road|rd\.?|highway|hwy\.?)|state[ \t]+(?:route|road|rd\.?|highway|hwy\.?)|"
    r"u\.?s\.?[ \t]+(?:highway|hwy\.?|route)|highway|hwy\.?|route|rte\.?|farm[ \t]+to[ \t]+market(?:[ \t]+road)?|"
    r"ranch[ \t]+road)[ \t]+\d{1,4}[A-Za-z]?)(?![\w-])")


# a street in capitals or lower case: a house number, one to three words and a suffix (and its
# unit), before a comma, a unit, "in" or the line's end ("149 sloan circle, coral gables", "2245
# dolly st., apt 16"); no ward word inside, no safe word unless an address's cue comes before
_DRIVE_TRAIN = re.compile(r"(?i)^\d[ \t]+(?:wheel|x[ \t]*\d)[ \t]+drive$")
_TOWN_ZIP = r"[A-Za-z][A-Za-z'-]*(?:[ \t]+[A-Za-z][A-Za-z'-]*){0,2}[ \t]+(?:[A-Za-z]{2}[ \t]+)?\d{5}(?:-\d{4})?(?![\d-])"
_STREET_ANY_CASE = re.compile(
    # (a direction's letter, with or without its full stop, before the words: "212 e. pine st":
    # psych_invented find f06; "1187 w cottonwood ln": ob_invented find f06)
    rf"(?i)(?<![\w#/.-])(?P<st>\d{{1,6}}[ \t]+(?:[nsew]\.?[ \t]+|[nsew]\.)?(?P<words>(?:[A-Za-z][A-Za-z'-]*[ \t]+){{1,3}}){_SUFFIX}"
    rf"(?:,?[ \t]*(?:apt\.?|apartment|unit|suite|ste\.?|#)[ \t]*#?[ \t]*\d[\w-]*)?)"
    # (or a town and its ZIP without a comma: "418 SILVER ST ELKO 89801": icu_invented_s find f28)
    rf"(?=[ \t]*(?:[,;)]|\.(?:\s|$)|$|apt\b|unit\b|suite\b|#|in\b|and\b|{_TOWN_ZIP}))", re.MULTILINE)
# words that say an address follows: its street's words may then be any ("lives at 1593 olive branch lane")
# (and an address that changed: "ADDRESS UPDATED TO 418 SILVER ST ELKO": icu_invented_s find f28)
_ADDRESS_BEFORE = re.compile(r"(?i)(?:\b(?:lives|living|resides|residing|staying|moved)(?:[ \t]+alone)?[ \t]+at|"
                             r"\baddress(?:[ \t]+on[ \t]+file|[ \t]+(?:updated|changed|corrected|now|is)(?:[ \t]+to)?)?[ \t]*:?|"
                             r"\bhome[ \t]*:|\bmail(?:ing)?[ \t]+address[ \t]*:?)[ \t]*$")


@register(LOCALE, "streets", "LOCATION", score=0.88)
def streets(text: str, doc_id: str) -> list[Span]:
    """Street addresses with a house number and a street suffix (``123 Main Street``,
    ``45 W. Elm St., Apt 4B``) and P.O. boxes."""
    # the match keeps an abbreviation's full stop ("St."): it belongs to the street
    out = spans_from(_STREET, text, doc_id, "STREET", "st")
    out += spans_from(_PO_BOX, text, doc_id, "STREET")
    for road in spans_from(_NUMBERED_ROAD, text, doc_id, "STREET", "st"):   # the road's number too
        out = [o for o in out if not (road.start <= o.start and o.end <= road.end)]
        if not any(o.start < road.end and road.start < o.end for o in out):
            out.append(road)
    for m in _STREET_ANY_CASE.finditer(text):
        if any(sp.start < m.end("st") and m.start("st") < sp.end for sp in out):
            continue   # the title-case street already holds it (with its "Apt 4B")
        vocabulary = not _ADDRESS_BEFORE.search(text[max(0, m.start() - 40):m.start()])
        if _DRIVE_TRAIN.search(m.group("st")):
            continue   # "HAS A 4 WHEEL DRIVE": a truck (spec_invented find f15)
        if not any(is_safe_word(w, vocabulary) or w.lower() in FUNCTION_WORDS for w in m.group("words").split()):
            out.append(mk(doc_id, *m.span("st"), "STREET"))
    out += towns_after_streets(text, doc_id, [sp for sp in out if sp.type == "STREET"])
    return dedupe(out)


# a town after a street and its comma, closed by a comma, a full stop, "and" or the line's end
# (a word closing it is a whole word: "Bird-in-Hand" is no "Bird-in-H" before "and"; a ZIP may follow:
# "212 Mill Race Ln, Bird-in-Hand 17505": spec_invented find f28)
_TOWN_AFTER_STREET = re.compile(r",[ \t]*(?P<town>[A-Za-z][A-Za-z'-]*(?:[ \t][A-Za-z][A-Za-z'-]*){0,2})"
                                r"(?=[ \t]*(?:[,;:]|\.(?:\s|$)|$)|[ \t]+(?:(?i:and|where|with)\b|\d{5}(?:-\d{4})?(?![\d-])|-[ \t]))",
                                re.MULTILINE)


# a town and its ZIP after the street without a comma ("418 SILVER ST ELKO 89801": icu_invented_s find f28)
_TOWN_ZIP_AFTER_STREET = re.compile(r"[ \t]+(?P<town>[A-Za-z][A-Za-z'-]*(?:[ \t]+[A-Za-z][A-Za-z'-]*){0,2}?)"
                                    r"(?:[ \t]+(?P<st>[A-Za-z]{2}))?[ \t]+(?P<zip>\d{5}(?:-\d{4})?)(?![\d-])")
_ZIP_AFTER_STREET = re.compile(r",?[ \t]*(?P<zip>\d{5}(?:-\d{4})?)(?![\w-])")


def towns_after_streets(text: str, doc_id: str, streets: list[Span]) -> list[Span]:
    """The town an address names after its street ("lives at 668 spruce avenue, apt 13, fresno and
    worked", "2245 DOLLY ST., ABINGTON", "3 Gillyflower Row, Hemsworth Abbey:"): one to three
    words, no function word and no ward word; a two-letter state's abbreviation is left to the
    address rule. :mod:`.address_parts` asks it after its British streets too (second invented PII
    set's find half: f_legal_45, f_legal_67, f_fin_81)."""
    out: list[Span] = []
    for sp in streets:
        z = _ZIP_AFTER_STREET.match(text, sp.end)
        if z is not None:   # "2217 Brownsville Rd, 15210, sister's": the ZIP alone after the street (icu_invented_i find f18)
            out.append(mk(doc_id, *z.span("zip"), "ZIP"))
            continue
        t = _TOWN_ZIP_AFTER_STREET.match(text, sp.end)
        if t is not None and not any(w.lower() in FUNCTION_WORDS or is_safe_word(w, vocabulary=False)
                                     for w in t.group("town").split()):
            out += [mk(doc_id, *t.span("town"), "CITY"), mk(doc_id, *t.span("zip"), "ZIP")]
            if t.group("st") and t.group("st").upper() in _state_codes():   # before a ZIP a word code is a state too
                out.append(mk(doc_id, *t.span("st"), "STATE"))
            continue
        m = _TOWN_AFTER_STREET.match(text, sp.end)
        if m is None:
            continue
        words = m.group("town").split()
        town_end, code = m.end("town"), None
        if len(words) > 1 and words[-1].upper() in codes_not_words() and (words[-1].isupper() or m.group("town").islower()):
            # "40 Ledgewood Rd, Dover NH.": the state's code after the town, no comma (icu_invented_p find f16)
            code, words = (m.end("town") - len(words[-1]), m.end("town")), words[:-1]
            town_end = text.rindex(words[-1], m.start("town"), code[0]) + len(words[-1])
        if len(text[m.start("town"):town_end]) > 2 and not any(w.lower() in FUNCTION_WORDS or is_safe_word(w, vocabulary=False)
                                                               for w in words):
            out.append(mk(doc_id, m.start("town"), town_end, "CITY"))
            if code is not None:
                out.append(mk(doc_id, *code, "STATE"))
    return out


