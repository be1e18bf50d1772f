"""The English pack's steps for what a note says about a person that names nobody: the faith and
the language ("Greek Orthodox", "speaks English", "instructions in Spanish"), a place of care or
worship described rather than named ("the community health center", "THEIR TEMPLE"), and a role's
title a machine took into a name ("Officer Malloy").

* ``strip_role_titles`` (model stage): a machine's span of any category that starts with a
  police, clergy or court title and goes on with a name keeps the name alone, as a person's
  ("Officer Malloy from state police": a model typed it an organisation). The shared step strips
  only a NAME span's titles, and only the pack's short ones ("Dr.", "Mrs").
* ``drop_faiths_and_languages`` (merged stage): a machine's name or place made only of faith and
  language words (and a verb of speaking), or that is a public or national insurer's name
  ("TennCare", "MassHealth", "Blue Cross Blue Shield"), is no name and no place: HIPAA counts none
  of them, and a note says them of nearly every patient.
* ``drop_described_places`` (merged stage): a machine's place made only of a determiner or a
  possessive and the words of a kind of place ("the community health center", "their temple",
  "his church") is a description, unless its words are capitalised in a line that has lower case
  ("the University Hospital", a name made of ordinary words, stays).

Found on the sixth invented ICU set's find half (``benchmarks/data/icu_invented_f``, f04, f08, f12,
f17, f25, f27), where a cold-start model marked them; checked on the other sets.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.en.companies import FAITHS
from pipeline.detection.rules.en.hospital_names import CARE_WORDS
from pipeline.detection.rules.en.role_names import LANGUAGES
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span

_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# the faith words that name a faith (not "first", "united", "community", "bible" of a church's name)
_FAITH_WORDS = FAITHS - frozenset("community bible united first second free new old local".split())
_SPEAKING = frozenset("speaks speak speaking spoke spoken fluent native language languages only and or".split())
_DESCRIBING = _FAITH_WORDS | LANGUAGES | _SPEAKING | frozenset(
    "jehovah's jehovahs witness witnesses latter-day lds mormon muslims jews".split())

_DETERMINERS = frozenset("the a an his her their our my your its this that pt's patient's local nearby".split())
# the words of a kind of place, worship or care, none a name alone
_KIND_OF_PLACE = CARE_WORDS | frozenset("""community health healthcare hospital medical outpatient rehab
rehabilitation nursing home facility unit mental behavioral addiction treatment shelter temple church mosque
synagogue parish congregation chapel school college work job office pharmacy program group house apartment place
county state city town""".split())

# a police, clergy or court title before a person's name
_ROLE_TITLE = re.compile(r"(?i)(?:officer|ofc\.?|trooper|sgt\.?|sergeant|det\.?|detective|deputy|lt\.?|lieutenant|"
                         r"capt\.?|captain|chief|judge|chaplain|father|fr\.|pastor|rabbi|imam|reverend|rev\.?|"
                         r"deacon|bishop)[ \t]+(?=\S)")
_STRONG = ("human", "rule:")


def _machine(span: Span) -> bool:
    return not span.source.startswith(_STRONG)


def _words(text: str) -> list[str]:
    return [w.lower().strip("'’") for w in _WORD.findall(text)]


@boundary_step("strip_role_titles", "model")
def strip_role_titles(spans: list[Span], ctx: StepContext) -> list[Span]:
    """A machine's span that starts with a police, clergy or court title keeps the name after it,
    as a person's.

    >>> text = "Officer Malloy from state police in to take statement."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = strip_role_titles([Span("d", 0, 14, "LOCATION", "ORGANIZATION", source="model:m")], ctx)
    >>> [(text[s.start:s.end], s.category, s.type) for s in got]
    [('Malloy', 'NAME', 'PATIENT')]
    """
    out: list[Span] = []
    for s in spans:
        m = _ROLE_TITLE.match(ctx.text, s.start, s.end) if _machine(s) else None
        if m is not None and m.end() < s.end:
            s = s.with_(start=m.end())
            if s.category != "NAME":
                s = s.with_(category="NAME", type="PATIENT")
        out.append(s)
    return out


@boundary_step("drop_faiths_and_languages", "merged")
def drop_faiths_and_languages(spans: list[Span], ctx: StepContext) -> list[Span]:
    """A machine's name or place made only of faith and language words is dropped; one that goes
    on after a name with a verb of speaking and a language keeps the name alone ("Dtr Hope speaks
    English": icu_invented_k find f01).

    >>> text = "States pt is Greek Orthodox. Daughter speaks English well. Log given in Spanish. TennCare"
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = drop_faiths_and_languages([Span("d", 13, 27, "LOCATION", "ORGANIZATION", source="model:m"),
    ...     Span("d", 38, 52, "NAME", "PATIENT", source="model:m"), Span("d", 72, 79, "LOCATION", "CITY",
    ...     source="model:m"), Span("d", 81, 89, "LOCATION", "HOSPITAL", source="model:m")], ctx)
    >>> got
    []
    >>> ctx = StepContext.for_locale("Dtr Hope speaks English, is contact.", "i2b2-2014", "en")
    >>> [ctx.text[s.start:s.end] for s in drop_faiths_and_languages([Span("d", 4, 23, "NAME", "PATIENT",
    ...     source="model:m")], ctx)]
    ['Hope']
    """
    out = []
    for s in spans:
        if _machine(s) and s.category in ("NAME", "LOCATION") and _describes(ctx.text, s):
            continue
        if _machine(s) and s.category == "NAME":
            s = _without_spoken_tail(ctx.text, s)
        out.append(s)
    return out


def _without_spoken_tail(text: str, span: Span) -> Span:
    """``span`` ending before a verb of speaking that only faith and language words follow."""
    words = list(_WORD.finditer(text, span.start, span.end))
    for k, w in enumerate(words[1:], 1):
        if w.group().lower() in _SPEAKING - {"and", "or", "only"} \
                and all(x.group().lower().strip("'’") in _DESCRIBING for x in words[k:]):
            end = words[k - 1].end()
            return span.with_(end=end)
    return span


# public programmes and national insurers, which insure a state's or a nation's people and name
# nobody (a regional health plan that is also a hospital system is left to the model)
_INSURER = re.compile(r"(?i)(?:medicare|medicaid|masshealth|mass[ \t]+health|tenncare|medi-?cal|soonercare|badgercare|"
                      r"mainecare|kancare|ahcccs|peachcare|tricare|champva|husky|bcbs|aetna|cigna|humana|"
                      r"unitedhealth(?:care)?|anthem|blue[ \t]+cross(?:[ \t]+(?:and[ \t]+|&[ \t]*)?blue[ \t]+shield)?)"
                      r"(?:[ \t]+(?:part[ \t]+[abcd]|advantage|hmo|ppo|plan|insurance))?")


def _describes(text: str, span: Span) -> bool:
    if _INSURER.fullmatch(text[span.start:span.end].strip()):
        return True
    words = _words(text[span.start:span.end])
    return bool(words) and all(w in _DESCRIBING for w in words) and any(w not in _SPEAKING for w in words)


@boundary_step("drop_described_places", "merged")
def drop_described_places(spans: list[Span], ctx: StepContext) -> list[Span]:
    """A machine's place made only of a determiner and a kind of place's words is dropped, unless
    they are capitalised in a mixed-case line.

    >>> text = "Intake appt and PCP at the community health center.\\nTHEIR TEMPLE TO VISIT."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = drop_described_places([Span("d", 23, 50, "LOCATION", "HOSPITAL", source="model:m"),
    ...     Span("d", 52, 64, "LOCATION", "ORGANIZATION", source="model:m")], ctx)
    >>> got
    []
    """
    return [s for s in spans if not (_machine(s) and s.category == "LOCATION" and _described(ctx.text, s))]


def _described(text: str, span: Span) -> bool:
    piece = text[span.start:span.end]
    words = _words(piece)
    if not words or not all(w in _DETERMINERS or w in _KIND_OF_PLACE for w in words):
        return False
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.end)
    line = text[line_start:line_end if line_end >= 0 else len(text)]
    mixed = any(c.islower() for c in line) and any(c.isupper() for c in line)
    capitalised = any(w[:1].isupper() for w in _WORD.findall(piece) if w.lower() not in _DETERMINERS)
    return (mixed and not capitalised) or (not mixed and words[0] in _DETERMINERS)
