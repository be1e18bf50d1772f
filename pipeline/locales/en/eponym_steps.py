"""The English pack's step for names that are a disease's, a device's, a score's or a position's.

* ``drop_eponyms`` (merged stage): a machine's NAME or place span that "disease", "syndrome",
  "esophagus", "catheter" ... follows is an eponym ("Graves' disease", "Barrett's esophagus"), and
  so is a device named by its maker alone ("Hickman", "Dobhoff"), a score named for its authors
  with its value ("Wells 7.5", "Child-Pugh B"), and the same words elsewhere in a note that names
  the eponym, unless a title, a relative's word or "pt" comes before them. Apart from
  :mod:`.ward_steps` so that each stays one room.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.en.context_names import EPONYM_AFTER
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span

# devices, positions, scores and signs that carry a person's or a town's name ("Hickman line", "Salem
# sump", "Miami J collar", "Jackson-Pratt drain", "Sims position", "Glasgow Coma Scale", "Ottawa rules")
# a valve by its maker and kind ("mvr (st jude mech)": icu_invented_h find f17)
_VALVE_WORDS = r"mech|mechanical|tissue|porcine|bioprosthetic"
_DEVICE_WORDS = (r"collar|sump|shunt|line|lines|position|rule|rules|pouch|brace|lift|valve|formula|agitation|coma|"
                 r"needle|splint|pump|protocol|technique|incision|suture|clamp|bolt|probe|monitor|criteria|catheter|"
                 r"drain|tube|score|scale|sign|bag|mask|filter|stocking|stockings|boots|dressing|resp|respirations|"
                 # "S/P GRAHAM PATCH" (icu_invented_i find f16); "St. John's wort": an herb, not Newfoundland's town
                 r"breathing|wort|patch|port|"
                 # a skin product by its brand ("SARNA LOTION OK PER STANDING ORDERS": spec_invented find f18)
                 r"lotion|cream|ointment|gel|shampoo|powder|spray|"
                 # a burn's resuscitation and its chart ("PARKLAND RESUSC", "Lund-Browder chart": icu_invented_p
                 # find f330, f321)
                 r"resusc|resuscitation|chart|"
                 + _VALVE_WORDS)
# after the span: a possessive, a hyphen and a second capitalised name ("-Pratt"), a single capital
# letter in any case ("Miami J", "now in miami j collar": icu_invented_r find f30) or what the device measures or where it goes ("Camino ICP monitor", "Swan PA
# catheter": icu_invented_e find f05), then the device's word
_DEVICE_AFTER = re.compile(rf"(?:'s|s'|')?(?:-[A-Z][a-z]+)?(?:[ \t]+(?:(?i:[a-z])|(?i:icp|pa|cvp|evd|iv|art|picc|hd|"
                           rf"o2|co2|etco2|svo2|temp|pressure|bladder|gastric|esophageal))(?![\w-]))?[ \t]*(?i:{_DEVICE_WORDS})\b")

_VALVE_LAST = re.compile(rf"(?<=[ \t])(?i:{_VALVE_WORDS})$")
_DEVICE_LAST = re.compile(rf"(?<=[ \t])(?i:{_DEVICE_WORDS})$")


# devices a ward names by their maker or inventor alone, no device word after ("R chest Hickman,
# both lumens flush", "BC x2 from Hickman and periph", "Quinton placed", "Jackson-Pratt removed":
# icu_invented_d find f01, f03, f09); a title before ("Dr. Hickman") keeps a person
# (a surname or a town as often as a device, "Salem", "Blake", "Penrose", "Swan", "Minnesota", is
# left to the device word after it: _DEVICE_AFTER)
DEVICE_EPONYMS = frozenset("""hickman hickmans groshong broviac quinton swan-ganz dobhoff jackson-pratt
pleurx passy-muir shiley yankauer hemovac sengstaken port-a-cath mediport hoyer posey
kerlix coban tegaderm bovie ambu foley foleys hartmann hartmann's whipple camino lund-browder""".split())
# (an operation named for its surgeon alone: "Hartmann's, POD 1", icu_invented_h find f18; an ICP
# monitor by its maker alone, "icp bolt (camino)": icu_invented_r find f04, icu_invented_s find f18)
_TITLE_BEFORE = re.compile(r"(?i)\b(?:dr|mr|mrs|ms|miss|doctor|wife|husband|son|daughter|sister|brother|mother|"
                           r"father|friend|nephew|niece|grandson|granddaughter)\.?[ \t]+$")


def _device_eponym(span: Span, text: str) -> bool:
    """A machine's name or place whose first word is a device's eponym, no title before it."""
    first = re.match(r"[A-Za-z][A-Za-z']*(?:-[A-Za-z]+)*", text[span.start:span.start + 40])   # "Jackson" of "Jackson-Pratt"
    return bool(first and first.group().lower() in DEVICE_EPONYMS
                and not _TITLE_BEFORE.search(text, max(0, span.start - 10), span.start))


# scores named for their authors, a number or the co-author's name right after ("Wells 7.5", "Morse
# 75", "GLASGOW-BLATCHFORD SCORE 15", "Child-Pugh B": icu_invented_g find f20, f22; icu_invented_b
# find f44): a list hit on the word is no person and no town there
SCORE_EPONYMS = frozenset("""wells geneva caprini padua morse braden norton glasgow blatchford rockall ranson apgar
child pugh killip mallampati hunt hess fisher centor ottawa wexner bishop gail tanner karnofsky richmond riker
ramsay charlson spetzler gleason breslow lown forrester
bush francis hamilton beck montgomery asberg åsberg zung folstein hachinski simpson angus barnes yale edinburgh
bristol""".split())
# (psychiatry's rating scales by their authors: "Bush-Francis 18", "Hamilton 24", "Beck 21", "Yale-Brown",
# "Simpson-Angus": psych_invented find f13; and the stool chart's "Bristol 4")
_SCORE_AFTER = re.compile(r"(?:['’]s)?(?:[ \t]*[:=]?[ \t]*[<>]?\d|-[A-Za-z])")


_SCORE_BEFORE = re.compile(rf"(?i)\b(?:{'|'.join(sorted(SCORE_EPONYMS))})-$")


# fractures classed by their authors, the class in Roman numerals or a letter right after ("LeFort
# II", "Salter-Harris III", "Weber B": icu_invented_i find f18)
# (and a spinal cord injury's grade, "C5 incomplete SCI (ASIA B)": icu_invented_p find f335)
FRACTURE_EPONYMS = frozenset("lefort le-fort salter harris salter-harris weber garden gustilo schatzker neer asia".split())
_CLASS_AFTER = re.compile(r"(?:-[A-Za-z]+)?[ \t]+(?:type[ \t]+)?(?:[IV]{1,4}[ABC]?|[ABC])(?![\w-])")


# a score's value a model's span took in with the name ("Francis 18" of "Bush-Francis 18")
_VALUE_INSIDE = re.compile(r"[ \t]+[<>]?\d+(?:\.\d+)?$")


def _score_eponym(span: Span, text: str) -> bool:
    piece = text[span.start:span.end]
    value = _VALUE_INSIDE.search(piece)
    word = (piece[:value.start()] if value else piece).lower()
    end = span.start + len(word)
    if value and word not in SCORE_EPONYMS:
        return False
    span = span.with_(end=end)   # the name alone, without the value a model took in
    if word in FRACTURE_EPONYMS and _CLASS_AFTER.match(text, span.end) \
            and not _TITLE_BEFORE.search(text, max(0, span.start - 10), span.start):
        return True
    if word in SCORE_EPONYMS and _SCORE_BEFORE.search(text, max(0, span.start - 12), span.start):
        return True   # "Pugh" of "Child-Pugh B"
    return (word in SCORE_EPONYMS and _SCORE_AFTER.match(text, span.end) is not None
            and not _TITLE_BEFORE.search(text, max(0, span.start - 10), span.start))


# a cervical collar by its name alone, in brackets or a list ("C-COLLAR (MIAMI J) ON": icu_invented_p find
# f53, f66), and Massachusetts' court-ordered antipsychotic treatment, named for a case ("brother is his
# guardian w/ Rogers authority": icu_invented_p find f68)
_NAMED_THING = re.compile(r"(?i)miami[ \t]+j\b|rogers(?:'s?)?[ \t]+(?:authority|guardian(?:ship)?|order|orders|hearing|"
                          r"petition|monitor|treatment[ \t]+plan)\b")


def is_eponym(span: Span, text: str) -> bool:
    """Whether a machine's ``span`` is an eponym where it stands (a title before keeps a person)."""
    if span.source.startswith("human"):
        return False
    if span.category in ("NAME", "LOCATION") and _NAMED_THING.match(text, span.start):
        return True
    if span.category in ("NAME", "LOCATION") and _score_eponym(span, text):
        return True
    if span.category in ("NAME", "LOCATION") and _device_eponym(span, text):
        return True
    if span.category == "NAME" and (EPONYM_AFTER.match(text, span.end)
                                    or _DEVICE_LAST.search(text, span.start, span.end)) \
            and not _TITLE_BEFORE.search(text, max(0, span.start - 12), span.start):
        return True   # "SALEM SUMP" read as a first name and a surname in a line of capitals; a
        # relative's or a titled name keeps its person ("his brother Wendell's operation": clinic_invented find f08)
    if span.category == "LOCATION" and _VALVE_LAST.search(text, span.start, span.end):
        return True   # "(st jude mech)": a valve's maker and kind read as a hospital
    return span.category in ("NAME", "LOCATION") and bool(_DEVICE_AFTER.match(text, span.end))


@boundary_step("drop_eponyms", "merged")
def drop_eponyms(spans: list[Span], ctx: StepContext) -> list[Span]:
    """A machine's NAME or place span that an eponym's word follows is a disease's, a device's, a
    position's or a score's name, not a person's or a town's ("Graves' disease", "Barrett's
    esophagus", "Swan catheter", "Hickman line", "Salem sump", "Miami J collar", "Jackson-Pratt
    drain", "Sims position", "Ottawa rules"): a list or a model reads the capital, the word after
    says otherwise. The device words were found on ICU lines written for this check (the names every
    ICU charts), not on a benchmark's misses.

    >>> text = "Hx Graves' disease, seen by Dr. Graves. Salem sump to LIWS."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = drop_eponyms([Span("d", 3, 9, "NAME", "PATIENT", source="dict:surnames"),
    ...     Span("d", 32, 38, "NAME", "DOCTOR", source="rule:titled_names"),
    ...     Span("d", 40, 45, "LOCATION", "CITY", source="dict:cities")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['Graves']

    Once a note names an eponym, the same words elsewhere in it are the eponym too, and so is
    any span inside the eponym's stretch ("s/p Ivor Lewis esophagectomy ... L neck: none (Ivor
    Lewis)": icu_invented_e find f17), unless a title or a relative's word comes before them.
    """
    return [s for s in spans if not (is_eponym(s, ctx.text) or _eponym_elsewhere(s, ctx.text))]


# the patient's own name: "pt Graves" stays a name in a note that also writes "Graves disease"
_PATIENT_BEFORE = re.compile(r"(?i)\b(?:pt|pt's|patient|patient's|name)\.?[ \t:]+$")


def _eponym_elsewhere(span: Span, text: str) -> bool:
    """A machine's NAME span whose words the same note writes elsewhere as an eponym, with no
    title or relative's word before this one."""
    if span.source.startswith("human") or span.category != "NAME" or span.end - span.start < 3:
        return False
    if _TITLE_BEFORE.search(text, max(0, span.start - 10), span.start) \
            or _PATIENT_BEFORE.search(text, max(0, span.start - 12), span.start):
        return False
    words = re.escape(text[span.start:span.end]).replace("\\ ", r"\s+")
    for m in re.finditer(rf"(?i)(?<![\w-]){words}(?![\w-])", text):
        if m.start() != span.start and (EPONYM_AFTER.match(text, m.end()) or _DEVICE_AFTER.match(text, m.end())):
            return True
    return False
