"""English ages, the number alone as i2b2 2014 marks it ("45" in "45 yo", "45-year-old", "aged
45", "84M with", "(73 F)" after a name); in words after "turned" or before "years of age". A
number is an age only where its words say so ("yo", "year old", "age", a sex letter after a
sentence's start, a header's "72 M,"): a bare number in a ward note is a measurement (issue 30,
"numbers in clinical context"). Split from :mod:`.dates`, whose rule registers just before this one.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.name_words import is_safe_word
from pipeline.detection.rules.en.numbers import line_before, relative_age_at
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_AGE_TAIL = (r"(?:yo\b|y/o\b|y\.o\.?|yr?s?\.?[\s-]*old\b|years?[\s-]*old\b|years?\s+of\s+age\b|-?year-old\b|"
             r"yo[mf]\b|y\.?\s?o\.?\s?(?:male|female|man|woman|m|f)\b|y\s+(?:male|female|man|woman|boy|girl)\b|y\s?[mf]\b)")
_AGE_AFTER = re.compile(rf"(?<![\w.])(?P<age>\d{{1,3}})(?:\s*-\s*|\s+)?{_AGE_TAIL}", re.IGNORECASE)
_AGE_BEFORE = re.compile(r"(?i)\b(?:age|aged|age of|at age)\s*:?\s*(?P<age>\d{1,3}(?:\+(?![\w]))?)(?!\d|[./]\d)")
# ages in words ("eighty-two years of age", "turned ninety"): a number word from one to 119
_UNITS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_NUMBER_WORD = (rf"(?:(?:one\s+)?hundred(?:\s+and)?\s+)?(?:(?:{'|'.join(_TENS)})(?:[\s-](?:{'|'.join(_UNITS[:9])}))?|"
                rf"{'|'.join(_UNITS)})|(?:one\s+)?hundred")
_AGE_WORD_AFTER = re.compile(rf"(?i)(?<![\w-])(?P<age>{_NUMBER_WORD})(?:\s*-\s*|\s+){_AGE_TAIL}")
# "now eighty-five woman", "a seventy-four year old man": a tens' number word before a person word
_TENS_WORD = rf"(?:{'|'.join(_TENS)})(?:[\s-](?:{'|'.join(_UNITS[:9])}))?"
_AGE_WORD_PERSON = re.compile(rf"(?i)(?<![\w-])(?P<age>{_TENS_WORD})[\s-]+(?:man|woman|male|female|gentleman|lady|gent)\b")
_AGE_WORD_BEFORE = re.compile(rf"(?i)\b(?:aged|age of|at age|age:?|turned|turns|turning)\s+(?P<age>{_NUMBER_WORD})(?![\w-])")


# "in her 80s", "HIS EARLY 70'S": a decade after a possessive
_AGE_DECADE = re.compile(r"(?i)\b(?:his|her|their)\s+(?:(?:early|mid|late)[\s-]+)?(?P<age>[1-9]0'?s|(?:twen|thir|for|fif|six|"
                         r"seven|eigh|nine)ties)(?![\w])")
# "turned 45 last week" (not "HR turned 45 bpm"), "his 80th birthday"
_AGE_TURNED = re.compile(r"(?i)\b(?:turned|turns|turning)\s+(?P<age>\d{1,3})(?![\d./:-]|\s*(?:bpm|mg|%|units|mcg|ml|cc|degrees))")
_AGE_BIRTHDAY = re.compile(r"(?i)\b(?P<age>\d{1,3}(?:st|nd|rd|th))\s+birthday\b")


# the shapes a note's first line gives an age in, beside the "yo" ones:
# "84M with PMH", "pt is an 84 F s/p fall": a number and a sex's letter at the start of a sentence,
# before what a presentation says next (never "16F foley", "walked 30 m with PT")
_AGE_SEX = re.compile(r"(?i)(?<![\w./-])(?P<age>\d{1,3})[ \t]?[MF](?![\w/])(?=[ \t]*,?[ \t]*(?:w/|s/p|h/o|c/o|p/w|(?:with|hx|pmh|"
                      r"who|presents|presenting|presented|admitted|transferred|from|here|brought|found|"
                      # a ward's shorthand for an admission ("91M ADM 2/14 W/ CHF": icu_invented_p find f194)
                      r"adm|admit|admitted|xfer|tx|s/p|sent)\b))")
_SENTENCE_START = re.compile(r"(?i)(?:^|[:.]|\b(?:is|was|pt|patient)\s+(?:an?\s+)?|\ban?\s+)\s*$")
# "84 yrs male", "84yr F": years and a sex, not after a duration's word ("smoker x 40 yrs")
_AGE_YRS_SEX = re.compile(r"(?i)(?<![\w./-])(?P<age>\d{1,3})[ \t-]?yrs?\.?(?:[ \t-]?|[ \t]{2,4})(?:male|female|man|woman|boy|girl|"
                          r"gentleman|lady|gent|[mf])\b")
_DURATION_BEFORE = re.compile(r"(?i)(?:\bx|\bfor|\bsince|\bover|\bpast|\blast|\bin|\bwithin|\bafter|~|\bq)\s*$")
# "Age/Sex: 84/M", "sex/age: F/84"
_AGE_SEX_LABEL = re.compile(r"(?i)\b(?:age\s*/\s*(?:sex|gender)\s*:?\s*(?P<age>\d{1,3})(?![\d.])|"
                            r"(?:sex|gender)\s*/\s*age\s*:?\s*(?:[mf]|male|female)\s*/\s*(?P<age2>\d{1,3})(?![\d.]))")
# "DOB 1/4/50 (84)", "date of birth: 04-JAN-1950 (84 yrs)": the age in brackets after a birth date
_AGE_AFTER_DOB = re.compile(r"(?i)\b(?:dob|d\.o\.b\.?|date\s+of\s+birth|birth\s*date)\b[^\n()]{1,30}?\(\s*(?:age\s*:?\s*)?"
                            r"(?P<age>\d{1,3})\s*(?:y|yo|y/o|yrs?|years?(?:\s+old)?)?\s*\)")
# "a man of 84 with CHF", "Age (years): 84", "age in years: 84", "pt 84y, lives alone"
_AGE_MORE = re.compile(r"(?i)(?:\b(?:man|woman|gentleman|lady|gent|male|female)\s+of\s+(?P<a>\d{2,3})"
                       r"(?=[ \t]*(?:[,.;)]|$|with\b|who\b|and\b|presenting\b|presents\b|admitted\b))"
                       r"|\bage\s*(?:\((?:years?|yrs?)\)|in\s+years)\s*:?\s*(?P<b>\d{1,3})(?![\d.])"
                       r"|\b(?:pt|patient)[ \t]+(?P<d>\d{1,3})[ \t]?y\b(?=[ \t]*(?:[,.;]|old\b|male\b|female\b|[mf]\b)))",
                       re.MULTILINE)
# "pt is 84.", "she is 84 and lives alone", "pt is 99 today!" (icu_invented_b find f47); not the
# "99" of a temperature ("pt is 99.1")
# (and a relative's: "husband is 91 and uses a walker", "Mother is 91, lives at Hillcrest Manor":
# icu_invented_p find f1086, f1152)
_AGE_IS = re.compile(r"(?i)\b(?:pt|patient|he|she|who|husband|wife|spouse|mother|father|mom|dad|sister|brother)\s+is\s+"
                     r"(?:now\s+|only\s+)?(?P<age>\d{1,3})"
                     r"(?=[ \t]*(?:[.;,](?!\d)|!|$|and\b|today\b|tomorrow\b|this\s+week\b))",
                     re.MULTILINE)


_AGE_AT = re.compile(r"(?i)\bat[ \t]+(?:age[ \t]+)?(?P<age>\d{1,3})\b")
# a report's header gives the age with a sex's letter and a comma: "Indication: 72 M, fever", and
# "Pt: Faisal Al-Mansouri, 46 M" at the end of a patient's line
_AGE_SEX_AFTER_LABEL = re.compile(r"(?im)\b(?:indication|(?:clinical[ \t]+)?history|hx|clinical[ \t]+(?:information|info)|"
                                  r"reason[ \t]+for[ \t]+(?:exam|study|referral))[ \t]*:[ \t]*(?P<age>\d{1,3})[ \t]?[MF]"
                                  r"(?![\w/])(?=[ \t]*[,.;]|[ \t]*$)")
# "Marguerite Delacroix-Boyd (73 F)": an age and a sex's letter alone in brackets (notes_invented f28)
_AGE_SEX_BRACKET = re.compile(r"(?i)\([ \t]*(?P<age>\d{1,3})[ \t]?(?:yo|y/o|y)?[ \t]?[MF][ \t]*\)")
_AGE_SEX_AFTER_NAME = re.compile(r"(?im)^[ \t]*(?:pt|patient|name)[ \t]*:[^\n]{2,60}?,[ \t]*(?P<age>\d{1,3})[ \t]?[MF]"
                                 r"(?![\w/])(?=[ \t]*(?:[,;]|$))")


def _header_and_family_ages(text: str) -> list[tuple[int, int]]:
    """The ages of :data:`_AGE_AT` (a relative's, :func:`.numbers.relative_age_at`) and of a header's
    "72 M," or "(73 F)" (:data:`_AGE_SEX_AFTER_LABEL`, :data:`_AGE_SEX_AFTER_NAME`, :data:`_AGE_SEX_BRACKET`)."""
    out = [m.span("age") for m in _AGE_AT.finditer(text) if relative_age_at(text, *m.span("age"))]
    out += [m.span("age") for rx in (_AGE_SEX_AFTER_LABEL, _AGE_SEX_AFTER_NAME) for m in rx.finditer(text)]
    return out + [m.span("age") for m in _AGE_SEX_BRACKET.finditer(text) if _name_before(text, m.start())]


def _name_before(text: str, i: int) -> bool:
    """Whether the word before ``i`` may end a name ("Delacroix-Boyd (73 F)"), not a device's or a
    ward's ("Foley (16 F)", "placed (14 F)"): letters, no safe word."""
    m = re.search(r"([A-Za-z][A-Za-z'-]*)[ \t]*$", line_before(text, i, 40))
    return bool(m) and not is_safe_word(m.group(1))


def _more_ages(text: str) -> list[tuple[int, int]]:
    """The ages of :data:`_AGE_SEX`, :data:`_AGE_YRS_SEX`, :data:`_AGE_SEX_LABEL`, :data:`_AGE_AFTER_DOB`
    and :data:`_AGE_IS`, each with the guard its shape needs."""
    out = [m.span("age") for m in _AGE_SEX.finditer(text) if _SENTENCE_START.search(line_before(text, m.start(), 30))]
    out += [m.span("age") for m in _AGE_YRS_SEX.finditer(text) if not _DURATION_BEFORE.search(line_before(text, m.start(), 12))]
    out += [m.span("age" if m.group("age") else "age2") for m in _AGE_SEX_LABEL.finditer(text)]
    out += [m.span("age") for rx in (_AGE_AFTER_DOB, _AGE_IS) for m in rx.finditer(text)]
    out += [m.span(g) for m in _AGE_MORE.finditer(text) for g in "abd" if m.group(g)]
    out += _header_and_family_ages(text)
    return [(s, e) for s, e in out if int(text[s:e]) <= 125]


@register(LOCALE, "ages", "AGE", score=0.9)
def ages(text: str, doc_id: str) -> list[Span]:
    """Ages, the number only as in i2b2: ``45 yo``, ``45-year-old``, ``45 y/o``, ``aged 45``, ``74y man``,
    ``84M with``, ``Age/Sex: 84/M``, ``DOB ... (84)``; in words after "turned" or before "years of
    age" ("eighty-two years of age")."""
    out = [mk(doc_id, *m.span("age"), "AGE") for rx in (_AGE_AFTER, _AGE_BEFORE, _AGE_TURNED) for m in rx.finditer(text)
           if int(m.group("age").rstrip("+")) <= 125]
    out += [mk(doc_id, s, e, "AGE") for s, e in _more_ages(text)]
    out += [mk(doc_id, *m.span("age"), "AGE") for rx in (_AGE_WORD_AFTER, _AGE_WORD_BEFORE, _AGE_WORD_PERSON, _AGE_DECADE, _AGE_BIRTHDAY) for m in rx.finditer(text)]
    return dedupe(out)


