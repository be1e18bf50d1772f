"""A boundary step for locales with a safe vocabulary: a span made only of words a note uses that
are never PHI alone ("Alert", "FOLEY"-like device and drug words, "Afebrile", units, section
headers) stays only with strong evidence.

Why: a cold-start model and context rules read capitals and position as the name signal, so on
notes written in capitals or in clinical shorthand they mark clinical words as names. The words
come from the locale's vocabulary (:func:`pipeline.locales.load_vocabulary`, built from
maintained packages; names and places are subtracted from it), matched without case.

Strong evidence, read from the text and from the spans' sources:

* a title right before the span or at its start ("Dr. ", "Mrs ": the pack's titles);
* a field label right before it on its line that asks for PHI (the pack's ``labels``:
  "Name:", "Attending:", "Hospital:");
* a name or place list hit (a ``dict:`` candidate) overlapping it, unless the hit itself is made
  only of safe and *ambiguous* words (a listed surname that is also a clinical or ordinary word,
  "Foley", "Brown": a list hit on it alone says nothing), except a hit of a list the pack names
  as vouching for itself, of several words or after a place's preposition (``vouching_lists``);
* a rule overlapping it: a structured one (dates, ids, phones, ages) or a context rule of names
  and places (a name after "Dr", "wife", "per"; a place after "transferred from"), which found
  the word by its context, not by its case;
* an institution's shape: two words or more, one of them a word the pack says a place's name
  goes on with, four letters or more ("University Hospital", "Middletown General": found on
  generated English train notes, where 1 in 20 hospital names is made of ordinary words).

Only spans of the categories ``NAME``, ``LOCATION``, ``ID`` and ``CONTACT`` are judged: a
profession ("nurse"), a date ("Monday") or an age is made of ordinary words by nature.

A pack may also judge (``initials_need_evidence``) a name or place of one letter ("V" of "V
paced", "C" of "C diff"): an initial alone needs the same evidence ("Dr. J" keeps it). (Judging
every lower-case name on a line that capitalises other words was tried and left out: on the
wide generator's held-out notes it cut name recall 0.834 -> 0.739, lower-case names being common.)

A locale pack registers its own step with :func:`register_safe_word_step`.
"""
from __future__ import annotations

import re
from typing import Iterable

from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span

JUDGED = frozenset({"NAME", "LOCATION", "ID", "CONTACT"})
# categories whose rules read a shape (a date, a number), not a word's case: strong evidence
STRUCTURED = frozenset({"DATE", "ID", "CONTACT", "AGE"})
_WORD = re.compile(r"[^\W_]+")
INITIAL_JUDGED = frozenset({"NAME", "LOCATION"})


def safe_only(text: str, safe: frozenset[str]) -> bool:
    """Whether every word of ``text`` is a safe word or a lone letter, with one safe word at
    least ("O-Neuro", "HEMODYNAMICALLY STABLE"); digits are never safe ("Bed 5" is judged by
    the model alone)."""
    words = _WORD.findall(text)
    seen = False
    for w in words:
        lw = w.lower()
        if len(lw) >= 2 and lw in safe:
            seen = True
        elif not (len(w) == 1 and w.isalpha()):
            return False
    return seen


def _label_before(text: str, start: int, labels: re.Pattern) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    return bool(labels.search(text[line_start:start]))


def _title_at(ctx: StepContext, span: Span) -> bool:
    if ctx.words.title.match(ctx.text, span.start, span.end):
        return True
    line_start = ctx.text.rfind("\n", 0, span.start) + 1
    lo = max(line_start, span.start - 24)
    # a title is a word of its own: "D. " at the end of "REMOVED. " is no title before "FOLEY"
    return any(m.end() == span.start and not (m.start() > 0 and ctx.text[m.start() - 1].isalnum())
               for m in ctx.words.title.finditer(ctx.text, lo, span.start))


_PLACE_PREPOSITION = re.compile(r"(?i)\b(?:at|to|from|via|with|by|in)[ \t]+$")


def _list_vouches(c: Span, text: str, vouching: frozenset[str]) -> bool:
    """A hit of one of the pack's ``vouching`` lists (made for detection, institutions named with
    ordinary words: "Select Specialty", a device maker's "Fresenius" that also runs dialysis units)
    of several words, or after a place's preposition ("HD AT FRESENIUS")."""
    return c.source in vouching and (
        len(_WORD.findall(text[c.start:c.end])) >= 2 or bool(_PLACE_PREPOSITION.search(text, max(0, c.start - 8), c.start)))


def _sourced(span: Span, candidates: Iterable[Span], text: str, judged: frozenset[str],
             vouching: frozenset[str] = frozenset()) -> bool:
    for c in candidates:
        if c.end <= span.start or c.start >= span.end:
            continue
        if c.source.startswith("dict:") and (not safe_only(text[c.start:c.end], judged)
                                             or _list_vouches(c, text, vouching)):
            return True
        if c.source.startswith("rule:"):
            return True
    return False


def _lone_letter(text: str, span: Span) -> bool:
    """A name or place of one letter ("V" of "V paced", "C" of "C diff"): an initial alone."""
    value = text[span.start:span.end].strip()
    return span.category in INITIAL_JUDGED and len(value) == 1 and value.isalpha()


def keeps(span: Span, ctx: StepContext, safe: frozenset[str], labels: re.Pattern,
          judged: frozenset[str] | None = None, initials_need_evidence: bool = False,
          vouching: frozenset[str] = frozenset()) -> bool:
    """Whether ``span`` stays: not judged, not made only of safe (or ambiguous) words (nor, with
    ``initials_need_evidence``, a lone letter), or with strong evidence.
    ``judged``: the safe words and the ambiguous ones (``safe`` when None); ``vouching``: the list
    sources whose hits vouch for themselves (:func:`_list_vouches`)."""
    judged = safe if judged is None else judged
    if span.category not in JUDGED or not (safe_only(ctx.text[span.start:span.end], judged)
                                           or (initials_need_evidence and _lone_letter(ctx.text, span))):
        return True
    if span.source.startswith("rule:"):
        return True
    return (_sourced(span, (*ctx.candidates, *ctx.resolved), ctx.text, judged, vouching) or _title_at(ctx, span)
            or _label_before(ctx.text, span.start, labels) or _institution(ctx, span))


def _institution(ctx: StepContext, span: Span) -> bool:
    words = [w.lower() for w in _WORD.findall(ctx.text[span.start:span.end])]
    return len(words) >= 2 and any(len(w) >= 4 and w in ctx.words.name_goes_on for w in words)


def label_pattern(labels: Iterable[str]) -> re.Pattern:
    """A PHI field label ending right before a value: the label's words, a colon or a dash, blanks."""
    alts = "|".join(r"\s+".join(map(re.escape, lab.split())) for lab in sorted(labels, key=len, reverse=True))
    return re.compile(r"(?:^|[^\w])(?:%s)\s*(?::|-|#|=)\s*$" % (alts or "(?!)"), re.IGNORECASE)


def register_safe_word_step(name: str, safe: frozenset[str], labels: Iterable[str],
                            ambiguous: frozenset[str] = frozenset(), initials_need_evidence: bool = False,
                            vouching_lists: frozenset[str] = frozenset()) -> str:
    """Register the ``merged``-stage step ``name`` that drops spans made only of ``safe`` and
    ``ambiguous`` words (lower case) without strong evidence; ``labels``: the language's PHI field
    labels; ``vouching_lists``: list sources whose hits of several words, or after a place's
    preposition, vouch for themselves. Returns ``name`` for the pack's list of steps."""
    pattern = label_pattern(labels)
    judged = safe | ambiguous

    @boundary_step(name, "merged", description="drop spans made only of safe words without strong evidence")
    def _step(spans: list[Span], ctx: StepContext) -> list[Span]:
        if not safe:
            return spans
        return [s for s in spans if keeps(s, ctx, safe, pattern, judged, initials_need_evidence, vouching_lists)]

    return name
