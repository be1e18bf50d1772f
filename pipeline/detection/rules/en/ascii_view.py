"""The note as the English rules read it: accented Latin letters folded to their base letter.

Why: the English patterns spell letters as ASCII (``[A-Z][a-z]+`` and its kin) and the word lists
hold names unaccented, so a name written with its accents was invisible to them: "Tomasz Wójcik"
and "YAZMÍN" were left to the model alone on a blind set of clinic notes, while "Tomasz Wojcik"
was found by the rules. Folding each letter to one base letter keeps the length, so every rule's
offsets stand on the note as written; a character with no single-letter base (``ß``, ``ø``,
``°``, CJK) is left as it is.

>>> fold_accents("Tomasz Wójcik, YAZMÍN CASTILLO, Zoë")
'Tomasz Wojcik, YAZMIN CASTILLO, Zoe'
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache


@lru_cache(maxsize=4096)
def _base_letter(ch: str) -> str:
    if not ch.isalpha():
        return ch
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    return base if len(base) == 1 and base.isascii() and base.isalpha() else ch


def fold_accents(text: str) -> str:
    """``text`` with every accented Latin letter replaced by its base letter (same length)."""
    if text.isascii():
        return text
    return "".join(ch if ch < "\x80" else _base_letter(ch) for ch in text)
