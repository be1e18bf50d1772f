"""Text and list entries normalised the same way, with an offset map back to the original.

NFKD, combining marks dropped, case-folded, runs of spaces/tabs collapsed, typographic
apostrophes and dashes unified; ``owner[i]`` sends normalised character ``i`` back to its
character in the original, also where normalisation changes length (``ß`` -> ``ss``, ``ﬁ`` ->
``fi``, decomposed accents). Apart from the matcher (:mod:`pipeline.detection.dictionaries`)
because the lists' entries (:mod:`pipeline.detection.dictionary_lists`) are keyed by it too.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=4096)
def _norm_char(c: str) -> str:
    if c in "’´`ʼ‘":
        return "'"
    if c in "‐‑‒–—":
        return "-"
    d = unicodedata.normalize("NFKD", c)
    d = "".join(ch for ch in d if not unicodedata.combining(ch))
    return d.casefold()


def _normalize_slow(text: str) -> tuple[str, list[int]]:
    """The definition of :func:`normalize`, one character at a time."""
    out: list[str] = []
    owner: list[int] = []
    prev_space = False
    for i, c in enumerate(text):
        if c != "\n" and c.isspace():
            if prev_space:
                continue
            out.append(" ")
            owner.append(i)
            prev_space = True
            continue
        prev_space = False
        n = c.lower() if c.isascii() else _norm_char(c)
        for ch in n:
            out.append(ch)
            owner.append(i)
    return "".join(out), owner


# character -> what it normalises to (" " for blanks), for the fast path of normalize()
_CHAR_MAP: dict[str, str] = {}


def _char_map(c: str) -> str:
    got = _CHAR_MAP.get(c)
    if got is None:
        got = " " if (c != "\n" and c.isspace()) else (c.lower() if c.isascii() else _norm_char(c))
        if not (c != "\n" and c.isspace()) and (len(got) != 1 or got.isspace() and got != c):
            got = ""   # expands, vanishes or becomes a blank: only the slow path is exact
        _CHAR_MAP[c] = got
    return got


def normalize(text: str) -> tuple[str, list[int]]:
    """``(normalised text, owner)``: ``owner[i]`` is the index in ``text`` of normalised char ``i``.

    Runs of spaces/tabs (and other non-newline blanks) become one space; newlines stay. Lower
    case, accents dropped, casefolded. When every character maps to exactly one character (all
    but a few exotic texts) the text is translated in one call and the blank runs collapsed with
    numpy; otherwise :func:`_normalize_slow` (the same result, character by character).
    """
    table = {}
    for c in set(text):
        m = _char_map(c)
        if not m:
            return _normalize_slow(text)
        table[ord(c)] = m
    t = text.translate(table)
    if "  " not in t:
        return t, list(range(len(text)))
    codes = np.frombuffer(t.encode("utf-32-le"), dtype=np.uint32)
    sp = codes == 32
    keep = ~(sp & np.concatenate(([False], sp[:-1])))
    return codes[keep].tobytes().decode("utf-32-le"), np.flatnonzero(keep).tolist()


def normalize_entry(entry: str) -> str:
    return normalize(entry.strip())[0]
