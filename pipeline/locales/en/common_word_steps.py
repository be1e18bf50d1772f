"""The English pack's step for a model's name or place written in lower case among capitals.

* ``drop_lower_common_words`` (model stage): in a line that has capitals and lower case, a model's
  name or place with no capital whose every word is an ordinary word goes: a safe clinical word,
  or one English uses often (Zipf 3.5 or more) that no first-name list and no name or place list
  of the pack holds
  ("threatened her with a kitchen knife", "hit by a falling tree limb", "police escort", "from
  the marina": the cold start's CRF marked them on the emergency notes' find half,
  benchmarks/ed_invented.py f02, f04, f16). Where a line has capitals, a person or a place is
  written with one; a relative's name typed in lower case ("son jim") is a listed first name
  and stays, and a rule's or a list's span is never this step's.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import line_of
from pipeline.detection.rules.en.name_words import is_first_name, is_listed_name, is_listed_place_word, is_safe_word, zipf
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
#: how often English must use a word for it to be an ordinary one here
COMMON_ZIPF = 3.5


def _ordinary(word: str) -> bool:
    return is_safe_word(word) or ((zipf(word) or 0.0) >= COMMON_ZIPF
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
