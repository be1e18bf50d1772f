"""The tokens a rewrite is aligned on, and near-equal words paired inside a gap.

Both texts are cut into letter runs, digit runs, single symbols and one ``\\n`` token per line
break (a run of blank lines is one token); tokens compare case- and accent-insensitively, and
each placeholder of the rewrite is one token that equals nothing in the original. Apart from
:mod:`pipeline.detection.rewrite_align` (the matching) and :mod:`pipeline.detection.rewrite_gaps`
(the spans) because both read tokens and neither needs the other's steps to do so.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher

from pipeline.detection.rewrite_placeholders import Placeholder

_TOKEN = re.compile(r"[^\W\d_]+|\d+|\n|[^\w\s]|_", re.UNICODE)
_FUZZY_MIN = 0.75          # similarity at which two different words count as the same word rewritten
_FUZZY_MAX_CELLS = 40_000  # a gap larger than this (tokens x tokens) is not fuzzily paired
_PH_KEY = "\x00placeholder"


@dataclass(frozen=True)
class Tok:
    key: str
    start: int
    end: int
    tag: str = ""
    spaced: tuple[bool, bool] = (True, True)   # whitespace (or the text's edge) before, after

    @property
    def is_placeholder(self) -> bool:
        return self.key == _PH_KEY

    @property
    def is_newline(self) -> bool:
        return self.key == "\n"


def _norm(s: str) -> str:
    d = unicodedata.normalize("NFKD", s.casefold())
    return "".join(c for c in d if not unicodedata.combining(c))


def tokens(text: str, a: int = 0, b: int | None = None) -> list[Tok]:
    """Tokens of ``text[a:b]`` (offsets into ``text``; spacing judged against the whole text)."""
    b = len(text) if b is None else b
    out: list[Tok] = []
    for m in _TOKEN.finditer(text, a, b):
        t = m.group()
        if t == "\n":
            if out and out[-1].is_newline and not text[out[-1].end:m.start()].strip():
                out[-1] = Tok("\n", out[-1].start, m.end())   # blank lines: one break
                continue
            out.append(Tok("\n", m.start(), m.end()))
        else:
            spaced = (m.start() == 0 or text[m.start() - 1].isspace(), m.end() == len(text) or text[m.end()].isspace())
            out.append(Tok(_norm(t), m.start(), m.end(), spaced=spaced))
    return out


def rewrite_tokens(rewrite: str, placeholder: Placeholder) -> list[Tok]:
    out: list[Tok] = []
    cursor = 0
    for s, e, tag in placeholder.finditer(rewrite):
        out += tokens(rewrite, cursor, s)
        out.append(Tok(_PH_KEY, s, e, tag))
        cursor = e
    out += tokens(rewrite, cursor)
    # a newline token next to another (after placeholder splitting) is still one break
    merged: list[Tok] = []
    for t in out:
        if t.is_newline and merged and merged[-1].is_newline:
            continue
        merged.append(t)
    return merged


def _similar(a: str, b: str) -> float:
    if len(a) < 4 or len(b) < 4 or not (a.isalpha() and b.isalpha()):
        return 0.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def fuzzy_pairs(orig: list[Tok], rew: list[Tok]) -> list[tuple[int, int]]:
    """Order-preserving pairs ``(i, j)`` of near-equal words, most total similarity first (DP)."""
    words = [j for j, t in enumerate(rew) if not t.is_placeholder and not t.is_newline]
    n, m = len(orig), len(words)
    if not n or not m or n * m > _FUZZY_MAX_CELLS:
        return []
    sim = [[_similar(orig[i].key, rew[words[k]].key) for k in range(m)] for i in range(n)]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for k in range(m - 1, -1, -1):
            take = sim[i][k] + best[i + 1][k + 1] if sim[i][k] >= _FUZZY_MIN else 0.0
            best[i][k] = max(take, best[i + 1][k], best[i][k + 1])
    pairs: list[tuple[int, int]] = []
    i = k = 0
    while i < n and k < m:
        if sim[i][k] >= _FUZZY_MIN and abs(best[i][k] - (sim[i][k] + best[i + 1][k + 1])) < 1e-12:
            pairs.append((i, words[k]))
            i += 1
            k += 1
        elif best[i + 1][k] >= best[i][k + 1]:
            i += 1
        else:
            k += 1
    return pairs


def is_punct(t: Tok) -> bool:
    return not t.is_placeholder and not t.is_newline and len(t.key) == 1 and not t.key.isalnum()


def abbreviation(orig: list[Tok], i: int) -> bool:
    """A full stop glued to a short word (``Avda.``, ``Dr.``, ``s/n.``): likely inside a name."""
    return (orig[i].key == "." and i > 0 and not orig[i].spaced[0] and orig[i - 1].key.isalpha()
            and len(orig[i - 1].key) <= 4)
