"""Which identifiers a detector suggests: the annotation convention a team de-identifies under.

Why: the i2b2 2014 types mark every age and every profession, and so do the generated notes an
English cold start learns from. A US ward that follows HIPAA's Safe Harbor does not count an age
under 90 or a profession as PHI (neither is among its eighteen identifiers). Measured on the
invented ICU sets (HIPAA convention), young ages and professions were 60 % of the characters the
cold start marked away from any PHI (4.3 of every 1,000 clinical characters; 1.8 without them). On
a real ward's note, where about 1 % of characters are PHI, each such false alarm weighs many
times what it does on a PHI-dense test note, and every one is a suggestion an annotator deletes.

A team's own model learns its convention from its gold (and :mod:`pipeline.detection.source_policy`
mutes the rules that break it); a model trained on generated notes cannot, so the convention is
recorded with the version (``ModelVersionInfo.convention``, set by ``train-starter
--convention``) and applied here, to every span the detector returns, whatever its source.

    >>> from pipeline.spans import Span
    >>> text = "67 yo retired welder, mother is 93."
    >>> spans = [Span("d", 0, 2, "AGE", "AGE"), Span("d", 14, 20, "PROFESSION", "PROFESSION"),
    ...          Span("d", 32, 34, "AGE", "AGE")]
    >>> [text[s.start:s.end] for s in apply_convention(spans, text, "safe-harbor")]
    ['93']
    >>> len(apply_convention(spans, text, "all"))
    3
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.spans import Span


@dataclass(frozen=True)
class Convention:
    """What a convention leaves out: ages under ``min_age`` (0: none) and whole categories."""
    name: str
    description: str
    min_age: int = 0
    left_out: tuple[str, ...] = ()


CONVENTIONS: dict[str, Convention] = {c.name: c for c in (
    Convention("all", "every type of the schema (i2b2 2014: all ages, professions)"),
    Convention("safe-harbor", "HIPAA Safe Harbor: ages over 89 only, no professions",
               min_age=90, left_out=("PROFESSION",)),
)}
DEFAULT = "all"

_DIGITS = re.compile(r"\d+")
_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i > 1}
_WORDS = re.compile(r"[a-z]+")


def age_value(text: str) -> int | None:
    """The age an age span states, from its first number in digits or in words ("sixty-seven",
    "ninety two", "one hundred and one" reads 100); ``None`` when it states none the reader can parse (such a span is kept)."""
    m = _DIGITS.search(text)
    if m:
        return int(m.group())
    total, seen = 0, False
    for w in _WORDS.findall(text.lower()):
        if w == "hundred" and total < 10:
            total, seen = max(total, 1) * 100, True
        elif w in _TENS and total % 100 == 0:
            total, seen = total + _TENS[w], True
        elif w in _UNITS and (not seen or (total % 10 == 0 and _UNITS[w] < 10)):
            total, seen = total + _UNITS[w], True
        elif seen:
            break
    return total if seen else None


def get_convention(name: str | None) -> Convention:
    """The named convention (``None``: the default); ``ValueError`` naming the known ones."""
    key = name or DEFAULT
    if key not in CONVENTIONS:
        raise ValueError(f"unknown convention {key!r}; use one of {', '.join(CONVENTIONS)}")
    return CONVENTIONS[key]


def left_out(span: Span, text: str, convention: Convention) -> bool:
    """Whether ``convention`` does not count ``span`` (of ``text``) as PHI."""
    if span.category in convention.left_out:
        return True
    if convention.min_age and span.category == "AGE":
        age = age_value(text[span.start:span.end])
        return age is not None and age < convention.min_age
    return False


def apply_convention(spans: list[Span], text: str, name: str | None) -> list[Span]:
    """``spans`` less those the named convention does not count as PHI (order kept)."""
    conv = get_convention(name)
    if not conv.min_age and not conv.left_out:
        return spans
    return [s for s in spans if not left_out(s, text, conv)]
