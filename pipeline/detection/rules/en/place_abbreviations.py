"""A hospital's abbreviation as ward notes write it ("seen at MGH", "transferred from BC", "seen at
uhf"): what tells it from a ward's, a discipline's or a state's abbreviation and from an English
word, by case and by how rarely English uses the string. Asked by :mod:`.places` after a place's
context; apart so that the place rules stay one room.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word, looks_like_typo, zipf
from pipeline.detection.rules.en.towns import mixed_case


# a ward's moments and reference values that "at", "for" or a percentage come before ("naloxone
# kit to be given at DC", "down 8% from BW", "sats 95% at RA": icu_invented_f find f25, f27):
# discharge, birth weight, room air, bedtime; "transferred from BW" is still a hospital
_WARD_MOMENTS = frozenset("dc bw ra hs".split())
_MOMENT_BEFORE = re.compile(r"(?i)(?:(?<![\w])(?:at|@|by|for|until|till|after|before|upon|on|prior\s+to)|"
                            r"\d\s*%\s*(?:from|of|below|above|under|over|at|on))[ \t]+$")


def ward_moment(word: str, text: str, i: int) -> bool:
    """Whether ``word`` at ``i`` is a ward's moment or reference value after its preposition ("at
    DC", "8% from BW"), not a hospital's or a district's abbreviation."""
    return word.lower() in _WARD_MOMENTS and _MOMENT_BEFORE.search(text, max(0, i - 30), i) is not None


# the twelve-step fellowships a note sends a patient to ("goes to AA meetings", "NA on Fridays":
# psych_invented find f06, f12): Alcoholics, Narcotics, Cocaine and Overeaters Anonymous, no hospital
FELLOWSHIPS = frozenset("aa na ca oa".split())


def abbreviation(word: str, text: str, i: int) -> bool:
    """A hospital's abbreviation: 2 to 6 capitals, no ward's and no English word, written in
    capitals in a line that has lower case (in an ALL-CAPS line: a rare word only)."""
    if not re.fullmatch(r"[A-Z]{2,6}", word) or is_safe_word(word, vocabulary=False) or ward_moment(word, text, i) \
            or word.lower() in FELLOWSHIPS:
        return False
    z = zipf(word)
    if mixed_case(text, i):
        return z is None or z < 4.0
    return z is not None and z < 2.0 and not (len(word) > 4 and looks_like_typo(word))   # "IN STALBE CONDITION"


# two capitals after a transfer that are a ward's, a discipline's or a state's, not a hospital's
_NOT_TWO_CAPITALS = frozenset("""ms pt ot rt cm sw np pa md rn do us ma nh ny ct ri me va fl ca tx ip op ob ld ep ir gi
er ed or cc hd ap la""".split()) | FELLOWSHIPS


def two_capitals(word: str) -> bool:
    """A hospital's two-letter acronym in capitals right after a transfer ("transferred from BC",
    "SENT TO UH"): English's common two-letter words and abbreviations are its commonest strings,
    so rarity says nothing here; no ward's word, no discipline's, no state's."""
    return (re.fullmatch(r"[A-Z]{2}", word) is not None and word.lower() not in _NOT_TWO_CAPITALS
            and word.lower() not in FUNCTION_WORDS and not is_safe_word(word, vocabulary=False))


def any_case_abbreviation(word: str) -> bool:
    """A hospital's abbreviation in capitals or lower case after "seen at" ("uhf", "SJH"): 2 to 5
    letters, no safe word ("OSH", "HD", "ED"), rare in English."""
    if not re.fullmatch(r"[A-Z]{2,5}|[a-z]{2,5}", word) or is_safe_word(word) or word.lower() in FELLOWSHIPS:
        return False
    z = zipf(word)
    return z is not None and z < 2.5 and not looks_like_typo(word)
