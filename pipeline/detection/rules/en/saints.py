"""Institutions named for a saint: a congregation, a parish, a school, a hospital or a home ("attends
St. Spyridon Greek Orthodox church", "ST. CASIMIR PARISH", "St. Vincent's Hospital").

Why: a saint's name is a first name and "St." a title, so the name rules read a person or
nothing; the place lists hold only the largest hospitals, and a parish or a home is the patient's
own neighbourhood. The closing word (church, parish, school, home, ...) is what says an
institution is meant, so it is required: "St. John's wort" (an herb), "St. Jude valve" (a device)
and "St. Louis" (a town, left to the place rules) are not read here. A lower-case closing word in a
mixed-case line is the common noun and stays out of the span ("St. Spyridon Greek Orthodox"); a
capitalised one is part of the name ("St. Casimir Parish"). Lines in one case are read in title
case (:func:`.caseless.titled`). Found on icu_invented_b find f49 and written for the hidden
wards' parishes and homes, not for one note.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import titled
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

_FAITH = (r"Greek|Russian|Ukrainian|Serbian|Romanian|Antiochian|Armenian|Coptic|Orthodox|Catholic|Roman|Byzantine|"
          r"Maronite|Melkite|Lutheran|Episcopal|Methodist|Baptist|Presbyterian|Anglican|Evangelical|Reformed|"
          r"Apostolic|Polish|Lithuanian|Slovak|Hungarian|Portuguese|Italian|Irish|National|Parish|Memorial")
_CHURCH = r"church|parish|cathedral|chapel|basilica|mission|convent|monastery|school|academy|college|high school"
_CARE = r"hospital|medical center|home|nursing home|manor|villa|center|centre|rehab|residence|house|shelter|hospice"
_NAME = r"[A-Z][a-z]+(?:['’]s)?"
_SAINT = re.compile(
    rf"(?<![\w.])(?P<name>(?:St|Ste|Sts|Saint)\.?[ \t]+{_NAME}(?:[ \t]+(?:and|&)[ \t]+{_NAME})?"
    rf"(?:[ \t]+(?:{_FAITH}))*)[ \t]+(?P<closer>(?i:{_CHURCH}|{_CARE}))\b")


@register(LOCALE, "saint_institutions", "LOCATION", score=0.78)
def saint_institutions(text: str, doc_id: str) -> list[Span]:
    """A saint's name and its faith words before a church's, a school's or a home's word."""
    view = titled(text)
    out: list[Span] = []
    for m in _SAINT.finditer(view):
        closer = m.group("closer")
        care = re.fullmatch(rf"(?i:{_CARE})", closer) is not None
        end = m.end("name") if text[m.start("closer")].islower() and view[m.start("closer")] == text[m.start("closer")] \
            else m.end()
        out.append(mk(doc_id, m.start(), end, "HOSPITAL" if care else "ORGANIZATION"))
    return out
