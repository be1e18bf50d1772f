"""English dates (i2b2 2014 boundaries: a date is the expression without a weekday's comma or
"on"); ages are :mod:`.ages`'s.

Month and weekday names are read in any case, since ward notes are often in capitals or in lower
case; a month written in capitals or lower case ("MARCH", "may") needs a day or a year beside it
(a lower-case "may" is a verb, "MAR" a medication record), and an abbreviated one a day or a
year ("SEP 27", "27-sep-98"; "MAR" and "DEC" a date's sign too); a full month name that is no
English word, or any after a preposition of time, stands alone ("IN SEPTEMBER", "in may"). A
numeric month/day or a bare year must be a possible date in its context
(:mod:`.numbers`): "MAE 5/5", "pain 3/10", "10/5 beats" and "by 2000" are not dates; a month-day
with a dash needs a date's sign ("11-6", "03-14", "3-14", not "RR 12-14" or "10-20"), and three
numbers after a rate's "x" or before "%" are ventilator settings ("489x12/5/40%").
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import merge_overlapping, text_before
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.numbers import (DATE_RANGE, STRONG_DATE_CUE, date_range_ends, line_before,
                                                measurement_context, plausible_month_day, short_date_is_date,
                                                year_is_date)
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
MONTH_ABBR = ("Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
SEASONS = ("spring", "summer", "fall", "autumn", "winter")
# the longer name first ("New Year's Day" before "New Year's": icu_invented_f find f30, "OD on New
# Year's"), then the other holidays a US ward dates by
# ("visited for xmas eve until 2100": icu_invented_p find f926)
HOLIDAYS = ("Christmas Eve", "Christmas", "Xmas Eve", "Xmas", "Thanksgiving", "Easter", "New Year's Day", "New Year's Eve",
            "New Year's", "New Years Day", "New Years Eve", "New Years", "Lunar New Year", "Chinese New Year",
            "Memorial Day", "Labor Day", "Independence Day", "Fourth of July", "4th of July", "Veterans Day",
            "Veterans' Day", "Mother's Day", "Father's Day", "Halloween", "Valentine's Day", "Yom Kippur",
            "Rosh Hashanah", "Hanukkah", "Passover", "Ramadan", "Diwali", "Kwanzaa", "Good Friday",
            # more of the year's days a note dates by ("ST. PATRICK'S DAY": psych_invented find f09)
            "St. Patrick's Day", "St Patrick's Day", "Saint Patrick's Day", "St. Patricks Day", "St Patricks Day",
            "Martin Luther King Day", "MLK Day", "Presidents' Day", "Presidents Day", "Juneteenth", "Columbus Day",
            "Cinco de Mayo", "Canada Day", "Victoria Day", "Remembrance Day", "Boxing Day", "Purim", "Ash Wednesday",
            "Palm Sunday", "Easter Sunday", "Eid al-Fitr", "Eid al-Adha")

# an abbreviation's full stop first ("May. 28", "Sept. 27"), then full names, then bare abbreviations;
# "May." only before its day: a sentence's stop after the month is no part of it ("each May.")
_MON = r"(?i:(?:%s)\.|May\.(?=[ \t]*\d)|%s|(?:%s))" % ("|".join(MONTH_ABBR), "|".join(MONTHS), "|".join(MONTH_ABBR))
_DAY = r"(?:0?[1-9]|[12]\d|3[01])(?i:st|nd|rd|th)?"
_YEAR4 = r"(?:1[89]\d\d|20\d\d|21\d\d)"
_YEAR = rf"(?:{_YEAR4}|'\d\d)"

_DATE_PATTERNS = [
    # 01/20/2071, 1-20-71, 2071-01-20
    r"(?<![\d/.-])(?:0?[1-9]|1[0-2])(?P<s>[/.-])(?:0?[1-9]|[12]\d|3[01])(?P=s)(?:\d{4}|\d{2})(?![\d/-]|\.\d)",
    rf"(?<![\d/.-]){_YEAR4}-(?:0?[1-9]|1[0-2])-(?:0?[1-9]|[12]\d|3[01])(?![\d-])",
    # 1/20 (month/day) and 4/66, 04/2071 (month/year)
    r"(?<![\d/.,-])(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01]|[4-9]\d|(?:19|20)\d\d)(?![\d/]|[.,]\d)",
    # 11-6, 03-14 (month-day with a dash: a range's look, so only with a date's signs)
    r"(?<![\d/.,-])(?:0?[1-9]|1[0-2])-(?:0?[1-9]|[12]\d|3[01])(?![\d/-]|[.,]\d)",
    # January 5, 2071 | Jan. 5th 2071 | January 2071 | January of 2071 | January 5 | Jan '71
    rf"(?<![\w]){_MON}(?:\s+{_DAY})?(?:,?\s+(?i:of\s+)?{_YEAR})?(?![\w'])",
    # 5 January 2071 | 5th of March | 5-Jan-2071
    rf"(?<![\w]){_DAY}(?:\s+(?i:of))?[\s-]+{_MON}(?:[\s,-]+(?:{_YEAR}|\d\d(?![\d:/]|\.\d)))?(?![\w'])",
    # Spring 2071 | summer of '71
    rf"(?i)(?<![\w])(?:{'|'.join(SEASONS)})(?:\s+of)?\s+{_YEAR}(?![\w])",
    # weekdays and holidays
    # (a storm's "nor'easter" holds no Easter: icu_invented_p find f971)
    rf"(?<![\w])(?<![A-Za-z]')(?i:{'|'.join(WEEKDAYS)}|(?:tues|thurs|weds)\.?|{'|'.join(re.escape(h) for h in HOLIDAYS)})(?![\w])",
    # 27/9/98 (the day first: only when the first number cannot be a month)
    r"(?<![\d/.-])(?:1[3-9]|2\d|3[01])(?P<s2>[/.-])(?:0?[1-9]|1[0-2])(?P=s2)(?:\d{4}|\d{2})(?![\d/-]|\.\d)",
    # 27SEP98, 27sep (a day written onto a month's abbreviation: a date's shape in any case)
    r"(?<![\w])(?:0?[1-9]|[12]\d|3[01])(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(?:\d{4}|\d{2})?(?![\w])",
    # 20670516 (year, month, day without separators)
    r"(?<![\w/.-])(?:19|20|21)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?![\w/-]|\.\d)",
    # "on the 27th": an ordinal day after a date's preposition, the ordinal only
    r"(?i)(?<=\b(?:on|by) the )(?:[12]?\d|3[01])(?:st|nd|rd|th)(?![\w])(?!\s+(?:attempt|try|time|day|dose|line|of\b|"
    r"floor|cycle|round|week|month|grade|degree|percentile|rib|ics\b))",   # "on the 4th floor"
    # 2071/01/20, 2071.01.20 (the year first, a slash or a full stop)
    rf"(?<![\d/.-]){_YEAR4}(?P<s3>[/.])(?:0?[1-9]|1[0-2])(?P=s3)(?:0?[1-9]|[12]\d|3[01])(?![\d/]|\.\d)",
    # Jan-20-2071, JAN/20/71, Jan-2071, NOV-71 (a month's abbreviation or name joined by dashes or slashes)
    rf"(?<![\w/-])(?i:{'|'.join(MONTHS)}|{'|'.join(MONTH_ABBR)}|May)(?P<s4>[-/])(?:{_DAY}(?P=s4))?(?:{_YEAR4}|\d\d)(?![\w/-]|\.\d)",
    # 2071-Jan-20, 2071JAN20 (the year first, the month's abbreviation in the middle)
    rf"(?<![\w/-]){_YEAR4}-?(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)-?(?:0?[1-9]|[12]\d|3[01])(?![\w/-])",
    # (last, so the indices above keep their meaning) a weekday's abbreviation after "on", "in", "by",
    # "until", "this", "next", closing its clause ("WILL COME IN SAT.": icu_invented_b find f19);
    # "sat 98%", "to keep sat > 92" stay
    r"(?i)(?:(?<=\bon )|(?<=\bcome in )|(?<=\bbe in )|(?<=\bback in )|(?<=\bby )|(?<=\buntil )|(?<=\btill )|"
    r"(?<=\bthis )|(?<=\bnext )|(?<=\bsince ))"   # "since Sun 0400" (find f56)
    r"(?:mon|tue|wed|thu|fri|sat|sun)\.?(?=[ \t]*(?:[.,;)]|$|\n|(?:am|pm|morning|night|evening)\b|(?:[01]\d|2[0-3])[0-5]\d\b))",
    # the weekdays whose abbreviation is no other word, alone ("Back to OR Wed for washout", "return
    # to OR Fri,": icu_invented_b find f25); "Mon" (monitor), "Sat" and "Sun" need the context above
    r"(?<![\w/'-])(?i:tue|thu|thur|wed|fri)(?![\w/'-])",
    # any weekday's abbreviation after "next", whatever follows ("C1D1 planned next Mon pending
    # insurance": spec_invented find f16)
    r"(?i)(?<=\bnext )(?:mon|sat|sun)\.?(?![\w/'-])",
]
_DATE_RES = [re.compile(p) for p in _DATE_PATTERNS]
# a day of the month by its ordinal alone, "the" before it and its clause closed or a time after
# ("s/p cabg x4 (the 12th).", "on the 3rd at 1400"; icu_invented_d find f05); "the 3rd dose", "the
# 2nd time" go on and stay
# (or a course's length after it: "Cipro started the 14th x 14 days", icu_invented_i find f09)
_THE_ORDINAL = re.compile(r"(?i)\bthe[ \t]+(?P<d>(?:[12]?\d|3[01])(?:st|nd|rd|th))(?=[ \t]*(?:[).,;]|\n|$|(?:at|@)\b|@|"
                          r"x[ \t]*\d|(?:for|thru|through|until|till)\b))")
# a day by its ordinal after a date's preposition, whatever follows but a count's noun ("power out
# since the 2nd from the ice storm": icu_invented_n find f07; "on the 2nd floor", "after the 3rd
# dose" stay)
_CUE_THE_ORDINAL = re.compile(r"(?i)\b(?:since|on|until|till|by|after|before)[ \t]+the[ \t]+(?P<d>(?:[12]?\d|3[01])(?:st|nd|rd|th))\b"
                              r"(?![ \t]*(?:dose|doses|day|days|time|times|attempt|try|round|floor|fl\b|shift|week|wk|"
                              r"cycle|line|degree|trimester|grade|stage|rib|icu|of\b|and\b|or\b|-|/|place|person|unit|bag|liter))")
# (and the year a confused patient names: "thinks it is 1989", icu_invented_m find f11)
# (and after "from": "WAITING TIME COUNTS FROM 2008", spec_invented find f02; a clock time there,
# "from 1900 to 2300", is told apart by :func:`.numbers.year_is_date`)
# (and a birth's year: "FAMILY STATES BORN 1911 IN VIETNAM": icu_invented_p find f512)
_BARE_YEAR = re.compile(rf"(?i:(?<=\bin )|(?<=\bsince )|(?<=\buntil )|(?<=\bby )|(?<=\bfrom )|(?<=\bit is )|(?<=\bborn )|(?<=\())"
                        rf"({_YEAR4}|'\d\d)(?![\d/.,-]\d|\d|\s*(?:mg|mcg|ml|mL|units|cc|kg|patients|cases|%))")
# a year alone in a history ("s/p CABG 1998", "h/o MI 2005", "dx'd with breast ca 1999"): a history's
# word earlier on the line; a clock time there ("given 2000") is not read (:func:`.numbers.year_is_date`)
# (a sentence's full stop may close it: "ICD PLACED 2004.": icu_invented_p find f146; "2004.5" stays)
# what a confused patient thinks the year is ("THOUGHT IT WAS 1998": icu_invented_p find f317): a year no
# clock reads (minutes past 59), since "it was 2000 when she called" is a time
_WAS_YEAR = re.compile(rf"(?i)(?<=\bit was )(?P<y>{_YEAR4})(?![\d/.,:-]\d|\d)")
_HISTORY_YEAR = re.compile(rf"(?<![\w/.,:+-]){_YEAR4}(?![\w/:-]|\.\d|,\d)")
_HISTORY_BEFORE = re.compile(r"(?i)(?:\bs/p|\bh/o|\bhx\b|\bhistory\s+of|\bstatus\s+post|\bdx'?d|\bdx\b|\bdiagnosed|\bpmh|"
                             r"\bpsh)\b[^\n]*$")
# a history's header opening the line or its sentence, the year anywhere after it in that sentence
# ("...few words of english. PMH: alzheimers dementia, HTN, hypothyroid, CVA 2001 w/ residual R sided
# weakness": icu_invented_p find f51); "no known PMH" and a later sentence ("PMH: HTN, ..., anxiety. Pt
# arrived on unit 2100") stay
_HISTORY_HEADER = re.compile(r"(?i)(?:^|[.;!?][ \t]+)[ \t]*(?:pmhx?|pshx?|pmh[ \t]*/[ \t]*psh|"
                             r"past[ \t]+(?:medical|surgical|med)[ \t]+(?:history|hx))[ \t]*[:-](?:(?!\.[ \t]|\.$)[^\n])*$")
_LAST_BEFORE = re.compile(r"(?i)\b(?:prior|previous|last)\b[^\n]*$")
# a vaccine's year right after its name ("Tdap 2009 per pt - up to date": ed_invented find f21)
_VACCINE_BEFORE = re.compile(r"(?i)\b(?:tdap|td|dtap|tetanus|pneumovax|ppsv23|pcv13|prevnar|zostavax|shingrix|flu[ \t]+shot|"
                             r"influenza[ \t]+vaccine|hep[ \t]*b[ \t]+vaccine)[ \t]*:?[ \t]*$")
# when an access or a device went in ("R FOREARM AVF PLACED 1999": spec_invented find f25); a clock
# time there is as likely ("foley inserted 2000"), so only a year whose minutes no clock writes
_PLACED_BEFORE = re.compile(r"(?i)\b(?:placed|inserted|created|implanted)\b[^\n]*$")
# the year a habit stopped, right after its word, a sentence's full stop after it too ("former smoker
# 50 pk-yr, quit 2001. NKDA": icu_invented_p find f34); no clock time follows "quit"
# (and the year a relative died: "wife passed 2005": icu_invented_p find f1075; the year one came to the
# country: "Emigrated 1996, husband died in war", "came to US 1991": f1290, f1300; a form's year, "signed
# HCP form (dated 2003)": f1499)
_LIFE_EVENT_YEAR = re.compile(rf"(?i)\b(?:quit|sober[ \t]+since|clean[ \t]+since|"
                              rf"(?:wife|husband|spouse|mother|father|son|daughter|brother|sister)[ \t]+"
                              rf"(?:passed(?:[ \t]+away)?|died)|emigrated|immigrated|"
                              rf"(?:came|moved)[ \t]+to[ \t]+(?:the[ \t]+)?(?:us|usa|u\.s\.?)|dated)[ \t]+(?:in[ \t]+)?"
                              rf"(?P<y>{_YEAR4})(?![\w/:-]|[.,]\d)")

# a year's two digits after an apostrophe, standing alone ("s/p stent '02", "quit '99": icu_invented_p
# find f785, f793): nothing else a ward writes has that shape (a height's feet come after a digit)
_SHORT_YEAR = re.compile(r"(?<![^ \t(])['’]\d\d(?![\w'’\"/:-]|[.,]\d)")


def _history_year(text: str, start: int, value: str) -> bool:
    """A history's word before a lone year on its line; "last" or "prior" only before a year that
    cannot be a clock time ("last colonoscopy 1998", never "last BM 2000"); when a device went in,
    a year whose minutes no clock writes ("AVF placed 1999", never "foley inserted 2000")."""
    before = line_before(text, start, 40)
    if _HISTORY_BEFORE.search(before) or _HISTORY_HEADER.search(line_before(text, start, 400)):
        return True
    if (_PLACED_BEFORE.search(before) and int(value[2:]) % 5 != 0) or _VACCINE_BEFORE.search(before):
        return True
    return bool(_LAST_BEFORE.search(before)) and (int(value[2:]) >= 60 or int(value[:2]) > 23)
# a fraction as notes write one is proper ("1/2 tab", "3/4 strength"); "5/2", "7/4" are days
_FRACTION = re.compile(r"1/[2348]|2/[348]|3/[48]|[5-7]/8")
_DOSE_AFTER = re.compile(r"\s*(?:tab|tablet|pill|cap|dose|strength|cup|tsp|tbsp|inch|in\b|mg|ml|of\b)", re.IGNORECASE)
# "adm 1/8" (an admission's date: icu_invented_c find f01)
# (and a culture's or a line's day: "SURVEILLANCE CX 3/8 NGTD", "(PLACED 3/5)": icu_invented_p find f265)
# (and the day of an arrival in the ED or of an intubation: "adm from ED 2/3", "presented to ED 1/2 am",
# "INTUBATED 3/4": icu_invented_p find f1025, f967, f901; a PEG's, "and PEG 1/3": f1359)
_DATE_BEFORE = re.compile(r"(?i)\b(?:on|since|from|until|till|dated|date|of|by|adm|admit|admitted|cx|cultures?|placed|inserted|"
                          r"intubated|extubated|trach|peg|(?:from|to)[ \t]+(?:the[ \t]+)?(?:ed|er))"
                          r"(?:\s*:\s*|\s+)$")
# who "may" do something: a subject right before "may" ("pt may 2 assist", "RN MAY 1 MORE")
_SUBJECT_BEFORE = re.compile(r"(?i)\b(?:pt|patient|he|she|they|we|i|you|it|family|wife|husband|son|daughter|rn|md|team|"
                             r"which|that|who|this|one|both|either)\s+$")
# "may" is a modal verb: the bare month needs a day or a year next to it
_BARE_MAY = re.compile(r"^May\.?$")
# which of _DATE_RES are month/day numbers and which name the month
_MONTH_DAY = 2
_MONTH_DAY_DASH = 3
_FULL_NUMERIC = (0, 8)
_COMPACT = 10
_ID_BEFORE = re.compile(r"(?i)(?:\b(?:mrn|mr|acct|account|id|no|number|ssn|unit|record|order|case|member|policy|"
                        r"license|lic|serial|phone|pager|fax)\b|#)\s*[.:#]?\s*$")
_TEXTUAL = (4, 5, 13)
_MONTH_WORD = re.compile(r"(?i)(?<![a-z])(?:%s|%s)(?![a-z])" % ("|".join(MONTHS), "|".join(MONTH_ABBR)))
_HAS_YEAR = re.compile(rf"{_YEAR}(?!\w)")


_MONTH_PREPOSITION = re.compile(r"(?i)\b(?:in|since|until|till|during|early|mid|late|last|next|this|through|from)\s+$")
# "return each May" (notes_invented find f21): the month in title case only ("each may vary")
_EACH_BEFORE = re.compile(r"(?i)\b(?:each|every)\s+$")
_UNAMBIGUOUS_MONTHS = frozenset(m.lower() for m in MONTHS) - {"may", "march", "august"}
# a month's abbreviation that no ward word or name spells alone, closing its clause after a preposition
# of time or "seen": in any case ("last seen jan.", "IN NOV)"); "mar" (a medication record), "dec"
# (decreased), "oct" (octreotide) and "may" need a day; "jan" and "jun" are names after other words
_WORDLESS_ABBR = frozenset({"jan", "feb", "apr", "jun", "jul", "aug", "sep", "sept", "nov"})
_ABBR_MONTH_CUE = re.compile(r"(?i)\b(?:in|since|until|till|early|mid|late|last|seen|through|thru)\s+$")


def _month_case_ok(found: str, text: str, start: int, end: int) -> bool:
    """A month name in title case stands as written ("March"); in capitals or lower case it needs
    a day or a year beside it ("MARCH 14", "march 2098", "SEP 27", "27-sep"). "MAR" (a medication
    record) and "DEC" (decreased) with a day alone need a date's sign too: an ordinal, a day-month
    dash, an abbreviation's full stop ("MAR. 12") or a date word before ("on MAR 5"); a day
    followed by a unit is a dose ("DEC 2 UNITS")."""
    m = _MONTH_WORD.search(found)
    if m is None:
        return True
    word = m.group()
    if word[:1].isupper() and (len(word) == 1 or word[1:].islower()):
        return True
    rest = found[:m.start()] + found[m.end():]
    if word.lower() in {w.lower() for w in MONTHS} and _MONTH_PREPOSITION.search(line_before(text, start, 20)):
        return True   # "IN MARCH", "since may": a preposition of time before a full month name
    if word.lower() in {w.lower() for w in MONTHS} or _HAS_YEAR.search(rest):
        # a full month name that is no English word ("SEPTEMBER", "october") stands alone in any case
        return bool(re.search(r"\d", rest)) or word.lower() in _UNAMBIGUOUS_MONTHS
    if not re.search(r"\d", rest) and word.lower() in _WORDLESS_ABBR and _ABBR_MONTH_CUE.search(line_before(text, start, 20)) \
            and (found.endswith(".") or re.match(r"[ \t]*(?:[.,;)]|\n|$)", text[end:end + 3])):
        return True   # "LAST SEEN JAN.", "(PLACED AT NH FOR IV ABX IN NOV)" (icu_invented_p find f30, f184)
    if not re.search(r"\d", rest) or _UNIT_AFTER_DAY.match(text, end):
        return False
    if word.lower() in ("mar", "dec"):
        # "29 MAR" (the day first, no measure before it), "27th Dec", "3-dec", or a date word before
        day_first = found[:1].isdigit() and not measurement_context(text, start, start + len(re.match(r"\d+", found).group()))
        if day_first or re.search(r"(?i)\d(?:st|nd|rd|th)|\d-[a-z]|^(?:mar|dec)\.", found) \
                or STRONG_DATE_CUE.search(line_before(text, start)):
            return True
        # "CXR MAR 12: CLEAR", "DUE BACK DEC 3": the month first, no measure's name before it ("UO
        # DEC 30"), no unit, decimal or range after the day, not a record read ("per MAR 12")
        return bool(re.match(r"(?i)(?:mar|dec)\s+\d{1,2}$", found)) and not (
            measurement_context(text, start, end) or re.match(r"\s*(?:[.,]\d|-\s*\d|/|(?:to|->|>)\s*\d)", text[end:end + 6])
            or _RECORD_BEFORE.search(line_before(text, start, 20))
            or (found[:1] in "dD" and _TITRATION_BEFORE.search(line_before(text, start, 40))))
    return True


# a drip being titrated before "DEC 5": the rate decreased, not December 5th
_TITRATION_BEFORE = re.compile(r"(?i)(?:wean|titrat|decreas|increas|gtt|drip|rate|pressor|sedation|propofol|levo|neo)")
_RECORD_BEFORE = re.compile(r"(?i)\b(?:per|the|see|check(?:ed)?|reviewed?|verified|on|in|from|by)\s*$")


# a unit or a count after a month's day: "DEC 2 UNITS" is a dose, not December 2nd
_UNIT_AFTER_DAY = re.compile(r"(?i)\s*(?:units?|u\b|mg|mcg|ml|cc|l\b|meq|mmol|%|x\b|times|items|doses?|tabs?|hrs?|hours|min)")


def _full_date_is_date(text: str, start: int, end: int) -> bool:
    """Whether a day, month and year in digits is a date and not a ventilator's settings
    ("489x12/5/40%", "PSV 10/5/40"): no rate's "x" before it, no "%" after it, and no measurement's
    name right before it unless a date word is ("on 3/14/98")."""
    if text[max(0, start - 1):start] in ("x", "X") or re.match(r"\s*%", text[end:end + 3]):
        return False
    before = line_before(text, start)
    if re.search(r"[/.-](?:19|20|21)\d\d$", text[start:end]):
        return True   # "07/02/2082 - 07/06/2082": no setting or reading has a year (notes_invented f41)
    return bool(STRONG_DATE_CUE.search(before) or _DICTATION_CUE.search(before)) or not measurement_context(text, start, end)


# a dictation line's "D: 01/21/84  T: 01/23/84" (dictated, transcribed): "T" is no temperature there,
# which is never written with two slashes
_DICTATION_CUE = re.compile(r"(?i)(?<![\w/])(?:[dt]|dd|dt|dictated|transcribed)\s*:\s*$")


def _dash_date_is_date(text: str, start: int, end: int) -> bool:
    """Whether a month-day with a dash ("11-6", "03-14") is a date and not a range ("RR 12-14",
    "1-2 L", "pain 7-3"): a possible day, no measurement's look, and a date's sign: a leading zero,
    a second number below the first (ranges go up), or a date word right before ("on 3-14")."""
    a, b = text[start:end].split("-")
    if not plausible_month_day(int(a), int(b)) or measurement_context(text, start, end):
        return False
    if start > 0 and text[start - 1].isalpha():
        return False   # "lenalidomide 25mg D1-14": a cycle's days (spec_invented find f03)
    if re.match(r"(?i)\s*(?:days?|d\b|wks?|weeks?|months?|mos?\b|yrs?|years?|episodes?|stools?|attempts?|people|of\b)",
                text[end:end + 12]):
        return False
    # "(ages 9-17)": children's ages (icu_invented_i find f12)
    if re.search(r"(?i)(?:\bx|\bq|\bfrom|\bto|\bbetween|\bof|\bages?|~|\+|-)\s*$", line_before(text, start, 12)):
        return False
    if a.startswith("0") or b.startswith("0") or int(b) < int(a):
        return True
    if int(a) >= 10 and int(b) - int(a) <= 4:
        # a narrow range of a pressure or a rate ("BLADDER PRESSURES 12-14", "CVP VIA PICC 12-14":
        # icu_invented_p find f166, f184) reads as October to December's days only after a date's word
        return bool(STRONG_DATE_CUE.search(line_before(text, start)))
    # a day past twelve that a range would not reach from a month's number ("3-14"); ranges of
    # round numbers ("10-20", "5-15") stay ranges
    if int(b) > 12 and not (int(a) % 5 == 0 and int(b) % 5 == 0):
        return True
    return bool(STRONG_DATE_CUE.search(line_before(text, start)))


# two whole dates with their years joined by a dash, the span of an authorization or a leave
# ("APPROVED 6/27/2025-6/26/2026": clinic_invented find f05): the dash hid each from the numeric
# pattern, which wants no digit, slash or dash beside a date; each end is marked, the dash is not
_WHOLE = r"(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])/(?:\d{4}|\d{2})"
_FULL_DATE_RANGE = re.compile(rf"(?<![\d/.-])(?P<a>{_WHOLE})[ \t]?[-\u2013][ \t]?(?P<b>{_WHOLE})(?![\d/-]|\.\d)")


@register(LOCALE, "dates", "DATE", score=0.9)
def dates(text: str, doc_id: str) -> list[Span]:
    """Numeric (01/20/2071, 1/20, 4/66), textual (January 5, 2071; 5th of March), seasonal
    (Spring 2071), weekday and holiday dates, and years after in/since/until/by."""
    found: list[tuple[int, int]] = []
    for k, rx in enumerate(_DATE_RES):
        for m in rx.finditer(text):
            if (_BARE_MAY.match(m.group()) and not (_MONTH_PREPOSITION.search(line_before(text, m.start(), 20))
                                                    or _EACH_BEFORE.search(line_before(text, m.start(), 20)))) \
                    or (k in _TEXTUAL and not _month_case_ok(m.group(), text, *m.span())) \
                    or (m.group()[:3].lower() == "may" and _SUBJECT_BEFORE.search(line_before(text, m.start(), 20))):
                continue   # "pt may 2 assist": a subject before "may" makes it the verb
            if _FRACTION.fullmatch(m.group()) and (_DOSE_AFTER.match(text, m.end()) or not _DATE_BEFORE.search(text_before(text, m.start(), 12))):
                continue  # "1/2 tab", "3/4 strength": a fraction, not January 2nd
            if k == _MONTH_DAY and not short_date_is_date(text, *m.span()):
                continue  # "MAE 5/5", "pain 3/10", "10/5 beats": a strength, a score, a ratio
            if k == _COMPACT and (not plausible_month_day(int(m.group()[4:6]), int(m.group()[6:]))
                                  or _ID_BEFORE.search(line_before(text, m.start(), 30))):
                continue  # "MRN 20670516": a record number
            if k in _FULL_NUMERIC and not _full_date_is_date(text, *m.span()):
                continue  # "AC 489x12/5/40%", "PSV 10/5/40": ventilator settings
            if k == _MONTH_DAY_DASH and not _dash_date_is_date(text, *m.span()):
                continue  # "RR 12-14", "1-2 L", "weaned 4-2": ranges
            found.append(m.span())
    found += [sp for m in DATE_RANGE.finditer(text) if date_range_ends(text, m) for sp in (m.span("a"), m.span("b"))]
    found += [sp for m in _FULL_DATE_RANGE.finditer(text) for sp in (m.span("a"), m.span("b"))]
    found += [m.span(1) for m in _BARE_YEAR.finditer(text) if m.group(1)[0] == "'" or year_is_date(text, *m.span(1))]
    found += [m.span() for m in _HISTORY_YEAR.finditer(text)
              if _history_year(text, m.start(), m.group()) and year_is_date(text, *m.span())
              and not re.search(r"[+-]\s*$", line_before(text, m.start(), 3))]
    found += [m.span("y") for m in _LIFE_EVENT_YEAR.finditer(text)]
    found += [m.span() for m in _SHORT_YEAR.finditer(text)]
    found += [m.span("y") for m in _WAS_YEAR.finditer(text) if int(m.group("y")[2:]) >= 60]
    found += [m.span("d") for rx in (_THE_ORDINAL, _CUE_THE_ORDINAL) for m in rx.finditer(text)
              if 1 <= int(re.match(r"\d+", m.group("d")).group()) <= 31]
    return merge_overlapping(found, doc_id, "DATE")
