"""Postcodes and phone numbers of the other English-speaking countries: a Canadian postal code
(with its province), a British postcode after its town, and a national number that starts with
the trunk "0" after a phone's label or a call ("020 7946 0958", "call me on 07700 900123").

Why: the pack's contact rules read US shapes only (a ZIP after a state, ten digits in 3-3-4), and
notes, letters and forms in English come from Canada, the UK, Ireland, Australia too. Each shape
is narrow: a Canadian code alternates letter and digit with the letters Canada Post uses; a
British one needs its town (or a country) beside it and capitals, since "q2 4hr" is a dose in a
lower-case note; a national number needs the words that say a number is called. Written from the
postal formats, checked on generated notes and the ICU lines (no hit outside gold).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.contact import CALL_VERB, PHONE_LABEL
from pipeline.detection.dictionary_lower import lower_line
from pipeline.detection.rules.en.caseless import one_case_at
from pipeline.detection.rules.en.name_words import is_safe_word, looks_like_place
from pipeline.detection.rules.en.numbers import line_before
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_PROVINCES = "AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT"
# the halves split by a space or a dash: written whole, "E3V5M6" is a coma score's parts
_CA_CODE = r"[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ -]\d[ABCEGHJ-NPRSTV-Z]\d"
_CANADA = re.compile(rf"(?i)(?<![\w-])(?:(?P<prov>{_PROVINCES})\.?,?[ \t]+)?(?P<code>{_CA_CODE})(?![\w-])")
# the area's letters as Royal Mail uses them (never Q, V or X first, never I, J or Z second): "Q2 4HR"
# and "q4 6hr" are doses' frequencies ("PAIN Q2 4HR"), no postcode
_UK_CODE = r"(?:[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?|GIR)[ ]?\d[ABD-HJLNP-UW-Z]{2}"
_UK = re.compile(rf"(?<![\w-])(?P<code>{_UK_CODE})(?![\w-])")
# what vouches for a British postcode: its town right before ("London NW1 6XE", "LEEDS, LS1 4AP"),
# a postcode label, or the country after
# a town of two or three words too ("Ashby Parva, LE17 5HX": notes_invented find f39), read back from
# the postcode to the first street word or ward word (:func:`_town_words`)
_UK_BEFORE = re.compile(r"(?:(?P<town>[A-Z][A-Za-z'-]+(?:[ \t][A-Z][A-Za-z'-]+){0,2}),?[ \t]+|(?i:post[ \t]?code)[ \t]*:?[ \t]*)$")
_STREET_WORD = frozenset("road rd lane street st avenue ave close drive way court crescent square terrace grove "
                         "gardens place hill row walk mews parade".split())
_UK_AFTER = re.compile(r"(?i),?[ \t]+(?:UK|U\.K\.|United Kingdom|England|Scotland|Wales|Northern Ireland)\b")
_TRUNK_PHONE = re.compile(r"(?<![\w+/.-])0\d{2,4}(?:[ -]?\d{3,4}){2}(?![\w/-]|\.\d)")
_CALLED_ON = re.compile(r"(?i)\b(?:on|at)[ \t]*$")


def _canadian(text: str, doc_id: str) -> list[Span]:
    out = []
    for m in _CANADA.finditer(text):
        code = m.group("code")
        if code != code.upper() and code != code.lower():
            continue   # one case, as written on an envelope or in a note of one case
        if m.group("prov"):
            out.append(mk(doc_id, *m.span("prov"), "STATE"))
        out.append(mk(doc_id, *m.span("code"), "ZIP"))
    return out


# a postcode on a line of its own, under the lines of an address
_UK_OWN_LINE = re.compile(rf"(?m)(?<=\n)[ \t]*(?P<code>{_UK_CODE})[ \t]*$")


def _caps_town(text: str, town: str, i: int) -> bool:
    """A town in capitals before its postcode counts in a line of capitals only, and only a word
    that may be a place after a strong context ("SALFORD M6 5FU", "HARROGATE HG2 0LR"; not "ICU",
    "WARD"): found on the invented PII texts' find half in UPPER case (clinic_30, email_06)."""
    return len(town) >= 4 and one_case_at(text, i) and looks_like_place(town, True)


def _british(text: str, doc_id: str) -> list[Span]:
    """British postcodes after their town (and the town: "Harrogate HG2 0LR"), before the country,
    or alone on an address's last line. The town asks the stop set only, as places do: the safe
    vocabulary holds towns that are also words ("Salford")."""
    out = []
    for m in _UK.finditer(text):
        before = _UK_BEFORE.search(text, max(0, m.start() - 40), m.start())
        words = before.group("town") if before else None
        town = _town_words(words) if words else None
        # the word right before vouches for the code unless it is a ward's ("Ward B2 4AB"); a street's
        # word does ("Sutton Road SM1 2AB"), though it is no town
        last = words.split()[-1] if words else ""
        if (before and not (last and is_safe_word(last, vocabulary=False))) or _UK_AFTER.match(text, m.end()):
            out.append(mk(doc_id, *m.span("code"), "ZIP"))   # a ward's word is no town ("Ward B2 4AB")
            if town and (town != town.upper() or _caps_town(text, town, m.start())):
                end = before.start("town") + len(before.group("town"))
                out.append(mk(doc_id, end - len(town), end, "CITY"))
    out += [mk(doc_id, *m.span("code"), "ZIP") for m in _UK_OWN_LINE.finditer(text)]
    return out + _british_lower(text, doc_id)


_UK_LOWER = re.compile(rf"(?<![\w-])(?P<town>[a-z][a-z'-]{{3,}}),?[ \t]+(?P<code>{_UK_CODE.lower()})(?![\w-])")


def _british_lower(text: str, doc_id: str) -> list[Span]:
    """In a line all in lower case, a British postcode with its town right before it, the town a
    word that may be a place after a strong context and no word of the safe vocabulary ("salford
    m6 5fu"; never "tylenol q2 4hr", "meds q4 6hr"): the capitals that make the shape safe are
    gone, so the town vouches for it. Found on the invented PII texts' find half in lower case
    (clinic_30, email_06)."""
    out = []
    for m in _UK_LOWER.finditer(text):
        town = m.group("town")
        if lower_line(text, m.start()) and looks_like_place(town, True) and not is_safe_word(town):
            out += [mk(doc_id, *m.span("town"), "CITY"), mk(doc_id, *m.span("code"), "ZIP")]
    return out


def _town_words(words: str) -> str | None:
    """The town in the title-case words before a postcode: the last words, back to a street's word
    or a word of the stop set (a ward's word is no town: "Ward B2 4AB"), or None."""
    keep: list[str] = []
    for w in reversed(words.split()):
        if w.lower() in _STREET_WORD or is_safe_word(w, vocabulary=False):
            break
        keep.insert(0, w)
    return " ".join(keep) or None


@register(LOCALE, "world_postcodes", "LOCATION", score=0.88)
def world_postcodes(text: str, doc_id: str) -> list[Span]:
    """Canadian postal codes (and the province before one) and British postcodes after their town."""
    return dedupe(_canadian(text, doc_id) + _british(text, doc_id))


@register(LOCALE, "trunk_phones", "CONTACT", score=0.86)
def trunk_phones(text: str, doc_id: str) -> list[Span]:
    """A national number with the trunk "0" and 10 or 11 digits, after a phone's label or a call
    ("tel 020 7946 0958", "call me on 07700 900123")."""
    out = []
    for m in _TRUNK_PHONE.finditer(text):
        digits = sum(c.isdigit() for c in m.group())
        before = line_before(text, m.start(), 40)
        called = _CALLED_ON.search(before) and CALL_VERB.search(before)
        if 10 <= digits <= 11 and (PHONE_LABEL.search(before) or called):
            out.append(mk(doc_id, m.start(), m.end(), "PHONE"))
    return out
