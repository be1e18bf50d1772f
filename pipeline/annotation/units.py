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
"""
from __future__ import annotations

import re

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
