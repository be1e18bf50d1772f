"""Spanish contact details: phone and fax numbers, postal codes and street addresses.

Phone and fax numbers keep their inner spaces ("913 36 80 00"); an address is the street with
its number and floor ("Calle Carmen Romero, 23, 1D", "Av. Córdoba, s/n"), and the postal code
that follows it is a span of its own, as is the town.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import LETTER, LOWER, UPPER, mk, spans_from, text_before, trim
from pipeline.detection.rules.es._common import LOCALE, NAME_PARTICLE
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe


# --- phone and fax -------------------------------------------------------------------------

# the number runs to its last digit ("+34 945007000", not "+34 94500700"); a "+ " before the country
# code is left out, as MEDDOCAN's gold does every time ("+34 945007000" -> "34 945007000")
_PHONE_NUM = r"(?:\(?\+?[ ]?\d{1,4}\)?[ .-]?[ ]?)?\d{2,4}(?:[ .-]?\d{2,4}){1,4}(?!\d)"
_NUM_RE = re.compile(_PHONE_NUM)
_PHONE_TRIGGER = re.compile(
    r"(?i)(?<!\w)(?P<kind>tel[eé]fonos?|telfs?|tfnos?|tlfs?|tlfnos?|tel|tf|m[oó]vil|fax|busca|m[oó]vil)\.?"
    r"(?:\s*(?:de\s+)?(?:contacto|consulta|m[oó]vil))?\s*[:.]?\s*")
_LIST_SEP = re.compile(r"\s*(?:/|,|;|\by\b|\bo\b|-)\s*")
_BARE_PHONE = re.compile(r"(?<![\w/.,-])(?:\+34[ ]?)?[6789]\d{2}(?:[ ]\d{2}[ ]\d{2}[ ]\d{2}|[ ]\d{3}[ ]\d{3})(?![\w/-]|[.,]\d)")


def _digits(s: str) -> int:
    return sum(c.isdigit() for c in s)


@register(LOCALE, "phones", "CONTACT", score=0.9)
def phones(text: str, doc_id: str) -> list[Span]:
    """Phone and fax numbers after ``Tel.``, ``Tfno``, ``Teléfono``, ``Fax`` (lists "A / B y C" too),
    and Spanish numbers written in spaced groups (``913 36 80 00``) without a label."""
    out: list[Span] = []
    for m in _PHONE_TRIGGER.finditer(text):
        gtype = "FAX" if m.group("kind").lower() == "fax" else "PHONE"
        pos = m.end()
        for _ in range(4):
            nm = _NUM_RE.match(text, pos)
            if not nm or not (7 <= _digits(nm.group()) <= 13):
                break
            s, e = trim(text, nm.start(), nm.end(), trailing=" .-")
            if text[s] == "(" and ")" not in text[s:e]:
                s += 1
            while s < e and text[s] in "+ ":
                s += 1
            out.append(mk(doc_id, s, e, gtype))
            sep = _LIST_SEP.match(text, nm.end())
            if not sep or sep.end() == nm.end():
                break
            pos = sep.end()
    out += spans_from(_BARE_PHONE, text, doc_id, "PHONE")
    return dedupe(out)


# --- postal codes --------------------------------------------------------------------------

_ZIP_LABELLED = re.compile(r"(?i)(?<!\w)(?:C\.\s?P\.|CP|c[oó]digo\s+postal)\s*:?\s*(?P<zip>(?:E-)?\d{4,5})(?!\d)")
_ZIP_ADDRESS = re.compile(
    rf"(?<![\w/.,-])(?P<zip>(?:E-)?(?:0[1-9]|[1-4]\d|5[0-2])\d{{3}})(?![\w/]|[.,]\d)"
    rf"(?=[ \t]*(?:-[ \t]*|,[ \t]*)?(?:[{UPPER}]|\())")
# "E-41013. Sevilla": with the country prefix a five-digit code is a postal code whatever follows
_ZIP_PREFIXED = re.compile(r"(?<![\w/.,-])(?P<zip>E-(?:0[1-9]|[1-4]\d|5[0-2])\d{3})(?![\w/-]|[.,]\d)")
_ZIP_AFTER_TOWN = re.compile(
    rf"(?<=[{LOWER}] )(?P<zip>(?:0[1-9]|[1-4]\d|5[0-2])\d{{3}})(?=[.,][ \t]*[{UPPER}])")


@register(LOCALE, "postal_codes", "LOCATION", score=0.85)
def postal_codes(text: str, doc_id: str) -> list[Span]:
    """Postal codes after ``CP``/``Código postal`` and five-digit codes in addresses (``28036 Madrid``)."""
    out = spans_from(_ZIP_LABELLED, text, doc_id, "ZIP", "zip")
    for rx in (_ZIP_ADDRESS, _ZIP_AFTER_TOWN, _ZIP_PREFIXED):
        for m in rx.finditer(text):
            if re.search(r"(?i)(?:NHC|NASS|CIPA|Episodio|Col|n[ºo°]|tel|fax|tfno)\W*$", text_before(text, m.start(), 25)):
                continue
            out.append(mk(doc_id, *m.span("zip"), "ZIP"))
    return dedupe(out)


# --- streets -------------------------------------------------------------------------------

_STREET_KW = (r"(?:C/\.?|C\\|c/|Calle|calle|CALLE|Carrer|Avda\.?|Avd\.?|Av\.|Avenida|avenida|AVDA\.?|Paseo|Pº|P\.º|"
              r"Plaza|Pza\.?|Plza\.?|Rúa|Rua|Ronda|Camino|Ctra\.?|Carretera|Travesía|Trav\.?|Paraje|"
              r"Urbanización|Urb\.|Glorieta|Pasaje|Rambla|Gran\s+Vía|Vía|Polígono|Barrio|Bº|Alameda|Cuesta|"
              r"Costanilla|Plazuela|Pl\.|"
              # the same words as a note in capitals writes them
              r"CARRER|AVD\.?|AV\.|AVENIDA|PASEO|P\.º|PLAZA|PZA\.?|PLZA\.?|RÚA|RUA|RONDA|CAMINO|CTRA\.?|CARRETERA|"
              r"TRAVESÍA|TRAV\.?|PARAJE|URBANIZACIÓN|URB\.|GLORIETA|PASAJE|RAMBLA|GRAN\s+VÍA|POLÍGONO|BARRIO|"
              r"ALAMEDA|CUESTA|COSTANILLA|PLAZUELA)")   # not "PL." (a lumbar puncture) nor "VÍA" (a route)
_STREET_NAME = rf"(?:[ \t]*(?:[{UPPER}\d][{LETTER}\d'´’ºª.-]*|{NAME_PARTICLE}|[{LOWER}]+))"
_STREET_NUM = (r"(?:,?[ \t]*(?:n[ºo°]\.?|n[ ]º|N[ºo°]\.?|número|num\.?)?[ \t]*(?:\d+(?:[ \t]?[A-Za-z](?![\wº°ª.]))?(?:[ \t]*-[ \t]*\d+(?:[A-Za-z](?![\wº°ª]))?(?![\wº°ª]))?|s/n|S/N)"
               r"|,?[ \t]*km\.?[ \t]*\d+(?:[.,]\d+)?)")
_FLOOR_WORD = r"(?i:dcha|izda|izq|der|dch|esq|izqda|drcha)\.?"     # "2º dcha", "2º DCHA"
_STREET_EXTRA = (rf"(?:(?:[ \t]*[,\-./][ \t]*|[ \t]+)(?:\d{{1,3}}[ \t]*(?:º|ª|°|o|mo|\.º|\.o)?[ \t]*(?:[A-Z]\b(?![-.]\d|\.[ \t]?[A-Z]\b)|{_FLOOR_WORD})?|"
                 rf"[ºª°][ \t]?[A-Z]\b|[A-Z]\b(?!-|\.[ \t]?[A-Z]\b)|[Bb]ajo(?:[ \t]+[A-Z]\b)?|[ÁA]tico(?:[ \t]+[A-Z]\b)?|"
                 rf"[Pp]iso(?:[ \t]+\d+)?|[Pp]uerta(?:[ \t]+\d+)?|[Pp]ortal(?:[ \t]+\d+)?|[Ee]sc(?:alera)?\.?[ \t]*[A-Z\d]|"
                 rf"{_FLOOR_WORD}|[Bb]loque[ \t]+[A-Z\d]+)(?![\w]))")
_STREET = re.compile(
    rf"(?<![\w/])(?P<street>{_STREET_KW}(?:{_STREET_NAME}){{1,7}}?{_STREET_NUM}(?:{_STREET_EXTRA}){{0,4}})")


@register(LOCALE, "streets", "LOCATION", score=0.85)
def streets(text: str, doc_id: str) -> list[Span]:
    """Street addresses led by a street word, with number and floor (``C/ del Abedul 5-7, 2º dcha``,
    ``Av. Córdoba, s/n``, ``Paseo de la Castellana 261``); the postal code is left out."""
    out: list[Span] = []
    for m in _STREET.finditer(text):
        s, e = trim(text, *m.span("street"), trailing=" \t\r\n,;:-")
        # a trailing single letter followed by "." closes a sentence, but a "." on its own is punctuation
        if text[e - 1:e] == "." and not re.search(r"(?:\b[A-Za-z]|dcha|izda|izq|der|esq|Avda|Av|Urb|Pza)\.$", text[s:e]):
            e -= 1
        # the postal code that follows an address is its own span
        zm = re.search(r"[ \t,]+(?:E-)?\d{5}$", text[s:e])
        if zm:
            s, e = trim(text, s, s + zm.start(), trailing=" \t\r\n,;:-")   # "Aguilar, 90 - 46017"
        if e > s:
            out.append(mk(doc_id, s, e, "STREET"))
    return out

