"""Whether a word read after a name's context ("wife", "Dr", "transferred from") may be a name or
a place, in any case.

The contexts that announce a name are followed by other words as often ("with good effect", "per
protocol", "family meeting", "Dr called", "transferred to MICU"), so a candidate must pass
:func:`looks_like_name` (people) or :func:`looks_like_place` (hospitals, towns):

* never a safe word (:func:`is_safe_word`: function words, kinship and role words, months, units,
  ward abbreviations, drugs and devices nurses write; the one place to plug in a fuller safe
  vocabulary);
* a hit in the pack's name (or place) lists that is not a common English word, or, after a strong
  context, a rare word (``wordfreq``'s Zipf frequency, Apache-2.0 code, CC BY-SA 4.0 data; without
  it, list hits alone count).
"""
from __future__ import annotations

import re
from functools import lru_cache

from pipeline.detection.rules.en.ward_vocabulary import CALENDAR, CONTEXT, FUNCTION, WARD
from pipeline.locales import load_list, load_vocabulary

FUNCTION_WORDS: frozenset[str] = frozenset(FUNCTION)
_SAFE: frozenset[str] = frozenset(w.lower() for w in FUNCTION + CONTEXT + CALENDAR + WARD)
# words whose ending says they are a drug, a procedure or a condition, not a name
_CLINICAL_ENDING = re.compile(r"(?:itis|emia|ectomy|otomy|ostomy|oscopy|ography|ogram|ology|ologist|iatrist|ician|"
                              r"algia|osis|opathy|azole|mycin|cillin|statin|parin|olol|pril|sartan|idine|oxacin|"
                              r"afil|prazole|dipine|tidine|triptan|umab|inib|ase)$")
# an unlisted word in lower case or capitals with a verb's or an adjective's ending ("rounded",
# "titrating", "cardiothoracic") is taken for one ("Ted", "King" are listed or capitalised)
_WORD_ENDING = re.compile(r"(?:ed|ing|ly|ness|ment|ic|ical|ive|ous|ary|ful|less|able|ible)$")


def has_clinical_ending(word: str) -> bool:
    """Whether ``word`` ends as drugs, procedures and conditions do ("-idine", "-itis", "-olol")."""
    return bool(_CLINICAL_ENDING.search(_clean(word).lower()))


def is_safe_word(word: str, vocabulary: bool = True) -> bool:
    """Whether ``word`` (any case) is never a name or a place in a clinical note. The one test to
    swap for a fuller safe vocabulary: this stop set of ward words, and the pack's safe vocabulary
    (``pipeline/locales/en/vocab/``, built from philter-lite, medspacy and wordfreq) unless
    ``vocabulary`` is False: places ask without it, since the whitelist holds hospital acronyms
    ("transferred from BMC") that the place's context does mark as PHI."""
    w = word.lower().strip(".'")
    return w in _SAFE or (vocabulary and w in _vocabulary().safe)


def is_ambiguous_word(word: str) -> bool:
    """Whether ``word`` is a listed surname that is also a clinical or ordinary word ("Foley",
    "Brown"): a name only after a strong context ("Dr", "wife", "RN"), never after "with" or "per"."""
    return _clean(word).lower() in _vocabulary().ambiguous


@lru_cache(maxsize=1)
def _vocabulary():
    return load_vocabulary("en")


def is_first_name(word: str) -> bool:
    """Whether ``word`` is a first name in the pack's lists or philter-lite's (any case)."""
    w = _clean(word).lower()
    return "F" in _large_names().get(w, "") or w in _pack_first_names()


@lru_cache(maxsize=1)
def _first_names() -> frozenset[str]:
    return frozenset(e for n in ("first_names", "first_names_female", "first_names_male") for e in load_list("en", n))


@lru_cache(maxsize=1)
def _pack_first_names() -> frozenset[str]:
    return frozenset(e.lower() for e in _first_names())


@lru_cache(maxsize=1)
def _large_names() -> dict[str, str]:
    """philter-lite's first and last names that English text uses (``vocab/person_names.tsv``,
    built by ``benchmarks/build_en_names.py``): word -> "F", "L" or "FL". Evidence after a
    context only; never read by dictionaries."""
    from pipeline.locales import LOCALES_DIR

    p = LOCALES_DIR / "en" / "vocab" / "person_names.tsv"
    out: dict[str, str] = {}
    if p.is_file():
        for line in p.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                w, _, k = line.partition("\t")
                out[w] = k
    return out


# what a home is, not where ("lives in halfway house", "in trailer park", "in senior housing")
RESIDENCE = frozenset("""house housing home homes apartment apartments apt condo trailer shelter facility community
complex building residence program center centre park unit hotel motel dorm trailer mobile""".split())


#: a word of a GeoNames town's name vouches for a place below this Zipf frequency (everyday words:
#: "halfway" 4.1, "mount" 4.3, "dick" 4.7 do not)
TOWN_WORD_ZIPF = 4.0


@lru_cache(maxsize=None)
def _listed(kind: str) -> frozenset[str]:
    lists = {"person": ("first_names", "surnames"), "place": ("cities", "towns", "hospitals", "states", "countries")}[kind]
    out: set[str] = set()
    for name in lists:
        for entry in load_list("en", name):
            words = [w.lower().strip(".,'") for w in entry.split() if len(w) > 1]
            if name != "towns":
                out.update(words)
            elif words and words[-1] not in RESIDENCE:
                # a GeoNames town named like a home ("Halfway House") vouches for no word of it, and an
                # everyday word of a town ("Fort Dick", "Halfway Bush") for no place
                out.update(w for w in words if (zipf(w) or 0.0) < TOWN_WORD_ZIPF)
    return frozenset(out)


@lru_cache(maxsize=65536)
def zipf(word: str) -> float | None:
    """How common ``word`` is in English (Zipf scale, 0 to 8), or None without ``wordfreq``."""
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # pragma: no cover - the pinned requirement is installed
        return None
    return zipf_frequency(word.lower(), "en")


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")


def _clean(word: str) -> str:
    w = word.strip(".,;:'\"()")
    if w.lower().endswith("'s"):
        w = w[:-2]
    return w


def looks_like_name(word: str, strong: bool, cased: bool = False, titled: bool = False) -> bool:
    """Whether ``word`` may be a person's name after a name's context: not a safe word, and a
    listed name that is not a very common word, or (after a ``strong`` context: "Dr", "RN",
    "wife") a rare word, or a word not among the commonest written with a capital in a line
    that has lower case (``cased``: "son Jim", while "son brought" is no name)."""
    w = _clean(word)
    if len(w) < 2 or not _WORD.fullmatch(w) or is_safe_word(w) or (not strong and is_ambiguous_word(w)):
        return False
    if re.search(r"[a-zA-Z]{2}['’][dD]$", w):
        return False   # a ward's past participle cut short ("wife, rec'd 6 vials": icu_invented_f find f14)
    if hyphenated_name(w, strong):
        return True
    if strong and re.fullmatch(r"[Oo]['’][A-Za-z]{2,}", w):
        return True   # "DR O'HARA", "wife o'malley": the shape of an Irish surname, whatever its frequency
    z = zipf(w)
    if titled and z is not None and not _CLINICAL_ENDING.search(w.lower()):
        # right after "Dr."/"DR"/"Doctor": a listed name even when common ("DR. YOUNG"), and a word
        # English does not know at all ("DR. CRONLY": its ending says nothing then)
        if w.lower() in _listed("person") or w.lower() in _large_names():
            return z < 6.0
        if z < 2.0:
            # a rare word after a title is a name even one edit from a word ("DR. LEDNER", "dr.
            # colly"), unless the word is a ward's ("DR. NOTIFEID", "dr caled")
            return not typo_of_ward_word(w)
    if w.lower() in _listed("person"):
        # the commonest first names are common words by their own frequency ("son john", "WIFE
        # DAVID"): the pack's curated first names pass after a strong context up to 5.6
        most = (5.6 if w.lower() in _pack_first_names() else 5.0) if strong else 4.5
        return z is None or z < most
    kind = _large_names().get(w.lower())
    if kind and z is not None and not _CLINICAL_ENDING.search(w.lower()) and not _inflected_common_word(w):
        # philter-lite's large lists: a first name after a strong context even when it is a common
        # word ("SON MIKE"), a surname there when it is not a common one, and either after a weak
        # context ("per", "with") only when rare and written with a capital in a mixed-case line
        # (philter's lists hold clinical words too: "wean" is a listed surname)
        if not strong:
            return cased and z < 3.0
        if "F" in kind and not (len(w) > 4 and _WORD_ENDING.search(w.lower()) and not cased):
            return z < 5.0
        if z < 4.0:
            return True
    if not strong or z is None or _CLINICAL_ENDING.search(w.lower()) or _inflected_common_word(w):
        return False
    if not cased and len(w) > 4 and _WORD_ENDING.search(w.lower()) and not _ending_of_no_word(w, z):
        return False
    return z < (5.0 if cased else 3.3) and not (z < 1.0 and typo_of_ward_word(w))   # "son awaer", "phnoe"


def ending_stems(low: str, ending: re.Pattern = _WORD_ENDING) -> set[str]:
    """The stems of three letters or more that ``low`` (lower case) may be built on once the
    verb's or adjective's ``ending`` is taken off: the stem, with an "e" ("updat-ed": "update"),
    and with a doubled last letter undone ("desatt-ing": "desat"); the word itself without one."""
    m = ending.search(low)
    stem = low[:m.start()] if m else low
    stems = {stem, stem + "e"} | ({stem[:-1]} if len(stem) > 2 and stem[-1] == stem[-2] else set())
    return {x for x in stems if len(x) > 2}


def _ending_of_no_word(w: str, z: float) -> bool:
    """A rare word whose verb's or adjective's ending follows no English stem ("sister xiaoling in
    to visit": icu_invented_h find f07, in UPPER and lower case): the ending is the name's."""
    return z < 2.0 and not any((zipf(x) or 0.0) >= 2.5 or is_safe_word(x) for x in ending_stems(w.lower()))


def is_listed_name(word: str) -> bool:
    """Whether ``word`` (any case) is a word of the pack's own first-name or surname lists, however
    common it is as a word ("Day", "Young"): what a courtesy title before it needs."""
    return _clean(word).lower() in _listed("person")


def is_listed_place_word(word: str) -> bool:
    """Whether ``word`` (any case) is a word of the pack's place lists (towns, cities, hospitals,
    states, countries)."""
    return _clean(word).lower() in _listed("place")


def is_listed_surname(word: str) -> bool:
    """Whether ``word`` (any case) is a surname of the pack's list or of philter-lite's."""
    low = _clean(word).lower()
    return low in _pack_surnames() or "L" in _large_names().get(low, "")


@lru_cache(maxsize=1)
def _pack_surnames() -> frozenset[str]:
    return frozenset(e.lower() for e in load_list("en", "surnames"))


def hyphenated_name(word: str, strong: bool = True) -> bool:
    """Whether ``word`` is a double-barrelled or hyphenated given name ("Mei-Ling", "PIERRE-LOUIS",
    "Fuentes-Oyola": icu_invented_g find f01, f03, f07): two parts of letters, no ward or function
    word, each a listed name or a rare word (Zipf < 3); after a weak context both listed. Its
    frequency as a whole says nothing: wordfreq reads the parts, common names both ("Pierre",
    "Louis")."""
    parts = _clean(word).split("-")
    if len(parts) != 2 or not all(p.isalpha() and len(p) >= 2 for p in parts):
        return False
    if any(p.lower() in FUNCTION_WORDS or is_safe_word(p, vocabulary=False) or _CLINICAL_ENDING.search(p.lower())
           for p in parts):
        return False
    listed = [p.lower() in _listed("person") or p.lower() in _large_names() or is_first_name(p) for p in parts]
    rare = [(zipf(p) or 0.0) < 3.0 for p in parts]
    return all(a or b for a, b in zip(listed, rare)) and (strong or all(listed))


def is_surname_after_first_name(word: str) -> bool:
    """Whether ``word``, right after a first name that passed as a name, is that person's surname
    even when it is a common English word ("Lizzie STRONG", "son holly small", "Adison Green"): a
    surname of the pack's list short of the commonest words, or one of philter-lite's surnames
    that is no word of the safe vocabulary, not a common word and no typo of one ("askig"). Function words, ward words
    and words with a clinical ending never are ("son john will", "wife mary aware")."""
    w = _clean(word)
    low = w.lower()
    if len(w) < 2 or not _WORD.fullmatch(w) or low in FUNCTION_WORDS or is_safe_word(w, vocabulary=False):
        return False
    if hyphenated_name(w):
        return True   # "ESTHER PIERRE-LOUIS, MD"
    z = zipf(w)
    if z is None or _CLINICAL_ENDING.search(low) or _inflected_common_word(w):
        return False
    if low in _pack_surnames():
        return z < 5.6
    return "L" in _large_names().get(low, "") and z < 4.0 and not is_safe_word(w) and not looks_like_typo(w)


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@lru_cache(maxsize=4096)
def looks_like_typo(word: str) -> bool:
    """Whether ``word`` is one edit (a letter dropped, added, changed or two swapped) from a common
    English word ("TMIES", "notifeid", "givn"): nurses' typos are no hospitals, and no names where
    only the word's rarity would make one ("DR. NOTIFEID"); a rare word after "wife" or "replaced
    by" is not asked (rare surnames are often one edit from a word: "Deady")."""
    w = _clean(word).lower()
    if len(w) < 4 or re.match(r"o['’][a-z]", w):
        return False   # "O'HARA" is one edit from "o'hare", but typos do not put an apostrophe after an O
    return any((zipf(c) or 0.0) >= 3.5 for c in _one_edit(w))


def _one_edit(w: str) -> set[str]:
    """The strings one edit from ``w``: a letter dropped, two swapped, one changed or one added."""
    splits = [(w[:i], w[i:]) for i in range(len(w) + 1)]
    cands = {a + b[1:] for a, b in splits if b}
    cands |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    cands |= {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    cands |= {a + c + b for a, b in splits for c in _LETTERS}
    cands.discard(w)
    return cands


@lru_cache(maxsize=4096)
def typo_of_ward_word(word: str) -> bool:
    """Whether ``word`` is one edit from a word of the ward stop set or a function word
    ("notifeid", "caled", "awre"), the typos that follow "Dr" in a nurse's note."""
    w = _clean(word).lower()
    if len(w) < 5:
        return False   # a short rare word is one edit from some abbreviation ("mina": "min")
    return any(len(c) >= 5 and c in _SAFE for c in _one_edit(w))


def _inflected_common_word(w: str) -> bool:
    """A plural or a verb's -s form of a common word ("Reports", "Visits"), which a surname ending
    in s ("Jones", "Collins") is not: their stems are rare words or listed names."""
    low = w.lower()
    if len(low) < 5 or not low.endswith("s") or low.endswith("ss"):
        return False
    stem = low[:-2] if low.endswith("es") and zipf(low[:-2]) and zipf(low[:-2]) >= 4.8 else low[:-1]
    z = zipf(stem)
    return z is not None and z >= 4.8 and stem not in _listed("person")


# where a family lives without naming the place ("FAMILY LIVES UPSTATE": icu_invented_l find f11);
# inside a hospital's name they may stand ("Uptown Regional Hospital"), so they are no stop words
WHERE_WORDS = frozenset("upstate downstate uptown downtown overseas abroad nearby locally elsewhere".split())


def looks_like_place(word: str, strong: bool) -> bool:
    """Whether ``word`` may be (part of) a hospital's or a town's name after a place's context
    ("transferred from", "lives in"): not a safe word, and a listed place or name, or a rare word
    (a strong context), or an abbreviation in capitals that is no ward's."""
    w = _clean(word)
    if len(w) < 2 or not _WORD.fullmatch(w) or is_safe_word(w, vocabulary=False) or w.lower() in WHERE_WORDS:
        return False
    z = zipf(w)
    if w.lower() in _listed("place") or w.lower() in _listed("person"):
        return z is None or z < (5.0 if strong else 4.5)
    if z is None or _CLINICAL_ENDING.search(w.lower()) or (len(w) > 4 and _WORD_ENDING.search(w.lower())):
        return False
    return z < (3.5 if strong else 2.5) and not (z < 1.0 and typo_of_ward_word(w))   # "in stabble condition"
