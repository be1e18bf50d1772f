"""Spanish organisations and relatives, found by a head word and what follows it.

Hospitals and health centres, institutions and the makers cited after a product are the name
after its head word ("Hospital Universitario 12 de Octubre", "Universidad de Granada",
"(Allergan®, Irvine, California, EE.UU.)"); the facility rules share how such a name ends
(:func:`_facility_span`). Relatives are the kinship term with its modifier ("Hermano mayor",
"prima materna"), without the possessive: the same head-word-and-modifier reading, and in the
pack they run between hospitals and institutions, an order this module keeps.
"""
from __future__ import annotations

import re
from functools import lru_cache

from pipeline.detection.rules.common import LETTER, LOWER, TRIM_TRAILING, UPPER, mk, text_before, trim, trimmed_spans
from pipeline.detection.rules.es._common import LOCALE, NAME_PARTICLE, _drop_trailing_particles, caps_view
from pipeline.detection.rules.registry import register
from pipeline.spans import Span


# --- hospitals and health centres ----------------------------------------------------------

_HOSP_HEAD = (r"(?:Hospital(?:\s+(?:Universitario|Universitari|Clínico|Clínic|General|Regional|Provincial|Comarcal|"
              r"Materno[- ]Infantil|Infantil|Militar|Central|Nacional|Psiquiátrico|Virgen))*|Complejo\s+Hospitalario(?:\s+Universitario)?|"
              r"Complexo\s+Hospitalario(?:\s+Universitario)?|Clínica(?:\s+Universitaria)?|Policlínica|Sanatorio|"
              r"Centro\s+Hospitalario|Ciudad\s+Sanitaria|Hospital\s+de\s+Día)")
_HOSP_TAIL = rf"(?:[ \t]+(?:{NAME_PARTICLE}[ \t]+)*(?:[\"«“]?(?:[{UPPER}][{LETTER}'´’.-]*(?![\wº°ª/]|-\d)|\d{{1,2}}[ \t]+de[ \t]+[{UPPER}][{LOWER}]+)[\"»”]?))"
_HOSPITAL = re.compile(rf"(?<![\w])(?P<h>{_HOSP_HEAD}{_HOSP_TAIL}{{0,6}})")
_CENTRO_SALUD = re.compile(rf"(?<![\w])(?P<h>(?:Centro\s+de\s+Salud|C\.\s?S\.|CS|Centro\s+de\s+Atención\s+Primaria|CAP|"
                           rf"Consultorio)(?:{_HOSP_TAIL}){{1,5}})")
_HOSP_BAD_TAIL = {"Servicio", "Unidad", "Departamento", "Sección", "Área", "Calle", "Avda", "Avenida", "Paseo", "Plaza",
                  "España", "Tfno", "Tel", "Teléfono", "Fax", "E-mail", "Email", "Correo", "C", "Ctra", "Dr", "Dra",
                  "Madrid", "Barcelona", "Valencia", "Sevilla", "Planta", "Rondilla", "Travesía", "Pº", "P.º", "Carr",
                  "Pso", "Passeig", "Glorieta", "Carrera", "Edificio", "Apartado", "Urbanización", "Hospital"}
_HOSP_ABBR = {"Univ", "Dr", "Dra", "Sta", "Sto", "S", "Gral", "Ntra", "Nra", "Sra", "Pº"}


def _cut_tail(text: str, s: int, e: int) -> int:
    """End of a facility name: stop before a department, a street word or (most) cities."""
    for t in re.finditer(r"\S+", text[s:e]):
        w = t.group().strip("\"«»“”.,")
        if t.start() > 0 and (w in _HOSP_BAD_TAIL or w.startswith("C/")):
            return s + t.start()
        if t.start() > 0 and "." in t.group().rstrip("\"»”") and w.split(".")[0] not in _HOSP_ABBR and not w.isupper():
            return s + t.start() + t.group().index(".")  # "Hospital Río Hortega. Rondilla ...": the full stop ends the name
    return e


def _facility_span(text: str, s: int, e: int, trailing: str = TRIM_TRAILING) -> tuple[int, int]:
    """A matched facility or organisation name: cut by :func:`_cut_tail`, trimmed with ``trailing``,
    without trailing particles."""
    e = _cut_tail(text, s, e)
    s, e = trim(text, s, e, trailing=trailing)
    return s, _drop_trailing_particles(text, s, e)


@register(LOCALE, "hospitals", "LOCATION", score=0.8)
def hospitals(text: str, doc_id: str) -> list[Span]:
    """Hospitals and clinics by name (``Hospital Universitario 12 de Octubre``, ``Complejo Hospitalario de
    Navarra``) and health centres (``Centro de Salud Las Águilas``)."""
    out: list[Span] = []
    view = caps_view(text)    # a line in capitals read in title case ("HOSPITAL DE LA PAZ"), same offsets
    for rx, gtype in ((_HOSPITAL, "HOSPITAL"), (_CENTRO_SALUD, "HEALTHCENTER")):
        for m in rx.finditer(view):
            s, e = _facility_span(view, *m.span("h"), trailing=" \t\r\n.,;:-(")
            if re.fullmatch(r"Hospital|Cl[ií]nica(?:\s+Universitaria)?|Complejo\s+Hospitalario|Policl[ií]nica|Sanatorio", view[s:e]):
                continue  # the bare word; "Hospital Clínico Universitario" is a name in MEDDOCAN
            if "Hospital de Día" in view[s:e]:
                continue
            if view[s:e] != text[s:e] and not re.match(r"Hospital|Complejo|Complexo|Centro|Ciudad", view[s:e]):
                continue  # in capitals "CLÍNICA APARENTE" is the adjective: only a hospital's head word decides
            out.append(mk(doc_id, s, e, gtype))
    return out


# --- relatives -----------------------------------------------------------------------------

_KIN = (r"(?:padre|madre|herman[oa]s?|hij[oa]s?|t[ií][oa]s?|prim[oa]s?|abuel[oa]s?|marido|espos[oa]|"
        r"sobrin[oa]s?|niet[oa]s?|cuñad[oa]s?|suegr[oa]s?|progenitor(?:es)?|familia|familiares|"
        r"bisabuel[oa]s?|hermanastr[oa]s?|padrastro|madrastra)")
#: The kinship words of the relatives rule (risk scoring reads them too: services.risk_evidence).
KINSHIP_WORDS = _KIN
_KIN_MOD = r"(?:mayor|menor|materno|materna|paternos?|paternas?|maternos|maternas|gemel[oa]|pequeñ[oa]|primogénit[oa])"
_FAMILY = re.compile(
    rf"(?<![\w])(?P<fam>(?:(?:ambos|ambas)\s+)?(?i:{_KIN})(?:\s+(?i:{_KIN_MOD}))?"
    rf"(?:\s+(?i:de\s+(?:su\s+)?(?:abuel[oa]|padre|madre)\s+{_KIN_MOD}))?)(?![\w])")   # "PRIMO MATERNO" too
# words that make a kinship term generic rather than this patient's relative
_FAMILY_SKIP_BEFORE = re.compile(r"(?i)(?:\b(?:personales\s+(?:ni|y|o)|soluci[oó]n|c[eé]lulas?|tintura|antecedentes|historia|médico|medicina|planificación|unidad|consentimiento\s+de\s+la|"
                                 r"grupo|núcleo|vida|apoyo|ámbito|entorno)\s+(?:de\s+)?(?:la\s+|los\s+|las\s+)?|Hospital\s+(?:de\s+)?)$")
_PARENTS = re.compile(r"(?i)^padres$")


@register(LOCALE, "relatives", "OTHER", score=0.7)
def relatives(text: str, doc_id: str) -> list[Span]:
    """The patient's relatives (``Hermano mayor``, ``prima materna``, ``su madre``, ``dos hermanas``):
    MEDDOCAN's FAMILIARES_SUJETO_ASISTENCIA. "padres" is left out, as the gold does."""
    out: list[Span] = []
    for m in _FAMILY.finditer(text):
        s, e = m.span("fam")
        if _FAMILY_SKIP_BEFORE.search(text_before(text, s, 40)):
            continue
        if re.match(r"(?i)familia(?:r(?:es)?)?\s*$", text[s:e]) and re.match(r"\s*(?:de\s+(?:la\s+)?(?:paciente|patolog|enfermedad))", text[e:e + 30]):
            continue
        out.append(mk(doc_id, s, e, "FAMILY"))
    return out


# --- institutions --------------------------------------------------------------------------

_INST_HEAD = (r"(?:Universidad|Universitat|Universidade|Facultad|Facultat|Fundación|Fundació|Instituto|Institut|"
              r"Escuela\s+Universitaria|Consejería|Conselleria|Centro\s+de\s+Transfusión|Centro\s+Nacional|Juzgado|"
              r"Ministerio|Servicio\s+(?:Andaluz|Madrileño|Vasco|Gallego|Navarro|Canario|Murciano|Aragonés|Cántabro|"
              r"Extremeño)\s+de\s+Salud|Organización\s+Nacional\s+de\s+Trasplantes|Residencia)")
_INSTITUTION = re.compile(rf"(?<![\w])(?P<i>{_INST_HEAD}(?:[ \t]+(?:{NAME_PARTICLE}[ \t]+)*[{UPPER}][{LETTER}'´’-]*(?![\wº°ª/])){{1,7}})")
_MAKER = re.compile(rf"(?<=®)[ \t]*(?:[\d,.]+[ \t]*%[ \t]*)?,[ \t]*(?P<i>[{UPPER}][{LETTER}&.'-]*(?:[ \t]+(?:&[ \t]+)?[{UPPER}][{LETTER}&.'-]*){{0,3}})(?=[ \t]*[,)])")


@register(LOCALE, "institutions", "LOCATION", score=0.75)
def institutions(text: str, doc_id: str) -> list[Span]:
    """Universities, faculties, foundations, institutes, courts (``Universidad de Granada``,
    ``Fundació Puigvert``) and manufacturers named after a product (``Travatan®, Alcon,``)."""
    out: list[Span] = []
    view = caps_view(text)    # a line in capitals read in title case, same offsets
    for m in _INSTITUTION.finditer(view):
        s, e = _facility_span(view, *m.span("i"))
        if e > s:
            out.append(mk(doc_id, s, e, "ORGANIZATION"))
    citation = maker_citations(text)
    places = {(s, e) for s, e, kind in citation if kind == "CITY"}
    makers = [mk(doc_id, s, e, "ORGANIZATION") for s, e, kind in citation if kind == "ORGANIZATION"]
    return out + makers + [m for m in trimmed_spans(_MAKER, text, doc_id, "ORGANIZATION", "i")
                           if (m.start, m.end) not in places and all(m.start >= o.end or o.start >= m.end for o in makers)]


# --- a maker's citation: "(Allergan®, Irvine, California, EE.UU.)" ------------------------------

_PARENTHESIS = re.compile(r"\(([^()\n]{3,160})\)")
# words that make an item a company, not a place
_COMPANY_WORD = re.compile(r"(?i)\b(?:inc|co|corp|corporation|company|ltd|llc|gmbh|ag|spa|s\.?\s?a|s\.?\s?l|ltda|"
                           r"medical|scientific|laboratori(?:es|os?)|labs?|pharma\w*|healthcare|instruments?|surgical|"
                           r"group|grupo|systems?|technolog\w+|devices?)\b\.?|[&®™+/]|\band\b|\by\b|\d")
_PLACE_ITEM = re.compile(rf"[{UPPER}][{LETTER}.'-]*(?:[ \t]+(?:{NAME_PARTICLE}[ \t]+)?[{UPPER}][{LETTER}.'-]*){{0,2}}")
_MAKER_ITEM = re.compile(rf"[{UPPER}][{LETTER}'-]*(?:[ \t]+(?:&[ \t]+)?[{UPPER}][{LETTER}.'-]*){{0,3}}")
_EXTRA_COUNTRIES = ("USA", "U.S.A.", "EE. UU.", "EE UU", "UK", "U.K.")


@lru_cache(maxsize=1)
def _us_states() -> frozenset[str]:
    """Lower-cased US states, names and postal codes: makers cite them as a country ("Irvine, CA")."""
    from pipeline.locales import load_list
    return frozenset(x.lower() for x in load_list("en", "states"))


@lru_cache(maxsize=1)
def _citation_ends() -> frozenset[str]:
    """Lower-cased names that close a maker's citation: countries, and US states."""
    from pipeline.locales import load_list
    return frozenset(x.lower() for x in (*load_list(LOCALE, "countries"), *_EXTRA_COUNTRIES)) | _us_states()


def maker_citations(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, generic type)`` of the maker and the places in a product's citation, a bracket
    closing on a country or a US state: ``(Allergan®, Irvine, California, EE.UU.)``,
    ``(Geistlich, Wolhusen, Suiza)``, ``(Johnson & Johnson, Nuevo Brunswick, NJ)`` (the state too).

    In MEDDOCAN's gold every place between the maker and the country is a TERRITORIO and a maker
    written first without a product mark an INSTITUCION; a sequence model reads the town as a
    second maker ("Irvine") or passes over an unknown one ("Wolhusen"), and the product-mark rule
    above took the town after "Allergan®," for a maker. The places are the (at most two) items
    before the country that look like a place name, back to the first item or to one that looks
    like a company or is on the makers list; the country itself is left to the country list. On
    MEDDOCAN train + dev the rule gives 30 spans, all 30 exactly gold.

    >>> t = "(Allergan®, Irvine, California, EE.UU.) y (Geistlich, Wolhusen, Suiza)"
    >>> [(t[s:e], kind) for s, e, kind in maker_citations(t)]
    [('Irvine', 'CITY'), ('California', 'CITY'), ('Geistlich', 'ORGANIZATION'), ('Wolhusen', 'CITY')]
    """
    out: list[tuple[int, int, str]] = []
    for m in _PARENTHESIS.finditer(text):
        items: list[tuple[int, int]] = []
        for part in re.finditer(r"[^,;]+", m.group(1)):
            s, e = trim(text, m.start(1) + part.start(), m.start(1) + part.end(), trailing=" \t")
            if e > s:
                items.append((s, e))
        if len(items) < 3:
            continue
        end = text[items[-1][0]:items[-1][1]].lower()
        if end not in _citation_ends():
            continue
        places: list[tuple[int, int, str]] = []
        for s, e in reversed(items[1:-1]):
            item = text[s:e]
            if len(places) == 2 or _COMPANY_WORD.search(item) or not _PLACE_ITEM.fullmatch(item) \
                    or item.lower() in _makers():
                break
            places.append((s, e, "CITY"))
        if not places:
            continue
        first = text[items[0][0]:items[0][1]]
        if places[-1][0] == items[1][0] and _MAKER_ITEM.fullmatch(first) and not re.search(r"\d", first):
            out.append((*items[0], "ORGANIZATION"))
        out.extend(reversed(places))
        if end in _us_states():         # a country is left to the country list; a state code ("NJ") is not on it
            out.append((*items[-1], "CITY"))
    return out


@lru_cache(maxsize=1)
def _makers() -> frozenset[str]:
    """Lower-cased names on the locale's makers list: such an item is the maker, not a town."""
    from pipeline.locales import load_list
    return frozenset(x.lower() for x in load_list(LOCALE, "manufacturers"))


@register(LOCALE, "maker_places", "LOCATION", score=0.8)
def maker_places(text: str, doc_id: str) -> list[Span]:
    """Towns and states in a product's citation (``(Allergan®, Irvine, California, EE.UU.)``)."""
    return [mk(doc_id, s, e, kind) for s, e, kind in maker_citations(text) if kind == "CITY"]
