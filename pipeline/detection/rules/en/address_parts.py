"""The parts of an address the street rules (:mod:`.contact`) leave: units ("Apt 4B", "Suite 210",
"Flat 22", "Unit 7" beside a street), streets whose suffix is British or Australian ("84 Riverside
Gardens", "340 Harbourside Quay", "7 Wattlebird Pde") or that have no house number after a place's
word ("near Magazine Street", "on Division St"), streets that start with their kind in another
language ("1420 Rue Saint-Denis", "22 Calle del Olmo"), counties ("Tulsa County", "North
Yorkshire"), and the town and state or postcode that close an Australian line ("Melbourne VIC
3000") or a town before its country ("Guadalajara, Mexico").

Why: letters, forms and delivery notes from every English-speaking country write addresses whole,
and the pieces a US-shaped rule misses are most of a British or an Australian address. Each shape
keeps to what only an address has: a unit word that is never clinical ("Apt", "Suite", "Flat"
with a capital) needs only its number, one that may be ("Unit", "Level", "Lot", "Floor") needs a
street on its line; a street without a number needs a place's word before it ("on", "near",
"at") and a full street word after it; a county needs the word "County" or a "-shire"; a house's
name ("Rose Cottage") a line of its own or an address's comma; a town before a state needs each word
to be a place's word, so a credential ("Smith, MD") stays. Found on
the invented PII texts' "find" half (benchmarks/pii_invented.py).
"""
from __future__ import annotations

import re
from functools import lru_cache

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.contact import STATE_ABBR, streets
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word, looks_like_place
from pipeline.detection.rules.registry import register
from pipeline.locales import load_list
from pipeline.spans import Span, dedupe

# "f/u apt 2 wks" is an appointment: no duration, no date after the unit
_UNIT_STRONG = re.compile(r"(?<![\w])(?:(?i:apt|apartment|suite|ste)\b\.?|Flat\b|Penthouse\b)[ \t]*#?[ \t]*"
                          r"(?P<n>\d{1,5}[A-Za-z]?|[A-Za-z]\d{0,4})(?![\w/-])"
                          r"(?![ \t]*(?i:wks?\b|weeks?|days?|d\b|mos?\b|months?|yrs?\b|at\b|@|am\b|pm\b))")
_UNIT_WEAK = re.compile(r"(?<![\w])(?:Unit|Level|Floor|Lot|Building|Bldg|Block|Space)\b\.?[ \t]*"
                        r"(?P<n>\d{1,5}[A-Za-z]?)(?![\w-])")
_STREET_WORDS = (r"Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard|Blvd|Way|Court|Ct|Place|Pl|Terrace|Crescent|"
                 r"Cres|Close|Gardens|Gdns|Quay|Mews|Parade|Pde|Grove|Row|Walk|Wharf|Esplanade|Promenade|Square|Hill|"
                 r"Rise|View|Green|Circuit|Cct|Highway|Hwy")
_CAP = r"[A-Z][a-z'’]+(?:-[A-Z][a-z'’]+)?"
_NUMBERED = re.compile(rf"(?<![\w#/.-])\d{{1,5}}[A-Za-z]?[ \t]+(?:{_CAP}[ \t]+){{1,3}}(?:{_STREET_WORDS})\.?(?![\w-])")
_FULL_WORDS = r"Street|Road|Avenue|Lane|Drive|Boulevard|Terrace|Crescent|Gardens|Quay|Mews|Parade|Esplanade|Square"
_NUMBERLESS = re.compile(rf"(?<![\w])(?P<cue>(?i:on|near|at|off|along|in|by|from|to)[ \t]+(?:the[ \t]+)?)"
                         rf"(?P<st>(?:{_CAP}[ \t]+){{1,3}}(?:{_FULL_WORDS}|St|Rd|Ave)\.?)(?![\w-])")
# "Via", "Avenue", "Boulevard" and "Chemin" start English words too ("sent Via Fax"): a house number first
_FOREIGN = re.compile(r"(?<![\w])(?:(?:\d{1,5}[ \t]+)?(?:Rue|Calle|Avenida|Rua|Carrer|Piazza)|\d{1,5}[ \t]+(?:Via|Chemin|"
                      r"Boulevard|Avenue))"
                      r"(?:[ \t]+(?:de|del|de la|du|des|della|da|do|dos))?[ \t]+[A-ZÀ-Þ][^\W\d_]+(?:[- ][A-ZÀ-Þ][^\W\d_]+)?"
                      r"(?:,?[ \t]+\d{1,5}[A-Za-z]?\b)?")
_STRASSE = re.compile(r"(?<![\w])[A-ZÄÖÜ][a-zäöüß]+(?:straße|strasse|weg|gasse|platz|allee|ring|damm)[ \t]+\d{1,4}[a-z]?\b")
_COUNTY = re.compile(rf"(?<![\w])(?P<c>(?:{_CAP}[ \t]+){{1,2}}County|(?:(?:North|South|East|West)[ \t]+)?[A-Z][a-z]+shire)(?![\w-])")
_AU = re.compile(rf"(?<![\w])(?P<town>{_CAP}(?:[ \t]+{_CAP}){{0,2}})[ \t]+(?P<state>NSW|VIC|QLD|TAS|ACT|SA|WA|NT)"
                 r"[ \t]+(?P<pc>\d{4})(?![\w-])")


# a house's name on an address line ("Rose Cottage, Mill Lane", "Flat 22, Cobden House, Salford")
_HOUSE = re.compile(rf"(?m)(?:^|(?<=,)|(?<=\d))[ \t]*(?P<h>(?:The[ \t]+)?(?:{_CAP}[ \t]+){{1,2}}(?:Cottage|House|Farm|Lodge|"
                    rf"Manor|Barn|Mill|Forge|Mansions|Villa|Hall))[ \t]*(?=,|$)")
# "Waterloo, Iowa", "Kerrville, TX.": a town before its state's name or abbreviation, no ZIP after
@lru_cache(maxsize=1)
def _town_state() -> re.Pattern:
    names = [e for e in load_list("en", "states") if len(e) > 2]
    full = "|".join(re.escape(n).replace("\\ ", r"[ \t]+") for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w])(?P<town>{_CAP}(?:[ \t]+{_CAP}){{0,2}}),[ \t]*(?P<state>{full}|{'|'.join(STATE_ABBR)})"
                      rf"(?=[ \t]*(?:[,;.)]|$))", re.MULTILINE)


_CREDENTIALS = frozenset({"MD", "PA", "DO", "RN"})


def _towns_and_states(text: str, doc_id: str) -> list[Span]:
    """A town and its state, each word of the town a place's word (a credential's "Smith, MD" stays)."""
    out = []
    for m in _town_state().finditer(text):
        words, state = m.group("town").split(), m.group("state")
        if len(state) > 2:   # a state's name vouches for the town: any words but a ward's or a function word
            ok = not any(w.lower() in FUNCTION_WORDS or is_safe_word(w, vocabulary=False) for w in words)
        else:                # an abbreviation may be a credential ("Smith, MD", "Jones, PA")
            ok = state not in _CREDENTIALS and all(looks_like_place(w, strong=True) for w in words)
        if ok:
            out += [mk(doc_id, *m.span("town"), "CITY"), mk(doc_id, *m.span("state"), "STATE")]
    return out


def _units(text: str, doc_id: str, street_lines: set[int]) -> list[Span]:
    out = [mk(doc_id, m.start(), m.end(), "STREET") for m in _UNIT_STRONG.finditer(text)]
    for m in _UNIT_WEAK.finditer(text):
        line = text.count("\n", 0, m.start())
        after = re.match(r",?[ \t]+\d{1,5}[A-Za-z]?[ \t]+[A-Z]", text[m.end():m.end() + 12])
        if line in street_lines or after:
            out.append(mk(doc_id, m.start(), m.end(), "STREET"))
    return out


def _place_words(value: str) -> bool:
    """No function word, and not only safe words (a ward's "Main Street" is still a street)."""
    words = [w for w in value.split()[:-1]]
    return not any(w.lower() in FUNCTION_WORDS for w in words) and any(
        not is_safe_word(w, vocabulary=False) for w in words)


@lru_cache(maxsize=1)
def _country_after() -> re.Pattern:
    names = [e for e in load_list("en", "countries") if e[:1].isupper()]
    countries = "|".join(re.escape(n).replace("\\ ", r"[ \t]+") for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w])(?P<town>[A-Z][A-Za-z'’-]+(?:[ \t][A-Z][A-Za-z'’-]+)?),[ \t]*(?i:{countries})(?![\w])")


def _towns_before_countries(text: str, doc_id: str) -> list[Span]:
    """"Guadalajara, Mexico": a town (a place's word, in any case of the line) before its country."""
    out = []
    for m in _country_after().finditer(text):
        words = m.group("town").split()
        if all(looks_like_place(w, strong=True) for w in words):
            out.append(mk(doc_id, *m.span("town"), "CITY"))
    return out


@register(LOCALE, "address_parts", "LOCATION", score=0.84)
def address_parts(text: str, doc_id: str) -> list[Span]:
    """Units, British and Australian streets, numberless streets after a place's word, foreign
    street forms, counties, Australian town-state-postcode lines and towns before countries."""
    found = [m for m in _NUMBERED.finditer(text) if _place_words(m.group())]
    out = [mk(doc_id, m.start(), m.end(), "STREET") for m in found]
    street_lines = {text.count("\n", 0, s.start) for s in streets(text, doc_id) + out if s.type == "STREET"}
    out += _units(text, doc_id, street_lines)
    out += [mk(doc_id, *m.span("st"), "STREET") for m in _NUMBERLESS.finditer(text) if _place_words(m.group("st"))]
    out += [mk(doc_id, m.start(), m.end(), "STREET") for rx in (_FOREIGN, _STRASSE) for m in rx.finditer(text)]
    out += [mk(doc_id, *m.span("c"), "LOCATION-OTHER") for m in _COUNTY.finditer(text)
            if _place_words(m.group("c") + " x")]
    for m in _AU.finditer(text):
        if all(not is_safe_word(w, vocabulary=False) for w in m.group("town").split()):
            out += [mk(doc_id, *m.span("town"), "CITY"), mk(doc_id, *m.span("state"), "STATE"),
                    mk(doc_id, *m.span("pc"), "ZIP")]
    out += _towns_before_countries(text, doc_id) + _towns_and_states(text, doc_id)
    out += [mk(doc_id, *m.span("h"), "STREET") for m in _HOUSE.finditer(text)
            if not is_safe_word(m.group("h").split()[-2], vocabulary=False)]
    return dedupe(out)
