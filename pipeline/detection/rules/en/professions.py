"""Professions after the words that say one follows ("works as a machinist", "Occupation: chef",
"Profession: lawyer", "Job: cashier", "worked as a security guard for ...", "works part-time as"),
in any case: the pack's profession list, or a word with an agent's ending ("-er", "-or", "-ist",
"-ian", "-sman") after "as a". A listed calling also after an age ("a 48 year old software
engineer") or "as a" anywhere; a listed or agent-named one before its workplace ("is a student at",
"retired engineer from Pratt Aerospace", "SH: electrician, works for"), as i2b2 2014 counts them
in discharge summaries and letters (found on ``benchmarks/data/notes_invented``'s find half).
"Retired teacher" alone in a nursing note's social line is left alone: ICU gold sets do not mark
it, and the clean ICU lines of ``benchmarks/english_rules_context.py`` hold it; nor is a habit a
calling ("a smoker for 20 years", "a poor historian at baseline")."""
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
                  # a listed calling after an age ("a 48 year old software engineer", "86-year-old retired
                  # high school principal") or after "as a" anywhere ("at the library as a librarian"):
                  # no article group, so the list decides (notes_invented find f27, f29, f32)
                  r"(?:year[ -]old|y/o|y\.o\.|yo)[ \t]+(?:(?:male|female|man|woman)[ \t]+)?(?:retired\s+|former\s+)?|"
                  r"(?<=\bas\s)an?\s+|"
                  r"(?:occupation|profession|job|employment|works?)\s*:\s*(?:an?\s+)?)")
_WORDS = re.compile(r"[A-Za-z][A-Za-z-]*")
# a field's cue ("Occupation: retired"): the list's "retired" stands there, never in prose ("a 66 yo
# retired\nmachinist": notes_invented find f47)
_FIELD = re.compile(r"(?i)(?:occupation|profession|job|employment|works?)\s*:")
_STOP = re.compile(r"(?i)^(?:at|for|in|until|who|and|with|since|from|by|on|of|to|the|but)$")
_AGENT = re.compile(r"(?i)(?:er|or|ist|ian|ant|ent|sman|swoman)$")   # "groundsman" (f16)


@lru_cache(maxsize=1)
def _professions() -> frozenset[str]:
    return frozenset(e.lower() for e in load_list("en", "professions"))


# a calling before its workplace: "is a student at", "(a pharmacist at", "retired engineer from
# Pratt Aerospace", "BUS DRIVER FOR RIPTA", and a social line's "SH: electrician, works for": the
# workplace (or "works") after it says a job is meant; "retired teacher." alone stays (ICU gold sets
# do not mark it). Found on benchmarks/data/notes_invented find f05, f17, f18, f20, f21.
_BEFORE_WORK = re.compile(r"(?i)(?:(?<![\w])(?:is|was|an?|retired|former|semi-retired)[ \t]+(?:an?[ \t]+)?|"
                          r"(?m:^)[ \t]*(?:(?:sh|social(?:[ \t]+history)?|soc)[ \t]*:[ \t]*)?|(?<=[.;:])[ \t]+)")
_WORK_AFTER = re.compile(r"(?i)(?:[ \t]+(?:at|for|from|with)[ \t]+(?:the[ \t]+)?(?P<place>[A-Za-z][A-Za-z'-]*)|"
                         r",[ \t]*(?:works|worked)\b)")
# what a note calls a patient by a habit, not a job ("a smoker for 20 years", "a poor historian at baseline")
_HABITS = frozenset("smoker smokers drinker drinkers user users historian abuser snorer walker sleeper eater chewer "
                    "vaper gambler survivor donor carrier reader learner".split())


def _phrase_end(text: str, at: int, agent: bool) -> tuple[int, int] | None:
    """The profession starting at ``at``: the longest run of up to three words that is listed,
    or (``agent``) whose last word ends as an agent's does; ``(start, end)`` or None."""
    words = []
    for m in _WORDS.finditer(text, at, min(len(text), at + 50)):
        if (words and text[words[-1].end():m.start()] not in (" ", "\t")) or (not words and m.start() != at):
            break
        if _STOP.match(m.group()) or len(words) == 3:
            break
        words.append(m)
    for k in range(len(words), 0, -1):
        if " ".join(w.group().lower() for w in words[:k]) in _professions():
            return words[0].start(), words[k - 1].end()
    if agent and words:
        last = words[-1].group()
        if _AGENT.search(last) and len(last) > 4 and not is_safe_word(last, vocabulary=False):
            return words[0].start(), words[-1].end()
    return None


@register(LOCALE, "professions", "PROFESSION", score=0.75)
def professions(text: str, doc_id: str) -> list[Span]:
    """The profession after "works as a", "worked as", "employed as", "occupation:": the
    longest run of up to three words that is listed, or after "as a" ends with an agent's ending;
    and a listed or agent-named calling that a workplace follows (:data:`_BEFORE_WORK`)."""
    out: list[Span] = []
    for c in _CUE.finditer(text):
        found = _phrase_end(text, c.end(), bool(c.group("art")))
        if found is not None and not (text[found[0]:found[1]].lower() == "retired" and not _FIELD.match(c.group())):
            out.append(mk(doc_id, *found, "PROFESSION"))
    for c in _BEFORE_WORK.finditer(text):
        # an agent's ending after an article only: at a line's start it is as often an order
        # ("Monitor for", "Reminder at") as a calling, so the list decides there
        article = bool(c.group().strip(" \t.;:")) and not c.group().rstrip().endswith(":")
        found = _phrase_end(text, c.end(), article)
        if found is None or text[found[0]:found[1]].lower() == "retired" or any(s.start <= found[0] < s.end for s in out):
            continue
        if _at_work(text, *found):
            out.append(mk(doc_id, *found, "PROFESSION"))
    return out


def _at_work(text: str, start: int, end: int) -> bool:
    """Whether a workplace follows the calling at ``[start, end)``: "at", "for", "from" or "with"
    and a word that is no ward word ("a nurse at bedside", "for 20 years" are none), or ", works";
    never a habit ("smoker", "drinker")."""
    m = _WORK_AFTER.match(text, end)
    if m is None or text[start:end].split()[-1].lower() in _HABITS:
        return False
    place = m.group("place")
    return place is None or not (is_safe_word(place) or place.lower() in ("home", "night", "rest", "baseline", "times"))
