"""A person's name with a nickname in quotes between the first name and the surname: 'Tyrone "Ty"
Washington', 'PATRICIA "PATTY" BAKER'.

Why: a quoted word between a first name and another name is how notes introduce someone by what
the family calls them (psychiatric intakes and collateral calls above all); the shape itself is the
evidence, in any case, where the name rules read the first name and the surname apart and a
model took the quotes for the end of a name (psych_invented find f04, f11). The whole stretch is one
name; the nickname's later mentions are left to the model and the lists.

A quoted word right after a relative's or a friend's word ('BOYFRIEND "DRE"', 'girlfriend "Sunny"
(Donna)', with the name in brackets after it too) or after what a patient answers to ('RESPONDS
BEST TO "BUNNY"') is that person's name as well: nobody quotes a relation's word otherwise
(icu_invented_p find f277, f279, f282).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case_at
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_first_name, is_safe_word, zipf
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

_NICKNAMED = re.compile(r"(?<![\w'-])(?P<first>[A-Za-z][A-Za-z'-]+)[ \t]+[\"“](?P<nick>[A-Za-z][A-Za-z.'-]{0,15})[\"”]"
                        r"[ \t]+(?P<last>[A-Za-z][A-Za-z'-]*[A-Za-z])(?![\w'-])")


# a relative's or a friend's word, or what a patient answers to, then a quoted word and perhaps the
# person's name in brackets
_RELATION = (r"girlfriend|boyfriend|gf|bf|wife|husband|son|daughter|brother|sister|mother|"
             r"father|mom|dad|friend|neighbou?r|uncle|aunt|cousin|nephew|niece|grandson|granddaughter|"
             r"partner|fianc[eé]e?|roommate")
_QUOTED_AFTER = re.compile(rf"(?i:\b(?:{_RELATION}|responds(?:[ \t]+best)?[ \t]+to|answers[ \t]+to))"
                           r"[ \t]+[\"“](?P<nick>[A-Za-z][A-Za-z.'-]{1,15})[\"”]"
                           r"(?:[ \t]*\([ \t]*(?P<real>[A-Za-z][A-Za-z'-]+)[ \t]*\))?")


# a relative's name and what the family calls them, quoted in brackets ('son Tuan ("Tony")', 'WIFE
# LYUDMILA ("LUDA")': icu_invented_p find f739, f740, f741)
_QUOTED_IN_BRACKETS = re.compile(rf"(?i:\b(?:{_RELATION}))[ \t]+[A-Za-z][A-Za-z'-]+[ \t]*\([ \t]*[\"“]"
                                 r"(?P<nick>[A-Za-z][A-Za-z.'-]{1,15})[\"”][ \t]*\)")
# the name a family calls someone by ("name on chart is Sofya, family calls her Sonya": icu_invented_p find f752)
_CALLS_BY = re.compile(r"(?i:\bcalls[ \t]+(?:him|her))[ \t]+(?P<nick>[A-Za-z][A-Za-z'-]+)")


def _quoted_name_ok(word: str, most: float = 3.0) -> bool:
    """A quoted word that names someone: no function or ward word, and a listed first name or a word
    English seldom writes (a relative's quoted feeling, 'daughter "upset"', is none)."""
    return word.lower() not in FUNCTION_WORDS and not is_safe_word(word, vocabulary=False) \
        and (is_first_name(word) or (zipf(word) or 0.0) < most)


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
    for m in _QUOTED_IN_BRACKETS.finditer(text):
        if _quoted_name_ok(m.group("nick"), 4.5):
            out.append(mk(doc_id, *m.span("nick"), "PATIENT"))
    for m in _CALLS_BY.finditer(text):
        nick = m.group("nick")
        if (nick[0].isupper() or one_case_at(text, m.start())) and is_first_name(nick) \
                and _quoted_name_ok(nick, 4.5) and not is_safe_word(nick):
            out.append(mk(doc_id, *m.span("nick"), "PATIENT"))
    for m in _QUOTED_AFTER.finditer(text):
        answers = re.match(r"(?i)(?:responds|answers)", m.group()) is not None
        if _quoted_name_ok(m.group("nick"), 4.5 if answers else 3.0):
            out.append(mk(doc_id, *m.span("nick"), "PATIENT"))
            if m.group("real") and _quoted_name_ok(m.group("real")) and not is_safe_word(m.group("real")):
                out.append(mk(doc_id, *m.span("real"), "PATIENT"))
    return out
