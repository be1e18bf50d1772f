"""Professions after the words that say one follows ("works as a machinist", "Occupation: chef",
"Profession: lawyer", "Job: cashier", "worked as a security guard for ..."), in any case: the pack's
profession list, or a word with an agent's ending ("-er", "-or", "-ist", "-ian") after "as a".
"Retired teacher" in a nursing note's social line is left alone: ICU gold sets do not mark it, and
the clean ICU lines of ``benchmarks/english_rules_context.py`` hold it."""
from __future__ import annotations

import re
from functools import lru_cache

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.name_words import is_safe_word
from pipeline.detection.rules.registry import register
from pipeline.locales import load_list
from pipeline.spans import Span

_CUE = re.compile(r"(?i)(?<![\w])(?:(?:works?|worked|working|employed|job)(?:\s+(?:part[ -]?time|full[ -]?time|nights|"
                  r"days|now|currently))?\s+as\s+(?P<art>an?\s+)?|"
                  r"(?:occupation|profession|job|employment|works?)\s*:\s*(?:an?\s+)?)")
_WORDS = re.compile(r"[A-Za-z][A-Za-z-]*")
_STOP = re.compile(r"(?i)^(?:at|for|in|until|who|and|with|since|from|by|on|of|to|the|but)$")
_AGENT = re.compile(r"(?i)(?:er|or|ist|ian|ant|ent)$")


@lru_cache(maxsize=1)
def _professions() -> frozenset[str]:
    return frozenset(e.lower() for e in load_list("en", "professions"))


@register(LOCALE, "professions", "PROFESSION", score=0.75)
def professions(text: str, doc_id: str) -> list[Span]:
    """The profession after "works as a", "worked as", "employed as", "occupation:": the
    longest run of up to three words that is listed, or after "as a" ends with an agent's ending."""
    out: list[Span] = []
    for c in _CUE.finditer(text):
        words = []
        for m in _WORDS.finditer(text, c.end(), min(len(text), c.end() + 50)):
            if (words and text[words[-1].end():m.start()] not in (" ", "\t")) or (not words and m.start() != c.end()):
                break
            if _STOP.match(m.group()) or len(words) == 3:
                break
            words.append(m)
        best = None
        for k in range(len(words), 0, -1):
            phrase = " ".join(w.group().lower() for w in words[:k])
            if phrase in _professions():
                best = words[k - 1].end()
                break
        if best is None and c.group("art") and words:
            last = words[-1].group()
            if _AGENT.search(last) and len(last) > 4 and not is_safe_word(last, vocabulary=False):
                best = words[-1].end()
        if best is not None:
            out.append(mk(doc_id, words[0].start(), best, "PROFESSION"))
    return out
