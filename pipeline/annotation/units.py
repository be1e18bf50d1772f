"""The units the span editor's word moves step by (issue 31), the Python twin of ``units`` in
``dashboard/editor/core.js`` (tests run both on the same notes).

Why not plain words: a date (``03/14/2021``), a phone number, an id (``MRN-55-1234``) or an
e-mail is what an annotator labels, and stepping over it piece by piece cost 5 or 6 keys. A unit
is a run of word characters (:func:`pipeline.annotation.edits.is_word_char`) joined by single
``/ . @ : -`` with no space, or a phone number written ``(617) 555-1234``; lone punctuation is
no unit, so the arrows skip it.

>>> t = "Seen 03/14/2021, call (617) 555-1234 or a.b@x.org."
>>> [t[a:b] for a, b in units(t)]
['Seen', '03/14/2021', 'call', '(617) 555-1234', 'or', 'a.b@x.org']

:func:`phrases` groups units into what a hint typed with Shift selects (a full name, a street
address, a date written out), the twin of ``phrases`` in ``core.js``:

>>> t = "Walter Austin MD, 1234 Main Street on Mar 14, 2021."
>>> [t[a:b] for a, b in phrases(t)]
['Walter Austin', 'MD', '1234 Main Street', 'on', 'Mar 14, 2021']
"""
from __future__ import annotations

import re
import unicodedata

from pipeline.annotation.edits import is_word_char

JOINERS = "/.@:-"
_PHONE = re.compile(r"\([0-9]{3}\) ?[0-9]{3}[-. ][0-9]{4}")


def units(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every unit of ``text``, in order (code point offsets)."""
    out: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        m = _PHONE.match(text, i)
        if m and (m.end() == n or not is_word_char(text[m.end()])):
            out.append(m.span())
            i = m.end()
            continue
        if not is_word_char(text[i]):
            i += 1
            continue
        j = i
        while True:
            while j < n and is_word_char(text[j]):
                j += 1
            if j + 1 < n and text[j] in JOINERS and is_word_char(text[j + 1]):
                j += 1
                continue
            break
        out.append((i, j))
        i = j
    return out


# --------------------------------------------------------------------------- phrases
#
# What a hint typed with Shift selects (issue 31: a missed name or street address added in three
# or four keys, not one key per word): from a word to the end of its phrase. A phrase is a run of
# units on one line that reads as one name: words that begin with a capital or a digit, one
# space apart ("Walter Austin", "1234 Main Street", "Mar 14, 2021"), taking in an initial
# ("John A. Smith"), a comma before a year, " & " and " #" ("Apt #4B"), name particles between
# capitalised words ("María de la Cruz") and "of" after a number ("9th of May"). Two spaces, a
# line break or other punctuation end it, and so does a change between Capitalised and ALL-CAPS
# words ("Walter Austin MD", "Boston MA": the title and the state are spans of their own), and
# a long number after a capitalised word ("Ohio 44101": the ZIP code is a span of its own).

#: Lowercase words a phrase of capitalised words goes on through (name particles).
PARTICLES = frozenset({"de", "del", "la", "las", "los", "van", "von", "der", "den", "da", "di", "du", "le", "y"})
_DAY = re.compile(r"[0-9]{1,2}")
_YEAR = re.compile(r"[0-9]{4}")


def _kind(word: str) -> str | None:
    """``num`` (begins with a digit), ``caps`` (two or more letters, all capitals), ``title``
    (begins with a capital) or ``None`` (lowercase, or neither)."""
    cat = unicodedata.category(word[0])
    if cat[0] == "N":
        return "num"
    if cat not in ("Lu", "Lt"):
        return None
    letters = [c for c in word if unicodedata.category(c)[0] == "L"]
    return "caps" if len(letters) >= 2 and all(unicodedata.category(c) == "Lu" for c in letters) else "title"


def _fits(p: str | None, q: str | None) -> bool:
    """Two kinds that go on one phrase: the same, or a number beside a capitalised word."""
    if p is None or q is None:
        return False
    return p == q or ("num" in (p, q) and "caps" not in (p, q))


def _long_number(word: str) -> bool:
    """A number of five or more characters, or with a joiner (a ZIP code, a phone number, a
    date): after a capitalised word it begins a phrase of its own ("Ohio 44101"), where a short
    one goes on it ("Mar 14", "Suite 300")."""
    return len(word) >= 5 or any(not is_word_char(c) for c in word)


def _next_in_phrase(text: str, us: list[tuple[int, int]], k: int) -> int | None:
    """Index of the unit that goes on the phrase after unit ``k``; ``None`` where it ends."""
    if k + 1 >= len(us):
        return None
    w, v = text[us[k][0]:us[k][1]], text[us[k + 1][0]:us[k + 1][1]]
    gap = text[us[k][1]:us[k + 1][0]]
    p, q = _kind(w), _kind(v)
    if gap in (" ", " & ", " #") and _fits(p, q) and not (p == "title" and q == "num" and _long_number(v)):
        return k + 1
    if gap == ". " and len(w) == 1 and p == "title" and q == "title":       # an initial
        return k + 1
    if gap == ", " and _DAY.fullmatch(w) and _YEAR.fullmatch(v):          # Mar 14, 2021
        return k + 1
    if gap != " " or p not in ("title", "num"):
        return None
    j = k + 1                                                              # particles
    while j + 1 < len(us) and text[us[j][0]:us[j][1]] in (PARTICLES if p == "title" else {"of"}):
        if text[us[j][1]:us[j + 1][0]] != " ":
            return None
        j += 1
        if p == "num":
            break
    return j if j > k + 1 and _kind(text[us[j][0]:us[j][1]]) == "title" else None


def phrases(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every phrase of ``text``, in order; every unit is in exactly one (a
    word that goes on with no other is a phrase of one unit)."""
    us = units(text)
    out: list[tuple[int, int]] = []
    k = 0
    while k < len(us):
        last = k
        while (nxt := _next_in_phrase(text, us, last)) is not None:
            last = nxt
        out.append((us[k][0], us[last][1]))
        k = last + 1
    return out
