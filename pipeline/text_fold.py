"""Text folding shared by detection and de-identification.

Two different needs, two functions:

* :func:`norm_key` turns a PHI value into the key its surrogate is derived from. "John  SMITH",
  "john smith" and "John Smith" must map to the same surrogate, and so must "Estefanía" and a
  hurried "Estefania", so the key is case-, spacing- and accent-insensitive.
* :func:`fold_same_length` folds a whole output text the same way *character by character*, so
  that a match found in the folded text has the same offsets in the real one (the leak scan
  reports offsets, never strings).

Beside :mod:`pipeline.spans` and :mod:`pipeline.id_checks` because both sides use it (the leak
scan and surrogate keys; the English pack's name steps): detection and de-identification meet
only at spans and never import each other.

>>> norm_key("  Estefanía   SMITH ")
'estefania smith'
>>> fold_same_length("Ñúñez") == "nunez"
True
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WS = re.compile(r"\s+")


def _fold_char(c: str) -> str:
    low = c.lower()
    if len(low) != 1:
        low = c
    base = unicodedata.normalize("NFD", low)[0]
    return base


class _FoldTable(dict):
    """``str.translate`` table that computes (and caches) the fold of each character it meets."""

    def __missing__(self, code: int) -> str:
        value = _fold_char(chr(code))
        self[code] = value
        return value


_TABLE = _FoldTable()


def fold_same_length(text: str) -> str:
    """Lower-case and strip accents, one output character per input character (offsets kept)."""
    return text.translate(_TABLE)


@lru_cache(maxsize=1 << 16)
def norm_key(value: str) -> str:
    """Case-, accent- and spacing-insensitive key of a PHI value."""
    return _WS.sub(" ", fold_same_length(unicodedata.normalize("NFC", value))).strip()
