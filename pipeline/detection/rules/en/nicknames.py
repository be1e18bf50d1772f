"""A person's name with a nickname in quotes between the first name and the surname: 'Tyrone "Ty"
Washington', 'PATRICIA "PATTY" BAKER'.

Why: a quoted word between a first name and another name is how notes introduce someone by what
the family calls them (psychiatric intakes and collateral calls above all); the shape itself is the
evidence, in any case, where the name rules read the first name and the surname apart and a
model took the quotes for the end of a name (psych_invented find f04, f11). The whole stretch is one
name; the nickname's later mentions are left to the model and the lists.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case_at
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_first_name, is_safe_word
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

_NICKNAMED = re.compile(r"(?<![\w'-])(?P<first>[A-Za-z][A-Za-z'-]+)[ \t]+[\"“](?P<nick>[A-Za-z][A-Za-z.'-]{0,15})[\"”]"
                        r"[ \t]+(?P<last>[A-Za-z][A-Za-z'-]*[A-Za-z])(?![\w'-])")


def _surname(word: str, one_case: bool) -> bool:
    return (one_case or word[0].isupper()) and word.lower() not in FUNCTION_WORDS and not is_safe_word(word)


@register(LOCALE, "nicknamed_names", "NAME", score=0.88)
def nicknamed_names(text: str, doc_id: str) -> list[Span]:
    """A listed first name, a quoted word, and a surname-shaped word: one PATIENT span.

    >>> text = 'Spoke with Tyrone "Ty" Washington (20). CALL FROM PATRICIA "PATTY" BAKER.'
    >>> [text[s.start:s.end] for s in nicknamed_names(text, "d")]
    ['Tyrone "Ty" Washington', 'PATRICIA "PATTY" BAKER']
    """
    out = []
    for m in _NICKNAMED.finditer(text):
        first, last = m.group("first"), m.group("last")
        one_case = one_case_at(text, m.start())
        if (one_case or first[0].isupper()) and is_first_name(first) and _surname(last, one_case):
            out.append(mk(doc_id, m.start(), m.end(), "PATIENT"))
    return out
