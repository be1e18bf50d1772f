"""Places that are neither towns nor hospitals (i2b2's LOCATION-OTHER): a park, a beach, a lake, a
mountain, a forest, a marina, a zoo, a mall, an airport, a library or a YMCA by its name, in any
case ("walks at Cafferky Park", "FELL AT LOGAN AIRPORT", "near the bergenfield zoo", "Mount
Wachusett", "lake chaney").

The name must be a name: in a line with both cases its words are in title case; in a line of one
case one of them is not a common word. A ward's word or a function word never starts one ("the
park", "hospital library", "family fun park"), so "walk in the park" stays unmarked. A church, a
hospital or a school named for a mount ("Mt. Olive Baptist Church") is that institution, no
mountain. Also a town's police and fire service ("Chelsea PD", "Carver Fire") and a court named by
its town or county ("Barnstable District Court"), which are organisations.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word, looks_like_place, zipf
from pipeline.detection.rules.en.towns import is_word_town, listed_place_type
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

# a church, a hospital or a school named for a mount ("Rev. Hollis of Mt. Olive Baptist Church":
# icu_invented_p find f54; "Mount Zion AME Church", "Mt. Sinai Hospital"): the institution's whole
# name, faith's words and all, is no mountain; the mount's name is a word that is no function or ward
# word, capitalised with the institution's word in a mixed-case line
_MOUNT_INSTITUTION = re.compile(
    rf"(?i)(?<![\w'-])(?P<head>mount|mt\.?)[ \t]+(?P<name>{_NAME})(?P<faith>(?:[ \t]+{_NAME}){{0,3}}?)[ \t]+"
    r"(?P<inst>church|chapel|temple|tabernacle|cathedral|synagogue|hospital|medical[ \t]+center|cemetery|school|"
    r"academy|college)(?![\w-])")


def _mount_institution(m: re.Match, mixed: bool) -> bool:
    """Whether a mount's name and the words up to an institution's word name one (see
    :data:`_MOUNT_INSTITUTION`): the words between are a faith's, a congregation's letters ("AME")
    or no ward word."""
    from pipeline.detection.rules.en.companies import FAITHS   # (here: companies registers its rule later)
    name = m.group("name")
    if name.lower() in FUNCTION_WORDS or is_safe_word(name, vocabulary=False):
        return False
    between = m.group("faith").split()
    if any(w.lower() in FUNCTION_WORDS or (is_safe_word(w, vocabulary=False) and w.lower() not in FAITHS)
           for w in between):
        return False
    if mixed:
        return all(w[:1].isupper() for w in [m.group("head"), name, *between, m.group("inst")])
    return True


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
    institutions = []
    for m in _MOUNT_INSTITUTION.finditer(text):
        line = line_of(text, m.start())
        if _mount_institution(m, any(c.islower() for c in line) and any(c.isupper() for c in line)):
            kind = "HOSPITAL" if re.match(r"(?i)hospital|medical", m.group("inst")) else "ORGANIZATION"
            institutions.append(mk(doc_id, m.start(), m.end(), kind))
    out += institutions
    for m in _HEAD_FIRST.finditer(text):
        if any(i.start <= m.start() < i.end for i in institutions):
            continue
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


# a town's police, fire, rescue or ambulance service ("DETECTIVE ... FROM CHELSEA PD", "Lowell FD brought pt
# in", "Chelsea Police Dept": icu_invented_d find f20; "EXTRICATED BY BETHEL RESCUE": icu_invented_p find f237): the town must be a listed one, so "on PD"
# (peritoneal dialysis) and "hx PD" (Parkinson's) stay ward words
_TOWN_SERVICE = re.compile(
    r"(?<![\w'-])(?P<town>[A-Za-z][A-Za-z'-]+(?:[ \t][A-Za-z][A-Za-z'-]+)?)[ \t]+"
    r"(?P<svc>PD|FD|pd|fd|(?i:police|fire)(?:[ \t]+(?i:dept\.?|department))?|EMS|ems|(?i:rescue|ambulance))(?![\w-])")


# what burns, before "fire", that a gazetteer also holds as a place ("BARN FIRE", "camper fire")
_BURNS = frozenset("barn bush camper furnace boat brush grass house car kitchen forest wood trailer shed".split())


def _unlisted_town(word: str, svc: str, mixed: bool) -> bool:
    """A town the lists lack before its fire department, its police, its rescue or its ambulance
    spelled out ("BY CARVER FIRE": icu_invented_p find f66): a town of the gazetteer whose name is a
    word ("HULL FIRE"), or a place's word that is no safe or function word and not what burns, rare
    in English (Zipf < 4); in a mixed-case line it and the service capitalised ("ICD did not fire",
    "house fire", "Mt. Holly Springs fire chief" stay)."""
    if svc[:2].lower() == "pd" or svc[:3].lower() == "ems":
        # "on PD" is dialysis, "hx PD" Parkinson's: a listed town only, or a gazetteer's town that is a word
        # and no ward's ("HOLDING CELL AT CANTON PD": icu_invented_p find f480; "home PD" stays)
        # ("Parkinson PD" is the disease PD names)
        return is_word_town(word) and not is_safe_word(word, vocabulary=False) and word.lower() not in FUNCTION_WORDS \
            and not word.lower().startswith("parkinson")
    low = word.lower()
    if mixed and not (word[:1].isupper() and word[1:].islower() and svc[:1].isupper()):
        return False
    if is_word_town(word) and low not in _BURNS:
        return True   # a town the gazetteer knows that is a word ("HULL FIRE ON SCENE", "Bethel Rescue":
        # icu_invented_p find f239, f237, where each writer marked the whole an organisation)
    if low in FUNCTION_WORDS or low in _BURNS or is_safe_word(word) or not looks_like_place(word, True):
        return False
    return (zipf(word) or 0.0) < 4.0


@register(LOCALE, "town_services", "LOCATION", score=0.78)
def town_services(text: str, doc_id: str) -> list[Span]:
    """A listed town's police, fire or ambulance service, the service's word included; an unlisted
    town's fire department or police by :func:`_unlisted_town`."""
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
        else:
            line = line_of(text, m.start())
            if _unlisted_town(words[-1], m.group("svc"), any(c.islower() for c in line) and any(c.isupper() for c in line)):
                out.append(mk(doc_id, m.start("town") + town.rfind(words[-1]), m.end(), "ORGANIZATION"))
    return out


# a court named by its town or county ("appointed by Bristol County Probate Court", "PO FROM BARNSTABLE
# DISTRICT COURT CALLED": icu_invented_p find f80, f76; "Boston Municipal Court", "Worcester Juvenile
# Court", "Plymouth Probate and Family Court"): a court's kind must stand between the place and
# "Court" ("Maple Court" is a street), and the place must be a listed town or a place's word that is
# no safe word, capitalised in a mixed-case line ("went to family court", "court-ordered" stay)
_COURT = re.compile(
    r"(?<![\w'-])(?P<place>[A-Za-z][A-Za-z'-]+(?:[ \t][A-Za-z][A-Za-z'-]+)?)[ \t]+"
    r"(?P<court>(?i:(?:county[ \t]+)?(?:(?:district|probate|superior|juvenile|housing|family|municipal|circuit|land|"
    r"criminal|civil|county|magistrate'?s?)[ \t]+)(?:(?:and|&)[ \t]+(?:family|juvenile)[ \t]+)?court))(?![\w-])")
_PLACE_START = frozenset("new north south east west fort port mount mt saint st".split())


def _court_place(words: list[str], mixed: bool) -> int:
    """How many of the last words before a court's kind name its place (0: none): a listed town or
    state, else a place's word that is no safe word; in a mixed-case line each capitalised."""
    for k in (2, 1):
        if len(words) < k:
            continue
        name = words[-k:]
        if mixed and not all(w[:1].isupper() for w in name):
            continue
        if listed_place_type(" ".join(name)) in ("CITY", "STATE"):
            return k
        if k == 2 and name[0].lower() not in _PLACE_START:
            continue
        last = name[-1]
        if last.lower() not in FUNCTION_WORDS and not is_safe_word(last) and looks_like_place(last, True):
            return k
    return 0


@register(LOCALE, "town_courts", "LOCATION", score=0.8)
def town_courts(text: str, doc_id: str) -> list[Span]:
    """A court named by its town or county, the court's words included."""
    out: list[Span] = []
    for m in _COURT.finditer(text):
        line = line_of(text, m.start())
        mixed = any(c.islower() for c in line) and any(c.isupper() for c in line)
        words = m.group("place").split()
        k = _court_place(words, mixed)
        if k:
            start = m.start("place") + m.group("place").rfind(words[-k]) if k == 1 else m.start("place")
            out.append(mk(doc_id, start, m.end(), "ORGANIZATION"))
    return out
