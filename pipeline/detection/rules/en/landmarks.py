"""Places that are neither towns nor hospitals (i2b2's LOCATION-OTHER): a park, a beach, a lake, a
mountain, a forest, a marina, a zoo, a mall, an airport, a library or a YMCA by its name, in any
case ("walks at Cafferky Park", "FELL AT LOGAN AIRPORT", "near the bergenfield zoo", "Mount
Wachusett", "lake chaney").

The name must be a name: in a line with both cases its words are in title case; in a line of one
case one of them is not a common word. A ward's word or a function word never starts one ("the
park", "hospital library", "family fun park"), so "walk in the park" stays unmarked.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word, looks_like_place, zipf
from pipeline.detection.rules.en.towns import listed_place_type
from pipeline.detection.rules.common import line_of, mk
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

_TAIL = (r"park|beach|marina|zoo|mall|airport|library|ymca|ymha|state\s+forest|state\s+park|national\s+park|"
         r"pond|harbor|harbour|golf\s+course|country\s+club")
# what a pump's drug library or a device is named by ("Alaris drug library", "pump library")
_DEVICE_WORDS = frozenset("pump drug drugs medication infusion alaris guardrails smart iv pca epidural".split())
_NAME = r"[A-Za-z][A-Za-z'-]*"
_BEFORE_TAIL = re.compile(rf"(?i)(?<![\w'-])(?P<name>{_NAME}(?:[ \t]{_NAME}){{0,3}}?)[ \t]+(?P<tail>{_TAIL})(?![\w-])")
_HEAD_FIRST = re.compile(rf"(?i)(?<![\w'-])(?P<head>mount|mt\.|lake)[ \t]+(?P<name>{_NAME}(?:[ \t]{_NAME})?)(?![\w'-])")


def _name_words(words: list[str], mixed: bool) -> bool:
    """Whether ``words`` name a place: no function or ward word; title case in a mixed line, else
    one word not among English's common ones (or a listed place)."""
    if not words or any(w.lower() in FUNCTION_WORDS or w.lower() in _DEVICE_WORDS or is_safe_word(w, vocabulary=False)
                        for w in words):
        return False
    if not all((zipf(w) or 0.0) < 5.0 or looks_like_place(w, True) for w in words):
        return False   # "Car park", "Hospital library", "lake chaney daily"
    if mixed:
        return all(w[:1].isupper() and not w.isupper() for w in words)
    return any((zipf(w) or 0.0) < 4.0 or looks_like_place(w, True) for w in words)


@register(LOCALE, "landmarks", "LOCATION", score=0.75)
def landmarks(text: str, doc_id: str) -> list[Span]:
    """Parks, beaches, lakes, mountains, marinas, zoos, malls, airports and libraries by name."""
    out: list[Span] = []
    for m in _BEFORE_TAIL.finditer(text):
        line = line_of(text, m.start())
        mixed = any(c.islower() for c in line) and any(c.isupper() for c in line)
        words = m.group("name").split()
        cut = max((k + 1 for k, w in enumerate(words) if w.lower() in FUNCTION_WORDS or w.lower() in _DEVICE_WORDS
                   or is_safe_word(w, vocabulary=False) or (mixed and not w[:1].isupper())), default=0)
        words = words[cut:]   # "ENJOYS WALKS AT THE CARVILLE LIBRARY": the name starts after "at the"
        if _name_words(words, mixed):
            start = m.end("name") - len(" ".join(words))
            out.append(mk(doc_id, start, m.end("tail"), "LOCATION-OTHER"))
    for m in _HEAD_FIRST.finditer(text):
        line = line_of(text, m.start())
        mixed = any(c.islower() for c in line) and any(c.isupper() for c in line)
        words = m.group("name").split()
        if mixed and not m.group("head")[:1].isupper():
            continue
        while len(words) > 1 and not _name_words(words, mixed):
            words.pop()
        if _name_words(words, mixed):
            out.append(mk(doc_id, m.start("head"), m.start("name") + len(" ".join(words)), "LOCATION-OTHER"))
    return out


# a town's police, fire or ambulance service ("DETECTIVE ... FROM CHELSEA PD", "Lowell FD brought pt
# in", "Chelsea Police Dept": icu_invented_d find f20): the town must be a listed one, so "on PD"
# (peritoneal dialysis) and "hx PD" (Parkinson's) stay ward words
_TOWN_SERVICE = re.compile(
    r"(?<![\w'-])(?P<town>[A-Za-z][A-Za-z'-]+(?:[ \t][A-Za-z][A-Za-z'-]+)?)[ \t]+"
    r"(?P<svc>PD|FD|pd|fd|(?i:police|fire)(?:[ \t]+(?i:dept\.?|department))?|EMS|ems)(?![\w-])")


@register(LOCALE, "town_services", "LOCATION", score=0.78)
def town_services(text: str, doc_id: str) -> list[Span]:
    """A listed town's police, fire or ambulance service, the service's word included."""
    out: list[Span] = []
    for m in _TOWN_SERVICE.finditer(text):
        town = m.group("town")
        words = town.split()
        # the nearest one or two words before the service that name a listed town
        for k in (2, 1):
            if len(words) >= k and listed_place_type(" ".join(words[-k:])) == "CITY":
                start = m.start("town") + town.rfind(words[-k]) if k == 1 else m.start("town")
                out.append(mk(doc_id, start, m.end(), "ORGANIZATION"))
                break
    return out
