"""A hospital by its acronym where the note says whose it is: defined in brackets after the
hospital's name ("Good Shepherd Hospital (GSH)"), then every later "GSH" of the note; and an
acronym before one of its departments after a move ("sent over from SMH ED"), where a rare
string is not needed: the department says a hospital stands before it. Helpers of :mod:`.places`.
Found on icu_invented_k find f01 and f10. And the initials of a hospital the note names in full,
wherever the note writes them ("TRANSFERRED FROM MANOMET COMMUNITY HOSPITAL ... INTUBATED AT MCH":
icu_invented_p find f84), without brackets; and an acronym after "to"/"at" that "in <town>" follows
("TAKEN BY ATHOL AMBULANCE TO MRH IN GARDNER": icu_invented_p find f225), with that town.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import line_of, mk
from pipeline.detection.rules.en.caseless import one_case, one_case_at
from pipeline.detection.rules.en.following_place import following_place
from pipeline.detection.rules.en.hospital_names import HEAD
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_safe_word, zipf
from pipeline.detection.rules.en.towns import is_word_town, listed_place_type, word_town_at
from pipeline.spans import Span

__all__ = ["acronyms_in_towns", "defined_acronyms", "department_acronym", "initials_of_found", "town_after_acronym"]

_BRACKETED = re.compile(r"\((?P<abbr>[A-Za-z]{2,6})\)")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z'.-]*)[ \t]+$")
_ONE_CASE_LETTERS = re.compile(r"[A-Z]{2,5}|[a-z]{2,5}")
# a hospital's departments, after its acronym
_DEPARTMENT_AFTER = re.compile(r"[ \t]+(?i:ed|er|ew|icu|micu|sicu|ccu|nicu|picu|cath[ \t]+lab|emergency)\b")


def defined_acronyms(text: str, doc_id: str) -> list[Span]:
    """An acronym in brackets right after a hospital's head word whose letters are the initials of
    the words before it ("Good Shepherd Hospital (GSH)", "ST. RAPHAEL MEDICAL CENTER (SRMC)"), and
    the same acronym wherever the note writes it again as a word, in any case."""
    out: list[Span] = []
    for m in _BRACKETED.finditer(text):
        before = text[max(0, m.start() - 80):m.start()].rstrip()
        head = [h for h in HEAD.finditer(before) if h.end() == len(before)]
        if not head:
            continue
        abbr = m.group("abbr")
        words = re.findall(r"[A-Za-z][A-Za-z'.-]*", before)[-len(abbr):]
        if len(words) < len(abbr) or "".join(w[0] for w in words).lower() != abbr.lower():
            continue
        for rep in re.finditer(rf"(?i)(?<![\w-]){re.escape(abbr)}(?![\w-])", text):
            out.append(mk(doc_id, *rep.span(), "HOSPITAL"))
    return out


def department_acronym(text: str, i: int) -> tuple[int, int, str] | None:
    """At ``i`` (right after a move's "from"/"to"), two to five letters in one case that are no
    function, ward or safe word of the pack's own stop set, with a department after them ("SMH
    ED", "smh ed"; "from OR", "to ICU" stay) or a town after "in" (:func:`_town_after`)."""
    m = _ONE_CASE_LETTERS.match(text, i)
    if m is None or (m.end() < len(text) and (text[m.end()].isalnum() or text[m.end()] == "-")):
        return None
    word = m.group()
    if word.lower() in FUNCTION_WORDS or is_safe_word(word, vocabulary=False) \
            or not (_DEPARTMENT_AFTER.match(text, m.end()) or _town_after(text, m.end(), word)) \
            or (zipf(word) or 0.0) >= 4.0:
        return None   # "transferred here from local ER" (icu_invented_n find f01): a common word
    return m.start(), m.end(), "HOSPITAL"


_IN_AFTER = re.compile(r"[ \t]+(?i:in)[ \t]+")


def _town_after(text: str, i: int, word: str) -> bool:
    """Whether a town follows the letters at ``i`` after "in" ("INITIALLY TO PVMC IN WESTERLY",
    "initially to yhmc in maine": icu_invented_p find f166, f171): three letters or more English does
    not write, and a listed town, state or country or a town of the gazetteer that is a word. Stricter
    than :func:`town_after_acronym`, which finds the town once an acronym is a hospital's."""
    m = _IN_AFTER.match(text, i)
    if m is None or len(word) < 3 or (zipf(word) or 0.0) >= 2.0:
        return False
    name = re.match(r"[A-Za-z][A-Za-z'-]*(?:[ \t]+[A-Za-z][A-Za-z'-]*)?", text[m.end():])
    if name is None:
        return False
    words = name.group().split()
    return any(listed_place_type(" ".join(words[:n])) for n in (1, 2)) or is_word_town(words[0])


def initials_of_found(text: str, doc_id: str, places: list[Span]) -> list[Span]:
    """The acronym of a hospital found in full ("Manomet Community Hospital" -> "MCH"), three letters
    or more, wherever the note writes it as a word: in capitals, or in a line of one case in that
    line's case; never a function, ward or safe word of the pack's own stop set ("ICU", "CMO")."""
    out: list[Span] = []
    seen: set[str] = set()
    for sp in places:
        if sp.label != "HOSPITAL":
            continue
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z'.-]*", text[sp.start:sp.end]) if w.lower() not in FUNCTION_WORDS]
        abbr = "".join(w[0] for w in words).upper()
        if len(words) < 3 or abbr in seen or not HEAD.search(text[sp.start:sp.end]) \
                or is_safe_word(abbr, vocabulary=False) or abbr.lower() in FUNCTION_WORDS:
            continue
        seen.add(abbr)
        for rep in re.finditer(rf"(?i)(?<![\w-]){re.escape(abbr)}(?![\w-])", text):
            word = rep.group()
            if word.isupper() or (word.islower() and one_case(line_of(text, rep.start()))):
                out.append(mk(doc_id, *rep.span(), "HOSPITAL"))
    return out


# an acronym after "to" or "at" with its town after "in" ("TAKEN BY ATHOL AMBULANCE TO MRH IN GARDNER",
# "to OHC in Bethel": icu_invented_p find f225, f237), whatever brought the patient there
_TO_ACRONYM = re.compile(r"(?<![\w])(?i:to|at)[ \t]+(?=[A-Za-z]{3,5}[ \t]+(?i:in)[ \t])")

def town_after_acronym(text: str, i: int) -> tuple[int, int, str] | None:
    """The town after "in" right after a hospital's acronym a move names ("INITIALLY TO PVMC IN
    WESTERLY", icu_invented_p find f166): a listed place, or a town that is a word closing its clause."""
    m = _IN_AFTER.match(text, i)
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
