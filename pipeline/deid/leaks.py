"""Leak check: after de-identification, look for every original PHI string in the output.

Matching is case- and accent-insensitive and whole-word (a name inside a longer word is not a
hit), with any run of whitespace matching any other. Hits are reported as (document, category,
type, offsets in the output): never the string itself.

What is searched:

* every original of the document that was not kept, and (given the patient's other notes)
  every original of the patient;
* the parts of person names ("Smith" of "John Smith", three letters or more, not a title or
  particle), where the hit starts with a capital letter: "Smith reports pain" leaks the
  patient's surname, while "will" is not the name "Will".

Words inside a span: a surrogate never carries a word of its original through. List-based
surrogates replace the whole value; digit-by-digit ones (phones, ages, house numbers) refuse a
span holding words outside their format ("ext", "años", "izda"), so the engine redacts it
(see :func:`pipeline.deid.surrogates.check_words`).

What is not a leak:

* a hit inside a ``keep`` span's output range (the profile chose to keep it); originals of
  ``keep`` spans are not searched for at all.

Very short originals: an original with fewer than 3 letters/digits ("H" for sex, "M", "2C"),
or one made only of digits with fewer than 4 of them (an age "53", a room "12"), matches
ordinary text everywhere ("H. pylori", "12 mg"), so it is not searched for in the whole text;
it is counted in ``skipped`` instead. Its own occurrence was replaced by construction (a
surrogate never equals its original), and longer PHI containing it is still searched.

Partial dates: a DATE original that is only a year ("2006", "año 2006"), or a month or season
without a year ("septiembre"), is not searched either (also counted in ``skipped``). It does
not identify anyone on its own (HIPAA Safe Harbor keeps years), it turns up in ordinary text,
and the patient's other shifted dates legitimately contain years and month names; its own span
is still replaced, never by itself.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Iterator, Sequence

from pipeline.deid.dates import is_partial_date
from pipeline.deid.normalize import NAME_PARTICLES, NAME_TITLES, fold_same_length
from pipeline.spans import Span

MIN_ALNUM = 3
MIN_DIGITS_ONLY = 4
_NAME_PART = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


@dataclass(frozen=True)
class Leak:
    """An original PHI string found in a de-identified text (offsets into the output)."""

    doc_id: str
    category: str
    type: str
    start: int
    end: int
    scope: str = "document"   # "document": this document's PHI; "patient": another note's

    def __str__(self) -> str:
        return (f"{self.doc_id}: {self.type or self.category} original found at {self.start}-{self.end} "
                f"of the output ({self.scope} PHI)")

    def to_dict(self) -> dict:
        return {"doc_id": self.doc_id, "category": self.category, "type": self.type,
                "start": self.start, "end": self.end, "scope": self.scope}


@dataclass(frozen=True)
class Needle:
    """One folded string to look for; ``capital``: only hits that start with a capital count."""

    category: str
    type: str
    folded: str
    scope: str
    capital: bool = False


@lru_cache(maxsize=1 << 15)
def too_short(original: str, category: str = "") -> bool:
    """The documented rule for originals that are not searched in the whole text."""
    alnum = [c for c in original if c.isalnum()]
    if len(alnum) < MIN_ALNUM:
        return True
    if all(c.isdigit() for c in alnum) and len(alnum) < MIN_DIGITS_ONLY:
        return True
    return category == "DATE" and is_partial_date(original)


@lru_cache(maxsize=1 << 15)
def name_parts(original: str) -> tuple[str, ...]:
    """The parts of a person's name worth searching on their own."""
    out = []
    for m in _NAME_PART.finditer(original):
        p = m.group()
        k = fold_same_length(p).rstrip(".")
        if len(p) >= MIN_ALNUM and k not in NAME_TITLES and k not in NAME_PARTICLES:
            out.append(p)
    return tuple(out)


def needles(originals: Iterable[tuple[str, str, str, str]]) -> tuple[list[Needle], int]:
    """Needles for ``(category, type, original, scope)`` values, longest first; and the count of
    originals skipped by the short/partial-date rule."""
    seen: set[str] = set()
    raw_seen: set[str] = set()
    out: list[Needle] = []
    skipped = 0
    parts: list[Needle] = []
    for category, type_, original, scope in originals:
        if original in raw_seen:
            continue
        raw_seen.add(original)
        f = _folded(original)
        if not f or f in seen:
            continue
        seen.add(f)
        if too_short(original, category):
            skipped += 1
        else:
            out.append(Needle(category, type_, f, scope))
        if category == "NAME":
            for p in name_parts(original):
                parts.append(Needle(category, type_, fold_same_length(p), scope, capital=True))
    for n in parts:
        if n.folded not in seen:
            seen.add(n.folded)
            out.append(n)
    out.sort(key=lambda n: (-len(n.folded), n.folded))
    return out, skipped


@lru_cache(maxsize=1 << 15)
def _folded(original: str) -> str:
    return " ".join(fold_same_length(original).split())


def _is_word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _match_rest(text: str, pos: int, parts: list[str]) -> int:
    """End of ``parts`` matched at ``pos`` with whitespace runs between them, or -1."""
    n = len(text)
    for p in parts:
        if pos >= n or not text[pos].isspace():
            return -1
        while pos < n and text[pos].isspace():
            pos += 1
        if not text.startswith(p, pos):
            return -1
        pos += len(p)
    return pos


def occurrences(folded_text: str, folded_original: str) -> Iterator[tuple[int, int]]:
    """Whole-word occurrences of an original in a text, both folded by :func:`fold_same_length`.

    Any whitespace run in the original matches any whitespace run in the text. The search is a
    ``str.find`` of the first word, then the rest is matched in place (no regex to compile per
    value, which is what keeps the scan fast).
    """
    parts = folded_original.split()
    if not parts:
        return
    first, rest = parts[0], parts[1:]
    n = len(folded_text)
    i = folded_text.find(first)
    while i >= 0:
        if i == 0 or not _is_word(folded_text[i - 1]):
            end = i + len(first)
            if rest:
                end = _match_rest(folded_text, end, rest)
            if end >= 0 and (end == n or not _is_word(folded_text[end])):
                yield i, end
        i = folded_text.find(first, i + 1)


def _hits(text: str, folded: str, needle: Needle) -> Iterator[tuple[int, int]]:
    for s, e in occurrences(folded, needle.folded):
        if needle.capital and not text[s].isupper():
            continue
        yield s, e


def merge_needles(first: Sequence[Needle], second: Sequence[Needle]) -> list[Needle]:
    """Needles of both lists, one per folded string, longest first: a whole value beats a name
    part of the same spelling, otherwise ``first`` (the document's own) wins."""
    by_folded: dict[str, Needle] = {}
    for n in (*first, *second):
        have = by_folded.get(n.folded)
        if have is None or (have.capital and not n.capital):   # a whole value beats a name part
            by_folded[n.folded] = n
    out = list(by_folded.values())
    out.sort(key=lambda n: (-len(n.folded), n.folded))
    return out


def find_leaks(doc_id: str, output: str, originals: Iterable[tuple[str, str, str, str]] = (),
               kept_ranges: Sequence[tuple[int, int]] = (), *,
               prepared: Sequence[Needle] | None = None) -> tuple[list[Leak], int]:
    """Scan ``output`` for each ``(category, type, original, scope)``; returns (leaks, skipped).

    ``kept_ranges``: output offsets of spans the profile kept; hits inside them are not leaks.
    ``prepared``: needles already built (see :func:`needles`), used instead of ``originals``.
    """
    folded_out = fold_same_length(output)
    if prepared is not None:
        found, skipped = list(prepared), 0
    else:
        found, skipped = needles(originals)
    leaks: list[Leak] = []
    claimed: list[tuple[int, int]] = []
    for n in found:
        for s, e in _hits(output, folded_out, n):
            if any(ks <= s and e <= ke for ks, ke in kept_ranges):
                continue
            if n.capital and any(cs <= s and e <= ce for cs, ce in claimed):
                continue      # the part of a longer hit already reported
            claimed.append((s, e))
            leaks.append(Leak(doc_id, n.category, n.type, s, e, n.scope))
    leaks.sort(key=lambda x: (x.start, x.end, x.category))
    return leaks, skipped


def propagate(doc_id: str, text: str, taken: Sequence[tuple[int, int]],
              originals: Iterable[tuple[str, str, str]] = (), *,
              prepared: Sequence[Needle] | None = None) -> list[Span]:
    """Unannotated whole-word copies of PHI values, as spans (``source="deid:propagated"``).

    A value annotated once is PHI wherever it occurs: an annotator (or a detector) that marked
    "Pedro" in the header but not in "Pedro refiere dolor" would otherwise leave it behind; so
    is the surname of "John Smith" in "Smith reports pain" (capitalised name parts only). Longer
    values claim their stretch first; a copy that overlaps an existing span is left to that
    span. What the leak check skips (too short, partial dates) is not propagated either.
    """
    folded = fold_same_length(text)
    ranges = list(taken)
    added: list[Span] = []
    found = list(prepared) if prepared is not None else needles((c, t, o, "document") for c, t, o in originals)[0]
    for n in found:
        for s, e in _hits(text, folded, n):
            if any(s < te and ts < e for ts, te in ranges):
                continue
            ranges.append((s, e))
            added.append(Span(doc_id, s, e, n.category, n.type, source="deid:propagated"))
    added.sort(key=lambda x: (x.start, x.end))
    return added
