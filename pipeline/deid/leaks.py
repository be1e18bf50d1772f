"""Leak check: after de-identification, look for every original PHI string in the output.

It works from the *input* spans, not from the spans the engine chose to rewrite (overlapping
input spans become one rewritten span, see :func:`pipeline.deid.overlaps.overlap_groups`; a check
built on the engine's own choice could only confirm it). Two checks:

* coverage (:func:`uncovered`): every character of an input span whose action is not ``keep``
  lies inside a rewritten output span; a character that does not is a leak (``kind="uncovered"``);
* strings (:func:`find_leaks`, :func:`scan_fields`): no original of the input appears anywhere in
  what the output exposes: its text, its metadata (JSONL ``meta`` keys and values), its ids
  (document and patient) and its file names (``location`` says which).

Matching is case- and accent-insensitive and whole-word (a name inside a longer word is not a
hit), with any run of whitespace matching any other. Hits are reported as (document, category,
type, offsets, location): never the string itself. Offsets are into the output text for
``text``; for ``meta``, ``id`` and ``name`` into that location's strings joined one per line
(:func:`field_text`).

What is searched:

* every original of the document's input spans that was not kept, and (given the patient's
  other notes) every original of the patient;
* in metadata, ids and names also the input's own identifiers: its id, its patient id and its
  file name (not in the text, where a number such as a store id "1523" is ordinary text);
* the parts of person names ("Smith" of "John Smith", three letters or more, not a title or a
  particle inside the name), where the hit starts with a capital letter: "Smith reports pain"
  leaks the patient's surname, while "will" is not the name "Will".

Words inside a span: a surrogate never carries a word of its original through. List-based
surrogates replace the whole value; digit-by-digit ones (phones, ages, house numbers) refuse a
span holding words outside their format ("ext", "años", "izda"), so the engine redacts it
(see :func:`pipeline.deid.surrogate_kit.check_words`).

Real values of the project: given the run's keyed set of the project's PHI values
(:mod:`pipeline.deid.project_values`), a surrogate the engine made up (paraphrase or list) that
is, or contains as whole words, a value of any note of the project and is not a public list
entry is a leak too (``kind="project_value"``, ``scope="project"``; see
:func:`pipeline.deid.leak_check.check_leaks`).

What is not a leak:

* a hit inside a ``keep`` span's output range (the profile chose to keep it); originals of
  ``keep`` spans are not searched for at all;
* a hit inside a placeholder (``[AGE]`` for a patient whose name part is "Age"): its text is
  the profile's template, the same whatever the original was.

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
from pipeline.deid.normalize import NAME_PARTICLES, NAME_TITLES, fold_same_length, kept_particles
from pipeline.spans import Span

MIN_ALNUM = 3
MIN_DIGITS_ONLY = 4
LOCATIONS = ("text", "meta", "id", "name")
_NAME_PART = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


@dataclass(frozen=True)
class Leak:
    """An original PHI string found in a de-identified text (offsets into the output)."""

    doc_id: str
    category: str
    type: str
    start: int
    end: int
    scope: str = "document"   # "document": this document's PHI; "patient": another note's; "project": any note's
    location: str = "text"    # "text", "meta", "id" or "name" (see LOCATIONS)
    kind: str = "string"      # "string": an original found; "uncovered": input PHI left unrewritten;
    #                           "project_value": a surrogate that is a real PHI value of the project

    def __str__(self) -> str:
        what = {"uncovered": "PHI left unrewritten", "project_value": "real value of the project"}.get(
            self.kind, "original found")
        return (f"{self.doc_id}: {self.type or self.category} {what} at {self.start}-{self.end} "
                f"of the output {self.location} ({self.scope} PHI)")

    def to_dict(self) -> dict:
        return {"doc_id": self.doc_id, "category": self.category, "type": self.type,
                "start": self.start, "end": self.end, "scope": self.scope, "location": self.location,
                "kind": self.kind}


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
    """The parts of a person's name worth searching on their own: not titles, nor particles
    inside the name (:func:`~pipeline.deid.normalize.kept_particles`: the "del" of "María del
    Carmen" stays, the given name "Del" of "Del Farrissey" is searched)."""
    out = []
    inside = kept_particles(original)
    for m in _NAME_PART.finditer(original):
        p = m.group()
        k = fold_same_length(p).rstrip(".")
        if len(p) >= MIN_ALNUM and k not in NAME_TITLES and not (k in NAME_PARTICLES and m.start() in inside):
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
               prepared: Sequence[Needle] | None = None, location: str = "text") -> tuple[list[Leak], int]:
    """Scan ``output`` for each ``(category, type, original, scope)``; returns (leaks, skipped).

    ``kept_ranges``: output offsets of spans the profile kept; hits inside them are not leaks.
    ``prepared``: needles already built (see :func:`needles`), used instead of ``originals``.
    ``location``: what ``output`` is (the text, or a :func:`field_text`), recorded on each leak.
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
            leaks.append(Leak(doc_id, n.category, n.type, s, e, n.scope, location))
    leaks.sort(key=lambda x: (x.start, x.end, x.category))
    return leaks, skipped


def field_text(values: Iterable[object]) -> str:
    """The strings of a metadata object, an id list or a file name list, one per line, as the
    leak scan reads them (dict keys and values, list items and numbers, depth first, in order).
    Scanning the strings rather than their JSON keeps an escaped newline or quote from hiding a
    value's words."""
    out: list[str] = []
    stack: list[object] = list(values)[::-1]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k, x in reversed(list(v.items())):
                stack.append(x)
                stack.append(k)
        elif isinstance(v, (list, tuple)):
            stack.extend(reversed(v))
        elif v is not None and not isinstance(v, bool):
            out.append(str(v))
    return "\n".join(out)


def scan_fields(doc_id: str, fields: dict[str, str], prepared: Sequence[Needle]) -> list[Leak]:
    """Leaks in the non-text locations of an output: ``fields`` maps a location (``meta``,
    ``id``, ``name``) to its :func:`field_text`."""
    leaks: list[Leak] = []
    texts = {loc: fields.get(loc, "") for loc in LOCATIONS[1:]}
    folded_all = fold_same_length("\n".join(texts.values()))
    # a needle whose first word occurs in none of the fields cannot hit any of them
    candidates = [n for n in prepared if n.folded.split(" ", 1)[0] in folded_all]
    if not candidates:
        return leaks
    for location, text in texts.items():
        if text:
            leaks += find_leaks(doc_id, text, prepared=candidates, location=location)[0]
    return leaks


def uncovered(spans: Iterable[Span], covered: Sequence[tuple[int, int]], text: str) -> list[tuple[Span, int, int]]:
    """The stretches of ``spans`` (input offsets) outside every range of ``covered``, as
    ``(span, start, end)``; whitespace at either end of a stretch is not PHI and is left out.

    ``spans``: the input spans that must be rewritten; ``covered``: the input ranges that were.

    >>> from pipeline.spans import Span
    >>> s = Span("d", 0, 18, "NAME")
    >>> [(a, b) for _, a, b in uncovered([s], [(0, 12)], "Pedro Garcia Lopez")]
    [(13, 18)]
    >>> uncovered([s], [(0, 18)], "Pedro Garcia Lopez")
    []
    """
    ranges = sorted(covered)
    merged: list[list[int]] = []
    for a, b in ranges:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out: list[tuple[Span, int, int]] = []
    for s in spans:
        pos = s.start
        gaps: list[tuple[int, int]] = []
        for a, b in merged:
            if b <= pos:
                continue
            if a >= s.end:
                break
            if a > pos:
                gaps.append((pos, a))
            pos = max(pos, b)
        if pos < s.end:
            gaps.append((pos, s.end))
        for a, b in gaps:
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if a < b:
                out.append((s, a, b))
    return out


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
