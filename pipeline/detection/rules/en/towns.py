"""Towns, states and countries where capitals cannot say so: in a line of one case, after a town's
strong context ("lives with daughter in la jolla", "FROM GLEN ELLYN", "facility in de pere"), and
the pack's listed places after "in"/"from" in a line without capitals ("lives in maine", "from
texas"), which the dictionaries, reading proper nouns by their capital, leave. Homes are not
towns ("halfway house", "trailer park", "assisted living"). Called by :mod:`.places`.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from pipeline.detection.rules.common import line_of, mk
from pipeline.detection.rules.en.caseless import one_case, titled
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, RESIDENCE, WHERE_WORDS, is_safe_word, looks_like_place,
                                                   looks_like_typo, zipf)
from pipeline.locales import load_list
from pipeline.spans import Span

#: a word of a place's name, "St."/"Mt."/"Ft." with its full stop
PLACE_TOKEN = re.compile(r"(?i:st|mt|ft)\.|[A-Za-z][A-Za-z.'-]*[A-Za-z]")


def mixed_case(text: str, i: int) -> bool:
    """Whether the line around ``i`` has lower-case letters: its capitals then mean something."""
    return any(c.islower() for c in line_of(text, i))




# the words a town's name ends with after a first word that is common English ("OAK FOREST",
# "long beach", "Hyde Park"): a common word starts a town in a line in one case only before these
TOWN_TAIL = frozenset("""beach park grove hill hills heights springs falls lake lakes forest farms farm ridge island
point harbor harbour bay creek river rivers woods township city village valley gardens meadows junction mills rapids
bluff cove landing glen shores station crossing haven port terrace acres manor estates plains vista shoals
villa pointe commons crest""".split())   # a nursing home's too: "Keystone Villa" (icu_invented_b find f22)
# a practitioner whose office a note sends from or to ("pediatrician's", "dentist's", "PCP'S")
_CALLING = re.compile(r"[a-z]+(?:ist|ician|ologist)|doctor|dr|surgeon|nurse|pcp|provider|lawyer|attorney|counselor|"
                      r"counsellor|midwife|vet|md|np|pa")
# a town's first word that is common English: kept before a word that names the town, never alone
_TOWN_START = frozenset("new north south east west fort port mount mt saint st".split())


def one_case_town(text: str, i: int) -> tuple[int, int, str] | None:
    """After a town's strong context in a line of one case ("lives with daughter in la jolla",
    "FROM GLEN ELLYN", "facility in de pere"), one to three words: letters only, no function, ward
    or residence word, none among English's commonest, one of them not a common word; a first word
    such as "New" or "North" only before such a word that is no ward word either; a town already
    named by a rare word does not go on with a common one ("HAVERHILL VISITS DAILY"). A line with
    both cases needs each word in title case ("West Oak Lane")."""
    line = line_of(text, i)
    mixed = any(c.islower() for c in line) and any(c.isupper() for c in line)
    end, distinct, started = None, False, False
    for k, m in enumerate(PLACE_TOKEN.finditer(text, i, min(len(text), i + 50))):
        if k == 3 or (k == 0 and m.start() != i) or (k and text[end:m.start()] != " "):
            break
        w = m.group().rstrip(".")
        z = zipf(w)
        low = w.lower()
        if k == 0 and low in _TOWN_START and (not mixed or w[:1].isupper()):
            end, started = m.end(), True   # "NEW BEDFORD", "north andover": the next word names the town,
            continue                       # and no ward word may ("NEW ONSET AFIB")
        if (started and is_safe_word(w)) or (distinct and is_safe_word(w) and z is not None and z >= 4.0) \
                or (low in FUNCTION_WORDS or low in RESIDENCE or low in WHERE_WORDS or is_safe_word(w, vocabulary=False) or not w.replace("'", "").isalpha()
                or z is None or z >= 5.6 or (z < 1.0 and looks_like_typo(w))
                # (and an adverb's: "LIVES INDEPENDENTLY": ed_invented find f08; "Beverly" is listed)
                or (re.search(r"(?:ing|ed|ly)$", low) and not looks_like_place(w, True))
                # a calling's office, "SENT FROM PEDIATRICIAN'S OFFICE" (psych_invented find f03); a
                # shop's name is a place ("WALGREEN'S")
                or (re.search(r"['’]s$", low) is not None and _CALLING.fullmatch(low[:-2]) is not None)
                or (mixed and not (w[:1].isupper() and w[1:].replace("'", "").islower()))):
            break   # "assisted living", "nursing home": a verb's ending says no town; in mixed case a capital
        # after "Mount", "New", "North" a word short of the commonest names the town ("MOUNT JOY";
        # icu_invented_b find f12); no safe word comes here ("NEW ONSET")
        distinct = distinct or z < 4.5 or looks_like_place(w, True) or (started and k == 1 and z < 5.0)
        end = m.end()
    if end is None or not distinct or any(t.lower().strip(".,;:") in RESIDENCE for t in text[end:end + 12].split()[:1]):
        return None
    return i, end, "CITY"


# where a listed town, state or country follows in a lower-case line ("lives in maine", "flying in
# from texas"); the dictionaries read proper nouns only with their capital
_LOWER_PLACE_BEFORE = re.compile(r"(?<![\w])(?:in|from|near|outside|around|of)[ \t]+(?=[a-z])")
# listed towns that are ordinary words first ("in bend of elbow", "orange urine")
_ORDINARY_TOWNS = frozenset({"mobile", "surprise", "orange", "independence", "bend"})


@lru_cache(maxsize=1)
def _word_towns() -> frozenset[str]:
    return frozenset(load_list("en", "word_towns"))


def is_word_town(word: str) -> bool:
    """Whether ``word`` is a town of the gazetteer whose name is an ordinary word ("Hull", "Bethel")."""
    return word.lower() in _word_towns()


# a residence's own context: where someone lives, not where they come from or go
# (or where a visitor went home to: "THEN HOME TO READING.": icu_invented_p find f151)
_RESIDENCE_CONTEXT = re.compile(r"(?i)(?<![\w])(?:(?:lives?|living|resides|residing|home)\b[^\n]*?\bin|home[ \t]+to)[ \t]+$")
_ONE_WORD = re.compile(r"[A-Za-z]+(?![\w'-])")
# (or when: "SHE IS DRIVING HOME TO READING TONIGHT": icu_invented_p find f273)
_CLAUSE_END = re.compile(r"(?i)[ \t]*(?:[.,;)]|\n|\Z|w/[ \t]|with[ \t]|(?:tonight|today|tomorrow|this[ \t]+(?:am|pm|morning|"
                         r"afternoon|evening|weekend))\b)")


def word_town(text: str, context: str, i: int) -> tuple[int, int, str] | None:
    """A town whose one-word name is an ordinary word, right after a residence's context and closing
    its clause ("LIVES IN READING.", "lives alone in reading. son bill called": icu_invented_p find
    f102, f83): in a line of one case by the gazetteer (``word_towns.txt``: GeoNames towns of 5,000
    people or more that are words) and the context alone, in a line of both cases with its capital
    too ("Lives in Reading."). "lives in fear." stays: no town is named so."""
    if not _RESIDENCE_CONTEXT.search(context):
        return None
    return word_town_at(text, i)


def word_town_at(text: str, i: int, closes: Callable[[str, int], object] | None = None) -> tuple[int, int, str] | None:
    """A town that is a word at ``i``, closing its clause, whatever context stands before it (the
    caller's): the gazetteer's in a line of one case, with its capital as well in a line of both.
    ``closes(text, end)``: whether what follows the word closes the town's mention (default: the end
    of a clause, :data:`_CLAUSE_END`)."""
    m = _ONE_WORD.match(text, i)
    if m is None or m.group().lower() not in _word_towns():
        return None
    if not (closes(text, m.end()) if closes is not None else _CLAUSE_END.match(text, m.end())):
        return None
    if not one_case(line_of(text, i)) and not m.group().istitle():
        return None   # in a line of both cases the town has its capital ("Lives in Reading.")
    return i, m.end(), "CITY"


@lru_cache(maxsize=1)
def _place_entries() -> tuple[tuple[str, str, str], ...]:
    """Every entry of the pack's place lists, once: (list name, type, lower-case name with single
    spaces), countries first, so that a name in two lists takes the first one's type."""
    return tuple((name, gtype, " ".join(entry.lower().split()))
                 for name, gtype in (("countries", "COUNTRY"), ("states", "STATE"), ("cities", "CITY"), ("towns", "CITY"))
                 for entry in load_list("en", name))


@lru_cache(maxsize=1)
def _listed_places() -> dict[str, str]:
    """The pack's towns, states and countries, lower case -> type; no two-letter abbreviation."""
    out: dict[str, str] = {}
    for name, gtype, low in _place_entries():
        if len(low) > 2 and low not in _ORDINARY_TOWNS and (" " in low or not is_safe_word(low)) \
                and not (name == "towns" and low.split()[-1] in RESIDENCE):
            out.setdefault(low, gtype)   # a gazetteer town named like a home ("Halfway House") is none
    return out


@lru_cache(maxsize=1)
def _gazetteer() -> frozenset[str]:
    return frozenset(low for _, _, low in _place_entries())


def gazetteer_place(name: str) -> bool:
    """Whether ``name`` is any entry of the pack's place lists, a word of the safe vocabulary too
    (what :func:`listed_place_type` leaves out)."""
    return " ".join(name.lower().split()) in _gazetteer()


def listed_place_type(name: str) -> str | None:
    """The type of a town, state or country the pack lists under ``name`` (any case), else None."""
    return _listed_places().get(" ".join(name.lower().split()))


# "in Kingston, Canada", "from Kinsale, Ireland": one or two words after "in"/"from", a comma, then a
# listed country or state (icu_invented_b find f28)
_TOWN_BEFORE_COMMA = (r"(?<![\w])(?i:in|from|near)[ \t]+(?P<town>[A-Za-z][A-Za-z'-]+[A-Za-z](?:[ \t][A-Za-z][A-Za-z'-]+[A-Za-z])?)"
                      r",[ \t]*")
# (or a dash: "LIVES IN GUANGZHOU, CHINA - NH CALLED HER": icu_invented_p find f444)
_TOWN_COMMA_PLACE = re.compile(_TOWN_BEFORE_COMMA + r"(?P<place>[A-Za-z][A-Za-z ]{2,30}?)"
                               r"(?=[ \t]*(?:[.,;)]|[ \t]-[ \t]|\n|$|[ \t](?i:and|but|who|with)\b))")


def town_before_place(text: str, doc_id: str) -> list[Span]:
    """A town after "in", "from", "near" that a comma and a listed country or state follow
    ("niece in Kingston, Canada"): each word of the town no safe, function or residence word."""
    out: list[Span] = []
    for m in _TOWN_COMMA_PLACE.finditer(text):
        place_type = listed_place_type(m.group("place"))
        if place_type not in ("COUNTRY", "STATE"):
            continue
        words = m.group("town").split()
        # a state or country written out vouches for a town the safe vocabulary holds (philter's
        # whitelist keeps world places: "winter in Sarasota, Florida", notes_invented find f21); a
        # two-letter code does not ("in bed, OR")
        vocabulary = len(m.group("place").strip()) <= 2
        if all(not is_safe_word(w, vocabulary) and w.lower() not in FUNCTION_WORDS and w.lower() not in RESIDENCE
               for w in words):
            out.append(mk(doc_id, *m.span("town"), "CITY"))
            # and the country or the state itself, which a list may refuse as a word in one case ("GUANGZHOU,
            # CHINA": icu_invented_p find f444)
            out.append(mk(doc_id, *m.span("place"), place_type))
    for m in _TOWN_COMMA_CODE.finditer(text):
        if _coded_word_town(text, m, m.group("town").split()):
            out += [mk(doc_id, *m.span("town"), "CITY"), mk(doc_id, *m.span("place"), "STATE")]
    return out


# (the same town before a state's postal code in capitals, which :data:`_TOWN_COMMA_PLACE` leaves to it)
_TOWN_COMMA_CODE = re.compile(_TOWN_BEFORE_COMMA + r"(?P<place>[A-Z]{2})"
                              r"(?=[ \t]*(?:[.,;)]|\n|$|[ \t](?i:and|but|who|with|last|since|x)\b))")


#: postal codes that are also words or ward abbreviations ("Quincy, OK with family", "boston, or near")
WORD_CODES = frozenset("or in me ok hi md pa de co id la oh al ga ne".split())


@lru_cache(maxsize=1)
def postal_codes() -> frozenset[str]:
    """The listed states' two-letter postal codes ("MA", "NH")."""
    return frozenset(e for e in load_list("en", "states") if re.fullmatch(r"[A-Z]{2}", e))


def _coded_word_town(text: str, m: re.Match, words: list[str]) -> bool:
    """A town named by ordinary words before a comma and a state's postal code in capitals ("Retired
    lobsterman from Friendship, ME.": icu_invented_p find f43): with its capitals in a line of both
    cases, each word no ward's, function or residence word ("in bed, OR" stays)."""
    code = m.group("place").strip()
    if code not in postal_codes() or not code.isupper():
        return False
    if code.lower() in WORD_CODES and not re.match(r"[ \t]*(?:[.,;)]|\n|$)", text[m.end("place"):]):
        return False   # "Lives in Quincy, OK with family": a code that is a word closes its clause
    mixed = not one_case(line_of(text, m.start()))
    return all((not mixed or w.istitle()) and w.isalpha() and not is_safe_word(w, vocabulary=False)
               and w.lower() not in FUNCTION_WORDS and w.lower() not in RESIDENCE for w in words)


def lower_case_places(text: str, doc_id: str) -> list[Span]:
    """A listed place after "in", "from", "near" in a line without capitals: the longest of one to
    four words that the pack lists ("in new hampshire", "from united arab emirates")."""
    out: list[Span] = []
    places = _listed_places()
    for m in _LOWER_PLACE_BEFORE.finditer(text):
        if any(c.isupper() for c in line_of(text, m.start())):
            continue
        words = list(PLACE_TOKEN.finditer(text, m.end(), min(len(text), m.end() + 50)))
        for n in range(min(4, len(words)), 0, -1):
            piece = words[:n]
            if any(text[a.end():b.start()] not in (" ", "\t") for a, b in zip(piece, piece[1:])):
                continue
            gtype = places.get(" ".join(w.group().lower() for w in piece))
            if gtype and piece[0].start() == m.end():
                out.append(mk(doc_id, piece[0].start(), piece[-1].end(), gtype))
                break
    return out


# where a listed place follows in prose written with capitals ("moved from Leeds", "near Boston"):
# "in", "from", "near" and a capital
_PROSE_PLACE_BEFORE = re.compile(r"(?<![\w])(?i:in|from|near)[ \t]+(?=[A-Z][a-z])")
# where a traveller's place follows, listed or not ("we met in Lisbon", "come visit us in Tavira",
# "grew up in Tralee", "on holiday in Crete"): a place is what these words announce
_TRAVEL_BEFORE = re.compile(r"(?i)(?<![\w])(?:met|grew[ \t]+up|visit(?:ing)?[ \t]+(?:us|me|him|her|them)|"
                            r"holiday(?:ing)?|honeymoon(?:ing)?|vacation(?:ing)?|stationed|settled|emigrated)[ \t]+"
                            r"(?:in|to|from)[ \t]+(?=[A-Z][a-z])")
# a news item's or an obituary's "<name>, <age>, of <town>" ("Eleanor Whitcombe, 92, of Cedar Falls")
_AGE_OF = re.compile(r"(?<![\w.,/-])\d{1,3},[ \t]+of[ \t]+(?=[A-Z][a-z])")
# words of a place written in title case, "of" or "upon" between them ("Isle of Man", "Stratford upon Avon")
_TITLE = re.compile(r"[A-Z][a-z]+(?:['-][A-Z]?[a-z]+)?")
_INSIDE = frozenset({"of", "upon", "on", "de", "la", "le"})


def _title_words(text: str, i: int, most: int = 4) -> list[tuple[int, int]]:
    """Up to ``most`` words from ``i`` joined by one blank, each in title case (or "of" between two)."""
    out: list[tuple[int, int]] = []
    for m in PLACE_TOKEN.finditer(text, i, min(len(text), i + 60)):
        if len(out) == most or (not out and m.start() != i) or (out and text[out[-1][1]:m.start()] != " "):
            break
        w = m.group()
        if not (_TITLE.fullmatch(w) or (out and w in _INSIDE)):
            break
        out.append(m.span())
    while out and text[slice(*out[-1])] in _INSIDE:
        out.pop()
    return out


def _traveller_place(text: str, words: list[tuple[int, int]]) -> tuple[int, int] | None:
    """After a traveller's words, one to three title-case words that are no safe, function or
    residence word and not among English's commonest ("we met in Lisbon"; never "met in Conference
    Room", "met in Family Meeting")."""
    end = None
    for s, e in words[:3]:
        w = text[s:e]
        z = zipf(w)
        if end is not None and w.lower() in TOWN_TAIL:
            end = e   # "Cedar Falls", "Palm Springs": a town's tail after its name
            continue
        if w in _INSIDE or is_safe_word(w) or w.lower() in FUNCTION_WORDS or w.lower() in RESIDENCE \
                or z is None or z >= 4.5:
            break
        end = e
    after = text[end:end + 12].split()[:1] if end else []
    if end is None or any(t.lower().strip(".,;:") in RESIDENCE | {"room", "meeting"} for t in after):
        return None
    return words[0][0], end


def prose_places(text: str, doc_id: str) -> list[Span]:
    """In a line with lower case, a listed town, state or country in title case after "in",
    "from", "near" ("moved from Leeds", "near Boston"; never "in Lasix" or "from PACU": no listed
    place), and after a traveller's words or an age's "of" any place's name ("we met in Lisbon",
    "Eleanor Whitcombe, 92, of Cedar Falls"). Found on the invented PII texts' find half
    (``benchmarks/pii_invented.py``: letter_45, misc_57). In a line of one case, only after a
    traveller's words or an age's "of", read on the title-case view, each word a place's word
    after a strong context (:func:`_one_case_traveller_place`): found on the same notes in UPPER
    and lower case (``--cases``), where these towns went unmarked."""
    out: list[Span] = []
    places = _listed_places()
    view = None
    for rx in (_TRAVEL_BEFORE, _AGE_OF, _PROSE_PLACE_BEFORE):
        for m in rx.finditer(text):
            if not any(c.islower() for c in line_of(text, m.start())):
                continue
            out += _place_after(text, text, m.end(), places, rx is not _PROSE_PLACE_BEFORE, doc_id)
    if any(one_case(line) for line in text.split("\n")):
        view = titled(text)
        for rx in (_TRAVEL_BEFORE, _AGE_OF):
            out += [sp for m in rx.finditer(view) if one_case(line_of(text, m.start()))
                    for sp in _place_after(text, view, m.end(), places, True, doc_id, one_case_line=True)]
    return out


def _place_after(text: str, view: str, i: int, places: dict[str, str], any_place: bool, doc_id: str, *,
                 one_case_line: bool = False) -> list[Span]:
    """The listed place (the longest) in title-case words of ``view`` from ``i``, else, when
    ``any_place``, a traveller's place; offsets into ``text`` (``view`` is ``text`` or its
    title-case view)."""
    words = _title_words(view, i)
    for n in range(len(words), 0, -1):
        gtype = places.get(" ".join(view[s:e].lower() for s, e in words[:n]))
        if gtype:   # the listed places hold no safe word alone (_listed_places)
            return [mk(doc_id, words[0][0], words[n - 1][1], gtype)]
    if not any_place:
        return []
    got = _traveller_place(view, words)
    if got and one_case_line and not _one_case_traveller_place(view, got):
        return []
    return [mk(doc_id, *got, "CITY")] if got else []


def _one_case_traveller_place(view: str, span: tuple[int, int]) -> bool:
    """In a line of one case, each word of a traveller's place a place's word after a strong
    context (:func:`.name_words.looks_like_place`), a town's tail, or a word rarer than
    :data:`TRAVELLER_MAX_ZIPF` that no safe word is and no adverb's, verb's or noun's ending makes a
    word ("LISBON", "LAGOS"; "SETTLED IN CHAIR", "SETTLED IN NICELY" are no towns)."""
    def place_word(w: str) -> bool:
        z = zipf(w)
        return (w.lower() in TOWN_TAIL or looks_like_place(w, True)
                or (z is not None and z < TRAVELLER_MAX_ZIPF and not is_safe_word(w)
                    and not _NOT_A_PLACE_ENDING.search(w)))
    return all(place_word(w) for w in view[span[0]:span[1]].split())


#: how common a traveller's place may be as a word in a line of one case (wordfreq's Zipf)
TRAVELLER_MAX_ZIPF = 4.0
_NOT_A_PLACE_ENDING = re.compile(r"(?i)(?:ly|ing|ed|ness|ment|tion|ful|less)$")
