"""The English pack's step for a surname a line in one case hides behind its first name.

* ``surname_after_one_case_first_name`` (merged stage): a NAME span that is one listed first name,
  on a line written in one case, takes the word right after it when that word is a surname:
  "NEIGHBOR VELMA ROOT (HAS KEY)", "SERVICE OFFICER CARL LOVELADY", "PARENTS ALVIN AND IRMA FINCH".

Why: in a mixed-case line the capitals join a surname to its first name ("neighbor Velma Root"),
and the rules and the model mark both; in a line of one case the context rules take the listed
first name alone, since the next word may as well be what the relative does ("SON JOHN FINE",
"WIFE MARY AWARE"), and the surname is released as written. The first name found is the evidence
a mixed line's capital would have been; the word after it must still vouch for itself: a surname
of the lists that is no common word (Zipf under 4.5), or a word English hardly writes (Zipf under
2), and never a function, safe or ward word, a credential, a word with a verb's or an adjective's
ending ("UPDATED", "TEARFUL"), a clinical ending or a typo of a common word. Found on the find
halves in UPPER and lower case (``icu_invented_c`` f02, f22; ``psych_invented`` f15), where the
same notes as written had both words marked.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import line_of
from pipeline.detection.rules.en.caseless import one_case
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, ending_stems, has_clinical_ending, is_first_name,
                                                   is_listed_name, is_listed_surname, is_safe_word, is_surname_after_first_name,
                                                   looks_like_typo, typo_of_ward_word, zipf)
from pipeline.detection.rules.en.staff_closings import CREDENTIAL_WORDS
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span

#: how common a listed surname may be as a word and still follow a first name in one case
#: ("ROOT" 4.4, "FINCH" 3.6; not "LOVE" 5.8, "WELL", "FINE")
LISTED_SURNAME_MAX_ZIPF = 4.5
#: how rare an unlisted word must be to pass as the surname ("LOVELADY" 1.4, "WARSAME" 1.5)
RARE_SURNAME_MAX_ZIPF = 2.0
_FIRST = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)?")
_NEXT = re.compile(r" (?P<w>[^\W\d_]+(?:['’-][^\W\d_]+)?)(?![\w'’@/-]|\.\w)")
# an adjective's or a verb's ending: what a relative is or does, not their surname (name_words'
# endings and a "-y": "TEARY", "SLEEPY")
_WORD_ENDING = re.compile(r"(?:ed|ing|ly|ness|ment|ic|ical|ive|ous|ary|ful|less|able|ible|y)$")


def is_one_case_surname(word: str) -> bool:
    """Whether ``word``, right after a first name on a line of one case, is that person's surname.

    >>> [w for w in ("ROOT", "FINCH", "LOVELADY", "HILL", "LOVE", "FINE", "UPDATED", "TEARY", "SPEAKS", "GIR")
    ...  if is_one_case_surname(w)]
    ['ROOT', 'FINCH', 'LOVELADY', 'HILL']
    """
    low = word.lower()
    if (len(low) < 2 or low in FUNCTION_WORDS or is_safe_word(word) or low in CREDENTIAL_WORDS
            or has_clinical_ending(word)):
        return False
    if len(low) < 4 and not is_listed_name(word):
        return False   # three letters the pack's own lists do not hold ("LEE", "KIM" they do) are a ward's
        # abbreviation as often as a name ("MAX GIR 7": icu_invented_o find f08)
    if is_surname_after_first_name(word):
        return True
    z = zipf(word) or 0.0
    if _inflected(low):
        return False
    if is_listed_surname(word):
        return z < LISTED_SURNAME_MAX_ZIPF
    return z < RARE_SURNAME_MAX_ZIPF and not typo_of_ward_word(word) and not looks_like_typo(word)


def _inflected(low: str) -> bool:
    """Whether ``low`` is an English word with a verb's or an adjective's ending: the ending's stem
    is itself a word ("updated": "updat(e)", "teary": "tear"); "lovelady" has no such stem."""
    if low.endswith("s") and not low.endswith("ss") and (zipf(low[:-1]) or 0.0) >= 3.0:
        return True   # a verb's -s ("WIFE FATIMA SPEAKS PORTUGUESE": icu_invented_p find f73)
    if _WORD_ENDING.search(low) is None:
        return False
    return any((zipf(x) or 0.0) >= 2.5 for x in ending_stems(low, _WORD_ENDING))


#: how common a first name may be as a word and still vouch for the word after it ("CHURCH
#: SUPPER" is a meal: ed_invented find f18)
FIRST_NAME_MAX_ZIPF = 5.0


def _vouching_first_name(word: str) -> bool:
    """A listed first name that is no safe word and no very common English word."""
    return is_first_name(word) and not is_safe_word(word) and (zipf(word) or 0.0) < FIRST_NAME_MAX_ZIPF


@boundary_step("surname_after_one_case_first_name", "merged")
def surname_after_one_case_first_name(spans: list[Span], ctx: StepContext) -> list[Span]:
    """``spans`` with each machine's one-word first-name span on a one-case line taking the surname
    right after it (:func:`is_one_case_surname`), where no other span holds that word.

    >>> text = "SOCIAL: NEIGHBOR VELMA ROOT (HAS KEY). SON JOHN FINE."
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = surname_after_one_case_first_name([Span("d", 17, 22, "NAME", "PATIENT", source="rule:x"),
    ...                                          Span("d", 43, 47, "NAME", "PATIENT", source="rule:x")], ctx)
    >>> [text[s.start:s.end] for s in got]
    ['VELMA ROOT', 'JOHN']
    """
    text = ctx.text
    taken = [(s.start, s.end) for s in spans]
    out: list[Span] = []
    for s in spans:
        if s.category == "NAME" and s.type != "USERNAME" and not s.source.startswith("human") \
                and _FIRST.fullmatch(text, s.start, s.end) and _vouching_first_name(text[s.start:s.end]) \
                and one_case(line_of(text, s.start)):
            m = _NEXT.match(text, s.end)
            if m and is_one_case_surname(m.group("w")) \
                    and not any(a < m.end() and m.start("w") < b for a, b in taken):
                s = s.with_(end=m.end())
        out.append(s)
    return out
