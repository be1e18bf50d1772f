"""Facilities named by the words around them, in any case: a saint's, a mount's or a holy name after
"at"/"from"/"to" or a church's word, a Catholic institution by its Marian title, a facility a patient
is screened for or referred to, a dialysis unit a patient goes to, a facility's name in brackets
after its kind ("Group home (Maple Court)"). Helpers of :mod:`.places`, which
calls :func:`named_facilities` where these contexts stood in its own loop (their order decides a
span's type when two contexts find the same offsets).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import line_of, mk
from pipeline.detection.rules.en.caseless import one_case
from pipeline.detection.rules.en.following_place import following_place, listed_facilities
from pipeline.detection.rules.en.hospital_names import closed_by_head
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word, zipf
from pipeline.spans import Span

__all__ = ["named_facilities"]

# a saint's, a mount's or a holy name after "at", "from", "to" in any case ("NURSE AT MT AUBURN",
# "at st. mary's", "from st. elizabeths", "PRESENTED TO HOLY FAMILY", "student at holy cross"): a
# hospital's, a church's or a school's; a place either way ("st. john's wort" is a herb)
# (and a church's name after the word: "THE PRIEST FROM THEIR CHURCH, ST. DEMETRIOS, BE CALLED":
# icu_invented_p find f115)
_SAINT_AT = re.compile(r"(?i)(?<![\w])(?:(?:at|@|from|to)[ \t]+|(?:church|parish)[ \t]*[,(][ \t]*)"
                       r"(?P<place>(?:(?:st|saint|mt|mount)\.?|(?P<holy>holy|sacred))"
                       r"[ \t]+(?P<name>[A-Za-z][A-Za-z'-]*[A-Za-z](?:'s)?))(?![\w'-])(?![ \t]+wort\b)")
# a Catholic institution's name by its Marian title, in any case and without a context ("BED OFFER
# FROM OUR LADY OF THE PINES": icu_invented_p find f111): a hospital's, a home's, a church's or a school's
_OUR_LADY = re.compile(r"(?i)(?<![\w])our[ \t]+lady[ \t]+of[ \t]+(?:the[ \t]+)?(?!the\b)[A-Za-z][A-Za-z'-]*[A-Za-z]"
                       r"(?:[ \t]+(?:of[ \t]+)?(?:hospital|medical[ \t]+center|church|parish|school|academy|manor|home|"
                       r"nursing[ \t]+home|rehab|college|university|health(?:care)?[ \t]+center))?")
# the facility a patient is screened for, when its head word closes its name ("SCREENING FOR BAYBERRY
# POINT REHAB": icu_invented_p find f122); "screened for LTACH", "screening for depression" name none
_SCREENED_FOR = re.compile(r"(?i)(?<![\w])(?:screened|screening|screen)\s+for\s+(?:the\s+)?")
# a facility a patient is referred to or dialyzes at ("REFERRALS: BOYERTOWN MANOR, GLEN BROOK", "dialyzes
# at Ephrata Dialysis"; icu_invented_b find f02, f09), and the next names of a list after one found
_REFERRAL = re.compile(r"(?i)(?<![\w])(?:referrals?(?:[ \t]+sent)?[ \t]*:|dialy[sz](?:es|ed|is)[ \t]+at)[ \t]*(?:the[ \t]+)?")
# a facility's name in brackets after its kind ("Group home (Maple Court) will not take pt back":
# icu_invented_p find f134): the name closes the bracket
_KIND_BRACKET = re.compile(r"(?i)(?<![\w])(?P<kind>group[ \t]+home|shelter|rehab|nursing[ \t]+home|snf|assisted[ \t]+living|"
                           r"facility|vna|day[ \t]+program|halfway[ \t]+house|ltach|nh)[ \t]*\([ \t]*"
                           r"(?P<name>[A-Za-z][A-Za-z'’-]*(?:[ \t]+[A-Za-z][A-Za-z'’-]*){0,3})[ \t]*\)")
_ORGANIZATION_KINDS = re.compile(r"(?i)group|shelter|vna|day|halfway")


def _bracket_name(text: str, m: re.Match) -> bool:
    """Whether the words in a facility's bracket name it: no function word; with their capitals in a
    line of both cases and not all ward words; in a line of one case one of them a word English
    seldom writes (Zipf < 4.5) and no ward's ("rehab (acute)", "snf (long term)" stay)."""
    words = m.group("name").split()
    if any(w.lower() in FUNCTION_WORDS for w in words):
        return False
    if not one_case(line_of(text, m.start())):
        return all(w[:1].isupper() for w in words) and not all(is_safe_word(w) for w in words)
    return any(not is_safe_word(w) and (zipf(w) or 0.0) < 4.5 for w in words)



def named_facilities(text: str, doc_id: str, places: list[Span]) -> list[Span]:
    """The facilities these contexts name, in the order of the contexts; ``places``: the places
    found before them (a saint's name inside one, "St. Anne's Hospital", is not found again)."""
    found: list[Span] = []
    for m in _SAINT_AT.finditer(text):
        name = re.sub(r"'s$", "", m.group("name"))
        # "at mt rest"; after "holy" a safe word names the place too ("Holy Family", "Holy Name")
        inside = any(o.start <= m.start("place") and m.end("place") <= o.end
                     for o in [*places, *found])   # "St. Anne's Hospital"
        if not inside and name.lower() not in FUNCTION_WORDS and (m.group("holy") or not is_safe_word(name)):
            found.append(mk(doc_id, *m.span("place"), "HOSPITAL"))
    found += [mk(doc_id, *m.span(), "HOSPITAL") for m in _OUR_LADY.finditer(text)]
    for m in _SCREENED_FOR.finditer(text):
        got = following_place(text, m.end(), True, "HOSPITAL")
        if got and got[2] == "HOSPITAL" and closed_by_head(text[got[0]:got[1]], owned=True):
            found.append(mk(doc_id, *got))
    for m in _KIND_BRACKET.finditer(text):
        if _bracket_name(text, m):
            kind = "ORGANIZATION" if _ORGANIZATION_KINDS.match(m.group("kind")) else "HOSPITAL"
            found.append(mk(doc_id, *m.span("name"), kind))
    for m in _REFERRAL.finditer(text):
        got = following_place(text, m.end(), True, "HOSPITAL")
        if got:
            found += listed_facilities(text, doc_id, got)
    return found
