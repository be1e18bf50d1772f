"""A hospital's acronym with its town, as trauma and transfer notes write them: an acronym after
"to"/"at" that a town follows after "in" ("TAKEN BY ATHOL AMBULANCE TO MRH IN GARDNER"), and that
town, also after an acronym a move names ("INITIALLY TO PVMC IN WESTERLY"). Helpers of
:mod:`.places`, which calls them; found on icu_invented_p find f166, f225, f237.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en.caseless import one_case_at
from pipeline.detection.rules.en.following_place import following_place
from pipeline.detection.rules.en.hospital_acronyms import department_acronym
from pipeline.detection.rules.en.towns import is_word_town, listed_place_type, word_town_at
from pipeline.spans import Span

__all__ = ["acronyms_in_towns", "town_after_acronym"]

# an acronym after "to" or "at" with its town after "in" ("TAKEN BY ATHOL AMBULANCE TO MRH IN GARDNER",
# "to OHC in Bethel": icu_invented_p find f225, f237), whatever brought the patient there
_TO_ACRONYM = re.compile(r"(?<![\w])(?i:to|at)[ \t]+(?=[A-Za-z]{3,5}[ \t]+(?i:in)[ \t])")

_IN_AFTER_ACRONYM = re.compile(r"[ \t]+(?i:in)[ \t]+")


def town_after_acronym(text: str, i: int) -> tuple[int, int, str] | None:
    """The town after "in" right after a hospital's acronym a move names ("INITIALLY TO PVMC IN
    WESTERLY", icu_invented_p find f166): a listed place, or a town that is a word closing its clause."""
    m = _IN_AFTER_ACRONYM.match(text, i)
    if m is None or not re.fullmatch(r"[A-Za-z]{2,6}", text[text.rfind(" ", 0, i) + 1:i]):
        return None
    got = following_place(text, m.end(), True, "CITY") or word_town_at(text, m.end())
    if got is None and (w := re.match(r"[A-Za-z]+(?![\w'-])", text[m.end():])) and is_word_town(w.group()) \
            and (w.group().istitle() or one_case_at(text, m.end())):
        got = (m.end(), m.end() + len(w.group()), "CITY")   # "TO OHC IN BETHEL WHERE ...": a town the gazetteer knows
    return got


def acronyms_in_towns(text: str, doc_id: str) -> list[Span]:
    """A hospital's acronym after "to"/"at" that a town follows after "in", and the town."""
    out: list[Span] = []
    for m in _TO_ACRONYM.finditer(text):
        abbr = re.match(r"[A-Za-z]{3,5}", text[m.end():]).group()
        if not (abbr.isupper() or one_case_at(text, m.end())) or department_acronym(text, m.end()) is None:
            continue
        out.append(mk(doc_id, m.end(), m.end() + len(abbr), "HOSPITAL"))
        if (town := town_after_acronym(text, m.end() + len(abbr))) is not None:
            out.append(mk(doc_id, town[0], town[1], listed_place_type(text[town[0]:town[1]]) or town[2]))
    return out
