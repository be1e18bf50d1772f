"""How the words of a name hold together when their case says nothing: a surname that is also a
word after a first name ("LIZZIE STRONG", "son holly small"), a name written surname first
("PATIENT: STRONG, LIZZIE"), a first name and a surname after a weak context ("follow up with
finbar bell"), a surname alone after a page ("paged hunter at ..."), words English does not know
where the patient is named ("pt Calinnik resting"), a second name joined by "and" ("sons Mark and
Paul"), and the words after a name that make it an eponym or a label ("Foley catheter",
"Attending attestation:"). Helpers of :mod:`.context_names`.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, has_clinical_ending, hyphenated_name, is_first_name,
                                                   is_safe_word, is_surname_after_first_name, looks_like_name,
                                                   looks_like_typo, zipf)
from pipeline.spans import Span

# a name followed by one of these is an eponym ("Graves' disease", "Crohn's", "Foley catheter") or a
# field label ("Attending attestation:"), not a person
_EPONYM_WORDS = (r"disease|syndrome|lymphoma|sarcoma|sign|test|procedure|catheter|criteria|score|"
                 r"scale|palsy|phenomenon|reflex|maneuver|manoeuvre|ulcer|esophagus|oesophagus|tube|triad|fracture|"
                 r"classification|operation|repair|bag|mask|filter|stocking|stockings|boots|hose|drain|drainage|"
                 # a grade or a class named for its authors, with its value ("Hunt-Hess grade 3", "Killip
                 # class II": icu_invented_g find f26; "Ms. Okafor's class" is a teacher's), and an equation
                 r"(?:grade|stage|class)[ \t]+(?:[0-9]|[IV]{1,3}\b|[A-D]\b)|equation|formula|"
                 # an operation named for its surgeon ("Ivor Lewis esophagectomy", "Nissen fundoplication",
                 # "Heller myotomy": icu_invented_e find f17)
                 r"[a-z]{2,}(?:ectomy|otomy|ostomy|plasty|pexy|rrhaphy)|fundoplication|anastomosis|flap|"
                 # a faith named by its god ("PT IS JEHOVAH'S WITNESS": icu_invented_c find f09)
                 r"witness|witnesses")
# on the same line only: "Anesth: Leung" above a "Procedure:" line is a name (notes_invented find f46)
_NOT_A_PERSON_AFTER = re.compile(rf"(?i)(?:'s|s'|')?[ \t]*(?::|(?:{_EPONYM_WORDS})\b)")
#: what follows an eponym ("Graves' disease", "Barrett's esophagus", "Foley catheter"): no person's name
EPONYM_AFTER = re.compile(rf"(?i)(?:'s|s'|')?[ \t]*(?:{_EPONYM_WORDS})\b")



def eponym_or_label(text: str, end: int) -> bool:
    return bool(_NOT_A_PERSON_AFTER.match(text, end))



_AND_NAME = re.compile(r"(?i)[ \t]*(?:,[ \t]*)?(?:and|&)[ \t]+(?:(?:dr|mr|mrs|ms)\.?[ \t]+)?(?P<name>(?-i:[A-Za-z][A-Za-z'-]*[A-Za-z]))")


def and_names(text: str, doc_id: str, end: int, gtype: str) -> list[Span]:
    """A second name joined to one a context gave ("sons Mark and Paul", "Drs. Patel and Wong"):
    one word that passes as a name after a strong context, written as the first was."""
    m = _AND_NAME.match(text, end)
    if m is None:
        return []
    w = m.group("name")
    first = text[text.rfind(" ", 0, end) + 1:end]
    same_case = (w.isupper() == first.isupper()) and (w.islower() == first.islower())
    if not same_case or not looks_like_name(w, True, title_case(w) and has_lower(text, m.start("name"))) \
            or eponym_or_label(text, m.end("name")):
        return []
    return [mk(doc_id, *m.span("name"), gtype)]


def inverted(text: str, tokens: list[tuple[int, int]]) -> bool:
    """A surname that is also a word before a comma and a listed first name, after a strong
    context ("Patient: Strong, Lizzie", "son: BROWN, ROYAL"): the first name vouches for it."""
    if len(tokens) < 2 or text[tokens[0][1]:tokens[1][0]].strip() != ",":
        return False
    last, first = text[slice(*tokens[0])], text[slice(*tokens[1])]
    given = (is_first_name(first) and looks_like_name(first, True)) or hyphenated_name(first, strong=False)
    return is_surname_after_first_name(last) and given   # "Patient: Park, Ji-Woo" (icu_invented_g find f07)


def surname_after(text: str, first: tuple[int, int], word: tuple[int, int]) -> bool:
    """Whether the token at ``word`` is a surname after the first name at ``first``: the first a
    listed first name or a rare word that passed as a name, the word a surname (:func:`.name_words.is_surname_after_first_name`), both
    in the same case in a mixed-case line ("Mary Green", not "Mary green stool")."""
    a, b = text[slice(*first)], text[slice(*word)]
    za, zb = zipf(a), zipf(b)
    # "Jesica Considine": after a name, a rare word's clinical ending ("-idine") says nothing (drugs are safe words)
    rare_b = has_clinical_ending(b) and zb is not None and zb < 3.0 and b.isalpha() and not is_safe_word(b) \
        and not looks_like_typo(b)
    if not ((is_first_name(a) or (za is not None and za < 3.0)) and is_surname_after_first_name(b) or rare_b):
        return False
    return not has_lower(text, word[0]) or (title_case(b) or b.isupper()) == (title_case(a) or a.isupper())


# what closes a surname paged alone: punctuation, the line's end, a number or "at"/"re"
_AFTER_PAGED_NAME = re.compile(r"(?i)[ \t]*(?:[.,;:(@]|$|\d|(?:at|re|x)\b)", re.MULTILINE)


def surname_alone(text: str, token: tuple[int, int]) -> bool:
    """A listed surname that is also a word, alone after a role ("PAGED STERLING AT 212-555-0108",
    "page placed to field."), in a line of one case: the pack's surname list, no safe word, and
    nothing after it but punctuation, a number, "at" or "re"."""
    w = text[slice(*token)]
    line_start = text.rfind("\n", 0, token[0]) + 1
    line_end = text.find("\n", token[1])
    line = text[line_start:line_end if line_end >= 0 else len(text)]
    if any(c.islower() for c in line) and any(c.isupper() for c in line):
        return False
    return (is_surname_after_first_name(w) and not is_safe_word(w) and bool(_AFTER_PAGED_NAME.match(text, token[1]))
            and not EPONYM_AFTER.match(text, token[1]))


# what a patient does next in a nurse's sentence ("pt Calinnik resting comfortably")
_SUBJECT_VERB = re.compile(r"(?i)[ \t]+(?:is|was|resting|remains|rested|has|had|states|stated|reports|denies|continues|"
                           r"tolerat\w*|c/o|complains|alert|awake|asleep|sleeping|seen|noted|appears)\b")


def unknown_subject(text: str, tokens: list[tuple[int, int]]) -> int | None:
    """After "pt"/"patient", one or two words English does not know (no typo of one, no safe word)
    and then what a patient does ("pt Tivarquist resting comfortably", "PT XANONDELL IS ..."):
    where they end, or None. A known word there is a verb or a finding ("pt resting", "pt lethargic")."""
    end = None
    for s, e in tokens[:2]:
        w = text[s:e]
        z = zipf(w)
        if not (w.isalpha() and z is not None and z < 1.5 and looks_like_name(w, True) and not looks_like_typo(w)):
            break
        end = e
    return end if end is not None and _SUBJECT_VERB.match(text, end) else None


def first_and_surname(text: str, tokens: list[tuple[int, int]]) -> int | None:
    """After a weak context ("with", "per", "called to"), a listed first name that is not a common
    word and a surname after it, in any case ("follow up with finbar bell", "PER SID DAVISON"):
    the pair is the evidence one word alone is not. Where the pair ends, or None."""
    if len(tokens) < 2 or "," in text[tokens[0][1]:tokens[1][0]] or "  " in text[tokens[0][1]:tokens[1][0]]:
        return None
    first, second = text[slice(*tokens[0])], text[slice(*tokens[1])]
    z = zipf(first)
    if not (looks_like_name(first, True) and z is not None and z < 5.0):
        return None
    if is_first_name(first) and looks_like_name(second, True, title_case(second)):
        return tokens[1][1]
    if (is_first_name(first) or (z < 2.5 and not looks_like_typo(first))) and surname_after(text, tokens[0], tokens[1]):
        return tokens[1][1]   # "with finbar bell": an unlisted first name before a listed surname
    return None


def title_case(word: str) -> bool:
    """A capital, then lower case; each part of a hyphenated word capitalised or not ("Mei-Ling",
    "Soon-ja", "Eze-Williams")."""
    head, _, rest = word.partition("-")
    return (word[:1].isupper() and head[1:].replace("'", "").islower()
            and all(p[:1].isupper() and p[1:].replace("'", "").islower() or p.islower() for p in rest.split("-") if rest))


def has_lower(text: str, i: int) -> bool:
    """Whether the line around ``i`` has lower-case words, so that its title case means something."""
    s = text.rfind("\n", 0, i) + 1
    e = text.find("\n", i)
    return sum(w.islower() for w in text[s:e if e >= 0 else len(text)].split()) >= 2


# what is done to a doctor a nurse names ("DR. SMALL NOTIFIED", "Dr Low aware", "dr. day paged")
_NOTIFIED = re.compile(r"(?i)[ \t]+(?:notified|aware|paged|called|informed|updated|contacted|made\s+aware|at\s+bedside|"
                       r"in\s+to\s+see|here\s+to\s+see|came\s+to\s+see|to\s+see\s+pt)\b")
# what stands between "Dr" and "notified" and is no one's name
_ROLE_WORDS = frozenset("""on call covering team resident fellow attending intern house officer oncall on-call night
primary renal cards gi neuro icu micu sicu ccu surgery ortho""".split())


def notified_doctor(text: str, tokens: list[tuple[int, int]]) -> int | None:
    """After "Dr", one word that a notification follows, whatever word it is ("DR. SMALL
    NOTIFIED", "dr low aware"): the title and the verb say a person, so a surname that is a ward
    word stands; a function or role word does not ("DR ON CALL NOTIFIED", "dr covering aware")."""
    if not tokens:
        return None
    s, e = tokens[0]
    w = text[s:e]
    if not w.isalpha() or len(w) < 2 or w.lower() in FUNCTION_WORDS or w.lower() in _ROLE_WORDS:
        return None
    return e if _NOTIFIED.match(text, e) else None
