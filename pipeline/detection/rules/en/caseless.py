"""Lines written in one case (ALL CAPS or all lower case), and a title-case view of them for the
rules that find a name's, a company's or a street's words by their capitals.

Why: many rules of the pack read "a capitalised word" as "a word that may be a name" ("Hi
Lucinda,", "Achterberg Carpentry LLC", "84 Riverside Gardens"). In a line written all in capitals
or all in lower case, case says nothing, and those rules found nothing there: notes, forms and
chats in ALL CAPS or all lower case are common. :func:`titled` gives the same text with every line
written in one case rewritten in title case (function words in lower case, a rule's own
abbreviations in their usual spelling: "LLC", "MA"), character for character, so a rule runs its
cased pattern on the view and keeps the offsets. Lines that mix cases are left as written, so a
rule's behaviour there does not move. The capitals of the view are no evidence: a rule that reads
the view must still ask the words themselves (:func:`.name_words.looks_like_name` with
``cased=False``, the safe vocabulary, the name and place lists) and lean on its context (a label,
a greeting, a sign-off, a legal form, a street word); :func:`one_case_at` says when it must.
"""
from __future__ import annotations

import re
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

from pipeline.detection.rules.en.name_words import FUNCTION_WORDS

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_NO_CANON: Mapping[str, str] = MappingProxyType({})


def one_case(line: str) -> bool:
    """Whether ``line`` has letters and all of them in one case (ALL CAPS or all lower case)."""
    return any(c.isalpha() for c in line) and not (any(c.islower() for c in line) and any(c.isupper() for c in line))


def line_at(text: str, i: int) -> str:
    """The line of ``text`` around offset ``i``."""
    s = text.rfind("\n", 0, i) + 1
    e = text.find("\n", i)
    return text[s:e if e >= 0 else len(text)]


def one_case_at(text: str, i: int) -> bool:
    """Whether the line around ``i`` is written in one case, so its capitals say nothing."""
    return one_case(line_at(text, i))


def _map(word: str, how) -> str:
    """``word`` through ``how`` (``str.upper``/``str.lower``) letter by letter, a letter whose
    case map changes its length ("ß" -> "SS") left as it is: offsets must not move."""
    return "".join(n if len(n := how(c)) == 1 else c for c in word)


def _recase(word: str, canon: Mapping[str, str]) -> str:
    low = _map(word, str.lower)
    if low in canon and len(canon[low]) == len(word):
        return canon[low]
    if re.split(r"['’]", low)[0] in FUNCTION_WORDS:   # "and", "it's"
        return low
    if re.match(r"o['’]\w", low):                    # "O'Hara"
        return _map(low[0], str.upper) + low[1] + _map(low[2], str.upper) + low[3:]
    return _map(low[0], str.upper) + low[1:]


def titled(text: str, canon: Mapping[str, str] = _NO_CANON) -> str:
    """``text`` with each line written in one case in title case (function words lower, words of
    ``canon``, lower case -> spelling, as spelled there); same length, same offsets; mixed lines as
    written. ``text`` itself when no line is in one case."""
    return _titled(text, tuple(sorted(canon.items())))


@lru_cache(maxsize=32)
def _titled(text: str, canon_items: tuple[tuple[str, str], ...]) -> str:
    lines = text.split("\n")
    if not any(one_case(line) for line in lines):
        return text
    canon = dict(canon_items)
    out = [_WORD.sub(lambda m: _recase(m.group(), canon), line) if one_case(line) else line for line in lines]
    return "\n".join(out)
