"""A weekday written into a date: "Mon, 10 Feb 2025", "Thursday, June 26, 2025", "Thu 3/6",
"Friday 21st", "Saturday 8th".

Why: e-mail headers, chats and letters put the weekday before the day, abbreviated or with an
ordinal day and no month; :mod:`.dates` reads the date after it but leaves "Mon," or the
"Friday 21st" of a letter. The weekday needs a date right after it (a day number and a month, a
numeric date, or an ordinal day, its suffix in any case: "FRIDAY 21ST"), so a saturation's "Sat
98%" and "Sun exposure" stay. Found on
the invented PII texts' "find" half (benchmarks/pii_invented.py).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import line_of, mk
from pipeline.detection.rules.en.numbers import OPERATION_WORD
from pipeline.detection.rules.en.towns import mixed_case
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

_DAY = (r"(?:Mon(?:day)?|Tue(?:s|sday)?|Wed(?:nesday)?|Thu(?:r|rs|rsday)?|Fri(?:day)?|Sat(?:urday)?|Sun(?:day)?)")
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_WEEKDAY_DATE = re.compile(
    rf"(?<![\w])(?P<d>(?i:{_DAY})\.?,?[ \t]+(?:\d{{1,2}}(?i:st|nd|rd|th)?[ \t]+(?i:{_MONTH})(?:[ \t]+\d{{4}})?"
    # the month first, as US letters and portals write it ("Thursday, June 26, 2025": clinic_invented
    # find f05, psych_invented find f03); the comma between the weekday and the date was left out
    rf"|(?i:{_MONTH})[ \t]+\d{{1,2}}(?i:st|nd|rd|th)?(?:,?[ \t]+\d{{4}})?(?![ \t]*(?:%|mg|ml|mcg|units?)\b)"
    rf"|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?(?![ \t]*%)|\d{{1,2}}(?i:st|nd|rd|th)(?![ \t]*(?i:dose|day|week|cycle|line|degree))))(?![\w/])")


_ABBR = r"(?:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)"
# an abbreviated weekday after a date's preposition, closing its clause or before a time ("speech to
# see Mon.", "family meeting on Mon at 1400"; icu_invented_c find f10), and a dialysis schedule's
# weekdays ("HD Mon/Wed/Fri"); "cont to mon closely", "O2 sat 92%", "sun exposure" stay
# a visit's or a plan's day before "w/", "to", "with", "for" ("plans to come in Sat w/ her brother",
# "continue current care through Sat to allow the other son to get here": icu_invented_s find f17,
# icu_invented_r find f22); "in" only before those ("in sat 88%" is a saturation)
_ABBR_AFTER_CUE = re.compile(
    # (and when a stroke's patient was last seen well: "LAST SEEN WELL SAT.", "lkw fri": icu_invented_p find f92)
    rf"(?i:\b(?:on|by|until|till|this|next|last|since|see|seen|before|after|thru|through|(?:seen|known)[ \t]+well|"
    # (and when family lands: "(ARRIVES SAT AM)": icu_invented_p find f196)
    rf"lkw|lsw|lnw|arrives|arriving|arrive|visit|visiting|"   # ("WILL VISIT SAT.": icu_invented_p find f223)
    # (and a visit's "come": "she will come sat.": icu_invented_p find f876)
    rf"come|comes|coming|"
    # (and an arrival, a return to work: "earliest arrival SAT", "has to go back to work Mon.":
    # icu_invented_p find f995, f948)
    rf"arrival|(?:back|return|returns|returning)[ \t]+to[ \t]+work|"
    # (and what is soonest: "says earliest is sat.": icu_invented_p find f1251)
    rf"earliest(?:[ \t]+is)?|"
    # (and the part of a day: "on the Tobin Bridge early Sat am": icu_invented_p find f1122)
    rf"early|"
    # (when a trial or a device started or ended: "Clamp trial started Sat 0800, failed Sun 0200": f464)
    rf"started|failed|began|stopped|restarted|resumed|placed|removed|pulled|extubated|intubated|"
    # when a habit last happened ("last drink sat am per pt", "LAST USED FRI": icu_invented_p find f131),
    # and a dialysis session's day ("after missing hd mon (snowstorm)": find f158)
    # (who told it between: "last drink per pt sat am": icu_invented_p find f292)
    rf"last[ \t]+(?:drink|drank|use|used|ate|dose|dosed|smoked)(?:[ \t]+(?:was|on|per[ \t]+(?:pt|patient|wife|husband|family)))?|"
    rf"(?:hd|dialysis|hemodialysis))[ \t]+)(?P<d>(?i:{_ABBR})\.?)"
    # (or a reason after "as": "CANT GET IN UNTIL SAT AS HER RIDE ...": icu_invented_p find f257)
    # (or a dash's clause: "MISSED HD SAT - PER DAUGHTER", "last dosed sat am": icu_invented_p find f773, f782)
    # (or what the day waits on: "she will try to come sun when roads are clear": icu_invented_p find f963;
    # or its noon: "last drink sat noon per pt": f1189; "per" stays out: "Cont HD Mon per renal" monitors)
    r"(?=[ \t]*(?:[.,;()]|[ \t]-[ \t]|\n|$|(?i:at|@|am|pm|morning|evening|night|noon|midnight|as|when|if)\b|\d{3,4}\b|(?i:w/|with\b|to\b|for\b)))"
    # (or down, up, over: "PLANS TO DRIVE DOWN SAT AM", "fly in Sat and stay": icu_invented_p find f275, f372)
    # (and who sent or brought the patient in: "sent in Sat w/ fever": icu_invented_p find f1307)
    rf"|(?i:\b(?:come|coming|comes|be|back|fly|flying|drive|driving|sent|brought)[ \t]+(?:in|down|up|over)[ \t]+)(?P<d2>(?i:{_ABBR})\.?)"
    r"(?=[ \t]*(?:[.,;)]|\n|$|(?i:w/|with\b|to\b|for\b|at\b|am\b|pm\b|and\b|morning|evening|night)))")
# a working day's abbreviation closing a sentence after a plan's word ("PLAN: ?VALVULOPLASTY MON.":
# icu_invented_d find f02); "cont to mon.", "will mon." are a monitor's; "Sat" and "Sun" are too
# often a saturation or the sun
_ABBR_CLOSING = re.compile(r"(?<![\w/])(?P<d>(?i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri))\.?(?=[ \t]*(?:\n|$))", re.MULTILINE)
# an abbreviated weekday before the part of the day ("collapsed at a restaurant Sat evening":
# icu_invented_f find f12); "Sat" only before a part's word, never before "am"/"pm" ("sat am 92%"),
# "Sun" before those too ("back into silo Sun AM": icu_invented_n find f13)
_ABBR_PART_OF_DAY = re.compile(
    r"(?<![\w/])(?P<d>(?i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sun)\.?(?=[ \t]+(?i:am|pm)\b)|(?i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\.?"
    r"(?=[ \t]+(?i:morning|evening|afternoon|night|nite|noc|eve|overnight)\b))")   # "LATE ENTRY FOR SAT NOC" (icu_invented_p find f121)
# the day an event happened or is set for, closing its clause ("S/P AVR ..., SURGERY MON. DNR":
# icu_invented_j find f17)
_EVENT_DAY = re.compile(
    r"(?i)\b(?:surgery|surg|cath|procedure|extubated|extubation|intubated|trach|peg|transfer(?:red)?|discharge|"
    r"admitted|adm|appt|appointment|scheduled|planned|biopsy|egd|colonoscopy|tee|mri|arrest|fell|fall|"
    # an operation by its kind ("s/p graft excision Sun.": icu_invented_l find f19)
    rf"excision|resection|repair|amputation|debridement|placement|removal|insertion|{OPERATION_WORD})[ \t]+"
    # where it happened may come between ("82 yo M, fall at home Sat w/ R hip fx": icu_invented_p find f45)
    # (or where it came: "transferred here sun.": icu_invented_p find f1168)
    r"(?:(?:at|in)[ \t]+home[ \t]+|(?:here|there|back)[ \t]+)?"
    r"(?P<d>(?i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun))\.?(?=[ \t]*(?:[.,;)]|\n|$|w/))", re.MULTILINE)
# an abbreviated weekday right after the clock time it qualifies, closing its clause ("lkw 2200 sat.
# found on kitchen floor": icu_invented_p find f67); "SAT 94%", "sat 88 on RA", "0900 SAT, 1000 SBT"
# (an awakening trial, :func:`_trial`) stay
_CLOCK_THEN_DAY = re.compile(r"(?<![\w/.:-])(?:[01]\d|2[0-3]):?[0-5]\d[ \t]+(?:(?:on|of)[ \t]+)?"
                             rf"(?P<d>(?i:{_ABBR}|Thur)\.?)(?=[ \t]*(?:[.,;)]|\n|$))")
# a working day's abbreviation before the clock time it qualifies ("(WRITTEN MON 0900, SYSTEM WAS
# DOWN)": icu_invented_p find f121); "Sat" and "Sun" are too often a saturation or the sun, and "cont
# to mon 2200" is a monitor's (:data:`_MONITOR_BEFORE`)
_DAY_THEN_CLOCK = re.compile(r"(?<![\w/])(?P<d>(?i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri))\.?[ \t]+(?:@[ \t]*)?(?:[01]\d|2[0-3]):?[0-5]\d(?![\w/.:-])")
_MONITOR_BEFORE = re.compile(r"(?i)\b(?:to|will|cont|continue|q|and|&|on|of)[ \t]+$|\d[ \t]*$")
_SCHEDULE = re.compile(rf"(?<![\w/])(?P<d>(?i:{_ABBR})(?:/(?i:{_ABBR})){{1,3}})(?![\w/])")


def _trial(text: str, m: re.Match) -> bool:
    """Whether "SAT" after a cue is a sedation's spontaneous awakening trial ("plan SBT after SAT":
    icu_invented_g find f14): in capitals in a line with lower case, or beside its breathing trial."""
    day = m.group("d").rstrip(".")
    if day.lower() != "sat":
        return False
    return (day.isupper() and mixed_case(text, m.start())) or re.search(r"(?i)\bsbt\b", line_of(text, m.start())) is not None


@register(LOCALE, "weekday_dates", "DATE", score=0.86)
def weekday_dates(text: str, doc_id: str) -> list[Span]:
    """A weekday with the date it heads (day and month, numeric, or an ordinal day)."""
    out = []
    for m in _WEEKDAY_DATE.finditer(text):
        parts = re.search(r"(\d{1,2})/(\d{1,2})", m.group("d"))
        if parts:   # "Sat 90/60" is a pressure: a numeric date needs a month and a day
            a, b = int(parts.group(1)), int(parts.group(2))
            if not ((1 <= a <= 12 and 1 <= b <= 31) or (1 <= a <= 31 and 1 <= b <= 12)):
                continue
        out.append(mk(doc_id, *m.span("d"), "DATE"))
    for m in _ABBR_AFTER_CUE.finditer(text):
        if m.group("d2") is not None:
            out.append(mk(doc_id, *m.span("d2"), "DATE"))
        elif not _trial(text, m):
            out.append(mk(doc_id, *m.span("d"), "DATE"))
    for m in _ABBR_CLOSING.finditer(text):
        before = text[max(0, m.start() - 12):m.start()]
        if re.search(r"[A-Za-z?][ \t]+$", before) and not _MONITOR_BEFORE.search(before):
            out.append(mk(doc_id, *m.span("d"), "DATE"))
    out += [mk(doc_id, *m.span("d"), "DATE") for m in _EVENT_DAY.finditer(text)]
    out += [mk(doc_id, *m.span("d"), "DATE") for m in _CLOCK_THEN_DAY.finditer(text) if not _trial(text, m)]
    for m in _ABBR_PART_OF_DAY.finditer(text):
        if not re.search(r"(?i)(?:\b(?:o2|spo2|02|to|will|cont|continue|q)|\d)[ \t]*$", text[max(0, m.start() - 12):m.start()]):
            out.append(mk(doc_id, *m.span("d"), "DATE"))
    for m in _DAY_THEN_CLOCK.finditer(text):
        if not _MONITOR_BEFORE.search(text[max(0, m.start() - 12):m.start()]):
            out.append(mk(doc_id, *m.span("d"), "DATE"))
    for m in _SCHEDULE.finditer(text):
        at = m.start("d")
        for day in m.group("d").split("/"):
            out.append(mk(doc_id, at, at + len(day), "DATE"))
            at += len(day) + 1
    return out
