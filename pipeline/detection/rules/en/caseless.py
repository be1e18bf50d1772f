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

from pipeline.detection.rules.common import line_of
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_NO_CANON: Mapping[str, str] = MappingProxyType({})
_APOSTROPHE = re.compile(r"['’]")


def one_case(line: str) -> bool:
    """Whether ``line`` has letters that have a case and all of them in one case (ALL CAPS or all
    lower case)."""
    upper, lower = line.upper(), line.lower()
    return upper != lower and (line == upper or line == lower)


def one_case_at(text: str, i: int) -> bool:
    """Whether the line around ``i`` is written in one case, so its capitals say nothing."""
    return one_case(line_of(text, i))


def _map(word: str, how) -> str:
    """``word`` through ``how`` (``str.upper``/``str.lower``) letter by letter, a letter whose
    case map changes its length ("ß" -> "SS") left as it is: offsets must not move."""
    return "".join(n if len(n := how(c)) == 1 else c for c in word)


def _recase(word: str) -> str:
    low = word.lower() if word.isascii() else _map(word, str.lower)
    if low in FUNCTION_WORDS or _APOSTROPHE.split(low, 1)[0] in FUNCTION_WORDS:   # "and", "it's"
        return low
    head = low[0].upper() if low.isascii() else _map(low[0], str.upper)
    if len(low) > 2 and low[0] == "o" and low[1] in "'’":                        # "O'Hara"
        return head + low[1] + _map(low[2], str.upper) + low[3:]
    return head + low[1:]


def titled(text: str, canon: Mapping[str, str] = _NO_CANON) -> str:
    """``text`` with each line written in one case in title case (function words lower, words of
    ``canon``, lower case -> spelling, as spelled there); same length, same offsets; mixed lines as
    written. ``text`` itself when no line is in one case."""
    view, _ = _titled(text)
    if not canon or view is text:
        return view
    return _canonical(text, tuple(sorted(canon.items())))


@lru_cache(maxsize=32)
def _titled(text: str) -> tuple[str, tuple[bool, ...]]:
    lines = text.split("\n")
    flags = tuple(one_case(line) for line in lines)
    if not any(flags):
        return text, flags
    out = [_WORD.sub(lambda m: _recase(m.group()), line) if flag else line for line, flag in zip(lines, flags)]
    return "\n".join(out), flags


@lru_cache(maxsize=32)
def _canonical(text: str, canon_items: tuple[tuple[str, str], ...]) -> str:
    """The title-case view with ``canon``'s words (same length) spelled as there, in one-case lines."""
    view, flags = _titled(text)
    canon = {k: v for k, v in canon_items if len(k) == len(v)}
    rx = _canon_rx(tuple(sorted(canon)))
    lines = view.split("\n")
    out = [rx.sub(lambda m: canon[m.group().lower()], line) if flag else line for line, flag in zip(lines, flags)]
    return "\n".join(out)


@lru_cache(maxsize=8)
def _canon_rx(words: tuple[str, ...]) -> re.Pattern:
    return re.compile(r"(?<![^\W\d_])(?:" + "|".join(re.escape(w) for w in words) + r")(?![^\W\d_])", re.IGNORECASE)
