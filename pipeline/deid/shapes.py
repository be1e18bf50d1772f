"""Does a surrogate have the shape of its type? One small check per kind of value, in a registry.

A paraphrase surrogate is what a language model proposed, and a small model proposes what it
saw most: "Patient: History M'Center", "Dr. Plan Street", "a 69-year-old with date",
"date.with@showed.com". Each of those passed the leak checks and none reads as the value it
stands for. The ``paraphrase`` operator asks :func:`shape_ok` about every fill and gives a span
whose fill fails its type's check the list surrogate instead (counted, reason ``shape``);
``benchmarks/surrogate_quality.py`` asks the same checks about every surrogate of every profile.

The checks are keyed by surrogate generator name (:mod:`pipeline.deid.surrogates`: ``name``,
``email``, ``phone``, ``date``, ``hospital``, ``street``...), registered with
:func:`register_shape`, and read only the locale's shipped lists: an entry of the list a
generator draws from always passes. Otherwise a check asks for the form ("Capitalised name
words", "local@domain.tld", 4 to 15 digits, a date that parses) and refuses words too common to
be a name: the function words, and any word of Zipf frequency ``COMMON_ZIPF`` or more in the
locale (``wordfreq``; without it only the function words) that is in none of the name and place
lists. A generator without a check is accepted (:func:`shape_ok` returns True).
"""
from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from typing import Callable

from pipeline.deid.address_table import address_records
from pipeline.deid.normalize import NAME_PARTICLES, NAME_TITLES, norm_key, strip_accents
from pipeline.deid.surrogate_kit import ADDRESS_WORDS, PHONE_WORDS
from pipeline.deid.value_words import FUNCTION_WORDS, GENERIC_PLACE_WORDS, MAIL_HOST_WORDS, STREET_WORDS

ShapeCheck = Callable[[str, str], bool]          # (value, locale) -> has the shape of its type
SHAPE_CHECKS: dict[str, ShapeCheck] = {}
#: a word this frequent in the locale (Zipf scale) is a common word, not a name (unless listed)
COMMON_ZIPF = 4.5
NAME_LISTS = ("first_names", "surnames", "cities", "states", "countries")
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*\.?")
_LETTERS = re.compile(r"[^\W\d_]+")


def register_shape(*generators: str) -> Callable[[ShapeCheck], ShapeCheck]:
    """Decorator: the function checks surrogates of these generators (registering again replaces)."""
    def deco(fn: ShapeCheck) -> ShapeCheck:
        for g in generators:
            SHAPE_CHECKS[g] = fn
        return fn
    return deco


def shape_ok(generator: str | None, value: str, locale: str) -> bool:
    """Whether ``value`` has the shape of a ``generator`` surrogate (True when no check exists)."""
    check = SHAPE_CHECKS.get(generator or "")
    return True if check is None else bool(value.strip()) and check(value.strip(), locale)


# -- what the checks read -------------------------------------------------------------------------

@lru_cache(maxsize=None)
def listed(locale: str, name: str) -> frozenset[str]:
    """The normalised entries of a shipped locale list (empty when it ships none)."""
    from pipeline.deid.builtin_lists import BUILTIN_LISTS
    from pipeline.locales import load_list
    try:
        return frozenset(norm_key(x) for x in load_list(locale, name))
    except KeyError:
        return frozenset(norm_key(x) for x in BUILTIN_LISTS.get((locale, name), ()))


@lru_cache(maxsize=None)
def _name_words(locale: str) -> frozenset[str]:
    return frozenset(w for n in NAME_LISTS for e in listed(locale, n) for w in _LETTERS.findall(e))


@lru_cache(maxsize=1 << 16)
def common_word(word: str, locale: str, zipf: float = COMMON_ZIPF) -> bool:
    """A function word, or a word of Zipf frequency ``zipf`` or more in the locale that no name
    or place list holds."""
    f = norm_key(word).strip(".")
    if f in FUNCTION_WORDS:
        return True
    if f in _name_words(locale):
        return False
    try:
        from wordfreq import zipf_frequency
    except ImportError:          # pragma: no cover - wordfreq is pinned
        return False
    return zipf_frequency(f, locale[:2]) >= zipf


def _capitalised(token: str) -> bool:
    """"Smith", "SMITH", "McDonald", "O'Brien", "Fernández-Cid", "Ji-ho": the first piece
    capitalised, the others capitalised or (after a hyphen) lower case."""
    letters = token.rstrip(".")
    if not letters:
        return False
    if letters.isupper() or re.match(r"^(?:Mc|Mac|O'|D')", letters):
        return letters[0].isupper()
    first, *rest = [p for p in re.split(r"['\u2019-]", letters) if p] or [""]
    return (first[:1].isupper() and first[1:] == first[1:].lower()
            and all(p == p.lower() or (p[:1].isupper() and p[1:] == p[1:].lower()) for p in rest))


def _proper_words(value: str, locale: str, *, allowed: frozenset[str] = frozenset(), zipf: float = COMMON_ZIPF) -> bool:
    """Every token a particle, an ``allowed`` word or a capitalised uncommon word (Zipf under
    ``zipf``); one of the last two at least. Punctuation alone ("-", "&") is skipped."""
    tokens = [t for t in value.replace(",", " ").split() if any(c.isalnum() for c in t)]
    if not tokens:
        return False
    proper = 0
    for t in tokens:
        f = norm_key(t).strip(".")
        if f in allowed:
            proper += 1
            continue
        if f in NAME_PARTICLES or f in FUNCTION_WORDS:
            continue
        if not _WORD.fullmatch(t) or not _capitalised(t) or common_word(t, locale, zipf):
            return False
        proper += 1
    return proper > 0


# -- people -----------------------------------------------------------------------------------------

@register_shape("name")
def person_name(value: str, locale: str) -> bool:
    """Titles, particles, initials and capitalised name words; no common word ("History", "Plan")."""
    tokens = value.replace(",", " ").split()
    if len(tokens) == 1 and re.fullmatch(r"[^\W\d_]{1,3}", tokens[0]) and (tokens[0].isupper() or tokens[0].islower()):
        return True                                      # initials written together: "IH", "pk"
    lower = value == value.lower()                        # a lower-case note keeps lower-case names
    names = 0
    for t in tokens:
        f = norm_key(t).strip(".")
        if f in listed(locale, "surnames") or f in listed(locale, "first_names"):
            names += _capitalised(t) or lower            # a listed name ("Le", "Rose")
            continue
        if f in NAME_TITLES or f in NAME_PARTICLES:
            continue
        if re.fullmatch(r"[^\W\d_]\.?", t) and (t[0].isupper() or lower):
            names += 1                                   # an initial
            continue
        if not _WORD.fullmatch(t) or not (_capitalised(t) or lower) or common_word(t, locale):
            return False
        names += 1
    return names > 0


#: how the last word of a profession ends, per language ("fisherman", "librarian"; "pintora", "actriz")
PROFESSION_SUFFIXES = {
    "en": ("er", "or", "ist", "ian", "ant", "ent", "man", "woman", "ary", "eer", "ive", "ic", "ect", "ess"),
    "es": ("ero", "era", "ista", "or", "ora", "ante", "ente", "ico", "ica", "ario", "aria", "ado", "ada", "ino",
           "ina", "ogo", "oga", "triz", "eta"),
}


@register_shape("profession")
def profession(value: str, locale: str) -> bool:
    """ONE profession: an entry of the locale's professions, else one to three words whose last,
    and only it, ends like a profession ("retired fisherman", "pintora"). Two entries side by
    side ("factory worker fisherman") are refused."""
    entries = listed(locale, "professions")
    if norm_key(value) in entries:
        return True
    words = value.split()
    if not 1 <= len(words) <= 3 or not all(_LETTERS.fullmatch(w) for w in words):
        return False
    if any(norm_key(" ".join(words[:k])) in entries and norm_key(" ".join(words[k:])) in entries
           for k in range(1, len(words))):
        return False
    folded = [strip_accents(w).lower() for w in words]
    last = folded[-1]
    ends = PROFESSION_SUFFIXES.get(locale[:2], PROFESSION_SUFFIXES["en"])
    if any(len(w) >= 4 and w.endswith(ends) for w in folded[:-1]):
        return False
    return last not in FUNCTION_WORDS and len(last) >= 4 and last.endswith(ends)


# -- contacts and codes -------------------------------------------------------------------------------

_EMAIL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._%+\-]*[A-Za-z0-9])?@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
                    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,12}$")


@register_shape("email")
def email(value: str, locale: str) -> bool:
    """A valid address whose words are no common words ("date.with@showed.com" is refused)."""
    if not _EMAIL.fullmatch(value) or ".." in value:
        return False
    host = value.split("@", 1)[1].rsplit(".", 1)[0]
    words = _LETTERS.findall(value.split("@", 1)[0]) + _LETTERS.findall(host)
    return not any(len(w) >= 3 and w.lower() not in MAIL_HOST_WORDS and common_word(w, locale) for w in words)


@register_shape("phone")
def phone(value: str, locale: str) -> bool:
    """4 to 15 digits with phone separators and the words of a phone format ("ext")."""
    rest = " ".join(w for w in re.split(r"([^\W\d_]+)", value)
                    if not (w.isalpha() and (strip_accents(w).lower() in PHONE_WORDS or len(w) == 1)))
    digits = sum(c.isdigit() for c in rest)
    return 4 <= digits <= 15 and re.fullmatch(r"[\d\s+\-.()/:,#]*", rest) is not None


@register_shape("id")
def identifier(value: str, locale: str) -> bool:
    """A code: letters, digits and separators, with a digit, or capitals only ("ABCD")."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9 ./\-_#:]*", value):
        return False
    return any(c.isdigit() for c in value) or (value.replace(" ", "").isupper() and len(value) >= 2)


@register_shape("username")
def username(value: str, locale: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._\-]{1,40}", value) is not None


_IPV4 = re.compile(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})")


@register_shape("ip")
def ip_address(value: str, locale: str) -> bool:
    """A dotted IPv4 address, or an IPv6 address the standard library reads (zone allowed)."""
    m = _IPV4.fullmatch(value)
    if m is not None:
        return all(int(g) <= 255 for g in m.groups())
    try:
        ipaddress.IPv6Address(value.partition("%")[0])
    except ValueError:
        return False
    return ":" in value


@register_shape("url")
def url(value: str, locale: str) -> bool:
    return re.fullmatch(r"(?:[a-z][a-z0-9+.-]*://)?(?:www\d?\.)?[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,12}"
                        r"(?::\d+)?(?:[/?#]\S*)?", value, re.I) is not None


@register_shape("net_address")
def net_address(value: str, locale: str) -> bool:
    return ip_address(value, locale) or url(value, locale)


# -- dates and ages -------------------------------------------------------------------------------------

@register_shape("date")
def date(value: str, locale: str) -> bool:
    """A date that the de-identification's own reader parses."""
    from pipeline.deid.date_parse import parse_date
    try:
        parse_date(value, locale)
    except ValueError:
        return False
    return True


@register_shape("age")
def age(value: str, locale: str) -> bool:
    """An age holds a number (digits or words the age reader finds)."""
    from pipeline.deid.ages import find_numbers
    try:
        return bool(find_numbers(value, locale))
    except ValueError:
        return False


# -- places --------------------------------------------------------------------------------------------

INSTITUTION_WORDS = GENERIC_PLACE_WORDS | frozenset({
    "clinic", "clinics", "infirmary", "health", "healthcare", "hospitals", "institute", "foundation", "care",
    "rehabilitation", "medicine", "children's", "childrens", "women's", "veterans", "va", "saint", "st",
    "mount", "mt", "sacred", "heart", "mercy", "baptist", "methodist", "presbyterian", "lutheran", "general",
    "cap", "csi", "hu", "chu", "hospitalet", "virgen", "nuestra", "senora", "san", "santa", "santo",
})


def _listed_or(value: str, locale: str, *names: str) -> bool:
    k = norm_key(value)
    return any(k in listed(locale, n) for n in names)


@register_shape("hospital", "health_center")
def hospital(value: str, locale: str) -> bool:
    """A listed institution, or capitalised words holding a word of institutions ("Hospital", "Clinic")."""
    if _listed_or(value, locale, "hospitals"):
        return True
    folded = {norm_key(t).strip(".") for t in value.split()}
    has_kind = bool(folded & INSTITUTION_WORDS)
    return has_kind and _proper_words(re.sub(r"\d+", " ", value), locale, allowed=INSTITUTION_WORDS)


@register_shape("organization")
def organization(value: str, locale: str) -> bool:
    """A listed one, or capitalised words (institution words allowed)."""
    if _listed_or(value, locale, "organizations", "hospitals", "manufacturers"):
        return True
    return _proper_words(re.sub(r"[\d&]+", " ", value), locale, allowed=INSTITUTION_WORDS)


@register_shape("department")
def department(value: str, locale: str) -> bool:
    """A listed ward, or capitalised words: a ward is named with common words ("Sleep Lab")."""
    if _listed_or(value, locale, "departments"):
        return True
    return _proper_words(re.sub(r"[\d&]+", " ", value), locale, allowed=INSTITUTION_WORDS, zipf=9.0)


@register_shape("city")
def city(value: str, locale: str) -> bool:
    if _listed_or(value, locale, "cities"):
        return True
    if norm_key(value) in {norm_key(r.city) for r in address_records(locale)}:
        return True
    return _proper_words(value, locale)


@register_shape("state")
def state(value: str, locale: str) -> bool:
    """A state, province or region of the locale (a closed list: the shipped one and the address table's)."""
    if _listed_or(value.rstrip("."), locale, "states", "provinces"):
        return True
    k = norm_key(value.rstrip("."))
    return any(k in (norm_key(r.state), norm_key(r.abbr), norm_key(r.region)) for r in address_records(locale))


@register_shape("country")
def country(value: str, locale: str) -> bool:
    return _listed_or(value, locale, "countries") or _proper_words(value, locale)


POSTCODES = {"en": r"\d{5}(?:-\d{4})?", "es": r"(?:[A-Z]-?)?\d{5}", "de": r"(?:D-?)?\d{5}"}


@register_shape("zip")
def zip_code(value: str, locale: str) -> bool:
    return re.fullmatch(POSTCODES.get(locale[:2], r"[A-Za-z0-9][A-Za-z0-9 \-]{2,9}"), value) is not None


@register_shape("territory")
def territory(value: str, locale: str) -> bool:
    """MEDDOCAN's TERRITORIO: a postcode, a province or region, a country or a city."""
    if any(c.isdigit() for c in value):
        return zip_code(value, locale)
    return state(value, locale) or city(value, locale)


#: streets are named after common words more often than people are ("Reina", "Real", "Iglesia")
STREET_ZIPF = 5.2
STREET_KINDS = STREET_WORDS | frozenset({
    "st", "rd", "dr", "ln", "terrace", "circle", "cir", "parkway", "pkwy", "highway", "hwy", "square", "sq",
    "trail", "row", "alley", "path", "pike", "crescent", "close", "plaza", "route", "walk", "ct", "pl",
    "avda", "pº", "c/", "cl", "pje", "ctra", "trav", "pza",
})


@lru_cache(maxsize=None)
def _street_cores(locale: str) -> frozenset[str]:
    """The listed streets without their kind words ("Main Street" -> "main")."""
    return frozenset(" ".join(w for w in e.split() if w.strip(".") not in STREET_KINDS | NAME_PARTICLES)
                     for e in listed(locale, "streets"))


@register_shape("street")
def street(value: str, locale: str) -> bool:
    """House numbers and address words, a kind of street ("Street", "Calle", "Avda.") and a name:
    a listed street's, or capitalised uncommon words ("Dr. Plan Street" is refused)."""
    if _listed_or(value, locale, "streets"):
        return True
    tokens = [t.strip(",") for t in value.split() if t.strip(",")]
    kinds = [t for t in tokens if norm_key(t).strip(".") in STREET_KINDS or norm_key(t).startswith("c/")]
    rest = [t for t in tokens if t not in kinds and not any(c.isdigit() for c in t) and any(c.isalpha() for c in t)
            and norm_key(t).strip(".ºª") not in ADDRESS_WORDS and norm_key(t).strip(".") not in NAME_TITLES
            and norm_key(t) not in ("s/n", "nº", "n.º") and len(t.strip(".ºª")) > 2]
    if not kinds and not any(c.isdigit() for c in value):
        return False
    name = " ".join(norm_key(t).strip(".") for t in rest if norm_key(t).strip(".") not in NAME_PARTICLES)
    if not name:
        return any(c.isdigit() for c in value)           # "5, 2ºA": numbers and address words only
    if name in _street_cores(locale):
        return True
    return _proper_words(" ".join(rest), locale, zipf=STREET_ZIPF)


@register_shape("location_other")
def location_other(value: str, locale: str) -> bool:
    return _listed_or(value, locale, "locations_other") or bool(_LETTERS.search(value))
