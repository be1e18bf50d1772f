"""The English pack's step for a model's name or place made of ordinary words.

* ``drop_lower_common_words`` (model stage): in a line that has capitals and lower case, a model's
  name or place with no capital whose every word is an ordinary word goes: a safe clinical word,
  or one English uses often (Zipf 3.5 or more) that no first-name list and no name or place list
  of the pack holds
  ("threatened her with a kitchen knife", "hit by a falling tree limb", "police escort", "from
  the marina": the cold start's CRF marked them on the emergency notes' find half,
  benchmarks/ed_invented.py f02, f04, f16). Where a line has capitals, a person or a place is
  written with one; a relative's name typed in lower case ("son jim") is a listed first name
  and stays, and a rule's or a list's span is never this step's. In a line written in one case,
  where case says nothing, one ordinary word or a run of clinical words goes unless a place's or a
  person's cue stands right before it ("HANDS ELEVATED ON PILLOWS", "BAIR HUGGER APPLIED" go;
  "WORKS AT TARGET", "DR. MARROW" stay: icu_invented_p find f114, and the check halves' recall,
  which fell when every such span went), and one word of the ward's own stop list ("Carevue", "sitter") goes
  in any line. A one-word place English writes very often (Zipf 4.5 or more) that no place list holds
  goes even after "in", "from" or a comma ("plows in winter", "FROM STEEL"); after "at" it stays.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import line_of
from pipeline.detection.rules.en.numbers import line_before
from pipeline.detection.rules.en.caseless import one_case
from pipeline.detection.rules.en.name_words import is_first_name, is_listed_name, is_listed_place_word, is_safe_word, zipf
from pipeline.detection.rules.en.towns import is_word_town, listed_place_type
from pipeline.detection.rules.en.ward_vocabulary import CALENDAR, CONTEXT, WARD
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
#: how often English must use a word for it to be an ordinary one here
COMMON_ZIPF = 3.5


def _ordinary(word: str) -> bool:
    return is_safe_word(word) or ((zipf(word) or 0.0) >= COMMON_ZIPF
                                  and not is_listed_name(word) and not is_first_name(word)
                                  and not is_listed_place_word(word))


#: the ward's own words, never a name or a place in any line ("scores in Carevue", "1:1 sitter")
_WARD_WORDS = frozenset(WARD)
_CALENDAR = frozenset(CALENDAR)
_ALONE_ON_LINE = re.compile(r"[\W_]*[^\W\d_]+(?:[ .'-]+[^\W\d_]+)*[\W_]*")
# a place's or a person's cue right before a span in a line of one case ("WORKS AT TARGET", "LIVES IN
# GLOBE", "DR. MARROW"): the span may be a name that is also a word, and stays
# (and a relative's or a role's word: "WIFE PERLA", icu_invented_l find f13)
_CUE_BEFORE = re.compile(r"(?i)(?:\b(?:at|in|from|to|near|of|outside|for|by|mr|mrs|ms|miss|%s)\.?|[,(])[ \t]*$"
                         % "|".join(sorted(CONTEXT, key=len, reverse=True)))


#: how often English must use a word for a place's cue not to save it
VERY_COMMON_ZIPF = 4.5
# the cues before a town or a source ("in", "from", a comma), not before an employer ("WORKS AT TARGET")
_PLACE_CUE_BEFORE = re.compile(r"(?i)(?:\b(?:in|from)|,)[ \t]*$")


def _very_common_non_place(word: str) -> bool:
    """A word English writes very often (Zipf 4.5 or more) that no place list of the pack holds and no
    gazetteer town is named: a name list's "Winter" or "Steel" is no place."""
    return (zipf(word) or 0.0) >= VERY_COMMON_ZIPF and not is_listed_place_word(word) and not is_word_town(word) \
        and listed_place_type(word) is None


def _lower_common(span: Span, text: str) -> bool:
    if span.category not in ("NAME", "LOCATION"):
        return False
    value = text[span.start:span.end]
    if any(c.isdigit() for c in value):
        return False   # "RN X4472": an extension, no word
    words = _WORD.findall(value)
    if len(words) == 1 and len(words[0]) >= 3 and words[0].lower() in _WARD_WORDS \
            and not is_first_name(words[0]) and not is_listed_name(words[0]):
        return True   # the ward's own word, in any case ("scores in Carevue": icu_invented_p find f131);
        # not one a person is named ("wife Perla": PERLA is the pupils' reaction too, icu_invented_l find f13)
    line = line_of(text, span.start)
    if one_case(line):
        # in a line of one case the span's case says nothing: one ordinary word, or words that are all
        # clinical, with no place's or person's cue before them ("HANDS ELEVATED ON PILLOWS": icu_invented_p
        # find f114)
        before = line_before(text, span.start, 16)
        if span.category == "LOCATION" and len(words) == 1 and _PLACE_CUE_BEFORE.search(before) \
                and _very_common_non_place(words[0]):
            return True   # "(plows in winter)", "FELL FROM STEEL", "rehab plan, first choice": a word English
            # writes everywhere that no list holds as a place (icu_invented_p find f292, f322, f354)
        if _CUE_BEFORE.search(before) or _ALONE_ON_LINE.fullmatch(line):
            return False   # (a line that holds the span alone signs the note: "-cn", "JGC")
        if len(words) == 1:   # (a month or a weekday the model typed a place is a date still: "IN\nAUGUST",
            # notes_invented find f03; two letters are a writer's initials as often as a ward's word)
            return len(words[0]) >= 3 and _ordinary(words[0]) and words[0].lower() not in _CALENDAR
        return bool(words) and all(is_safe_word(w) for w in words)
    if any(c.isupper() for c in value) or not any(c.isupper() for c in line):
        return False
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
