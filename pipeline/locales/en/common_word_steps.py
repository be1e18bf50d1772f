"""The English pack's steps for a model's names and places made of ordinary words.

* ``drop_lower_common_words`` (model stage): in a line that has capitals and lower case, a model's
  name or place with no capital whose every word is an ordinary word goes: a safe clinical word,
  or one English uses often (Zipf 3.5 or more) that no first-name list and no name or place list
  of the pack holds
  ("threatened her with a kitchen knife", "hit by a falling tree limb", "police escort", "from
  the marina": the cold start's CRF marked them on the emergency notes' find half,
  benchmarks/ed_invented.py f02, f04, f16). Where a line has capitals, a person or a place is
  written with one; a relative's name typed in lower case ("son jim") is a listed first name
  and stays, and a rule's or a list's span is never this step's.
* ``drop_one_case_common_towns`` (model stage): in a line of one case (capitals only, or lower case
  only), where case says nothing, a model's town made only of ordinary words (Zipf 3.0 or more, or
  safe clinical words) that no town of
  1,000 people or more in the US, UK, Canada, Australia, Ireland or New Zealand is called goes
  ("SITTER AT BEDSIDE", "HANDS ELEVATED ON PILLOWS", "ate a few bites of supper": the cold start's
  CRF marked them on icu_invented_s find f02, f08 and icu_invented_r find f10; on the find halves of
  every blind set, as written, in UPPER and in lower case, the step takes 105 such spans of the
  starter's, none of them PHI; ordinary words that are towns stay: "FROM GLOBE", "SOMERSET", "HAZARD"). ``word_towns.txt`` holds those towns
  (``benchmarks/build_en_towns.py``); a model trained on the ward's own notes may be spared it
  (:mod:`pipeline.detection.step_policy`).
"""
from __future__ import annotations

import re

from functools import lru_cache

from pipeline.detection.rules.common import line_of
from pipeline.detection.rules.en.name_words import is_first_name, is_listed_name, is_listed_place_word, is_safe_word, zipf
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.locales import load_list
from pipeline.spans import Span

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
#: how often English must use a word for it to be an ordinary one here
COMMON_ZIPF = 3.5
#: the same for a town in a line of one case: the frequency at which the gazetteer's builder moves
#: a town from towns.txt to word_towns.txt, so every town is in one of the two
TOWN_ZIPF = 3.0


def _ordinary(word: str, common: float = COMMON_ZIPF) -> bool:
    return is_safe_word(word) or ((zipf(word) or 0.0) >= common
                                  and not is_listed_name(word) and not is_first_name(word)
                                  and not is_listed_place_word(word))


def _lower_common(span: Span, text: str) -> bool:
    if span.category not in ("NAME", "LOCATION"):
        return False
    value = text[span.start:span.end]
    if any(c.isupper() for c in value) or not any(c.isupper() for c in line_of(text, span.start)):
        return False
    words = _WORD.findall(value)
    return bool(words) and all(_ordinary(w) for w in words)


@boundary_step("drop_lower_common_words", "model")
def drop_lower_common_words(model_spans: list[Span], ctx: StepContext) -> list[Span]:
    """The model's spans without its lower-case names and places of ordinary words in a line with
    capitals.

    >>> text = "Threatened her with a kitchen knife. Son jim at bedside."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = drop_lower_common_words([Span("d", 22, 35, "LOCATION", "HOSPITAL", source="model:v"),
    ...     Span("d", 41, 44, "NAME", "PATIENT", source="model:v")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['jim']
    """
    return [s for s in model_spans if not _lower_common(s, ctx.text)]


@lru_cache(maxsize=1)
def _word_towns() -> frozenset[str]:
    return frozenset(load_list("en", "word_towns"))


def _one_case(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return bool(letters) and (all(c.isupper() for c in letters) or all(c.islower() for c in letters))


def _common_word_town(span: Span, text: str) -> bool:
    if span.type != "CITY" or not _one_case(line_of(text, span.start)):
        return False
    words = _WORD.findall(text[span.start:span.end])
    return bool(words) and all(_ordinary(w, TOWN_ZIPF) and w.lower() not in _word_towns() for w in words)


@boundary_step("drop_one_case_common_towns", "model")
def drop_one_case_common_towns(model_spans: list[Span], ctx: StepContext) -> list[Span]:
    """The model's spans without its towns of ordinary words no town is called, in a line of one case.

    >>> text = "SITTER AT BEDSIDE. PT FROM GLOBE, AZ."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = drop_one_case_common_towns([Span("d", 0, 6, "LOCATION", "CITY", source="model:v"),
    ...     Span("d", 27, 32, "LOCATION", "CITY", source="model:v")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['GLOBE']
    """
    return [s for s in model_spans if not _common_word_town(s, ctx.text)]
