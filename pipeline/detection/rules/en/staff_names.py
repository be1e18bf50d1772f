"""One staff member named alone after a ward's shorthand, where capitals cannot say it is a
name: a rare surname after "d/w" ("D/W NUSSBAUM, PLAN FOR CATH"), a listed surname after "per"
("PER SAMUELS AT 1100"), a name after a discipline's shorthand ("SW Ottoline", "sw colleen",
"(PA Lewandowski)") and a first name before the service it comes from ("gloria from sw").
Helpers of :mod:`.context_names`, which finds the context words.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, is_first_name, is_listed_surname, is_safe_word,
                                                   looks_like_name, looks_like_typo, typo_of_ward_word, zipf)
from pipeline.spans import Span

__all__ = ["discussed_with", "names_from_service", "per_surname", "rare_staff_name"]


def discussed_with(text: str, token: tuple[int, int]) -> int | None:
    """After "d/w" in a line of one case, a surname alone that English barely uses ("D/W NUSSBAUM,
    PLAN FOR CATH"), where capitals cannot say so: no safe word ("d/w team", "d/w cards"), rare
    (Zipf < 3), no typo of a word, and a stop, a comma or the line's end after it. Found on the
    invented ICU notes' find half (f37, in UPPER and lower)."""
    word = text[slice(*token)]
    line_start = text.rfind("\n", 0, token[0]) + 1
    line_end = text.find("\n", token[1])
    line = text[line_start:line_end if line_end >= 0 else len(text)]
    if (any(c.islower() for c in line) and any(c.isupper() for c in line)) or not word.isalpha():
        return None
    z = zipf(word)
    if not looks_like_name(word, True) or z is None or z >= 3.0 or looks_like_typo(word):
        return None
    return token[1] if re.match(r"[ \t]*(?:[.,;:)]|$|\n)", text[token[1]:]) else None


# what follows a surname a plan was made by: a stop, a comma, "at" or a time, "aware"
_AFTER_PER_NAME = re.compile(r"(?i)[ \t]*(?:[.,;:)]|$|\n|(?:at|@|aware|ok|okay|to|re)\b|\d{3,4}\b)", re.MULTILINE)


# what a rate is given per ("1 AMP BICARB PER LITER": icu_invented_l find f11) and who speaks for
# an office ("per sheriff": icu_invented_n find f06), never a surname after "per"
_NO_SURNAME_AFTER_PER = frozenset("liter litre liters litres hour hours day days week weeks month months dose doses "
                                  "kilo kilogram pound ounce gram minute minutes shift bag bags unit units vial vials "
                                  "sheriff deputy officer trooper police pastor chaplain judge warden guard".split())


def per_surname(text: str, token: tuple[int, int]) -> int | None:
    """After "per", a listed surname English uses little (Zipf < 3.5) in any case, no ward word
    and no typo of one, closing its clause ("NGT D/C'D PER SAMUELS AT 1100": icu_invented_i find
    f02); "per protocol", "per cards", "per MAR" are safe or no names."""
    word = text[slice(*token)]
    z = zipf(word)
    if word.lower() in _NO_SURNAME_AFTER_PER:
        return None
    if not word.isalpha() or len(word) < 3 or z is None or z >= 3.5 or not is_listed_surname(word) \
            or not looks_like_name(word, True) or typo_of_ward_word(word) or not _AFTER_PER_NAME.match(text, token[1]):
        return None
    return token[1]


def rare_staff_name(text: str, token: tuple[int, int]) -> int | None:
    """After a discipline's shorthand ("SW Ottoline", "CM WIESLAWA"), a word English barely uses
    (Zipf < 3), no safe word and no typo of a common one, where a listed name alone was asked: the
    shorthand is a ward word too ("SW consult", "5 cm"), but a rare word after it is the staff
    member's name (found on icu_invented_b find f38; "RT", which is also "right", is not one)."""
    word = text[slice(*token)]
    z = zipf(word)
    if word.isalpha() and z is not None and 3.0 <= z < 4.0 and is_first_name(word) and looks_like_name(word, True):
        return token[1]   # a listed first name English uses little ("sw colleen": notes_invented find f25)
    if not word.isalpha() or len(word) < 3 or z is None or z >= 3.0 or not looks_like_name(word, True) \
            or looks_like_typo(word):
        return None
    return token[1]


# a staff member by the service they come from, the name first ("gloria from sw met w/ family":
# icu_invented_i find f12)
_FROM_SERVICE = re.compile(r"(?i)(?<![\w'-])(?P<name>[A-Za-z][A-Za-z'-]+[A-Za-z])[ \t]+from[ \t]+(?:the[ \t]+)?"
                           r"(?:sw|social[ \t]+work|cm|case[ \t]+management|pastoral[ \t]+care|chaplaincy|spiritual[ \t]+care|"
                           r"pharmacy|nutrition|rt|respiratory(?:[ \t]+therapy)?|palliative(?:[ \t]+care)?|hospice|"
                           r"interpreter[ \t]+services|patient[ \t]+relations|transplant|ir|pt/ot)\b")


def names_from_service(text: str, doc_id: str) -> list[Span]:
    """A listed first name English uses little, or a rare word, before "from" and a service."""
    out = []
    for m in _FROM_SERVICE.finditer(text):
        word = m.group("name")
        z = zipf(word)
        if is_safe_word(word) or word.lower() in FUNCTION_WORDS or z is None or typo_of_ward_word(word):
            continue
        if (is_first_name(word) and z < 4.5) or (z < 3.0 and looks_like_name(word, True)):
            out.append(mk(doc_id, *m.span("name"), "DOCTOR"))
    return out
