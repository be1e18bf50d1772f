"""What the words around a number say it is, in English clinical notes.

A nurse's note is full of numbers that are not identifiers: vitals ("HR 90-100", "BP
120-130/60-70"), labs ("K 3.9"), doses ("lasix 40 mg"), scores and strengths ("GCS 15", "MAE
5/5", "pain 3/10"), ratios, settings and times ("@ 1400", "0400"). A number is an age only when
the text says so ("78 yo", "age 90"), a date only with a date's shape that is a possible date and
not a measurement, a phone number only with a phone's shape or a label. The rules
(:mod:`.dates`) and the ``en`` pack's merged-stage step
(:mod:`pipeline.locales.en.numbers`, for a model's spans) ask the same functions here.
"""
from __future__ import annotations

import re

# a measurement's name written right before its value ("HR 90", "K 3.9", "MAE 5/5", "PS 5/5",
# "pain 3/10", "I/O 2400/1800"): vitals, ventilator settings, labs, scores, weights
MEASURES = (
    "hr|heart rate|pulse|p|bp|sbp|dbp|map|nbp|nibp|abp|art|a-line|aline|cvp|pap|pas|pad|pa|pcwp|wedge|ci|co|svr|"
    "svo2|scvo2|rr|resp|resps|sat|sats|spo2|sao2|o2 sat|o2sat|o2|fio2|peep|ps|psv|cpap|bipap|ipap|epap|tv|vt|"
    "rate|temp|t|tmax|t max|tm|tc|icp|cpp|rsbi|nif|mv|ve|pip|pplat|plat|gcs|rass|cam|pain|strength|mae|motor|"
    "grip|grade|score|apache|apache ii|sofa|wt|weight|ht|height|bmi|i/o|i&o|ins|outs|uo|los|fs|bs|fsbs|"
    "fingerstick|glucose|gluc|glu|bg|k|na|cl|co2|hco3|bun|cr|creat|creatinine|bun/cr|mg|phos|ca|ica|hct|hgb|hb|"
    "wbc|plt|plts|platelets|inr|ptt|pt/ptt|lactate|lact|ck|cpk|trop|tropo|troponin|abg|vbg|ph|pco2|po2|alb|ast|"
    "alt|alk phos|tbili|bili|lipase|amylase|ammonia|vanco|trough|level|dose|ratio|x|q|goal|range|drip|gtt|rhythm|"
    "sr|nsr|st|af|afib|vt|beats|strength|ppd|pack years|qtc|pr|qrs|ef|lvef|fev1|peak flow|edema|pulses|"
    # a machine's settings ("home settings 12/5" of a BiPAP: icu_invented_e find f20)
    "settings|setting|set at|"
    # bedside scores ("CIWA 12-16", "COWS 8", "NIHSS 4-6")
    "ciwa|ciwa-ar|cows|cpot|braden|morse|nihss|mmse|moca|cam-icu|"
    # a newborn's scores ("Apgars 8/9": icu_invented_f find f27)
    "apgar|apgars|apgar scores?|"
    # a chest tube's air leak on its 1-7 scale and exertion on the Borg scale ("AIRLEAK 2/7", "RPE 11-13":
    # icu_invented_s find f11, icu_invented_r find f07)
    "air ?leak|rpe|borg|"
    # a mode and its pressure support written as one ("RESP: CPAP/PS 10/5": icu_invented_p find f106)
    "cpap/psv?|bipap/psv?|cpap ?\\+ ?psv?|"
    # a course's day of its length ("ZOSYN DAY 5/7": icu_invented_p find f122)
    "day"
)
_MEASURE_BEFORE = re.compile(rf"(?i)(?<![\w/])(?:{MEASURES})\s*(?:[:=~]|of|at|@|is|was|now|down to|up to)?\s*[<>]?\s*$")
# units and counting words after a value ("40 mg", "5/5 strength", "10/5 beats", "2-3 units/hr")
_UNIT_AFTER = re.compile(
    r"(?i)^\s*(?:%|mg|mcg|ug|g|gm|grams?|kg|lbs?|ml|cc|l|liters?|litres?|units?|u|meq|mmol|mmhg|mm|cm|ft|feet|"
    r"inches|bpm|beats|breaths|mins?|minutes?|hrs?|hours?|h|secs?|seconds?|x|times|degrees|deg|°|strength|drops?|"
    r"gtts?|puffs?|tabs?|tablets?|caps?|capsules?|amps?|bags?|doses?|liter|ngt|French|fr|gauge|g\b|mEq|mm\s*hg|"
    r"mcg/kg/min|mcg/min|mg/hr|mg/h|ml/hr|cc/hr|/hr|/h|/min|strength|sec|"
    # a duration and what is counted ("repeat CT in 1-2 wks", "12-18 beers/d": icu_invented_g find f03, f14)
    r"days?|wks?|weeks?|months?|mos|yrs?|years?|beers?|drinks?|cigarettes?|cigs|packs?|episodes?|stools?|voids?)(?![a-z])")
# what is one value among others in a line of values ("120-130/60-70", "7.38/42/98/24"): the
# number touches another number through a slash or a dash
_TOUCHES_NUMBER = re.compile(r"\d\s*[/-]\s*$")
_TOUCHES_NUMBER_AFTER = re.compile(r"^\s*[/-]\s*\d")

# words that say a date follows, and override a measurement's look ("on 5/5", "admitted 3/14")
#: an operation named by its ending ("hemiarthroplasty", "colectomy", "bronchoscopy"), before its day
OPERATION_WORD = r"[a-z]+(?:ectomy|otomy|ostomy|plasty|scopy)"
STRONG_DATE_CUE = re.compile(
    r"(?i)(?<![\w/])(?:on|since|dated?|date\s+of\s+(?:service|birth|admission|discharge|visit|procedure|surgery|exam|"
    r"study|injury|death|transfer)|dos|dob|d\.o\.b\.?|until|till|thru|through|as of|admitted|admission|adm|"
    r"discharged?|d/c'?d|born|birth|surgery|s/p|visit|appt|appointment|seen|started|starting|effective|note|"
    # an operation or an airway event and its day ("ex-lap 3-12": icu_invented_k find f03)
    r"ex-?lap|laparotomy|craniotomy|cabg|intubated|extubated|trach'?d|trached|"
    # (and an operation by its ending, a catheterisation: "R HEMIARTHROPLASTY 3/6": icu_invented_p find
    # f1207; a fraction's look after "cath" stays a fraction, "cath 1/2 way in")
    rf"{OPERATION_WORD}|cath|"
    # (and a trach's or a PEG's day: "s/p trach 12/29 and PEG 1/3", "PEG 4/5 by GI": f1359, f1348)
    r"trach|peg|"
    # a course's first or last day, though "dose" is a measure's name ("CIPRO ... (LAST DOSE 6/30)":
    # icu_invented_p find f62); "dose 1/2" alone stays a measure
    r"(?:last|first|final|1st)\s+dose(?:\s+(?:given|due))?|(?:stop|start|end)\s+date|due|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|weds|thu|thur|thurs|fri|sun)"
    r"\s*[:#]?\s*(?:on\s+)?$")

# a culture and the day it was drawn ("Blood cx 1/6", "urine culture 12/3"), unless bottles follow
# a culture or a ventilator's mode earlier on the line
_CULTURE_ON_LINE = re.compile(r"(?i)(?<![\w/])(?:bcx|ucx|cx|cultures?)\b")
_VENT_MODE_ON_LINE = re.compile(r"(?i)(?<![\w/])(?:psv?|cpap|bipap|peep|simv|prvc|aprv|ps/peep)\b")
_CULTURE_BEFORE = re.compile(r"(?i)(?<![\w/])(?:cx|cultures?|bcx|ucx|sputum|swab)\s*:?\s*$")
# bottles, or what grew in them ("BCx 2/2 E coli", "BLOOD CX 2/2 GPC": icu_invented_c find f20,
# icu_invented_e find f11)
_BOTTLES_AFTER = re.compile(r"(?i)\s*(?:bottles?|sets?|pos(?:itive)?\b|neg(?:ative)?\b|\+|growing|w/|with|"
                            r"(?:gpc|gnr|gpr|gnc|gram|staph|strep|mrsa|mssa|vre|e\.?[ \t]?coli|klebs?|kleb|pseudomonas|"
                            r"enterococc\w*|yeast|candida|cocci|rods|ngtd|no[ \t]+growth|pending|pend|cons|coag)\b)")

_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
# a strength, a grade or a score out of 4, 5, 6 or 10 ("MAE 5/5", "4+/5", "pain 3/10", "pulses 2/4",
# a "3/6" murmur)
_SCORE = re.compile(r"(\d{1,2})\+?/(4|5|6|10)")


def line_before(text: str, i: int, width: int = 40) -> str:
    """Up to ``width`` characters before ``i`` on the same line."""
    start = max(0, i - width)
    nl = text.rfind("\n", start, i)
    return text[(nl + 1 if nl >= 0 else start):i]


def line_after(text: str, i: int, width: int = 30) -> str:
    """Up to ``width`` characters from ``i`` on the same line."""
    end = min(len(text), i + width)
    nl = text.find("\n", i, end)
    return text[i:(nl if nl >= 0 else end)]


def measure_before(text: str, start: int) -> bool:
    """Whether a measure's name stands right before ``start`` on its line ("SVR 900-1100")."""
    return _MEASURE_BEFORE.search(line_before(text, start)) is not None


def measurement_context(text: str, start: int, end: int) -> bool:
    """Whether the value at ``[start, end)`` reads as a measurement: a measure's name right before,
    a unit right after, or another number joined to it by a slash or a dash."""
    before, after = line_before(text, start), line_after(text, end)
    return bool((_MEASURE_BEFORE.search(before) and not _CANCER_CA.search(before)) or _UNIT_AFTER.match(after)
                or _TOUCHES_NUMBER.search(before) or _TOUCHES_NUMBER_AFTER.match(after))


# "ca" after a cancer's site is the cancer, not calcium ("PROSTATE CA 1998 S/P XRT": icu_invented_p find f102)
_CANCER_CA = re.compile(r"(?i)\b(?:prostate|breast|lung|colon|colorectal|rectal|bladder|cervical|ovarian|pancreatic|"
                        r"pancreas|renal|kidney|skin|throat|tongue|uterine|endometrial|thyroid|gastric|stomach|"
                        r"esophageal|liver|laryngeal|oral|anal|testicular|metastatic|squamous)[ \t]+ca[ \t]*$")


def plausible_month_day(month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= _DAYS_IN_MONTH[month - 1]


# two month/days joined by a dash: a course of days ("abx 3/12-3/20", "3/12 - 3/14")
DATE_RANGE = re.compile(r"(?<![\d/.,-])(?P<a>(?P<m1>\d{1,2})/(?P<d1>\d{1,2}))[ \t]?-[ \t]?"
                        r"(?P<b>(?P<m2>\d{1,2})/(?P<d2>\d{1,2}))(?![\d/]|[.,]\d)")


def date_range_ends(text: str, m: re.Match) -> bool:
    """Whether a :data:`DATE_RANGE` match is a course of days and not a range of values ("PS
    10/5-12/5", "pain 3/10-5/10", "BP 110/60-120/70"): two possible days, the second after the
    first and within two months of it, no score's denominator, no measurement's name before and
    no unit after."""
    m1, d1, m2, d2 = (int(m.group(g)) for g in ("m1", "d1", "m2", "d2"))
    if not (plausible_month_day(m1, d1) and plausible_month_day(m2, d2)):
        return False
    if not ((m2, d2) > (m1, d1) and (m2 - m1) % 12 <= 2):
        return False
    if _SCORE.fullmatch(m.group("a")) or _SCORE.fullmatch(m.group("b")):
        return False
    return not (_MEASURE_BEFORE.search(line_before(text, m.start())) or _UNIT_AFTER.match(line_after(text, m.end())))


def _in_date_range(text: str, start: int, end: int) -> bool:
    """Whether ``[start, end)`` is one end of a course of days (:func:`date_range_ends`)."""
    s = max(0, start - 7)
    for m in DATE_RANGE.finditer(text, s, min(len(text), end + 7)):
        if (m.span("a") == (start, end) or m.span("b") == (start, end)) and date_range_ends(text, m):
            return True
    return False


# a gestational age's weeks and days ("ex 29 wk, now 31 4/7 CGA": icu_invented_f find f06): the
# weeks right before, or the week's word after
_WORD_AFTER = re.compile(r"[ \t]+[A-Za-z]{2,}")
_WEEKS_BEFORE = re.compile(r"(?<![\d/.])(?:2\d|3\d|4[0-4])[ \t]+$")
_GESTATION_AFTER = re.compile(r"(?i)[ \t]*(?:wks?|weeks?|ga|cga|pma|pca|gestation)\b")


# a day's time right after it ("Steady state level 3/6 0600", "Arrival 12/24 21:14"), a stay's day
# number before it ("Hospital day #3 (3/6)"), an appointment on its line ("clinic (Dr. Szabo), 3/5"):
# icu_invented_g find f04, f07
_CLOCK_AFTER = re.compile(r"[ \t]+(?:[01]\d|2[0-3]):?[0-5]\d(?![\d/.,]\d|\d)(?![ \t]*(?:mg|mcg|ml|cc|units?|u)\b)")
_DAY_NUMBER_BEFORE = re.compile(r"(?i)\b(?:hospital[ \t]+day|hd|pod|icu[ \t]+day|day)[ \t]*#?[ \t]*\d{1,3}[ \t]*[(,:-][ \t]*$")
_DAY_COUNT_BEFORE = re.compile(r"(?i)\b(?:pod|hd|post-?op[ \t]+days?|hospital[ \t]+days?|icu[ \t]+days?|days?)[ \t]*#?[ \t]*$")
# the scores a time may follow ("pain 3/10 0800"): no date
_SCORE_MEASURE_BEFORE = re.compile(r"(?i)\b(?:pain|strength|motor|mae|grip|grade|score|pulses?|edema|murmur|ps|peep|"
                                   r"cpap|bipap|apgars?)[ \t]*[:=]?[ \t]*$")
_PLACED_BEFORE = re.compile(r"(?i)\b(?:placed|inserted)[ \t]*(?:on[ \t]*)?$")
_FOLLOW_UP_BEFORE = re.compile(r"(?i)\b(?:f/u|follow[ -]?up|clinic|appt|appointment)\b[^\n]{0,60}$")


def short_date_is_date(text: str, start: int, end: int) -> bool:
    """Whether a month/day without a year (``3/14``, ``10/5``, ``5/5``) at ``[start, end)`` is a
    date: a possible day of the year, and either a date word right before ("on", "since",
    "admitted") or neither a measurement's look (:func:`measurement_context`) nor a score's
    ("5/5", "4/5", "3/6", "3/10": "improved from 3/5 to 4/5", "relief to 2/10")."""
    value = text[start:end]
    m = re.fullmatch(r"(\d{1,2})[/-](\d{1,4})", value)
    if not m:
        return False
    month, second = int(m.group(1)), int(m.group(2))
    if second <= 31 and not plausible_month_day(month, second):
        return False
    before = line_before(text, start)
    if re.search(r"(?i)\bages?[ \t]*$", before):
        return False   # "3 kids (ages 9-17)" (icu_invented_i find f12)
    if "-" in value and _DAY_COUNT_BEFORE.search(before):
        return False   # "Staples out POD 10-14": a range of a stay's days (icu_invented_q find f10)
    if STRONG_DATE_CUE.search(before) or _in_date_range(text, start, end):
        return True
    if second <= 4 and month <= second and _CULTURE_ON_LINE.search(before):
        return False   # "BCx x2 from OSH: GNR in 2/2": bottles of a culture (icu_invented_m find f01)
    if _VENT_MODE_ON_LINE.search(before) and re.search(r"(?i)\b(?:to|from|at|on|of)[ \t]*$", before):
        return False   # "PSV decreased to 8/5 at 1400": a ventilator's setting (icu_invented_m find f07)
    if value == "2/2" and _WORD_AFTER.match(text, end):
        return False   # "ESRD 2/2 IgA nephropathy": "secondary to" (icu_invented_h find f10)
    if second == 7 and month < 7 and (_WEEKS_BEFORE.search(before) or _GESTATION_AFTER.match(text, end)):
        return False   # "now 31 4/7 CGA", "GA 33 2/7 wks": a gestation's days of its week
    if (_CLOCK_AFTER.match(text, end) and not _SCORE_MEASURE_BEFORE.search(before)) or _DAY_NUMBER_BEFORE.search(before):
        return True    # "level 3/6 0600", "Hospital day #3 (3/6)": a day and its time, a stay's day
    if _CULTURE_BEFORE.search(before):   # "Blood cx 1/6 from OSH grew GNR" (icu_invented_b find f13);
        # "BCx 2/2 bottles" counts bottles, never more than four ("SURVEILLANCE CX 3/8 NGTD": icu_invented_p find f265)
        return second > 4 or not _BOTTLES_AFTER.match(text, end)
    if _PLACED_BEFORE.search(before) and month <= 12 and 1 <= second <= 31:
        return True    # "QUINTON (PLACED 3/5)": the day a line went in (icu_invented_p find f265)
    if measurement_context(text, start, end):
        return False
    if _FOLLOW_UP_BEFORE.search(before):
        return True    # "Hematology clinic (Dr. Szabo), 3/5, with CBC": an appointment's day
    return not (_SCORE.fullmatch(value) and int(m.group(1)) <= int(m.group(2)))


_CLOCK = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d")
_TIME_BEFORE = re.compile(r"(?i)(?:@|\bat|\bby|\buntil|\btill|\bbefore|\bafter|\baround|\babout|\bapprox\.?|~|\bq|"
                          r"\bfrom|\bto|\bbetween|\bsince|\bdue)\s*$")
# ("WAITING TIME COUNTS FROM 2008": spec_invented find f02; "from 2000 to 0600" stays a time)
_SINCE_YEAR_BEFORE = re.compile(r"(?i)\b(?:since|from)\s*$")
_TIME_AFTER = re.compile(r"(?i)^\s*(?:hrs?|hours|h|pm|am|o'?clock)\b")


def year_is_date(text: str, start: int, end: int) -> bool:
    """Whether a four-digit number alone at ``[start, end)`` is a year and not a time or a value:
    not a clock time after "@"/"at"/"by"/"until"/... or before "hrs", not a measurement."""
    value = text[start:end]
    if not re.fullmatch(r"(?:1[89]|2[01])\d\d", value):
        return False
    if value.startswith("18") and _CLOCK.fullmatch(value):
        return False   # "CK 2650 (1800)": six o'clock; no note dates a clinical event 1800-1859 (icu_invented_j find f01)
    before, after = line_before(text, start), line_after(text, end)
    if _CLOCK.fullmatch(value) and (_TIME_BEFORE.search(before) or _TIME_AFTER.match(after)) \
            and not (_SINCE_YEAR_BEFORE.search(before) and int(value[2:]) % 5 and not _TIME_AFTER.match(after)):
        # after "since" or "from", a clock time whose minutes are no multiple of five is a year ("on methadone
        # since 2002": icu_invented_j find f14); "NPO since 2000", "since 2130" stay times
        return False
    if _INTAKE_LINE.match(text, text.rfind("\n", 0, start) + 1) or _IN_OUT.search(before) and _OUT_AFTER.match(after):
        return False   # "I&O: IN 1900, OUT 2350": volumes (icu_invented_f find f07)
    if _CLOCK.fullmatch(value) and (_EARLY_CLOCK_NEXT.match(after) or _EARLY_CLOCK_BEFORE.search(before)):
        return False   # "doses (1900, 0300 due)": a list of times, since no year starts with 0 (icu_invented_p find f09)
    if _CLOCK.fullmatch(value) and _VALUE_BEFORE_BRACKET.search(before) and after.startswith(")"):
        return False   # "bs q1h: 412 (2000), 298": a value and its clock time in brackets (icu_invented_p find f282)
    if _CLOCK.fullmatch(value) and _in_clock_list(text, start, end):
        return False   # "x5 doses (2000, 2200, 2330, 0130, 0400)": a list of times (icu_invented_p find f61)
    return not measurement_context(text, start, end)


_VALUE_BEFORE_BRACKET = re.compile(r"(?<![\w/.-])\d{2,4}(?:\.\d+)?[ \t]*\($")
# a clock time before midday beside a number in a list ("1900, 0300", "2000/0400"), which no year is
_EARLY_CLOCK_NEXT = re.compile(r"[ \t]*[,/&][ \t]*(?:and[ \t]+)?0\d[0-5]\d(?!\d)")
_EARLY_CLOCK_BEFORE = re.compile(r"(?<!\d)0\d[0-5]\d[ \t]*[,/&][ \t]*(?:and[ \t]+)?$")
# three or more clock times in a list ("2000, 2200, 2330"), one of which no year is (before 1800 or
# after :data:`LATEST_YEAR`), so that a list of years ("MI 2001, 2005, 2010") stays
# (a note's past is no later than this: "valium x3 (2000, 2045, 2130)": icu_invented_p find f343)
LATEST_YEAR = 2039
_CLOCK_LIST = re.compile(r"(?<![\d/.:-])(?:[01]\d|2[0-3])[0-5]\d(?:(?:[ \t]*[,/&;][ \t]*(?i:and[ \t]+)?|[ \t]+(?i:and)[ \t]+)"
                         r"(?:[01]\d|2[0-3])[0-5]\d"
                         r"(?![\d/.:-]\d|\d)){2,}")


def _in_clock_list(text: str, start: int, end: int) -> bool:
    """Whether ``[start, end)`` is one of a list of clock times (:data:`_CLOCK_LIST`)."""
    ls = text.rfind("\n", 0, start) + 1
    le = text.find("\n", end)
    for m in _CLOCK_LIST.finditer(text, ls, le if le >= 0 else len(text)):
        if m.start() <= start and end <= m.end():
            return any(not 1800 <= int(v) <= LATEST_YEAR for v in re.findall(r"\d{4}", m.group()))
    return False


# a line of intake and output, whose numbers are volumes; and "in N, out M" anywhere
_INTAKE_LINE = re.compile(r"(?i)[ \t]*(?:i[ \t]*&[ \t]*o|i/o|i\+o|ins?[ \t]*/[ \t]*outs?|intake|24[ \t]*h(?:r|our)?s?[ \t]+"
                          r"(?:i&o|i/o|totals?|intake))\b")
_IN_OUT = re.compile(r"(?i)(?:^|[:;,(])[ \t]*in[ \t]*:?[ \t]*$")   # "I&O: IN 1900", not "born in 1935, out of state"
_OUT_AFTER = re.compile(r"(?i)[ \t]*[,;/]?[ \t]*(?:out|uop|output)\b")


AGE_AFTER = re.compile(
    r"(?i)^\s*-?\s*(?:yo\b|y/o\b|y\.o\b|yr?s?\b|years?\b|-?year|yo[mf]\b|y[mf]\b|m\b(?!\s*[/g])|f\b|male|female|"
    r"man\b|woman|gentleman|gent\b|lady|boy|girl|mo\b|months? old|(?:st|nd|rd|th)\s+birthday)")
AGE_BEFORE = re.compile(r"(?i)(?:\bage[sd]?|\bage of|\bage:|\bat age|\bage\s*=|\bturn(?:ed|s|ing)|\bage\s*/\s*(?:sex|gender)|"
                        r"\b(?:sex|gender)\s*/\s*age\s*:?\s*(?:[mf]|male|female)\s*/|"
                        r"\b(?:pt|patient|he|she|who|husband|wife|spouse|mother|father|mom|dad|sister|brother)\s+is\s+"
                        r"(?:now\s+|only\s+)?|"
                        r"\b(?:man|woman|gentleman|lady|gent|male|female)\s+of|\bage\s*(?:\((?:years?|yrs?)\)|in\s+years))"
                        r"\s*:?\s*[<>~]?\s*$")
_DOB_BRACKET = re.compile(r"(?i)\b(?:dob|d\.o\.b\.?|date\s+of\s+birth|birth\s*date)\b[^\n()]{1,30}?\(\s*(?:age\s*:?\s*)?$")
_DECADE_BEFORE = re.compile(r"(?i)\b(?:his|her|their|early|mid|late|in (?:his|her|their)?)\s*-?\s*$")


# a relative's age at an event ("brother with MI at 49", "Mother died of stroke at 66."): "at" before
# the number, the clause ending after it (no unit, no clock time), a kin word or a death earlier on
# the line (found on benchmarks/data/notes_invented find f01)
_AT_BEFORE = re.compile(r"(?i)\bat[ \t]+(?:age[ \t]+)?$")
_CLAUSE_END = re.compile(r"(?i)[ \t]*(?:[).,;]|$|of\b|from\b|after\b|with\b)")
_KIN_OR_DEATH = re.compile(r"(?i)\b(?:mother|father|mom|dad|brother|sister|sibling|aunt|uncle|grandmother|grandfather|"
                           r"cousin|parents?|died|passed\s+away|deceased|fh)\b")


def relative_age_at(text: str, start: int, end: int) -> bool:
    """Whether the number at ``[start, end)`` is a relative's age at an event (see above)."""
    return bool(_AT_BEFORE.search(line_before(text, start, 12)) and _CLAUSE_END.match(line_after(text, end))
                and _KIN_OR_DEATH.search(line_before(text, start, 60)))


def age_context(text: str, start: int, end: int) -> bool:
    """Whether the number at ``[start, end)`` is said to be an age: "yo", "y/o", "year old", "M"/"F",
    "male" after it, "age"/"aged" before it, or "his"/"her"/"early" before a decade ("her 80s")."""
    value = text[start:end]
    before, after = line_before(text, start), line_after(text, end)
    if AGE_AFTER.match(after) or AGE_BEFORE.search(before) or _DOB_BRACKET.search(line_before(text, start, 60)) \
            or relative_age_at(text, start, end):
        return True
    return bool(re.fullmatch(r"\d0'?s", value) and _DECADE_BEFORE.search(before))


# (a pager's "pg" and a number in brackets after "paged": "pg 4-2213", "PAGED STAT (8-0917)": icu_invented_p
# find f243, f246)
_PHONE_LABEL = re.compile(r"(?i)(?:phone|ph|tel|telephone|cell|mobile|pager|beeper|pgr|\bpg|page[d]?|beep(?:ed)?|"
                          r"call(?:ed)?|contact|fax|number|ext|#|\bpaged(?:[ \t]+(?:stat|again))?[ \t]*\()"
                          r"\s*[.:#]?\s*(?:at|is|number|#)?\s*:?\s*$")
_EXTENSION_CONTEXT = re.compile(r"(?i)\b(?:pager|beeper|pgr|phone|tel|call|ext|extension)\b|#\s*\d")
_PHONE_SHAPE = re.compile(r"(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s./-]?)\d{3}(?:[\s.-]?|[ \t]-[ \t])\d{4}|\d{3}[\s.-]\d{4}|"
                          r"\+[2-9]\d{0,2}(?:[ .-]\d{1,4})(?:[ .-]\d{2,4}){1,3}|0\d{2,4}[ -]\d{3,4}[ -]\d{3,4}")


# someone asks to be called on what follows ("text me on", "ring us on", "call him at", "reach me
# at"): a letter's or a message's way to give a number, where no label stands (found on the invented
# PII texts' find half, benchmarks/pii_invented.py: letter_77)
CALL_ME_ON = re.compile(r"(?i)\b(?:text|txt|ring|call|phone|reach|contact|whatsapp|message|sms)(?:ed)?\s+"
                        r"(?:me|us|him|her|them)\s+(?:on|at)\s*:?\s*$")


def phone_context(text: str, start: int, end: int) -> bool:
    """Whether the number at ``[start, end)`` is a phone number: a phone's shape (seven or ten
    digits grouped as phones are), a label before it ("pager", "call", "#") or a request to be
    called on it ("text me on", "reach me at")."""
    value = text[start:end]
    if _PHONE_SHAPE.fullmatch(value.strip()):
        return True
    if re.fullmatch(r"(?i)x\d{4,5}", value.strip()) and _EXTENSION_CONTEXT.search(line_before(text, start, 60)):
        return True  # an extension after a pager or a phone on its line ("pager #20744 or x5248")
    before = line_before(text, start)
    # a request needs a whole number's seven digits: "will call her at 1400" is a time
    return bool(_PHONE_LABEL.search(before) or (CALL_ME_ON.search(before) and sum(c.isdigit() for c in value) >= 7))


# the numbers of a span: digits and the marks that join them ("120-130/60-70", "3/14/2098", "80s")
NUMBER_PIECE = re.compile(r"\d+(?:[./:-]\d+)*(?:'?s(?![a-z]))?")
# what makes a span a date without its numbers' help: a month, a weekday, a season, a holiday
DATE_WORD = re.compile(r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|spring|"
                       r"summer|fall|autumn|winter|christmas|thanksgiving|easter|new year|halloween|today|yesterday|"
                       r"tomorrow|tonight)[a-z]*\.?")
_MONTH_NEAR = re.compile(r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s*(?:the\s+)?$")
_MONTH_AFTER = re.compile(r"(?i)^(?:st|nd|rd|th)?\s*(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)")


def numeric_date_is_date(text: str, start: int, end: int) -> bool:
    """Whether a span of digits marked a date has a date's shape and is a possible date in its
    context: day/month/year in any order (``3-14-2098``, ``2098-03-14``, ``14.03.2098``), a
    month/day or month/year (:func:`short_date_is_date`), a year (:func:`year_is_date`), or a day
    next to a month's name. Ranges ("20-30"), decimals ("3.9") and lone numbers are not."""
    value = text[start:end].strip()
    parts = re.split(r"[/.-]", value)
    if len(parts) == 3 and all(p.isdigit() for p in parts):
        a, b, c = (int(p) for p in parts)
        if len(parts[0]) == 4:
            return plausible_month_day(b, c)
        return plausible_month_day(a, b) or plausible_month_day(b, a)
    if len(parts) == 2 and all(p.isdigit() for p in parts) and "." not in value:
        if len(parts[1]) == 4:
            return 1 <= int(parts[0]) <= 12
        return short_date_is_date(text, start, end)
    if value.isdigit() and len(value) == 4:
        return year_is_date(text, start, end)
    if value.isdigit() and len(value) == 8 and value[:2] in ("19", "20", "21"):
        return plausible_month_day(int(value[4:6]), int(value[6:]))   # 20670516
    if value.isdigit() and len(value) == 2 and text[start - 1:start] == "'" and not text[start - 2:start - 1].isdigit():
        return True   # "in '98": a year's apostrophe (a height's "5'10" has a digit before it)
    if value.isdigit() and len(value) <= 2:
        return bool(_MONTH_NEAR.search(line_before(text, start, 12)) or _MONTH_AFTER.match(line_after(text, end, 12))
                    or re.match(r"(?i)(?:st|nd|rd|th)\b", line_after(text, end, 3)))
    return False
