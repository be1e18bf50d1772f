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
to be a place's word, so a credential ("Smith, MD") stays. In a line written in one case ("84
RIVERSIDE GARDENS", "flat 22, cobden house") the patterns read :func:`.caseless.titled`'s view
(states' and Australian states' abbreviations in capitals), and the words must say what capitals
no longer do: a name's words are no ward word and no function word, and one of them is no common
English word (``_distinct``); "Flat" needs a street as "Unit" does ("LYING FLAT 30 MIN" stays).
Found on the invented PII texts' "find" half (benchmarks/pii_invented.py) and its UPPER and
lower copies.
"""
from __future__ import annotations

import re
from functools import lru_cache

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case_at, titled
from pipeline.detection.rules.en.contact import STATE_ABBR, streets, towns_after_streets
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, has_clinical_ending, is_safe_word, looks_like_place, zipf
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
# the first street of an intersection, a route's number or a street's word ("RTE 44 AND", "Elm St &")
_STREET_BEFORE_AND = re.compile(r"(?i)(?:\b(?:rte|route|rt|hwy|highway|i)[ \t-]*\d{1,3}[A-Za-z]?|"
                                r"\b(?:st|street|ave|avenue|rd|road|blvd|boulevard|ln|lane|dr|drive|way|pl|place|sq|square|pkwy|parkway))\.?$")
# a listed town right after a street ("on pleasant st in brockton", "ELM ST, QUINCY")
_TOWN_AFTER_STREET = re.compile(r"[ \t]*(?:,|[ \t](?i:in|of))[ \t]*(?P<town>[A-Za-z][A-Za-z'-]+(?:[ \t][A-Za-z][A-Za-z'-]+)?)")
# (the second street of an intersection after "and": "AT RTE 44 AND ORCHARD ST IN RAYNHAM", icu_invented_p find f116)
# (or after "intersection of": "AT THE INTERSECTION OF HIGHLAND AVE AND SCHOOL ST": icu_invented_p find f226)
_NUMBERLESS = re.compile(rf"(?P<cue>(?<![\w])(?i:on|near|at|off|along|in|by|from|to|intersection[ \t]+of|corner[ \t]+of)[ \t]+(?:the[ \t]+)?|"
                         rf"(?<=[0-9A-Za-z.])[ \t]+(?i:and|&)[ \t]+(?=(?:{_CAP}[ \t]+){{1,3}}(?:{_FULL_WORDS}|St|Rd|Ave)\.?(?![\w-])))"
                         rf"(?P<st>(?:{_CAP}[ \t]+){{1,3}}(?:{_FULL_WORDS}|St|Rd|Ave)\.?)(?![\w-])")
# "Via", "Avenue", "Boulevard" and "Chemin" start English words too ("sent Via Fax"): a house number first
_FOREIGN = re.compile(r"(?<![\w])(?:(?:\d{1,5}[ \t]+)?(?:Rue|Calle|Avenida|Rua|Carrer|Piazza)|\d{1,5}[ \t]+(?:Via|Chemin|"
                      r"Boulevard|Avenue))"
                      r"(?:[ \t]+(?:de|del|de la|du|des|della|da|do|dos))?[ \t]+[A-ZÀ-Þ][^\W\d_]+(?:[- ][A-ZÀ-Þ][^\W\d_]+)?"
                      r"(?:,?[ \t]+\d{1,5}[A-Za-z]?\b)?")
_STRASSE = re.compile(r"(?<![\w])[A-ZÄÖÜ][a-zäöüß]+(?:straße|strasse|weg|gasse|platz|allee|ring|damm)[ \t]+\d{1,4}[a-z]?\b")
# (never a level of government: "NOTIFY COUNTY/STATE HEALTH DEPT", "county or state": icu_invented_q find f13)
_COUNTY = re.compile(rf"(?<![\w])(?P<c>(?:{_CAP}[ \t]+){{1,2}}County(?![ \t]*(?:/|or[ \t]+|and[ \t]+)(?i:state|city|federal))|"
                     rf"(?:(?:North|South|East|West)[ \t]+)?[A-Z][a-z]+shire)(?![\w-])")
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
_CREDENTIAL_AFTER = re.compile(r"[ \t]*,[ \t]*(?i:ccc-slp|ccc|slp|rd|ld|ldn|lpc|lcsw|licsw|lmft|rn|np|pa-c|otr(?:/l)?|pt|dpt|"
                               r"cde|cdces|bcba|phd|psyd|cnp|fnp)\b")
_AU_STATES = ("NSW", "VIC", "QLD", "TAS", "ACT", "SA", "WA", "NT")
# how a one-case line's view spells the states' abbreviations (a view of its own: "CT" is a state
# and "Ct" a court)
_STATE_CANON = {a.lower(): a for a in (*STATE_ABBR, *_AU_STATES)}


def _distinct(words: list[str], common: float = 4.0) -> bool:
    """Whether ``words``, a place's name in a line in one case, say a name without capitals: no
    function word, no ward word, no clinical ending, and one word rarer than ``common`` (Zipf) or
    a listed place ("riverside", "cedar"; "blood bank" stays). The stronger the rest of the
    address (a house number, a state, a postcode), the commoner a word may be ("oak", "melbourne")."""
    words = [w.strip(".,'’") for w in words]
    if not words or any(not w or w.lower() in FUNCTION_WORDS or is_safe_word(w, vocabulary=False)
                        or has_clinical_ending(w) for w in words):
        return False
    return any((zipf(w) or 0.0) < common or looks_like_place(w, strong=True) for w in words)


def _towns_and_states(view: str, text: str, doc_id: str) -> list[Span]:
    """A town and its state, each word of the town a place's word (a credential's "Smith, MD" stays)."""
    out = []
    for m in _town_state().finditer(view):
        words, state = m.group("town").split(), m.group("state")
        if len(state) > 2 and one_case_at(text, m.start()):   # "lives alone, maine" stays
            ok = _distinct(words, 5.0)
        elif len(state) > 2:   # a state's name vouches for the town: any words but a ward's or a function word
            ok = not any(w.lower() in FUNCTION_WORDS or is_safe_word(w, vocabulary=False) for w in words)
        else:                # an abbreviation may be a credential ("Smith, MD", "Jones, PA", "B. Haugen,
            # MS, CCC-SLP": a degree before another credential, ltc_invented find f12)
            ok = state not in _CREDENTIALS and all(looks_like_place(w, strong=True) for w in words) \
                and not _CREDENTIAL_AFTER.match(text, m.end("state"))
        if ok:
            out += [mk(doc_id, *m.span("town"), "CITY"), mk(doc_id, *m.span("state"), "STATE")]
    return out


def _units(view: str, text: str, doc_id: str, street_lines: set[int]) -> list[Span]:
    """Units: a strong unit word alone, a weak one (and, in a line in one case, "Flat") on a
    street's line or before a house number and its street; in a line in one case also before a
    comma and a house's name ("FLAT 22, COBDEN HOUSE"), the name's word :func:`_distinct`."""
    out, weak = [], list(_UNIT_WEAK.finditer(view))
    for m in _UNIT_STRONG.finditer(view):
        if one_case_at(text, m.start()) and view[m.start()] in "FP":
            weak.append(m)
        else:
            out.append(mk(doc_id, m.start(), m.end(), "STREET"))
    for m in weak:
        before = re.search(r"([A-Za-z][A-Za-z0-9'-]*)[ \t]+$", text[max(0, m.start() - 30):m.start()])
        if before and is_safe_word(before.group(1)) and before.group(1).lower() not in FUNCTION_WORDS:
            continue   # "ETOH LEVEL 180", "VANC LEVEL 17": a drug's or a lab's level (icu_invented_l find f08, f19)
        if text.count("\n", 0, m.start()) in street_lines or _unit_followed(view, m.end(), one_case_at(text, m.start())):
            out.append(mk(doc_id, m.start(), m.end(), "STREET"))
    return out


def _unit_followed(view: str, i: int, caseless: bool) -> bool:
    """Whether an address goes on after a unit at ``i``: a house number and a capitalised word, or
    (``caseless``) a :func:`_distinct` word after a house number or a comma."""
    after = re.match(r",?[ \t]+\d{1,5}[A-Za-z]?[ \t]+(?P<w>[A-Z][\w'’-]*)", view[i:i + 40])
    if not caseless:
        return bool(after)
    after = after or re.match(r",[ \t]+(?P<w>[A-Z][\w'’-]*)", view[i:i + 40])
    return bool(after) and _distinct([after.group("w")])


def _place_words(value: str, caseless: bool = False, common: float = 4.0) -> bool:
    """No function word, and not only safe words (a ward's "Main Street" is still a street); in a
    line in one case (``caseless``), :func:`_distinct` words."""
    words = [w for w in value.split()[:-1]]
    if caseless:
        return _distinct([w for w in words if not w[:1].isdigit()], common)
    return not any(w.lower() in FUNCTION_WORDS for w in words) and any(
        not is_safe_word(w, vocabulary=False) for w in words)


@lru_cache(maxsize=1)
def _country_after() -> re.Pattern:
    names = [e for e in load_list("en", "countries") if e[:1].isupper()]
    countries = "|".join(re.escape(n).replace("\\ ", r"[ \t]+") for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w])(?P<town>[A-Z][A-Za-z'’-]+(?:[ \t][A-Z][A-Za-z'’-]+)?),[ \t]*(?i:{countries})(?![\w])")


def _towns_before_countries(view: str, doc_id: str) -> list[Span]:
    """"Guadalajara, Mexico": a town (a place's word, in any case of the line) before its country."""
    out = []
    for m in _country_after().finditer(view):
        words = m.group("town").split()
        if all(looks_like_place(w, strong=True) for w in words):
            out.append(mk(doc_id, *m.span("town"), "CITY"))
    return out


def _foreign_streets(view: str, text: str, doc_id: str) -> list[Span]:
    """Streets that start with their kind ("Rue", "Via"), or German ones; in a line in one case the
    name after the kind must be :func:`_distinct` ("2 VIA PEG" stays)."""
    out = []
    for rx in (_FOREIGN, _STRASSE):
        for m in rx.finditer(view):
            names = re.findall(r"[^\W\d_][\w'’-]*", m.group())[1 if rx is _FOREIGN else 0:]
            if rx is _STRASSE and names and names[0].lower().endswith("ing") and (zipf(names[0]) or 0.0) >= 1.5:
                continue   # "SHIVERING 2030 -> NIMBEX": an English word's "-ring" and a time (icu_invented_j find f11)
            if not one_case_at(text, m.start()) or _distinct(names[-1:]):
                out.append(mk(doc_id, m.start(), m.end(), "STREET"))
    return out


def _australian(view: str, text: str, doc_id: str) -> list[Span]:
    """"Melbourne VIC 3000": the town, the state and the postcode."""
    out = []
    for m in _AU.finditer(view):
        words = m.group("town").split()
        ok = _distinct(words, 5.0) if one_case_at(text, m.start()) else all(not is_safe_word(w, vocabulary=False) for w in words)
        if ok:
            out += [mk(doc_id, *m.span("town"), "CITY"), mk(doc_id, *m.span("state"), "STATE"),
                    mk(doc_id, *m.span("pc"), "ZIP")]
    return out


@lru_cache(maxsize=1)
def _cities() -> frozenset[str]:
    return frozenset(" ".join(e.split()).lower() for name in ("cities", "towns") for e in load_list("en", name))


def _numberless_ok(m: re.Match, text: str) -> bool:
    """A street without a number after a place's word: as written, :func:`_place_words`; in a line
    in one case, no listed town, a full street word ("on magazine street") lets a commoner word be the name, an
    abbreviation ("in sinus st": a rhythm) needs words outside the safe vocabulary."""
    if re.fullmatch(r"(?i)[ \t]+(?:and|&)[ \t]+", m.group("cue")) and not _STREET_BEFORE_AND.search(text, 0, m.start()):
        return False   # an intersection's second street only after its first ("pain and Pleasant St" stays)
    if not one_case_at(text, m.start()):
        return _place_words(m.group("st"))
    if " ".join(m.group("st").split()).lower() in _cities():
        return False   # "lives in miami gardens": a town's name that ends as a street's
    town = _TOWN_AFTER_STREET.match(text, m.end())
    if town and any(" ".join(town.group("town").split()[:n]).lower() in _cities() for n in (1, 2)) \
            and not any(is_safe_word(w) or w.lower() in FUNCTION_WORDS for w in m.group("st").split()[:-1]):
        return True   # "ON PLEASANT ST IN BROCKTON": a listed town after it says the words name a street (icu_invented_p find f68)
    words = m.group("st").split()
    if any(re.search(r"(?i)[a-z]{3}(?:ing|ed)$", w) and (zipf(w) or 0.0) >= 3.0 for w in words[:-1]):
        return False   # "ATV ROLLOVER ON LOGGING ROAD": a kind of road, no street's name (icu_invented_p find f237);
        # a name that only ends so stays ("COTTING STREET SHELTER")
    if re.fullmatch(r"(?i)(?:st|rd|ave)\.?", words[-1]):
        return _distinct(words[:-1]) and not any(is_safe_word(w) for w in words[:-1])
    return _distinct(words[:-1], 5.0)


def _numbered(view: str, text: str, doc_id: str) -> list[Span]:
    """Streets with a house number; in a line in one case the name's words :func:`_distinct`, a
    closing "Dr" not followed by a word ("GIVEN 2 TABS PERCOCET DR SMITH" stays) and a closing
    "St" after no word of the safe vocabulary ("HR 110 SINUS ST" stays)."""
    out = []
    for m in _NUMBERED.finditer(view):
        caseless = one_case_at(text, m.start())
        if caseless and view[m.end() - 3:m.end()].rstrip(".").endswith("Dr") and re.match(r"\.?[ \t]+[A-Za-z]", view[m.end():]):
            continue
        words = [w for w in m.group().split()[1:-1]]
        if caseless and re.fullmatch(r"(?i)(?:st|ct)\.?", m.group().split()[-1]) and any(is_safe_word(w) for w in words):
            continue   # "HR 110 SINUS ST": a rhythm; "1230 MEDIASTINAL CT PULLED": a chest tube (icu_invented_i find f06)
        if _place_words(m.group(), caseless, 4.5):
            out.append(mk(doc_id, m.start(), m.end(), "STREET"))
    return out


@register(LOCALE, "address_parts", "LOCATION", score=0.84)
def address_parts(text: str, doc_id: str) -> list[Span]:
    """Units, British and Australian streets, numberless streets after a place's word, foreign
    street forms, counties, Australian town-state-postcode lines and towns before countries;
    lines in one case read in title case (:func:`.caseless.titled`)."""
    view, states = titled(text), titled(text, _STATE_CANON)
    out = _numbered(view, text, doc_id)
    out += towns_after_streets(text, doc_id, out)
    street_lines = {text.count("\n", 0, s.start) for s in streets(text, doc_id) + out if s.type == "STREET"}
    out += _units(view, text, doc_id, street_lines)
    out += [mk(doc_id, *m.span("st"), "STREET") for m in _NUMBERLESS.finditer(view) if _numberless_ok(m, text)]
    out += _foreign_streets(view, text, doc_id)
    out += [mk(doc_id, *m.span("c"), "LOCATION-OTHER") for m in _COUNTY.finditer(view)
            if _place_words(m.group("c") + " x", one_case_at(text, m.start()))]
    out += _australian(states, text, doc_id)
    out += _towns_before_countries(view, doc_id) + _towns_and_states(states, text, doc_id)
    out += [mk(doc_id, *m.span("h"), "STREET") for m in _HOUSE.finditer(view)
            if not is_safe_word(m.group("h").split()[-2], vocabulary=False)
            and (not one_case_at(text, m.start("h")) or _place_words(m.group("h"), True))]
    return dedupe(out)
