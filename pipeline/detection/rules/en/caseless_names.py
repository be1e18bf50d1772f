"""Names in a line written in one case (ALL CAPS or all lower case) where a mixed-case line would
have shown them by their capitals: a first name and a surname with no context ("DEAR
PARENT/GUARDIAN, ELIANA CASTELLANOS (GRADE 4)", "driver ruben salcedo, truck plate ..."), and a
name after "Mr."/"Mrs."/"Ms."/"Dr." that a colon or a comma closes ("FRAUD ALERT FOR MR.
OYELARAN: CARD ...", which the ward rules read as a label).

Why: :mod:`.bare_names` and :mod:`.names` read the capitals, so on the invented PII texts' find
half in UPPER and lower case (``benchmarks/pii_invented.py --cases``: email_09, misc_52, misc_54,
form_41, form_75, misc_51, ticket_32, bank_67) the names the same texts gave as written went
unmarked. Capitals prove nothing here, so the words must vouch, more strictly than in a mixed
line: the first word a listed first name that is no safe clinical word, no ambiguous surname
("Foley"), three letters or more and not a common English word (Zipf below
:data:`FIRST_MAX_ZIPF`, lower than the mixed-case rule's); the second a word English hardly uses
(:data:`LAST_MAX_ZIPF`), no safe, function or ambiguous word and no typo of a ward's word; nothing
around them that makes them a place, an organisation, a car or an eponym (the mixed-case rule's
tests, read without case); a middle name or an initial may stand between them (after an
initial, "AURELIO M. SANTOS", a listed surname will do; after a rare first name, a listed
surname less rare, "THURGOOD BENSON"; a double-barrelled one part by part). After a title, one word that passes as
a name after a title (:func:`.name_words.looks_like_name`), never a safe or a ward word ("DR
AWARE", "MR. PT").
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import line_of, mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.bare_names import (RANKS, _NOT_A_PERSON_AFTER, _PLACE_BEFORE, _PLACE_FIRST, _PLACE_LAST,
                                                   _THING_BEFORE, CAR_MAKES)
from pipeline.detection.rules.en.caseless import one_case, titled
from pipeline.detection.rules.en.name_pairs import EPONYM_AFTER
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, is_ambiguous_word, is_first_name, is_safe_word,
                                                   is_surname_after_first_name, looks_like_name, looks_like_typo,
                                                   typo_of_ward_word, zipf)
from pipeline.detection.rules.en.staff_closings import CREDENTIAL_WORDS
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

#: how common a first name may be as an English word and still open a name with no context
#: ("ELIANA", "RUBEN", "GIDEON"; not "MARK", "BILL", "WILL", "GRACE")
FIRST_MAX_ZIPF = 4.0
#: how rare the surname after it must be ("CASTELLANOS", "SALCEDO", "MARCHETTI")
LAST_MAX_ZIPF = 3.0
_WORD = r"[A-Za-z]+(?:['’-][A-Za-z]+)?"
# a lookahead, so that "OREN BIALIK" is tried after "MANAGER), OREN"; a third word may follow
# when the second is a middle name or an initial ("AURELIO M. SANTOS", "eleanor mae whitcombe")
_PAIR = re.compile(rf"(?<![\w'’.@/-])(?=(?P<first>[A-Za-z]{{3,}}) (?P<last>{_WORD})(?![\w'’@-]|\.\w)"
                   rf"(?:\.? (?P<third>{_WORD})(?![\w'’@-]|\.\w))?)")
_TITLED = re.compile(r"(?i)(?<![\w.])(?P<title>dr|mr|mrs|ms|miss)\.?[ \t]+(?P<name>[a-z]+(?:['’-][a-z]+)?)(?=[ \t]*[:,;])")


def _first(word: str) -> bool:
    low = word.lower()
    if low in FUNCTION_WORDS:
        return False
    z = zipf(word)
    return (z is not None and z < FIRST_MAX_ZIPF and is_first_name(word) and not is_safe_word(word)
            and not is_ambiguous_word(word) and low not in _PLACE_FIRST and low not in CAR_MAKES)


def _last(word: str) -> bool:
    low = word.lower()
    z = zipf(word)
    plain = low.replace("'", "").replace("’", "").replace("-", "")
    return (z is not None and z < LAST_MAX_ZIPF and not is_safe_word(word) and not is_ambiguous_word(word)
            and low not in FUNCTION_WORDS and low not in _PLACE_LAST and not typo_of_ward_word(plain)
            and not (z < 1.0 and looks_like_typo(plain)))


#: a first name this rare vouches for a listed surname after it that is a less rare word
#: ("THURGOOD BENSON", "tamika rowe"; the surname below :data:`LISTED_LAST_MAX_ZIPF`)
RARE_FIRST_ZIPF = 3.0
LISTED_LAST_MAX_ZIPF = 4.0


def _surname(first: str, last: str) -> bool:
    """Whether ``last`` is the surname after the first name ``first``: a rare word (:func:`_last`);
    a listed surname no commoner than :data:`LISTED_LAST_MAX_ZIPF` after a first name rarer than
    :data:`RARE_FIRST_ZIPF`; or a double-barrelled one whose parts are each one of those
    ("HOLLOWAY-TAN")."""
    if _last(last):
        return True
    if "-" in last:
        return all(p and (_last(p) or is_surname_after_first_name(p)) for p in last.split("-"))
    zf, zl = zipf(first), zipf(last)
    return (zf is not None and zf < RARE_FIRST_ZIPF and zl is not None and zl < LISTED_LAST_MAX_ZIPF
            and is_surname_after_first_name(last) and not is_ambiguous_word(last) and not is_safe_word(last))


def _a_person(text: str, view: str, start: int, end: int) -> bool:
    """Nothing around ``start``-``end`` makes the pair a place, an organisation, a thing or an
    eponym (read on the title-case ``view``, the mixed-case rule's tests)."""
    return not (_NOT_A_PERSON_AFTER.match(view, end) or EPONYM_AFTER.match(text, end)
                or _PLACE_BEFORE.search(text, max(0, start - 12), start)
                or _THING_BEFORE.search(text, max(0, start - 12), start))


@register(LOCALE, "caseless_full_names", "NAME", score=0.75)
def caseless_full_names(text: str, doc_id: str) -> list[Span]:
    """A listed first name and a rare word after it in a line of one case (see the module)."""
    out: list[Span] = []
    view = None
    for m in (m for a, b in _one_case_lines(text) for m in _PAIR.finditer(text, a, b)):
        if not _first(m.group("first")) or m.group("last").lower() in CREDENTIAL_WORDS:
            continue   # "L. GREENE LMSW": a credential is no surname (icu_invented_l find f14)
        if m.group("first").lower() in RANKS:
            continue   # "TROOPER DUFRESNE": a rank, no first name (icu_invented_p find f66)
        end = m.end("last") if _surname(m.group("first"), m.group("last")) else None
        third = m.group("third")
        initial = len(m.group("last")) == 1
        if third and third.lower() not in CREDENTIAL_WORDS and _middle(text, m) and (_last(third) or (initial and is_surname_after_first_name(third))):
            end = m.end("third")
        if end is None:
            continue
        view = view if view is not None else titled(text)
        if _a_person(text, view, m.start("first"), end):
            out.append(mk(doc_id, m.start("first"), end, "PATIENT"))
    return out


def _one_case_lines(text: str) -> list[tuple[int, int]]:
    """Start and end of each line of ``text`` written in one case."""
    out, start = [], 0
    for line in text.split("\n"):
        if one_case(line):
            out.append((start, start + len(line)))
        start += len(line) + 1
    return out


def _middle(text: str, m: re.Match) -> bool:
    """Whether the pair's second word is a middle name or an initial: one letter (with its full
    stop, "M."), or a listed first name whatever else it is ("MAE" is also a ward's word; the first
    name and the rare surname either side vouch for it)."""
    w = m.group("last")
    return len(w) == 1 or (is_first_name(w) and text[m.end("last")] != ".")


@register(LOCALE, "caseless_titled_names", "NAME", score=0.8)
def caseless_titled_names(text: str, doc_id: str) -> list[Span]:
    """After a title in a line of one case, one word that passes as a name after a title and that a
    colon, a comma or a semicolon closes ("MR. OYELARAN:", "dr. kessler, please call")."""
    out: list[Span] = []
    for m in _TITLED.finditer(text):
        w = m.group("name")
        if not one_case(line_of(text, m.start())) or len(w) < 3 or w.lower() in FUNCTION_WORDS \
                or not looks_like_name(w, True, titled=True):
            continue
        gtype = "DOCTOR" if m.group("title").lower() == "dr" else "PATIENT"
        out.append(mk(doc_id, *m.span("name"), gtype))
    return out
