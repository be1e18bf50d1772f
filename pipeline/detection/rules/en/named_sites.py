"""A named workplace or site and the town it stands in: "machine operator at Hutchins Plastics in
Leominster", "EXPLOSION AT MERRIMACK DYE & FINISHING IN LAWRENCE", "unloading at State Fish Pier
in Gloucester"; and a town that is an ordinary word after the place a note puts in it ("roof job
in hull fri", "the hospital in Gardner after", "FROM BRIARWOOD MANOR (LTC) IN HULL W/").

Why: a social or an injury history names where someone works or where it happened as "at <name>
in <town>", and neither half is found alone: the name is ordinary words ("Paper Box", "Auto
Body", "Fish Pier") a trade's closing word does not vouch for, and the town is one of the
gazetteer's towns that are also common words or names (``word_towns.txt``: Gloucester, Chelsea,
Canton, Lawrence), which the dictionaries leave unless a residence says so. Together they vouch
for each other: "at" before, "in" and a listed town after. The name's words are no function,
ward or clinical word (so "at rest in", "at work in", "at home in" stay); in a line of both cases
each has its capital, in a line of one case one of them is a word English seldom writes or a
place's. Found on the blind find notes of ``icu_invented_p`` (f279, f313, f324, f325, f330,
f331, f332, f334, f336, f410) and checked on the other sets' check halves.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case_at
from pipeline.detection.rules.en.hospital_names import INSTITUTION_TAIL
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, RESIDENCE, has_clinical_ending, is_safe_word,
                                                   looks_like_place, zipf)
from pipeline.detection.rules.en.towns import listed_place_type, postal_codes, word_town_at
from pipeline.detection.rules.en.workplaces import EMPLOYER_TAIL
from pipeline.detection.rules.registry import register
from pipeline.spans import Span

_AT = re.compile(r"(?i)(?<![\w'-])at[ \t]+(?:the[ \t]+)?(?=[A-Za-z])")
_NAME_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|&")
_IN = re.compile(r"[ \t]+(?i:in)[ \t]+")
_TOWN = re.compile(r"(?P<one>[A-Za-z][A-Za-z'-]*[A-Za-z])(?:[ \t]+(?P<two>[A-Za-z][A-Za-z'-]*[A-Za-z]))?")
#: what may follow a town that is a word and close its mention ("in hull fri", "IN GLOUCESTER APPROX 0600")
_TOWN_END = re.compile(r"(?i)[ \t]*(?:[.,;:()]|\n|\Z|w/|(?:with|on|after|approx|around|at|and|when|while|since|"
                       r"for|where|today|tonight|yesterday|mon|tues?|wed|thurs?|fri|sat|sun|[a-z]+day)\b)")
# or a state's postal code in capitals after it ("IN HUDSON NH,")
_CODE_AFTER = re.compile(r"[ \t]+(?P<code>[A-Z]{2})(?=[ \t]*(?:[.,;:)]|\n|\Z))")
# the places a note puts in a town ("roof job in hull", "the hospital in Gardner", "(LTC) IN HULL"): a
# town that is a word may follow them
_PLACE_NOUN_IN = re.compile(r"(?i)(?<![\w])(?:job|site|hospital|temple|church|mosque|synagogue|plant|yard|farm|shop|"
                            r"mill|pier|dock|clinic|school|college|factory|warehouse|nursing[ \t]+home|rehab|"
                            r"\((?:ltc|snf|nh|rehab|ltac|alf)\)|ltc|snf|"
                            # an emergency department ("sent to the ED in Gardner w/ fever": f410)
                            r"ed|er|ew)[ \t]+in[ \t]+(?=[A-Za-z])")


def _name_words_ok(words: list[str], one_case: bool) -> bool:
    """The words of a site's name: no function, ward, clinical or residence word ("&" and "of"
    join them); in a line of both cases each with its capital, in one case one of them rare or a
    place's."""
    named = [w for w in words if w.lower() not in ("&", "of")]
    if not named or words[0] in ("&", "of") or words[-1].lower() in ("&", "of"):
        return False
    if len(named) == 1 and len(named[0]) <= 4:
        return False   # "at MGH in Boston": an acronym is the hospital acronyms' to read
    if len(named) == 1 and (zipf(named[0]) or 0.0) >= 3.0:
        return False   # "at Bingo in", "at Mass in", "at Practice in": one common word is what one does there
    for w in named:
        low = w.lower()
        if low in FUNCTION_WORDS or low in RESIDENCE or has_clinical_ending(w) \
                or (is_safe_word(w, vocabulary=False) and low not in INSTITUTION_TAIL and low not in EMPLOYER_TAIL):
            return False
        if not one_case and not w[:1].isupper():
            return False
    return not one_case or any((zipf(w) or 0.0) < 4.0 or looks_like_place(w, True) for w in named)


def _town_at(text: str, i: int, one_case: bool) -> tuple[int, int, str, bool] | None:
    """A listed town, state or country at ``i`` (two words first), or a town that is a word closing
    its mention: (start, end, type, whether it is a word town the dictionaries leave)."""
    m = _TOWN.match(text, i)
    if m is None:
        return None
    for end in ((m.end("two"), m.end("one")) if m.group("two") else (m.end("one"),)):
        name = text[i:end]
        if not one_case and not all(w[:1].isupper() for w in name.split()):
            continue
        gtype = listed_place_type(name)
        if gtype:
            return i, end, gtype, False
    town = word_town_at(text, i, _closes_mention)
    return (*town, True) if town is not None else None


def _closes_mention(text: str, end: int) -> bool:
    """What may follow a town that is a word here: :data:`_TOWN_END`, or a state's postal code."""
    code = _CODE_AFTER.match(text, end)
    return bool(_TOWN_END.match(text, end)) or (code is not None and code.group("code") in postal_codes())


@register(LOCALE, "named_sites", "LOCATION", score=0.8)
def named_sites(text: str, doc_id: str) -> list[Span]:
    """A named site after "at" and before "in" and a town (the site ORGANIZATION, or HOSPITAL when
    an institution's word closes it; the town too when it is a word), and a word town after a
    place a note puts in it."""
    out: list[Span] = []
    for m in _AT.finditer(text):
        toks = []
        for t in _NAME_TOKEN.finditer(text, m.end(), min(len(text), m.end() + 60)):
            gap = text[toks[-1].end():t.start()] if toks else text[m.end():t.start()]
            if gap not in ((" ", "\t") if toks else ("",)):
                break
            toks.append(t)
            if len(toks) == 5:
                break
        for k in range(len(toks), 0, -1):
            after = _IN.match(text, toks[k - 1].end())
            if after is None:
                continue
            one_case = one_case_at(text, m.start())
            words = [t.group() for t in toks[:k]]
            town = _town_at(text, after.end(), one_case)
            if town is None or not _name_words_ok(words, one_case) \
                    or (k == 1 and m.group().lower().rstrip().endswith("the")):
                break   # "at the refinery in port arthur", "at the lawyer's in ville platte": a kind of
                # place, no name (icu_invented_r find f01, f22)
            gtype = "HOSPITAL" if words[-1].lower() in INSTITUTION_TAIL else "ORGANIZATION"
            out.append(mk(doc_id, toks[0].start(), toks[k - 1].end(), gtype))
            if town[3]:
                out.append(mk(doc_id, town[0], town[1], town[2]))
            break
    for m in _PLACE_NOUN_IN.finditer(text):
        town = _town_at(text, m.end(), one_case_at(text, m.start()))
        if town is not None and town[3]:
            out.append(mk(doc_id, town[0], town[1], town[2]))
    return out
