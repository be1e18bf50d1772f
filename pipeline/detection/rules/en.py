"""English rule pack, following i2b2 2014 annotation boundaries.

i2b2 conventions that decide boundaries here:

- AGE is the number alone ("45" in "45 yo", "45-year-old", "45 y/o", "aged 45");
- DATE is the date expression without a weekday's comma or "on": "01/20/2071", "1/20",
  "4/66", "January 5, 2071", "Jan 2071", "5th of March", "Spring 2071", "2071" after "in/since";
- phone numbers keep their punctuation: "(617) 555-1234", "617.555.1234", with "x123" extensions;
  "Fax" before a number makes it FAX, "pager/beeper/pgr" a PHONE;
- record numbers are the value after the label ("MRN: 1234567" -> "1234567").
"""
from __future__ import annotations

import re

from pipeline.detection.rules.registry import register
from pipeline.detection.rules.common import (merge_overlapping, mk, register_common, spans_from, text_before, trim,
                                   trimmed_spans)
from pipeline.spans import Span, dedupe

LOCALE = "en"
register_common(LOCALE)

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
MONTH_ABBR = ("Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
SEASONS = ("spring", "summer", "fall", "autumn", "winter")
HOLIDAYS = ("Christmas", "Thanksgiving", "Easter", "New Year's Day", "New Year's Eve", "Memorial Day",
            "Labor Day", "Independence Day", "Halloween", "Valentine's Day", "Yom Kippur", "Hanukkah",
            "Passover", "Ramadan")

_MON = r"(?:%s|(?:%s)\.?)" % ("|".join(MONTHS), "|".join(MONTH_ABBR))
_DAY = r"(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?"
_YEAR4 = r"(?:1[89]\d\d|20\d\d|21\d\d)"
_YEAR = rf"(?:{_YEAR4}|'\d\d)"

_DATE_PATTERNS = [
    # 01/20/2071, 1-20-71, 2071-01-20
    r"(?<![\d/.-])(?:0?[1-9]|1[0-2])(?P<s>[/.-])(?:0?[1-9]|[12]\d|3[01])(?P=s)(?:\d{4}|\d{2})(?![\d/-]|\.\d)",
    rf"(?<![\d/.-]){_YEAR4}-(?:0?[1-9]|1[0-2])-(?:0?[1-9]|[12]\d|3[01])(?![\d-])",
    # 1/20 (month/day) and 4/66, 04/2071 (month/year)
    r"(?<![\d/.,-])(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01]|[4-9]\d|(?:19|20)\d\d)(?![\d/]|[.,]\d)",
    # January 5, 2071 | Jan. 5th 2071 | January 2071 | January 5 | Jan '71
    rf"(?<![\w]){_MON}(?:\s+{_DAY})?(?:,?\s+{_YEAR})?(?![\w'])",
    # 5 January 2071 | 5th of March | 5-Jan-2071
    rf"(?<![\w]){_DAY}(?:\s+of)?[\s-]+{_MON}(?:[\s,-]+{_YEAR})?(?![\w'])",
    # Spring 2071 | summer of '71
    rf"(?i)(?<![\w])(?:{'|'.join(SEASONS)})(?:\s+of)?\s+{_YEAR}(?![\w])",
    # weekdays and holidays
    rf"(?<![\w])(?:{'|'.join(WEEKDAYS)}|{'|'.join(re.escape(h) for h in HOLIDAYS)})(?![\w])",
]
_DATE_RES = [re.compile(p) for p in _DATE_PATTERNS]
_BARE_YEAR = re.compile(rf"(?:(?<=\bin )|(?<=\bIn )|(?<=\bsince )|(?<=\bSince )|(?<=\buntil )|(?<=\bby )|(?<=\())"
                        rf"({_YEAR4})(?![\d/.,-]\d|\d|\s*(?:mg|mcg|ml|mL|units|cc|kg|patients|cases|%))")
_FRACTION = re.compile(r"[1-7]/[2348]")
_DOSE_AFTER = re.compile(r"\s*(?:tab|tablet|pill|cap|dose|strength|cup|tsp|tbsp|inch|in\b|mg|ml|of\b)", re.IGNORECASE)
_DATE_BEFORE = re.compile(r"(?i)\b(?:on|since|from|until|till|dated|date|of|by)\s+$")
# "may" is a modal verb: the bare month needs a day or a year next to it
_BARE_MAY = re.compile(r"^May\.?$")


@register(LOCALE, "dates", "DATE", score=0.9)
def dates(text: str, doc_id: str) -> list[Span]:
    """Numeric (01/20/2071, 1/20, 4/66), textual (January 5, 2071; 5th of March), seasonal
    (Spring 2071), weekday and holiday dates, and years after in/since/until/by."""
    found: list[tuple[int, int]] = []
    for rx in _DATE_RES:
        for m in rx.finditer(text):
            if _BARE_MAY.match(m.group()):
                continue
            if _FRACTION.fullmatch(m.group()) and (_DOSE_AFTER.match(text, m.end()) or not _DATE_BEFORE.search(text_before(text, m.start(), 12))):
                continue  # "1/2 tab", "3/4 strength": a fraction, not January 2nd
            found.append(m.span())
    found += [m.span(1) for m in _BARE_YEAR.finditer(text)]
    return merge_overlapping(found, doc_id, "DATE")


_AGE_AFTER = re.compile(
    r"(?<![\w.])(?P<age>\d{1,3})(?:\s*-\s*|\s+)?(?:yo\b|y/o\b|y\.o\.?|yr?s?\.?[\s-]*old\b|years?[\s-]*old\b|"
    r"-?year-old\b|yo[mf]\b|y\.?\s?o\.?\s?(?:male|female|man|woman|m|f)\b)", re.IGNORECASE)
_AGE_BEFORE = re.compile(r"(?i)\b(?:age|aged|age of|at age)\s*:?\s*(?P<age>\d{1,3})(?!\d|[./]\d)")


@register(LOCALE, "ages", "AGE", score=0.9)
def ages(text: str, doc_id: str) -> list[Span]:
    """Ages, the number only as in i2b2: ``45 yo``, ``45-year-old``, ``45 y/o``, ``aged 45``."""
    out = [mk(doc_id, *m.span("age"), "AGE") for rx in (_AGE_AFTER, _AGE_BEFORE) for m in rx.finditer(text)
           if int(m.group("age")) <= 125]
    return dedupe(out)


_PHONE = re.compile(
    r"(?<![\w/-])(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w-])"
    r"|(?<![\w/-])\d{3}-\d{4}(?![\w-])")
_FAX_BEFORE = re.compile(r"(?i)\bfax\b\s*(?:#|no\.?|number)?\s*:?\s*$")
_PAGER = re.compile(r"(?i)\b(?:pager|beeper|pgr|page|p)\s*#?\s*:?\s*(?P<num>\d{4,6})(?![\d-])")


@register(LOCALE, "phones", "CONTACT", score=0.88)
def phones(text: str, doc_id: str) -> list[Span]:
    """Phone numbers (``(617) 555-1234``, ``617-555-1234 x12``, ``555-1234``), FAX after "fax",
    and short pager numbers after "pager"/"pgr"/"beeper"."""
    out: list[Span] = []
    for m in _PHONE.finditer(text):
        before = text_before(text, m.start(), 20)
        if re.search(r"(?i)\b(?:MRN|SSN|record|acct|account)\b[^\n]{0,6}$", before):
            continue
        out.append(mk(doc_id, m.start(), m.end(), "FAX" if _FAX_BEFORE.search(before) else "PHONE"))
    for m in _PAGER.finditer(text):
        if m.group(0)[:1].lower() == "p" and len(m.group(0).split()[0]) == 1 and not re.search(r"#|:", m.group(0)):
            continue  # a lone "p 1234" is too ambiguous
        out.append(mk(doc_id, *m.span("num"), "PHONE"))
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
    (r"Acct|Account(?:\s+(?:No\.?|Number|#))?|Encounter(?:\s+(?:No\.?|Number|#))?|Visit\s+(?:No\.?|Number|#)", "ACCOUNT"),
    (r"License(?:\s+(?:No\.?|Number|#))?|Lic\.?\s?#?|DEA(?:\s+(?:No\.?|Number|#))?|NPI", "LICENSE"),
    (r"Member\s+ID|Policy(?:\s+(?:No\.?|Number|#))?|Health\s*plan(?:\s+(?:No\.?|Number|#|ID))?|Insurance\s+(?:ID|No\.?|Number|#)|"
     r"Medicaid(?:\s+(?:No\.?|Number|#|ID))?|Medicare(?:\s+(?:No\.?|Number|#|ID))?|Group\s+(?:No\.?|Number|#)", "HEALTHPLAN"),
    (r"Device\s+(?:ID|serial|S/N)|Serial\s+(?:No\.?|Number|#)|S/N", "DEVICE"),
    (r"VIN|License\s+plate|Plate\s+(?:No\.?|Number|#)", "VEHICLE"),
]
_ID_RES = [(re.compile(rf"(?<![\w])(?:{p})\s*[:#]?\s*#?\s*(?P<id>[A-Z]{{0,4}}[-]?\d[\dA-Z-]{{2,18}}|\d{{3,}})(?![\w-])"), t)
           for p, t in _ID_TRIGGERS]


@register(LOCALE, "record_numbers", "ID", score=0.92)
def record_numbers(text: str, doc_id: str) -> list[Span]:
    """Identifiers after their labels: MRN/medical record/unit number, account, licence/DEA/NPI,
    health plan/member/policy, device serial and vehicle numbers."""
    out: list[Span] = []
    for rx, gtype in _ID_RES:
        out += trimmed_spans(rx, text, doc_id, gtype, "id", trailing=" .,;:-")
    return dedupe(out)


_STATE_ABBR = ("AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND "
               "OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR").split()
_ZIP_STATE = re.compile(rf"(?<![\w])(?P<state>{'|'.join(_STATE_ABBR)})\.?,?\s+(?P<zip>\d{{5}}(?:-\d{{4}})?)(?![\w-])")
_ZIP_LABEL = re.compile(r"(?i)\b(?:zip|zip\s*code|postal\s*code)\s*:?\s*(?P<zip>\d{5}(?:-\d{4})?)(?![\w-])")


@register(LOCALE, "postal_codes", "LOCATION", score=0.9)
def postal_codes(text: str, doc_id: str) -> list[Span]:
    """ZIP codes after a state abbreviation (``Boston, MA 02114`` gives STATE "MA" and ZIP "02114")
    or after "ZIP"."""
    out: list[Span] = []
    for m in _ZIP_STATE.finditer(text):
        out.append(mk(doc_id, *m.span("state"), "STATE"))
        out.append(mk(doc_id, *m.span("zip"), "ZIP"))
    out += spans_from(_ZIP_LABEL, text, doc_id, "ZIP", "zip")
    return dedupe(out)


_SUFFIX = (r"(?:Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Boulevard|Blvd\.?|Drive|Dr\.?|Lane|Ln\.?|Way|Court|Ct\.?|Place|Pl\.?|"
           r"Terrace|Ter\.?|Parkway|Pkwy\.?|Circle|Cir\.?|Highway|Hwy\.?|Square|Sq\.?|Trail|Path|Pike|Row|Alley)")
_STREET = re.compile(
    rf"(?<![\w#/-])(?P<st>\d{{1,6}}[A-Z]?\s+(?:[NSEW]\.?\s+)?(?:[A-Z][a-z]+|\d+(?:st|nd|rd|th))(?:\s+[A-Z][a-z]+){{0,3}}\s+{_SUFFIX}"
    rf"(?:,?\s+(?:Apt\.?|Apartment|Unit|Suite|Ste\.?|#)\s*#?\s*[\w-]+)?)(?![\w])")
_PO_BOX = re.compile(r"(?i)\bP\.?\s?O\.?\s+Box\s+\d+\b")


@register(LOCALE, "streets", "LOCATION", score=0.88)
def streets(text: str, doc_id: str) -> list[Span]:
    """Street addresses with a house number and a street suffix (``123 Main Street``,
    ``45 W. Elm St., Apt 4B``) and P.O. boxes."""
    # the match keeps an abbreviation's full stop ("St."): it belongs to the street
    out = spans_from(_STREET, text, doc_id, "STREET", "st")
    out += spans_from(_PO_BOX, text, doc_id, "STREET")
    return out


_NAME_TOKEN = r"[A-Z](?:[a-z]+(?:[-'][A-Z][a-z]+)?|'[A-Z][a-z]+|\.)"
_TITLED = re.compile(
    rf"(?<![\w.])(?P<title>Dr|Drs|Mr|Mrs|Ms|Miss|Prof|Doctor)\.?\s+(?P<name>{_NAME_TOKEN}(?:\s+{_NAME_TOKEN}){{0,2}})")
_NOT_NAMES = {"The", "He", "She", "His", "Her", "They", "We", "I", "In", "On", "At", "To", "For", "And", "Of", "Office",
              "Clinic", "Hospital", "Service", "Team", "Note", "Department"}


@register(LOCALE, "titled_names", "NAME", score=0.85)
def titled_names(text: str, doc_id: str) -> list[Span]:
    """Names after titles, without the title: ``Dr. Smith`` -> DOCTOR "Smith";
    ``Mrs. Jones`` -> PATIENT "Jones"."""
    out: list[Span] = []
    for m in _TITLED.finditer(text):
        tokens = m.group("name").split()
        keep = []
        for tkn in tokens:
            if tkn in _NOT_NAMES:
                break
            keep.append(tkn)
        if not keep:
            continue
        s = m.start("name")
        e = s + len(" ".join(keep)) if "  " not in m.group("name") else m.end("name")
        s, e = trim(text, s, e)
        if e <= s:
            continue
        gtype = "DOCTOR" if m.group("title") in ("Dr", "Drs", "Prof", "Doctor") else "PATIENT"
        out.append(mk(doc_id, s, e, gtype))
    return out
