"""A facility's name before its kind in brackets, and a town in brackets after a facility's name:
"RESIDENT OF LARKSPUR HOUSE (ASSISTED LIVING) IN DOVER", "from Cedar Hollow Manor (Reading)".

Why: a nursing note names where a patient lives and then says what kind of place it is, or names the
home and then its town, in brackets; the name's words are ordinary ("House", "Manor", "Hollow") and a
town that is a word ("Reading") is read only after a residence's words, so both are missed. The
bracket vouches: a kind of care home inside it, or a listed town or a gazetteer's town that is a word
after a home's closing word. The name runs back from the bracket over words that are no function
word, at most four, and needs one word that is no ward or residence word (with its capital in a
mixed-case line, a word English seldom writes in a line of one case), so "lives at home (assisted
living)" names nothing. Found on the blind find notes of ``icu_invented_p`` (f497, f509) and checked
on the other sets' check halves. (The kind before the name, "Group home (Maple Court)", is
:mod:`.named_facilities`'.)
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import line_of, mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, RESIDENCE, is_safe_word, zipf
from pipeline.detection.rules.en.towns import is_word_town, listed_place_type
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

# the kind of care home in brackets after its name
_KIND_AFTER = re.compile(r"[ \t]*\([ \t]*(?P<kind>(?i:assisted[ \t]+living|nursing[ \t]+home|group[ \t]+home|"
                         r"ltc|snf|alf|ltach?|rest[ \t]+home|rehab|shelter))[ \t]*\)")
_ORGANIZATION_KINDS = re.compile(r"(?i)group|shelter")
# a home's closing word, then a town in brackets
_HOME_THEN_TOWN = re.compile(r"(?i)(?<![\w'-])(?:manor|house|home|rehab|village|terrace|gardens|commons|place|"
                             r"court|center|centre|nursing|living|pines|woods)[ \t]*\([ \t]*"
                             r"(?P<town>[A-Za-z][A-Za-z'-]*[A-Za-z](?:[ \t][A-Za-z][A-Za-z'-]*[A-Za-z])?)[ \t]*\)")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z'’-]*[A-Za-z])[ \t]+$|([A-Za-z][A-Za-z'’-]*[A-Za-z])$")


def _name_before(text: str, end: int) -> int | None:
    """Where a facility's name that ends at ``end`` starts (see the module's docstring), or None."""
    mixed = not one_case(line_of(text, end))
    start, words = end, []
    while len(words) < 4:
        m = _WORD_BEFORE.search(text, max(0, start - 40), start)
        if m is None:
            break
        word = m.group(1) or m.group(2)
        if word.lower() in FUNCTION_WORDS or (mixed and not word[:1].isupper()):
            break
        words.insert(0, word)
        start = m.start()
    naming = [w for w in words if w.lower() not in RESIDENCE and not is_safe_word(w, vocabulary=False)]
    if not naming or (not mixed and not any((zipf(w) or 0.0) < 4.0 for w in naming)):
        return None   # (in a mixed-case line the capitals vouch, each word having one)
    return start


@register(LOCALE, "kind_brackets", "LOCATION", score=0.8)
def kind_brackets(text: str, doc_id: str) -> list[Span]:
    """A facility's name before its kind in brackets (HOSPITAL, or ORGANIZATION for a group home or a
    shelter) and a town in brackets after a home's closing word (CITY, or its listed type).

    >>> text = "RESIDENT OF LARKSPUR HOUSE (ASSISTED LIVING) IN DOVER. 94 yo F from Cedar Hollow Manor (Reading)."
    >>> [text[s.start:s.end] for s in kind_brackets(text, "d")]
    ['LARKSPUR HOUSE', 'Reading']
    """
    out: list[Span] = []
    for m in _KIND_AFTER.finditer(text):
        start = _name_before(text, m.start())
        if start is not None and start < m.start():
            gtype = "ORGANIZATION" if _ORGANIZATION_KINDS.match(m.group("kind")) else "HOSPITAL"
            out.append(mk(doc_id, start, len(text[:m.start()].rstrip()), gtype))
    for m in _HOME_THEN_TOWN.finditer(text):
        town = m.group("town")
        gtype = listed_place_type(town) or ("CITY" if " " not in town and is_word_town(town) else None)
        if gtype and (one_case(line_of(text, m.start())) or town.istitle()):
            out.append(mk(doc_id, *m.span("town"), gtype))
    return out
