"""Which released notes still hold gold PHI as written, for ``benchmarks/risk_separation.py``:
the truth its colours are judged against (figures only; no text leaves these functions)."""
from __future__ import annotations

import re


def missed_phi(doc, detected, *, content: bool = False) -> bool:
    """A letter or digit of a gold span outside every rewritten span. ``content``: only a word
    left whole that carries content counts (a digit, or three letters or more and not a
    function word: "su" of "su padre" or "de" of "Hospital de Día" left beside a surrogate do not)."""
    covered = bytearray(len(doc.text))
    for s in detected:
        covered[s.start:s.end] = b"\x01" * (s.end - s.start)
    for g in doc.spans:
        for m in _WORD.finditer(doc.text, g.start, g.end):
            left = any(not covered[i] for i in range(m.start(), m.end()))
            if left and (not content or _content(m.group())):
                return True
    return False


def missed_categories(doc, detected, schema) -> list[str]:
    """The categories of the gold spans that left a content word as written (see :func:`missed_phi`)."""
    covered = bytearray(len(doc.text))
    for s in detected:
        covered[s.start:s.end] = b"\x01" * (s.end - s.start)
    return sorted({schema.category_of(g.type) for g in doc.spans
                   if any(_content(m.group()) and any(not covered[i] for i in range(m.start(), m.end()))
                          for m in _WORD.finditer(doc.text, g.start, g.end))})


def _content(word: str) -> bool:
    return any(c.isdigit() for c in word) or (len(word) >= 3 and word.lower() not in _FUNCTION)


_WORD = re.compile(r"\w+")
_FUNCTION = {"de", "del", "la", "el", "los", "las", "su", "sus", "mi", "un", "una", "uno", "con", "por", "para", "y",
             "en", "al", "the", "of", "and", "his", "her", "their", "a", "an", "in", "at", "to", "que", "se"}
