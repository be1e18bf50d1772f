"""Spanish dates, ages and the patient's sex.

Dates are the whole expression ("10 de octubre de 2016", "abril del 2010", "año 2004",
"12-abril-2005"); a bare year only after "en", "desde", "hasta", "(". Ages include the unit
("53 años", "tres meses y medio"), not "de edad". The sex rule is here because it reads the
opening description the age is part of ("Varón de 65 años") and shares the age's quantity,
unit and relative's-age filter.
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import LOWER, UPPER, merge_overlapping, mk, spans_from, text_before
from pipeline.detection.rules.es._common import LOCALE
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

MONTHS = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
          "setiembre", "octubre", "noviembre", "diciembre")
MONTH_ABBR = ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "sept", "oct", "nov", "dic")
SEASONS = ("primavera", "verano", "otoño", "invierno")
NUM_WORDS = ("un", "una", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
             "once", "doce", "trece", "catorce", "quince", "dieciséis", "dieciseis", "diecisiete",
             "dieciocho", "diecinueve", "veinte", "veintiuno", "veintiún", "veintidós", "veintitrés",
             "veinticuatro", "veinticinco", "veintiséis", "veintisiete", "veintiocho", "veintinueve",
             "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa", "cien")

_MONTH = r"(?:%s)" % "|".join(MONTHS)
_MONTH_ANY = r"(?:%s|(?:%s)\.?)" % ("|".join(MONTHS), "|".join(MONTH_ABBR))
_YEAR4 = r"(?:1[89]\d\d|20\d\d)"
_NUMW = r"(?:%s)" % "|".join(sorted(NUM_WORDS, key=len, reverse=True))


# --- dates ---------------------------------------------------------------------------------

# each pattern with the characters it can start with: Python's re tries a pattern that opens with a
# lookbehind at every position of a note, and a lookahead for the first character rejects most
# positions at once (the dates rule 2x faster on MEDDOCAN train + dev, the same matches)
_MONTH_START = "[%s]" % "".join(sorted({m[0].lower() for m in (*MONTHS, *MONTH_ABBR)}))
_DAY_OR_MONTH_START = r"[\d%s]" % _MONTH_START[1:-1]
_SEASON_START = "[%s]" % "".join(sorted({s[0].lower() for s in SEASONS}))
_DATE_PATTERNS = [
    # 10/10/1963, 3-3-46, 10.10.1963
    (r"\d", r"(?<![\d/.-])(?:0?[1-9]|[12]\d|3[01])(?P<sep>[/.-])(?:0?[1-9]|1[0-2])(?P=sep)(?:\d{4}|\d{2})(?![\d/-]|\.\d)"),
    # 2016-10-10
    (r"[12]", rf"(?<![\d/.-]){_YEAR4}-(?:0?[1-9]|1[0-2])-(?:0?[1-9]|[12]\d|3[01])(?![\d-])"),
    # 10/2016, 4/66 (month/year)
    (r"\d", rf"(?<![\d/.,-])(?:0?[1-9]|1[0-2])/(?:{_YEAR4}|[4-9]\d)(?![\d/]|,\d)"),
    # 12-abril-2005, 12-abr-05
    (r"\d", rf"(?i)(?<![\w-])(?:0?[1-9]|[12]\d|3[01])[-/ ](?:{_MONTH_ANY})[-/](?:\d{{4}}|\d{{2}})(?![\w-])"),
    # diciembre-08, sep-04, marzo/2009 (month and year, hyphen or slash; common in timelines)
    (_MONTH_START, rf"(?i)(?<![\w-])(?:{_MONTH_ANY})[-/](?:{_YEAR4}|\d{{2}})(?![\w-]|[.,/]\d)"),
    # (el) 10 de octubre (de|del) (año) 2016 | octubre de 2016 | Mayo 2003 | Junio 04 | octubre
    (_DAY_OR_MONTH_START, rf"(?i)(?<![\w-])(?:(?:0?[1-9]|[12]\d|3[01])(?:º|o)?\s+de\s+)?{_MONTH}(?:\s+(?:de(?:l)?\s+)?(?:(?:año|a\u00f1o)\s+)?(?:{_YEAR4}|\d{{2}})(?![\d,.]\d))?(?![\w-])"),
    # primavera de 2004, verano del 2010
    (_SEASON_START, rf"(?i)(?<![\w-])(?:{'|'.join(SEASONS)})\s+(?:de(?:l)?\s+)?{_YEAR4}(?!\d)"),
    # (el) año 2004
    (r"[aA]", rf"(?<![\w-])(?:año|AÑO)\s+{_YEAR4}(?!\d)"),
    # navidad(es) de 2004
    (r"n", rf"(?i)(?<![\w-])Navidad(?:es)?\s+(?:de(?:l)?\s+)?{_YEAR4}(?!\d)"),
]


def _starting_with(first: str, pattern: str) -> str:
    """``pattern`` behind a lookahead for its first character ``first`` (after a leading (?i))."""
    flags = "(?i)" if pattern.startswith("(?i)") else ""
    return f"{flags}(?={first}){pattern[len(flags):]}"


_DATE_RES = [re.compile(_starting_with(first, p)) for first, p in _DATE_PATTERNS]
# (the lookahead for the year's first digit spares trying seven lookbehinds at every position of
# a note: the same matches, 10x faster on MEDDOCAN)
_YEAR_AFTER = "|".join(rf"(?<=\b{w} )" for w in ("en", "En", "EN", "desde", "Desde", "DESDE", "hasta", "Hasta", "HASTA"))
_BARE_YEAR = re.compile(rf"(?=[12])(?:{_YEAR_AFTER}|(?<=\())({_YEAR4})(?![\d/.,-]\d|\d|\s*(?:mg|ml|UI|cc|kg|mm|cm|pacientes|casos|%))")
# "Hospital Universitario 12 de Octubre" is a hospital, "mayo" a capitalised... still a month
_HOSPITAL_DATE = re.compile(r"(?:Hospital|HOSPITAL)(?:\s+(?:Universitario|UNIVERSITARIO))?\s+[\"«“]?$")


@register(LOCALE, "dates", "DATE", score=0.9)
def dates(text: str, doc_id: str) -> list[Span]:
    """Numeric (10/10/1963, 4/66), textual (10 de octubre de 2016, abril del 2010, Mayo 2003),
    seasonal (primavera de 2004) and ``año 2004`` dates; bare years after en/desde/hasta/(."""
    found: list[tuple[int, int]] = []
    for rx in _DATE_RES:
        for m in rx.finditer(text):
            if _HOSPITAL_DATE.search(text_before(text, m.start(), 30)):
                continue
            found.append(m.span())
    for m in _BARE_YEAR.finditer(text):
        found.append(m.span(1))
    # keep the longest of nested matches ("octubre de 2016" inside "10 de octubre de 2016")
    return merge_overlapping(found, doc_id, "DATE")


# --- ages ----------------------------------------------------------------------------------

_UNIT = r"(?:años|año|a\.|meses|mes|días|dias|día|dia|semanas|semana|horas)"
_QTY = rf"(?:\d{{1,3}}(?:[.,]5)?|{_NUMW}(?:\s+y\s+{_NUMW})?)"
_AGE = re.compile(
    rf"(?i)(?<![\w,.])(?P<age>{_QTY}\s+{_UNIT}(?:\s+y\s+(?:medio|media|{_QTY}\s+{_UNIT}))?)(?!\w)")
_AGE_BEFORE_OK = re.compile(
    r"(?i)(?:\b(?:de|los|las|tenía|tiene|cumplidos|edad|con|paciente|varón|mujer|niño|niña|lactante)\s*:?|:)\s*$")
_AGE_BEFORE_BAD = re.compile(
    r"(?i)\b(?:más|menos|plazo|después|cabo|partir|antes|periodo|período|intervalo|tras|hace|hacía|durante|"
    r"lleva|llevaba|últimos|primeros|evolución|seguimiento|historia|clínica|cuadro|dolor|espacio|transcurso|"
    r"mayores|menores|mayor|menor|superior|inferior|entre|al|cerca|alrededor|aproximadamente|unos|unas)\s+(?:de\s+)?$")
_AGE_AFTER_BAD = re.compile(
    r"(?i)^\s*(?:de\s+(?:evolución|seguimiento|tratamiento|duración|antigüedad|diagnóstico|vida\s+media|latencia|"
    r"intervalo|retraso|espera|consumo|ingreso|hemodiálisis|diálisis|diferencia)|antes|atrás|después|más\s+tarde|"
    r"previos?|tras|desde|posteriores?|post|de\s+(?:la|el|su|sus|gestaci[oó]n|embarazo|amenorrea)\b|del\b|"
    r"transcurridos|que\s+(?:estuvo|lleva|llevaba))")
# a duration named a few words before the number: "un periodo aproximado de 3 años", "el tiempo de
# evolución era de 3 años", "la duración del tratamiento fue de un año y medio", "luego de 6 años"
_DURATION_BEFORE = re.compile(
    r"(?i)\b(?:periodo|período|evolución|duración|tiempo|luego|después|tras|intervalo|plazo|seguimiento)\b"
    r"[^.;:\n]{0,30}\bde\s*$")
_PERSON_BEFORE = re.compile(
    r"(?i)\b(?:var[oó]n|mujer|niñ[oa]|lactante|paciente|reci[eé]n\s+nacid[oa]|neonato|beb[eé]|edad|hombre|"
    r"adolescente|chic[oa]|joven|ni[ñn]a)\b[^.;\n]{0,25}\bde\s*$|\bEdad\s*:\s*$")
_FAMILY_BEFORE = re.compile(
    r"(?i)\b(?:herman[oa]s?|hij[oa]s?|padre|madre|t[ií][oa]s?|prim[oa]s?|abuel[oa]s?|espos[oa]|marido|pareja|"
    r"sobrin[oa]s?|niet[oa]s?|su\s+mujer|cuñad[oa]|suegr[oa]|gemel[oa]|familiar(?:es)?|progenitor)\b[^.;\n]{0,30}$")


# "a los 7 meses de edad", "al cuarto mes de vida", "al mes de vida": the age at which something
# happened to the patient (a bare "a los 2 meses" is a follow-up interval, see ages())
_ORDINAL = r"(?:primer|segundo|tercer|cuarto|quinto|sexto|s[eé]ptimo|octavo|noveno|d[eé]cimo)"
_AGE_AT = re.compile(
    rf"(?i)\b(?:a\s+l[oa]s|al)\s+(?P<age>(?:{_QTY}|{_ORDINAL})\s+(?:meses|mes|días|dias|día|dia|semanas|semana)|mes)"
    rf"\s+de\s+(?:vida|edad)\b")


@register(LOCALE, "ages", "AGE", score=0.88)
def ages(text: str, doc_id: str) -> list[Span]:
    """Patient ages with their unit (``70 años``, ``tres meses y medio``, ``2 años y 8 meses``,
    ``al cuarto mes de vida``).

    Durations ("hace 5 años", "2 años de evolución") and relatives' ages ("hermano de 65 años")
    are left out; the header ``Edad:`` field is read by :func:`header_fields`.
    """
    out: list[Span] = []
    for m in _AGE.finditer(text):
        s, e = m.span("age")
        before = text_before(text, s, 60)
        after = text[e:e + 30]
        if _AGE_BEFORE_BAD.search(before) or _AGE_AFTER_BAD.search(after) or _DURATION_BEFORE.search(before):
            continue
        if not _AGE_BEFORE_OK.search(before):
            continue
        if _FAMILY_BEFORE.search(before[-45:]):
            continue
        unit = m.group("age").split()[1].lower() if len(m.group("age").split()) > 1 else ""
        is_years = unit.startswith("año") or unit == "a."
        if unit.startswith("hora") and not re.match(r"\s+de\s+vida", after):
            continue
        if re.search(r"(?i)\b(?:en|durante|tras|desde)\s+(?:los|las)\s*$|gestante\s+de\s*$|\bcon\s*$", before):
            continue
        if not is_years and re.search(r"(?i)\b(?:a|en|durante|tras)\s+(?:los|las)\s*$", before):
            continue  # "a los 2 meses": a follow-up interval
        if not is_years and not (_PERSON_BEFORE.search(before[-40:]) or re.match(r"\s+de\s+(?:edad|vida)", after)):
            continue  # "un ciclo de 15 días"
        # "a los 6 y 8 años": not an age of the patient in the gold; "de edad" optional
        out.append(mk(doc_id, s, e, "AGE"))
    for m in _AGE_AT.finditer(text):
        s, e = m.span("age")
        if not _FAMILY_BEFORE.search(text_before(text, m.start(), 45)) and all(x.end <= s or x.start >= e for x in out):
            out.append(mk(doc_id, s, e, "AGE"))
    return sorted(out, key=lambda x: (x.start, x.end))


# --- sex -----------------------------------------------------------------------------------

_SEX = re.compile(
    rf"(?<![\w])(?P<sex>[Vv]ar[oó]n|[Mm]ujer|[Hh]ombre|[Nn]iña|[Nn]iño|[Ff]emenin[oa]|[Mm]asculin[oa])"
    rf"(?=(?:\s+[{LOWER}]+){{0,3}}\s+de\s+{_QTY}\s+{_UNIT})")
# the same in a note written in capitals ("VARÓN DE 65 AÑOS"): every letter a capital
_SEX_CAPS = re.compile(
    rf"(?<![\w])(?P<sex>VAR[OÓ]N|MUJER|HOMBRE|NIÑA|NIÑO|FEMENIN[OA]|MASCULIN[OA])"
    rf"(?=(?:\s+[{UPPER}]+){{0,3}}\s+(?i:de\s+{_QTY}\s+{_UNIT}))")
_SEX_AFTER_PATIENT = re.compile(r"(?i)(?:paciente|sexo)\s+(?P<sex>var[oó]n|mujer|hombre|femenin[oa]|masculin[oa])\b")


@register(LOCALE, "sex", "OTHER", score=0.85)
def sex(text: str, doc_id: str) -> list[Span]:
    """The patient's sex in the opening description (``Varón de 65 años``, ``paciente mujer``)."""
    out = (spans_from(_SEX, text, doc_id, "SEX", "sex") + spans_from(_SEX_CAPS, text, doc_id, "SEX", "sex")
           + spans_from(_SEX_AFTER_PATIENT, text, doc_id, "SEX", "sex"))
    return [s for s in dedupe(out) if not _FAMILY_BEFORE.search(text_before(text, s.start, 45))]

