"""Words of a note and what the project's gold says of each: the shared ground of the second
opinion (:mod:`pipeline.risk.gold_memory`, :mod:`pipeline.risk.gold_classifier`).

A second opinion on PHI left must see the note differently from the detector (a CRF over the
detector's own features is confident exactly where it misses), so it tokenises on its own: a
word is a run of letters and digits (``12345678Z``, ``hermanas``), punctuation is one token, and
nothing here knows the detector's tokens. :func:`gold_labels` gives each word the category of
the gold span covering it ("O" when none), the target both learn from.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

OUTSIDE = "O"
_TOKEN = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class Words:
    """A note's tokens: their text and character offsets, in order."""

    text: tuple[str, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.text)


def words_of(text: str) -> Words:
    found = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    return Words(tuple(w for w, _, _ in found), tuple(a for _, a, _ in found), tuple(b for _, _, b in found))


@dataclass(frozen=True)
class GoldNote:
    """A note of the project's gold: its text and its spans as (start, end, category)."""

    text: str
    spans: tuple[tuple[int, int, str], ...]


def gold_labels(words: Words, spans: Sequence[tuple[int, int, str]]) -> list[str]:
    """Per token, the category of the gold span it overlaps (the first one), else ``O``."""
    out = [OUTSIDE] * len(words)
    ordered = sorted(spans)
    j = 0
    for i, (a, b) in enumerate(zip(words.starts, words.ends)):
        while j < len(ordered) and ordered[j][1] <= a:
            j += 1
        k = j
        while k < len(ordered) and ordered[k][0] < b:
            if ordered[k][1] > a:
                out[i] = ordered[k][2]
                break
            k += 1
    return out


def is_content(word: str) -> bool:
    """A word that can identify alone: a digit in it, or three letters or more. Punctuation and
    two-letter glue ("de", "su") never make a candidate by themselves."""
    return any(c.isdigit() for c in word) or (len(word) >= 3 and any(c.isalpha() for c in word))


def free_tokens(words: Words, spans: Iterable[tuple[int, int]]) -> list[bool]:
    """Per token, whether it lies outside every released span (what the released note shows as
    written)."""
    taken = sorted(spans)
    out = []
    j = 0
    for a, b in zip(words.starts, words.ends):
        while j < len(taken) and taken[j][1] <= a:
            j += 1
        out.append(not (j < len(taken) and taken[j][0] < b))
    return out
