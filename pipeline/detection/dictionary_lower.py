"""List hits in a line written all in lower case, for the locales that switch it on
(:data:`pipeline.detection.dictionary_context.LOWER_LINES_VOUCHED`): which of them the words
themselves vouch for.

Why: a proper-noun list never matches a lower-case word against a capitalised entry ("blanco" is
a colour, "Blanco" a surname). In a line written all in lower case that rule finds nothing, and
chats, forms and notes in lower case are common: on the invented English PII texts' lower-case
copy the lists missed "mexico", "texas", "new orleans" and every lower-case first name. There the
case says nothing, so a hit must be vouched for by its words or its context instead:

* a place (any ``LOCATION`` list) passes when its entry has two words or more ("new orleans",
  "united states"), or when it is a town, state or country of one word that is not also an
  ordinary word (the locale's :data:`ORDINARY_PLACES`, its stop-list, the safe vocabulary's
  ambiguous words): "texas", "murfreesboro"; an ordinary word ("mobile", "independence",
  "orange") needs its context: a place word before it ("in", "from", "near", "lives in", "born
  in"; not "to": "progressing to independence"), a field label, or another place hit beside it
  ("mobile, alabama"); an organisation, hospital or street of one word ("target", "apple": found
  on the invented ICU lines' find half) only a label or a place beside it;
* a person's name (a shipped ``NAME`` list) passes only when held up: another name hit beside
  it ("john smith", "smith, john"), a name word no list holds beside it ("thurgood benson"), a
  title ("dr", "mrs"), a kinship word ("wife", "son"), a greeting ("hi", "dear") or a field
  label right before it (a common word, "farmer", only after a label that asks for a person:
  "name:", not "occupation:"). An ambiguous word ("foley", "max"; the safe vocabulary's
  ``ambiguous``) passes only after a title, and never holds up a neighbour.

Spanish is left out on purpose: letting proper-noun hits through in lower-case lines when held up
cost MEDDOCAN train F1 there. Lines that mix cases are not touched.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pipeline.detection.dictionary_context import LABEL_BEFORE, NAME_GLUE, line_bounds

#: entries of the English place lists that are also ordinary (lower-case) words or phrases: in a
#: lower-case line they need context. Read off the shipped lists (cities, states, countries,
#: organisations), not off any note.
ORDINARY_PLACES: dict[str, frozenset[str]] = {
    "en": frozenset("""
        aurora bend billings buffalo carmel centennial concord corona garland independence
        lakeland lincoln meridian mesa mobile newton orange phoenix providence pueblo reading
        riverside sparks surprise vista midland temple normal mission salem augusta
        victoria mercy
        apple target ups""".split()) | frozenset((   # companies that are words ("TARGET 33C": icu_invented_e find f12)
        # entries of several words that read as an ordinary phrase ("bp at its high point")
        "high point", "long beach", "round rock", "little rock", "broken arrow", "green bay", "palm bay",
        "college station", "sugar land", "league city", "sandy springs", "fire department",
        "police department", "public schools")),
}

#: the one-word air-medical services of the English care chains: a ride more than a place, which most
#: blind sets' writers left unmarked ("flown in by medflight"), so in a lower-case line they keep
#: needing their context as any one-word organisation does
AIR_MEDICAL = frozenset({"medflight", "lifeflight", "careflight", "aircare"})

# what may stand between a name hit and a name word beside it: blanks, a comma, a middle initial
_INITIAL_GLUE = re.compile(r"[ \t]*,?[ \t]*(?:[^\W\d_]\.?[ \t]+)?")
_WORD_BEFORE = re.compile(r"([^\W\d_][\w'-]*)[ \t]*,?[ \t]*(?:[^\W\d_]\.?[ \t]+)?$")
_WORD_AFTER = re.compile(r"[ \t]*,?[ \t]*(?:[^\W\d_]\.?[ \t]+)?([^\W\d_][\w'-]*)")
_PLACE_BEFORE = {
    "en": re.compile(r"\b(?:in|from|near|lives?[ \t]+in|living[ \t]+in|born[ \t]+in|moved[ \t]+(?:to|from)|"
                     r"visiting|relocated[ \t]+to)[ \t]+$"),
}
_NAME_BEFORE = {
    "en": re.compile(r"\b(?:dr|drs|mr|mrs|ms|miss|prof|wife|husband|son|daughter|mother|father|mom|mum|dad|"
                     r"brother|sister|spouse|partner|grandson|granddaughter|grandmother|grandfather|aunt|uncle|"
                     r"niece|nephew|cousin|fiance|fiancee|boyfriend|girlfriend|hi|hello|hey|dear|thanks)"
                     r"\.?,?[ \t]+$"),
}
# staff and the people around a patient named by their role, in a lower-case note ("rt ulla.", "labcorp
# tech donna called", "transplant coord (harriet, pgr ...)", "bf travis pushed her": icu_invented_b
# find f32, clinic_invented find f14, icu_invented_h find f10, ed_invented find f23); not after a
# number ("2 cm", "3 pa"), where the abbreviation is a unit
_STAFF_BEFORE = {
    "en": re.compile(r"(?<![\d.])(?<![\d.][ \t])\b(?:rn|np|pa|rt|rrt|cm|sw|ot|slp|lpn|tech|technician|coord|coordinator|"
                     r"nurse|resident|fellow|intern|attending|chaplain|pastor|priest|rabbi|fr|bf|gf|friend|"
                     r"neighbor|neighbour|hcp|guardian|interpreter|case[ \t]+manager|social[ \t]+worker)"
                     r"\.?,?[ \t]+\(?[ \t]*$"),
}
# a name its credentials follow, signing a line ("- yolanda, onc rn", "wieslawa cm rn x4472":
# spec_invented find f23, icu_invented_b find f33)
_CREDENTIALS_AFTER = {
    "en": re.compile(r"[ \t]*,?[ \t]*(?:[a-z]{2,5}[ \t]+)?(?:rn|np|lpn|rrt|msw|lcsw|licsw|cna|md|do)\b"
                     r"(?=[ \t]*(?:$|\n|[,;/]|x\d|\(|pgr|pager|ext))"),
}
# a word that says a person's name follows, besides titles and kinship ("client jessamine ortega")
_ROLE_BEFORE = re.compile(r"\b(?:dr|drs|mr|mrs|ms|miss|prof|wife|husband|son|daughter|mother|father|brother|sister|"
                          r"spouse|partner|name|named|called|client|patient|resident|member)\.?,?:?[ \t]+$")
# a field label that asks for a person ("name:", "patient name:", "emergency contact:", "cc:")
_NAME_LABEL = {
    "en": re.compile(r"\b(?:name|patient|pt|client|contact|kin|nok|attending|pcp|physician|provider|doctor|nurse|"
                     r"rn|md|cc|from|to|by|author|guardian|parent|spouse|employee|member|owner|customer|user|"
                     r"officer|agent|manager|witness)s?[ \t]*[:#-][ \t]*$"),
}
# what a nurse writes after the name of staff told something, the name opening its sentence ("huynh
# aware of ivr.", "okafor notified": icu_invented_f find f16, in lower case)
_NAME_AFTER = {
    "en": re.compile(r"[ \t]+(?:aware|notified|paged|informed|updated|made[ \t]+aware|in[ \t]+to[ \t]+see|at[ \t]+bedside)\b"),
}
_SENTENCE_OPEN = re.compile(r"(?:^|[.;:!?][ \t]+|\n[ \t]*)$")
#: a listed name whose word is this common (the vocabulary's Zipf bucket) or more needs a label
#: that asks for a person: "occupation: farmer", "skin: flowers" are no names
COMMON_NAME_ZIPF = 4
_TITLE_BEFORE = re.compile(r"\b(?:dr|drs|mr|mrs|ms|miss|prof)\.?[ \t]+$")
_DOCTOR_BEFORE = re.compile(r"\b(?:dr|drs|doctor)\.?[ \t]+$")


def lower_line(text: str, i: int) -> bool:
    """Whether the line around offset ``i`` has letters and all of them in lower case."""
    return _lower(text, *line_bounds(text, i))


@lru_cache(maxsize=4096)
def _lower(text: str, a: int, b: int) -> bool:
    # cached: every hit of a long lower-case line asks about the same line
    line = text[a:b]
    return line == line.lower() and line != line.upper()


def doctor_before(text: str, start: int) -> bool:
    """Whether a doctor's title in lower case ("dr", "dr.", "doctor") stands right before ``start``
    in a lower-case line: the name after it is a doctor's, as after "Dr." in a mixed line."""
    return bool(_DOCTOR_BEFORE.search(text, max(0, start - 12), start)) and lower_line(text, start)


@dataclass(frozen=True)
class LowerHit:
    """A list hit in a lower-case line waiting to be vouched for."""

    start: int
    end: int
    category: str
    person: bool
    key: str
    #: a town, state or country entry (not an organisation's, a hospital's or a street's)
    place: bool = False


@lru_cache(maxsize=None)
def _vocabulary(locale: str):
    from pipeline.locales import load_vocabulary

    return load_vocabulary(locale)


def _ambiguous(locale: str) -> frozenset[str]:
    return _vocabulary(locale).ambiguous


def _labelled_name(h: LowerHit, before: str, locale: str) -> bool:
    """Whether a field label right before a name hit holds it up: a label asking for a person, or
    any label when the word is not a common one."""
    if not LABEL_BEFORE.search(before):
        return False
    rx = _NAME_LABEL.get(locale)
    return bool(rx and rx.search(before)) or _vocabulary(locale).zipf.get(h.key, 0) < COMMON_NAME_ZIPF


#: the most characters of glue (blanks, a comma, an initial) between two hits that hold each other up
_REACH = 12


class _Beside:
    """Hits indexed by where they start and end, so that finding those beside a hit costs no scan
    of them all (a long lower-case note holds thousands)."""

    def __init__(self, hits: list[LowerHit]):
        self.by_end: dict[int, int] = {}
        self.by_start: dict[int, int] = {}
        for h in hits:
            self.by_end[h.end] = self.by_end.get(h.end, 0) + 1
            self.by_start[h.start] = self.by_start.get(h.start, 0) + 1

    def __call__(self, h: LowerHit, text: str, glue: re.Pattern = NAME_GLUE) -> bool:
        ends = range(max(0, h.start - _REACH), h.start + 1)
        starts = range(h.end, h.end + _REACH + 1)
        return (any(e in self.by_end and glue.fullmatch(text, e, h.start) for e in ends)
                or any(s in self.by_start and glue.fullmatch(text, h.end, s) for s in starts))


#: a word beside a listed name that no list holds but English hardly knows (wordfreq's Zipf below
#: this but known to it, no safe word, no typo of a common one) is read as the rest of that name:
#: "fatima zahedi"
RARE_NAME_ZIPF = 2.5


@dataclass(frozen=True)
class _NameWords:
    """The locale's tests of a word beside a name hit that is itself part of a person's name though
    no list holds it: ``first`` before the hit ("tamika rowe"), ``last`` after it ("fatima
    zahedi"), ``rare`` either side when a name's context stands before the pair ("client jessamine
    ortega")."""

    first: object
    last: object
    rare: object


@lru_cache(maxsize=None)
def _name_words(locale: str) -> _NameWords | None:
    """English: philter-lite's large name lists (common and safe words left out) and rare words
    (:func:`pipeline.detection.rules.en.name_words.looks_like_name` after a strong context);
    ``None`` for a locale without."""
    if locale != "en":
        return None
    from pipeline.detection.rules.en.name_words import (is_first_name, is_safe_word, is_surname_after_first_name,
                                                        looks_like_name, looks_like_typo, zipf)

    def first(w: str) -> bool:
        z = zipf(w)
        return is_first_name(w) and not is_safe_word(w) and z is not None and z < 4.5

    def rare(w: str) -> bool:
        z = zipf(w)
        # a word wordfreq does not know at all (Zipf 0) is more often a typo ("ambulatd") than a name
        return (z is not None and 1.0 <= z < RARE_NAME_ZIPF and looks_like_name(w, strong=True)
                and not looks_like_typo(w))

    return _NameWords(first, lambda w: is_surname_after_first_name(w) or rare(w), rare)


def _name_word_beside(h: LowerHit, text: str, locale: str) -> bool:
    tests = _name_words(locale)
    if tests is None:
        return False
    before = _WORD_BEFORE.search(text, max(0, h.start - 40), h.start)
    after = _WORD_AFTER.match(text, h.end)
    if (before and tests.first(before.group(1))) or (after and tests.last(after.group(1))):
        return True
    # "client jessamine ortega", "name fennimore clarke": a rare word between a name's context and the hit
    return bool(before and tests.rare(before.group(1))
                and _ROLE_BEFORE.search(text, max(0, before.start() - 24), before.start()))


@lru_cache(maxsize=1)
def _state_after() -> re.Pattern:
    """A state after the place: after a comma any two letters or a state's name ("BUFFALO, NY",
    "Mobile, Alabama"); without one, a postal code in capitals that is no word ("Buffalo NY", not
    the "in" of "Independence in ADLs": icu_invented_e find f20). English's codes, the only locale
    with ordinary places."""
    from pipeline.detection.rules.en.state_codes import codes_not_words

    return re.compile(r",[ \t]*[A-Za-z]{2}(?![\w-])|,[ \t]*[A-Za-z]{4,}|[ \t]+(?:%s)(?![\w-])"
                      % "|".join(sorted(codes_not_words())))


def ordinary_place_in_context(text: str, start: int, end: int, locale: str) -> bool:
    """Whether a place entry that is also an ordinary word ("MOBILE", "Independence", "Buffalo"
    at a sentence's start) has a place's context: a place word before it ("from", "lives in"), a
    field label, or a state after a comma ("BUFFALO, NY"). In capitals or at a sentence's start
    its capital says nothing ("PT ON MOBILE MONITOR", "GOAL IS INDEPENDENCE", "Buffalo hump
    noted": found on the third invented ICU set's find f19 and checked on the clean ICU lines)."""
    before = text[max(0, start - 24):start]
    place_before = _PLACE_BEFORE.get(locale)
    return bool((place_before and place_before.search(before.lower())) or LABEL_BEFORE.search(before)
                or _state_after().match(text, end))


def vouched(pending: list[LowerHit], cased: list[tuple[int, int, str]], text: str, locale: str,
            stop_words: frozenset[str]) -> set[tuple[int, int, str]]:
    """The (start, end, category) of the ``pending`` hits that their words or context vouch for; ``cased``:
    the (start, end, category) of the hits already kept (they may hold a pending one up)."""
    ambiguous = _ambiguous(locale)
    ordinary = ORDINARY_PLACES.get(locale, frozenset()) | stop_words | ambiguous
    pending = [h for h in pending if not (h.person and h.key in stop_words)]   # "son will", "wife may"
    place_before, name_before, name_after = _PLACE_BEFORE.get(locale), _NAME_BEFORE.get(locale), _NAME_AFTER.get(locale)
    staff_before, credentials_after = _STAFF_BEFORE.get(locale), _CREDENTIALS_AFTER.get(locale)
    names = _Beside([h for h in pending if h.person and h.key not in ambiguous]
                    + [LowerHit(s, e, c, True, "") for s, e, c in cased if c == "NAME"])
    # a one-word organisation or hospital that English does not write ("apria", "lifeflight":
    # icu_invented_b find f53, f01) stands alone as a town does; a word English writes ("target",
    # "kindred") still needs its context
    common = _vocabulary(locale).zipf
    alone = [h for h in pending if not h.person and h.key not in ordinary
             and (" " in h.key or h.place or (common.get(h.key) is None and h.key not in AIR_MEDICAL))]
    places = _Beside(alone + [LowerHit(s, e, c, False, "") for s, e, c in cased if c == "LOCATION"])
    alone_at = {(h.start, h.end, h.category) for h in alone}
    out: set[tuple[int, int, str]] = set()
    for h in pending:
        before = text[max(0, h.start - 24):h.start]
        if h.person:
            if h.key in ambiguous:
                ok = bool(_TITLE_BEFORE.search(before))
            else:
                ok = (names(h, text, _INITIAL_GLUE) or _labelled_name(h, before, locale)
                      or bool(name_before and name_before.search(before)) or _name_word_beside(h, text, locale)
                      or bool(name_after and name_after.match(text, h.end) and _SENTENCE_OPEN.search(before))
                      or bool(staff_before and staff_before.search(before))
                      or bool(credentials_after and credentials_after.match(text, h.end)))
        elif (h.start, h.end, h.category) in alone_at:
            ok = True
        else:
            ok = (places(h, text) or bool(LABEL_BEFORE.search(before))
                  or bool(h.place and place_before and place_before.search(before)))
        if ok:
            out.add((h.start, h.end, h.category))
    return out
