"""A road named by its number, with no house number before it ("MVC on I-94 near exit 12",
"rollover on hwy 20 eastbound", "found down off Route 9", "northbound Interstate 81"), the
streets where two meet ("HAMPTON BLVD AT W 43RD ST", "the overpass at I-25 and Lomas"), and a street
named without a house number before the listed town it is in ("crossing Centre St in Newton").

Why: an emergency note says where something happened by its road, and a road's number narrows a
patient's place as a street does (HIPAA counts it; i2b2 marks it STREET or LOCATION-OTHER). The
house-numbered roads are :mod:`.contact`'s. A road's number alone is weak evidence (a dose's
"route", an isotope's "I-131", a sinus rhythm's "SR 70s"), so it needs a journey's word before it
("on", "off", "onto", "along", "near", "at", "took", a crash's word) or a road's after it (a
direction, an exit, a mile marker). In a line with capitals the road's word has its own ("given
via route 2" stays); "SR" and "US" need a direction or an exit; the interstate is "I-94" or
"Interstate 94", never a bare "I 94", and the iodine isotopes 123, 124, 125 and 131 are never
roads. Found on psych_invented find f01 ("I-94") and ed_invented find f05, f06.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en.caseless import one_case_at
from pipeline.detection.rules.en.contact import STREET_SUFFIX
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word, zipf
from pipeline.detection.rules.en.towns import gazetteer_place, is_word_town, listed_place_type
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

_ISOTOPES = frozenset({"123", "124", "125", "131"})
_ROAD = re.compile(
    r"(?i)(?<![\w/-])(?P<road>(?:I-|interstate[ \t]+)(?P<n>\d{1,3})|"
    r"(?:hwy\.?|highway|route|rte\.?|state[ \t]+route|state[ \t]+highway|us[ \t]+(?:route|highway|hwy\.?)|sr|us|rt\.?)"
    r"[ \t]*-?[ \t]*(?P<m>\d{1,4}))(?:[ \t]+(?P<dir>(?-i:[NSEW]B?)|nb|sb|eb|wb|north|south|east|west)\b)?(?![\w/%-]|\.\d)")
_BEFORE = re.compile(r"(?i)\b(?:on|off|onto|along|near|took|take|taking|exit(?:ed|ing)?|crossing|from|at|under|"
                     r"northbound|southbound|eastbound|westbound|mvc|mva|rollover|crash|collision|accident|"
                     r"driving|drove|walking|struck|hit)[ \t]+(?:the[ \t]+)?$")
_AFTER = re.compile(r"(?i)[ \t]*(?:,[ \t]*)?(?:north|south|east|west)bound\b|[ \t]*(?:,[ \t]*)?"
                    r"(?:[NSEW]B\b|exit|mile[ \t]*marker|mm[ \t]*\d|near[ \t]+exit|at[ \t]+exit|overpass|on-?ramp|off-?ramp)")


# the street a road crosses ("under the overpass at I-25 and Lomas": ed_invented find f06)
_CROSSING = re.compile(r"[ \t]*(?:and|&|/|@|at)[ \t]+(?P<x>[A-Za-z][A-Za-z'-]+)(?![\w-])", re.IGNORECASE)
# two streets of an intersection ("HAMPTON BLVD AT W 43RD ST": ed_invented find f05), each a street's
# name and its suffix; no house number is needed where two streets meet
_NAMED = rf"(?:(?:[NSEW]\.?|north|south|east|west)[ \t]+)?(?:\d{{1,3}}(?:st|nd|rd|th)|[A-Za-z][A-Za-z'-]+)(?:[ \t]+[A-Za-z][A-Za-z'-]+){{0,2}}[ \t]+{STREET_SUFFIX}"
_INTERSECTION = re.compile(rf"(?i)(?<![\w-])(?P<a>{_NAMED})(?![\w-])[ \t]+(?:at|and|&|/|@)[ \t]+(?P<b>{_NAMED})(?![\w-])")
_DIRECTION_WORDS = frozenset("n s e w n. s. e. w. north south east west".split())
# a street named without a house number before the town it is in ("found down on sidewalk Union St in
# Lynn", "struck by a car while crossing Centre St in Newton", "trench collapse on washington st in
# canton": icu_invented_p find f693, f1134, f1133): the listed town after "in" says the words are a street's
# (only a street's commonest words, and none after an article or a possessive: "on a back road in Carver",
# "their winter place in Florida", "hearing at probate court in Cambridge" name none)
_STREET_IN_TOWN = re.compile(r"(?i)(?<=[ \t])(?P<suffix>st|street|ave|avenue|blvd|boulevard|rd|road)\.?[ \t]+in[ \t]+"
                             r"(?P<town>[A-Za-z][A-Za-z'-]+(?:[ \t]+[A-Za-z][A-Za-z'-]+)?)")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z'-]+)[ \t]+$")
_ARTICLE_BEFORE = re.compile(r"(?i)\b(?:a|an|the|their|his|her|our|my|your)[ \t]+$")


def _street_words(value: str) -> bool:
    """Whether the words of an intersection's street name one: no function word and no ward word
    (its suffix and direction aside)."""
    words = value.split()[:-1]
    return all(w.lower() in _DIRECTION_WORDS or re.fullmatch(r"(?i)\d+(?:st|nd|rd|th)", w)
               or (w.lower() not in FUNCTION_WORDS and not is_safe_word(w, vocabulary=False)) for w in words)


def _listed_town(words: str) -> bool:
    """Whether ``words`` (or their first word) name a town of the pack's place lists, its gazetteer or
    its towns that are words ("in canton")."""
    return any(listed_place_type(w) == "CITY" or gazetteer_place(w) or is_word_town(w) for w in (words, words.split()[0]))


def _crossing(text: str, end: int) -> int:
    """Where the street a road crosses ends ("I-25 and Lomas"), or ``end``: one word written as a
    name (a capital in a mixed-case line, or rare in English in a line of one case), no ward word."""
    m = _CROSSING.match(text, end)
    if m is None:
        return end
    word = m.group("x")
    mixed = not one_case_at(text, m.start("x"))
    if word.lower() in FUNCTION_WORDS or is_safe_word(word) or (zipf(word) or 0.0) >= (5.0 if mixed else 3.5):
        return end
    if mixed and not (word[:1].isupper() and word[1:].islower()):
        return end
    return m.end("x")


def _streets_before_towns(text: str, doc_id: str, found: list[Span]) -> list[Span]:
    """The streets of :data:`_STREET_IN_TOWN` that no road of ``found`` already covers: the street's
    one or two words before its suffix, no function or ward word, and before the first no word of
    the wide vocabulary ("sidewalk Union St", "crossing Centre St")."""
    out: list[Span] = []
    for m in _STREET_IN_TOWN.finditer(text):
        if not _listed_town(m.group("town")):
            continue
        start = m.start("suffix")
        for k in range(2):
            w = _WORD_BEFORE.search(text, max(0, start - 30), start)
            if w is None or w.group(1).lower() in FUNCTION_WORDS or is_safe_word(w.group(1), vocabulary=k > 0) \
                    or w.group(1).lower() in _DIRECTION_WORDS:
                break
            start = w.start(1)
        if _ARTICLE_BEFORE.search(text, max(0, start - 8), start):
            continue
        if start < m.start("suffix") and not any(o.start < m.end("suffix") and start < o.end for o in found + out):
            out.append(mk(doc_id, start, m.end("suffix"), "STREET"))
    return out


@register(LOCALE, "highways", "LOCATION", score=0.8)
def highways(text: str, doc_id: str) -> list[Span]:
    """Roads by their number where a journey's word stands before or a road's word after."""
    out: list[Span] = []
    for m in _ROAD.finditer(text):
        number = m.group("n") or m.group("m")
        if number in _ISOTOPES and m.group("n"):
            continue
        if m.group("m") and m.group("road")[:2].lower() in ("sr", "us") and not (m.group("dir") or _AFTER.match(text, m.end())):
            continue   # "SR 72" is a sinus rhythm's rate, "US 4 cm" an ultrasound's: only with a direction or an exit
        if m.group("m") and re.match(r"(?i)rt\b", m.group("road")) and not (
                re.match(r"(?i)(?:north|south|east|west|[nsew]b$)", m.group("dir") or "") or _AFTER.match(text, m.end())):
            continue   # "rt 2" is the right side's too: only with a direction's word or an exit after it ("ON RT 1
            # SOUTHBOUND IN SAUGUS": icu_invented_p find f230)
        if m.group("m") and not m.group("road")[:1].isupper() and not one_case_at(text, m.start()):
            continue   # "given via route 2": a road's word in lower case in a line with capitals is no road's
        before = _BEFORE.search(text[max(0, m.start() - 24):m.start()])
        if before or m.group("dir") or _AFTER.match(text, m.end()):
            out.append(mk(doc_id, *m.span("road"), "STREET"))   # the direction is the journey's, not the road's
            crossing = _crossing(text, m.end("road"))
            if crossing > m.end("road"):
                x = _CROSSING.match(text, m.end("road"))
                out.append(mk(doc_id, x.start("x"), crossing, "STREET"))
    out += _streets_before_towns(text, doc_id, out)
    for m in _INTERSECTION.finditer(text):
        if _street_words(m.group("a")) and _street_words(m.group("b")):
            out += [mk(doc_id, *m.span("a"), "STREET"), mk(doc_id, *m.span("b"), "STREET")]
    return out
