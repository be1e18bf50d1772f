"""Residual PHI: evidence that a released document still holds something de-identification missed.

A span that was detected and replaced or redacted is *not* evidence: its value is gone. What is
left is the text outside every span, and two kinds of evidence look there:

* **candidates** (:func:`candidate_reasons`): stretches a detector read as PHI below the
  threshold detection used (or a rule or list hit that detection dropped), given by the caller
  in ``DeidDocument.candidates`` (``services.risk_evidence`` finds them with the project's
  model on the released text), or lexical evidence (:mod:`pipeline.risk.lexical`: a relative's
  kinship word, a rare capitalised word beside a replaced span, an identifier-shaped token) at
  ``lexical_level``, or the second opinion trained on the project's gold
  (:mod:`pipeline.risk.gold_evidence`: a word classifier and a memory of marked words, at
  ``second_*`` / ``memory_*``). A probability of at least ``RiskConfig.residual_red`` makes the
  document red, at least ``residual_amber`` amber; a rule hit counts at ``rule_level``, a word
  list hit at ``list_level`` (lists name diseases after people, "Graves' disease": ``info``).
* **shapes** (:func:`shape_reasons`): text whose form is PHI in any note and in any language:
  an e-mail address, a web address, a long number (six digits or more: record numbers, phones,
  ids), a full date, a capitalised word right after a person's title ("Dr.", "Sra.") left as written.

Messages name offsets and kinds in words, never the text itself.
"""
from __future__ import annotations

import re
from typing import Iterable

from pipeline.locales.western import WORDS
from pipeline.risk.lexical import WHY
from pipeline.risk.types import (AMBER, GOLD_CLASSIFIER, GOLD_MEMORY, INFO, PHI_LIKE_TEXT, POSSIBLE_MISSED_PHI, RED,
                                 DeidDocument, DeidSpan, Reason, RiskConfig, category_words)

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_WEB = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
_LONG_NUMBER = re.compile(r"(?<![\w,.])\d[\d .\-/]{4,}\d(?![\w])")
_TITLES = "|".join(re.escape(t) for t in sorted(WORDS.titles, key=len, reverse=True))
# a title that opens a word ("M.D." holds "D." but opens nothing) and a name on the same line
_TITLED_NAME = re.compile(rf"(?<![\w.])(?:{_TITLES})(?:(?<=\.)[ \t]*|[ \t]+)([{WORDS.capitals}][\w'\-]+)")
_MIN_NUMBER_DIGITS = 6
_WORDS = re.compile(r"\w+")
_GLUE = frozenset(WORDS.function_words)


def _covered(spans: Iterable[DeidSpan], start: int, end: int) -> bool:
    return any(s.start < end and start < s.end for s in spans)


def only_glue(text: str) -> bool:
    """Only lower-case function words ("of" in "Dr. Patel of Psychiatry Unit", "de", "y"): words
    that join names, never identify anyone alone."""
    words = _WORDS.findall(text)
    return all(w.islower() and (w in _GLUE or len(w) <= 2) for w in words)


def candidate_reasons(doc: DeidDocument, config: RiskConfig) -> list[Reason]:
    """One reason per candidate outside every span whose evidence reaches a level; a candidate
    made only of function words between names is not evidence."""
    out = []
    for c in doc.candidates:
        if _covered(doc.spans, c.start, c.end) or only_glue(doc.text[c.start:c.end]):
            continue
        judged = _judge(c, config)
        if judged is None:
            continue
        level, why, strength = judged
        out.append(Reason(POSSIBLE_MISSED_PHI, f"Text at characters {c.start}-{c.end} was left as written: {why}.",
                          c.start, c.end, c.category, c.type, level=level, strength=round(strength, 4)))
    return out


def _by_score(score: float, amber: float, red: float) -> str:
    return RED if score >= red else AMBER if score >= amber else INFO


def _judge(c: DeidSpan, config: RiskConfig) -> tuple[str, str, float] | None:
    """A candidate's level, the reason in words and its strength; None below every level."""
    what = category_words(c.category)
    if c.source == GOLD_CLASSIFIER:
        level = _by_score(c.score, config.second_amber, config.second_red)
        why = (f"a second detector trained on this project's gold reads it as {what}, more surely than "
               f"{c.score:.2%} of the words its annotators left unmarked")
        strength = c.score
    elif c.source == GOLD_MEMORY:
        level = _by_score(c.score, config.memory_amber, config.memory_red)
        why = f"this project's annotators mark this word as {what} in {c.score:.0%} of the places it appears"
        strength = c.score
    elif c.source.startswith("lexical:"):
        level = config.lexical_level
        why = f"it {WHY.get(c.source.partition(':')[2], 'looks like PHI')}"
        strength = 1.0
    elif c.source.startswith(("rule:", "dict:")):
        level = config.rule_level if c.source.startswith("rule:") else config.list_level
        kind = "a rule for" if c.source.startswith("rule:") else "a word list of"
        why = f"{kind} {what} matches it, but detection did not keep it"
        strength = 1.0
    else:
        level = _by_score(c.score, config.model_amber, config.residual_red)
        why = f"the model reads it as {what} with probability {c.score:.0%} (detection needed more to replace it)"
        strength = c.score
    return None if level == INFO else (level, why, float(strength))


def shape_reasons(doc: DeidDocument, config: RiskConfig) -> list[Reason]:
    """Text outside every span that has the shape of PHI whatever the language."""
    text, spans = doc.text, doc.spans
    found: list[tuple[int, int, str, str, str, float]] = []
    for m in _EMAIL.finditer(text):
        found.append((m.start(), m.end(), "CONTACT", RED, "has the shape of an e-mail address", 1.0))
    for m in _WEB.finditer(text):
        found.append((m.start(), m.end(), "CONTACT", AMBER, "has the shape of a web address", 0.6))
    for m in _LONG_NUMBER.finditer(text):
        if _DATE_LIKE.fullmatch(m.group().strip()):
            found.append((m.start(), m.end(), "DATE", AMBER, "has the shape of a full date", 0.6))
        elif sum(ch.isdigit() for ch in m.group()) >= _MIN_NUMBER_DIGITS:
            found.append((m.start(), m.end(), "ID", AMBER,
                          "is a long number (record, phone or identity numbers look like this)", 0.6))
    for m in _TITLED_NAME.finditer(text):
        found.append((m.start(1), m.end(1), "NAME", RED, "is a capitalised word right after a person's title", 0.9))
    out, taken = [], []
    for a, b, cat, level, why, strength in sorted(found):
        if _covered(spans, a, b) or any(a < y and x < b for x, y in taken):
            continue
        taken.append((a, b))
        out.append(Reason(PHI_LIKE_TEXT, f"Text at characters {a}-{b} was left as written and {why}.", a, b, cat,
                          level=level, strength=strength))
    return out


_DATE_LIKE = re.compile(r"\d{1,4}[/.\-]\d{1,2}[/.\-]\d{1,4}")
