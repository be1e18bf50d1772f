"""How often this project's annotators mark a word: a memory of the gold, the simplest second
opinion on PHI left.

MEDDOCAN-like schemas mark words that read as ordinary language ("hermanas" as a relative,
"bomberos" as a profession, "recién nacida" as an age); the detector's near-miss probability is
low exactly there. The memory counts, over the project's gold notes, how often each lower-cased
word (a content word: :func:`pipeline.risk.gold_tokens.is_content`) lies inside a gold span and
how often it is written outside one; a word left as written in a released note is evidence in
proportion to the share of its gold occurrences that were marked, smoothed towards zero for words
seen rarely (``marked / (seen + prior)``). Pure counts: deterministic, built in one pass.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from pipeline.risk.gold_tokens import OUTSIDE, GoldNote, Words, gold_labels, is_content, words_of


@dataclass(frozen=True)
class MemoryHit:
    """What the gold says of one word: marked in ``marked`` of ``seen`` places, mostly as ``category``."""

    rate: float
    marked: int
    seen: int
    category: str


@dataclass
class GoldMemory:
    """Per lower-cased content word: places marked (by category) and places seen in the gold."""

    prior: float = 1.0
    seen: Counter = field(default_factory=Counter)
    marked: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    notes: int = 0

    def add(self, words: Words, labels: list[str]) -> None:
        self.notes += 1
        for w, lab in zip(words.text, labels):
            if not is_content(w):
                continue
            key = w.lower()
            self.seen[key] += 1
            if lab != OUTSIDE:
                self.marked[key][lab] += 1

    def hit(self, word: str) -> MemoryHit | None:
        """The word's evidence, or None when the gold never marked it."""
        key = word.lower()
        by_cat = self.marked.get(key)
        if not by_cat:
            return None
        n = sum(by_cat.values())
        seen = self.seen[key]
        return MemoryHit(n / (seen + self.prior), n, seen, by_cat.most_common(1)[0][0])

    def rates(self, words: Words) -> list[MemoryHit | None]:
        return [self.hit(w) if is_content(w) else None for w in words.text]


def build_memory(notes: Iterable[GoldNote], prior: float = 1.0) -> GoldMemory:
    """The memory of ``notes`` (text and gold spans as (start, end, category))."""
    memory = GoldMemory(prior=prior)
    for note in notes:
        words = words_of(note.text)
        memory.add(words, gold_labels(words, note.spans))
    return memory
