"""The place a context announces: what :mod:`.places` reads after "transferred from", "lives in",
"seen at", "referrals:" and the like.

* :func:`following_place`: an abbreviation in capitals, a hospital named by generic words
  ("University Hospital"), up to three words ending in an institution's word ("NORTH LAS VEGAS
  HEALTH"), or up to three name-like words with the head word that follows ("mercy hospital");
  never the care a centre gives ("the cancer center") nor a cannula's flow ("NC 1 L");
* :func:`one_case_facility`: in a line of one case, a facility's words capitals cannot announce;
* :func:`listed_facilities`: the names a comma lists after the first one found.

Kept apart from the contexts themselves so that each file holds one job: the contexts say where a
place may start, this module says where it ends and what it is.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import line_of as _line, mk
from pipeline.detection.rules.en.caseless import one_case as _one_case
from pipeline.detection.rules.en.hospital_names import CARE_WORDS, GENERIC as _GENERIC, HEAD as _HEAD
from pipeline.detection.rules.en.hospital_names import INSTITUTION_TAIL as _INSTITUTION_TAIL
from pipeline.detection.rules.en.hospital_names import NAMED_GENERIC as _NAMED_GENERIC, after_head as _after_head
from pipeline.detection.rules.en.hospital_names import of_place as _of_place
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, is_listed_place_word, is_safe_word, looks_like_place, zipf
from pipeline.detection.rules.en.place_abbreviations import abbreviation as _abbreviation
from pipeline.detection.rules.en.place_abbreviations import two_capitals as _two_capitals, ward_moment
from pipeline.detection.rules.en.towns import PLACE_TOKEN as _PLACE_TOKEN, RESIDENCE, TOWN_TAIL as _TOWN_TAIL
from pipeline.detection.rules.en.towns import gazetteer_place, is_word_town, mixed_case as _mixed_case, one_case_town
from pipeline.spans import Span

_DIRECTION = frozenset("north south east west new fort port upper lower old saint st st. mount mt mt.".split())

_LIST_NEXT = re.compile(r"[ \t]*,[ \t]*(?:(?:and|or)[ \t]+)?")
_CLAUSE_END = re.compile(r"[ \t]*(?:[.,;)\n]|$|(?:and|or)\b)", re.IGNORECASE)


def named_in_mixed_case(word: str, text: str, i: int, most: float = 5.0) -> bool:
    """A title-case word that is no safe word and not among the commonest, in a line that has lower
    case ("Sunrise" in "transferred from Sunrise Manor"): capitals mean a name there."""
    z = zipf(word)
    return (word[:1].isupper() and word[1:].islower() and _mixed_case(text, i) and not is_safe_word(word)
            and z is not None and z < most)


def _institution_by_tail(text: str, tokens: list[tuple[int, int]]) -> tuple[int, int, str] | None:
    """After a strong place context, up to three words ending in an institution's word, in any
    case ("SEEN AT NORTH LAS VEGAS HEALTH"): one word at least that is neither generic nor safe,
    and no safe word ("home health", "behavioral health", "general medicine" are no places)."""
    words = [text[s:e] for s, e in tokens]
    last = max((k for k, w in enumerate(words) if w.lower() in _INSTITUTION_TAIL), default=-1)
    if last < 1:
        return None
    before = words[:last]
    if any(is_safe_word(w) and w.lower() not in _GENERIC for w in before):
        return None
    if not any(w.lower() not in _GENERIC for w in before):
        return None
    return tokens[0][0], tokens[last][1], "HOSPITAL"


# the care words and the specialties a centre is named for ("the oncology center", "the eye clinic")
_KIND_OF_CARE = CARE_WORDS | frozenset("oncology cardiology transplant trauma stroke spine eye dental".split())


def _care_described(text: str, tokens: list[tuple[int, int]]) -> bool:
    """Whether the words from ``tokens[0]`` up to a centre's or a clinic's word say only what care
    it gives ("cancer center", "infusion clinic")."""
    words = [text[s:e].lower().rstrip(".,") for s, e in tokens]
    for k, w in enumerate(words):
        if w in ("center", "centre", "clinic", "clinics"):
            return k > 0 and all(x in _KIND_OF_CARE for x in words[:k])
        if w not in _KIND_OF_CARE:
            return False
    return False


# a device's flow or oxygen after its abbreviation ("NC 1 L", "HFNC 40 lpm", "NC 2L 30%")
_FLOW_AFTER = re.compile(r"[ \t]*\d+(?:\.\d+)?[ \t]*(?i:l\b|lpm\b|l/min|liters?\b|litres?\b|%)")


_BODY_SITE_AFTER = re.compile(r"[ \t]+(?i:site|incision|drain|dsg|dressing|flap|stump|graft)\b")


def following_place(text: str, i: int, strong: bool, gtype: str) -> tuple[int, int, str] | None:
    """The place starting at ``i``: an abbreviation in capitals or up to three name-like words
    (generic ones such as "General" inside), with its head word when one follows. After a weak
    context, in a line of both cases, never lower-case words all of the ward's wide vocabulary that
    no place list holds ("likely from nebs", "bleed from duodenal ulcer", "interpreter from interp
    svcs": icu_invented_p find f793, f904, f804)."""
    got = _following_place(text, i, strong, gtype)
    if got is None or strong or _one_case(_line(text, got[0])) or _HEAD.search(text, got[0], got[1]):
        return got   # (a strong context's place is kept: "?RETURN TO BAYBERRY", icu_invented_p find f184; in a
        # line of one case a town the vocabulary holds looks the same)
    name = text[got[0]:got[1]]
    if all(len(w) > 3 and w.islower() and is_safe_word(w) and (zipf(w) or 0.0) > 0.0 and not is_listed_place_word(w)
           and not is_word_town(w) for w in name.split()) and not gazetteer_place(name):
        return None   # (three letters may be a hospital's the vocabulary holds: "from MGH"; the gazetteer's
        # name may be a town's)
    return got


def _following_place(text: str, i: int, strong: bool, gtype: str) -> tuple[int, int, str] | None:
    tokens = []
    for m in _PLACE_TOKEN.finditer(text, i, min(len(text), i + 60)):
        if tokens and (text[tokens[-1][1]:m.start()] not in (" ", "\t")):
            break
        if not tokens and m.start() != i:
            return None
        tokens.append((m.start(), m.end()))
        if len(tokens) == 4:
            break
    if not tokens:
        return None
    first = text[slice(*tokens[0])]
    if text[tokens[0][1]:tokens[0][1] + 1].isdigit():
        return None   # "BLEEDING FROM OM2 ANASTOMOSIS": a word run into a number is a vessel's or a
        # measure's, no place (icu_invented_p find f115)
    if ward_moment(first, text, tokens[0][0]):
        return None   # "naloxone kit to be given at DC": discharge, not the district
    if len(first) <= 4 and _FLOW_AFTER.match(text, tokens[0][1]):
        return None   # "WEANED FROM NC 1 L": a nasal cannula's flow, not North Carolina (icu_invented_o find f03)
    if _BODY_SITE_AFTER.match(text, tokens[0][1]):
        return None   # "JP FROM CRANI SITE 30CC": a wound's or a drain's site, no town (icu_invented_p find f163)
    if _care_described(text, tokens):
        return None   # "followed by dr. ferrante at the cancer center" (icu_invented_g find f15)
    generic = _generic_hospital(text, tokens) if strong else None
    if generic is not None:
        return generic
    # an institution's closing word first: a rare name in capitals before it is no abbreviation
    # ("BYPASSED REDBUD MEMORIAL": ed_invented find f19)
    tail = _institution_by_tail(text, tokens) if strong else None
    if tail is not None:
        return tail
    if _abbreviation(first, text, tokens[0][0]) or (strong and _two_capitals(first)):
        return tokens[0][0], tokens[0][1], "HOSPITAL"
    end = None
    for s, e in tokens:
        word = text[s:e]
        if word.lower() in _GENERIC and end is not None:
            end = e if word.lower() not in ("and", "of", "the") else end   # "SPAULDING AND KINDRED": no "and" last
            continue
        nxt_tok = tokens[tokens.index((s, e)) + 1] if (s, e) != tokens[-1] else None
        if end is None and word.lower() in _DIRECTION and nxt_tok and looks_like_place(text[slice(*nxt_tok)], strong):
            continue   # "SOUTH BOSTON", "new hampshire": a direction before a place's name
        if not (looks_like_place(word, strong) or (strong and named_in_mixed_case(word, text, s))):
            nxt = tokens[tokens.index((s, e)) + 1] if (s, e) != tokens[-1] else None
            if not (end is None and strong and nxt and (named_in_mixed_case(word, text, s, 7.0)
                                                        and looks_like_place(text[slice(*nxt)], strong)
                                                        or _common_town_start(word, text[slice(*nxt)]))):
                if end is not None and word.lower() in _TOWN_TAIL:
                    end = e    # "FOOTHILL FARMS", "quarry hill": a town's tail after its name
                    continue
                break   # a common word starts a town only before a name ("Far Rockaway")
        end = e
    if end is None:
        return None
    h = _HEAD.match(text, end + 1) if end < len(text) and text[end] == " " else None
    if h and (h.group("weak") or h.group("bare")) and _after_head(text[tokens[0][0]:end]):
        h = None   # "Discharged to Allapattah Health Center rehab": the hospital's name ends before "rehab"
    if h and (h.group("weak") or h.group("bare")) and all(
            is_safe_word(text[s:e]) or text[s:e].lower() in _GENERIC for s, e in tokens if e <= end):
        return None   # "go to inpatient rehab": the kind of care, not its name ("Lantern Hill Assisted Living" is)
    if h and h.group("bare"):
        return tokens[0][0], end, "ORGANIZATION"   # "Briarwood assisted living": the name alone
    return tokens[0][0], (h.end() if h else end), ("HOSPITAL" if h else gtype)


def one_case_facility(text: str, i: int) -> tuple[int, int, str] | None:
    """In a line of one case, after a move or a doctor's "at", a facility's words that capitals
    cannot announce ("ltach screen by penn highlands", "dr ezeani at wellspan york":
    icu_invented_b find f20, f54): a town's shape (:func:`.towns.one_case_town`), each word of
    three letters or more, no safe word and not among English's common words."""
    if not _one_case(_line(text, i)):
        return None
    got = one_case_town(text, i)
    words = text[got[0]:got[1]].split() if got else []
    # one word alone must be rarer ("SENT TO CASHIER": icu_invented_i find f18; "to kindred" stays)
    most = 3.5 if len(words) == 1 else 4.5
    ok = all(len(w) > 2 and not is_safe_word(w) and (zipf(w) or 0.0) < most for w in words)
    return (got[0], got[1], "HOSPITAL") if got and ok else None


def listed_facilities(text: str, doc_id: str, first: tuple[int, int, str]) -> list[Span]:
    """A facility after a referral's context and the ones a comma lists after it, each a whole
    clause of place-like words ("Boyertown Manor, Glen Brook."): a list goes on while each name
    closes its clause, so "sent to Glen Brook, intubated" stops at the safe word."""
    out = [mk(doc_id, *first)]
    end = first[1]
    while (m := _LIST_NEXT.match(text, end)) is not None:
        got = following_place(text, m.end(), True, "HOSPITAL") or one_case_town(text, m.end())
        if got is None or not _CLAUSE_END.match(text, got[1]) or any(
                is_safe_word(w) or w.lower() in FUNCTION_WORDS for w in text[got[0]:got[1]].split()):
            break
        out.append(mk(doc_id, got[0], got[1], "HOSPITAL"))
        end = got[1]
    return out


def _common_town_start(word: str, nxt: str) -> bool:
    """A common word that starts a town before a town's tail, in any case ("LONG BEACH", "oak
    forest", "Hyde Park", "FALL RIVER"): no word of the curated safe list (the wide vocabulary
    holds "fall" and "long"), no function word, and letters only."""
    return (nxt.lower() in _TOWN_TAIL and word.isalpha() and len(word) > 2 and not is_safe_word(word, vocabulary=False)
            and word.lower() not in _GENERIC and word.lower() not in RESIDENCE)


def _generic_hospital(text: str, tokens: list[tuple[int, int]]) -> tuple[int, int, str] | None:
    """A hospital named by generic words and its head word alone after a strong context, in any case
    ("transferred from University Hospital", "TO GENERAL HOSPITAL"): i2b2 marks the name."""
    words = [text[s:e].lower() for s, e in tokens]
    k = 0
    while k < len(words) and words[k] in _NAMED_GENERIC | _GENERIC - {"the", "of", "and", "a"}:
        k += 1
    if k == 0 or not any(w in _NAMED_GENERIC for w in words[:k]):
        return None
    h = _HEAD.match(text, tokens[k - 1][1] + 1) if text[tokens[k - 1][1]:tokens[k - 1][1] + 1] == " " else None
    return (tokens[0][0], _of_place(text, h.end()), "HOSPITAL") if h else None

