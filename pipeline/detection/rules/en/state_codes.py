"""A US state's postal code as ward notes and letters write it: after a town's strong context
("lives in NH") in a line with lower case, and after a comma right after a town ("LIVES IN
NAPLES, FL", "nashua, nh") in the town's case. Apart from :mod:`.places`, which finds the towns
these codes follow and calls these two functions."""
from __future__ import annotations

import re

from pipeline.detection.rules.common import line_of, mk
from pipeline.detection.rules.en.caseless import one_case
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word
from pipeline.detection.rules.en.towns import WORD_CODES, mixed_case, postal_codes
from pipeline.spans import Span

_CODE = re.compile(r"[A-Za-z]{2}(?![\w-])")


_state_codes = postal_codes   # (the name this module's importers know)


def codes_not_words() -> frozenset[str]:
    """The listed postal codes that are no English word or ward abbreviation ("NY", "TX", not "IN",
    "OR", "PA"): a state by themselves after a town, without a comma."""
    return frozenset(c for c in _state_codes() if c.lower() not in WORD_CODES)


def state_code(text: str, i: int) -> tuple[int, int, str] | None:
    """A state's postal code in capitals right after a town's strong context in a line with lower
    case ("lives in NH"). In a line of one case a code is too often a word or a ward's ("LIVES IN
    NH" may be a nursing home, "in me", "in OR")."""
    m = _CODE.match(text, i)
    if m is None or not m.group().isupper() or m.group() not in _state_codes() or not mixed_case(text, i):
        return None
    return i, m.end(), "STATE"


_KIN_IN = re.compile(r"(?i)(?<![\w])(?:wife|husband|son|daughter|dtr|sister|brother|niece|nephew|cousin|mother|father|mom|"
                     r"dad|parents|family|friend|"
                     # (or where someone lives: "DAUGHTER MARGERY IS HCP, LIVES IN CT": icu_invented_p find f866)
                     r"(?P<lives>lives|living|resides))[ \t]+in[ \t]+$")
# what follows a scanner's "CT" ("son in CT w/ pt", "in CT now"), not a state's
_SCAN_NEXT = re.compile(r"(?i)[ \t]*(?:w/|with\b|now\b|for\b|at\b|scan|today|head\b|chest\b|abd|done|pending|suite|room)")


def kin_state_code(text: str, context: str, i: int) -> tuple[int, int, str] | None:
    """A state's postal code right after a relative and "in" in a line of one case ("DAUGHTER IN CT
    CALLS DAILY": icu_invented_p find f96), where a line with lower case shows it by its capitals
    (:func:`state_code`): a code no word spells, the Veterans Affairs' "VA" aside, and not a
    scanner's "CT" ("son in CT w/ pt")."""
    m = _CODE.match(text, i)
    if m is None or not _KIN_IN.search(context) or not one_case(line_of(text, i)):
        return None
    code = m.group().upper()
    if code not in codes_not_words() or code == "VA" or _SCAN_NEXT.match(text, m.end()):
        return None
    if code == "NH" and _KIN_IN.search(context).group("lives"):
        return None   # "LIVES IN NH": a nursing home as often as New Hampshire
    return i, m.end(), "STATE"


_COMMA_CODE = re.compile(r",[ \t]*(?P<code>[A-Za-z]{2})(?![\w-])")
# a state's older abbreviation after a town's comma ("coming up from Enfield, Conn.", "flying in from
# lowell, mass tomorrow": icu_invented_p find f1055, f1168); only those no clinical word spells alone
_COMMA_OLD_ABBR = re.compile(r",[ \t]*(?P<code>(?i:conn|mass|penn|calif|fla|mich|minn|tenn|ariz|colo|okla|wisc)\.?)(?![\w-])")
_SPACE_CODE = re.compile(r"[ \t]+(?P<code>[A-Z]{2}|[a-z]{2})(?![\w-])")


# Canada's provinces and territories: a province after a town as a state after one ("Kelowna, BC");
# those that are also words or ward abbreviations ("ON", "PE", "NS", "NB", "AB", "NT") need what
# a word code needs (clinic_invented find f15, f16)
_PROVINCES = frozenset("BC AB MB QC NS NB NL PE SK YT NT NU ON".split())
_PROVINCE_WORDS = frozenset("on pe ns nb ab nt".split())
# a word code that is a state, not a word, in capitals after a title-case town in a line with lower
# case ("Savannah, GA   NPI ...": general anaesthesia, Maryland's MD, Colorado's CO are capitals
# too, but not right after "Town, "); "OR", "IN", "ME", "OK", "HI" are written as words in capitals
_STATE_FIRST = frozenset("ga md pa de co id la oh al ne".split())

# a code that is also a word ("PA", "OR", "ME") is a state after a town in title case when it closes the clause
_CODE_END = re.compile(r"[ \t]*(?:[.,;)]|\n|$)")
_ZIP_NEXT = re.compile(r"[ \t]+(?:\d{5}(?:-\d{4})?(?!\d)|[A-Za-z]\d[A-Za-z][ ]?\d[A-Za-z]\d(?![\w-]))")


_NEXT_WORD = re.compile(r"[ \t]+[\"“']?(?P<w>[A-Za-z]+)\b")   # (a quotation after it: 'CALLED FROM PORTSMOUTH NH "ASKING', icu_invented_p find f165)


def _PLAIN_WORD_NEXT(text: str, i: int) -> bool:
    """Whether the word after a code is no clinical word (a function word, or a word outside the
    safe vocabulary): "LIVE IN OLD LYME CT MOST OF THE YR" (icu_invented_p find f69) is a state,
    "from Hartford CT scan" a scan."""
    m = _NEXT_WORD.match(text, i)
    if m is None:
        return False
    w = m.group("w").lower()
    return w in FUNCTION_WORDS or not is_safe_word(w)


def state_after_town(text: str, doc_id: str, places: list[Span]) -> list[Span]:
    """A state's postal code after a comma right after a town found here ("LIVES IN NAPLES, FL",
    "nashua, nh"), in the town's case: capitals after capitals, lower case after lower case; without
    the comma, a code that is no word, closing the clause ("in Hudson NH.")."""
    out = []
    for sp in places:
        old = _COMMA_OLD_ABBR.match(text, sp.end) if sp.type == "CITY" else None
        if old is not None and (old.group("code").islower() == text[sp.start:sp.end].islower()):
            out.append(mk(doc_id, *old.span("code"), "STATE"))   # "from Enfield, Conn.", "from lowell, mass tomorrow"
            continue
        m = _COMMA_CODE.match(text, sp.end) if sp.type == "CITY" else None
        if m is None and sp.type == "CITY" and (s := _SPACE_CODE.match(text, sp.end)) is not None:
            # without a comma, a code no word spells, closing the clause, in the town's case ("teacher in
            # Hudson NH.", "40 Ledgewood Rd, Dover NH.": icu_invented_p find f03, f16), or before a word
            # no clinical note's shorthand holds; and Maine's "ME", which no sentence puts after a town
            # as the pronoun ("DAUGHTER CALLED FROM PORTLAND ME X2": icu_invented_p find f50)
            code, town = s.group("code"), text[sp.start:sp.end]
            if (code.upper() in codes_not_words() and (_CODE_END.match(text, s.end()) or _ZIP_NEXT.match(text, s.end())
                                                       or _PLAIN_WORD_NEXT(text, s.end()))
                    or code.upper() == "ME") \
                    and ((code.isupper() and not town.islower()) or (code.islower() and town.islower())):
                out.append(mk(doc_id, *s.span("code"), "STATE"))
            continue
        town = text[sp.start:sp.end] if m else ""
        # "Reinholds, PA."; in a line of one case too when the code closes the clause or a ZIP
        # follows ("SCHOENECK, PA.", "astoria, ny last": found on icu_invented_b find f40, f49)
        closes = bool(_CODE_END.match(text, m.end()) or _ZIP_NEXT.match(text, m.end())) if m else False
        word_ok = closes and (town.istitle() and m.group("code").isupper() or town.isupper() and m.group("code").isupper()
                              or town.islower() and m.group("code").islower())
        word_ok = word_ok or bool(m and town.istitle() and m.group("code").isupper() and mixed_case(text, sp.start)
                                  and m.group("code").lower() in _STATE_FIRST)
        code_up = m.group("code").upper() if m else ""
        is_word = code_up.lower() in WORD_CODES or code_up.lower() in _PROVINCE_WORDS
        if m and (code_up in _state_codes() or code_up in _PROVINCES) and (not is_word or word_ok):
            town, code = text[sp.start:sp.end], m.group("code")
            if (code.isupper() and not town.islower()) or (code.islower() and town.islower()):
                out.append(mk(doc_id, *m.span("code"), "STATE"))
    return out
