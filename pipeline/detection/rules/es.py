"""Spanish rule pack, tuned on MEDDOCAN's annotation boundaries.

Boundaries follow the MEDDOCAN gold (train split), because strict evaluation counts an
off-by-one span as both a miss and a false alarm:

- ages include the unit ("53 años", "tres meses y medio"), not "de edad";
- dates are the whole expression ("10 de octubre de 2016", "abril del 2010", "año 2004",
  "12-abril-2005"); a bare year only after "en", "desde", "hasta", "(";
- IDs are the value after the label, spaces kept ("NASS: 26 63514095" -> "26 63514095",
  "NºCol: 28 28 70973" -> "28 28 70973", "CIPA: nhc-743612" -> "743612");
- addresses: the street with its number and floor ("Calle Carmen Romero, 23, 1D",
  "Av. Córdoba, s/n"); the postal code and the town are separate spans;
- phone and fax numbers keep their inner spaces ("913 36 80 00").

- relatives are the kinship term with its modifier ("Hermano mayor", "prima materna"), without
  the possessive; institutions the name after its head word ("Universidad de Granada").

Most MEDDOCAN reports open with a labelled header ("NHC: ...", "Domicilio: ...", "Edad: ...");
:func:`header_fields` reads it as fields, which is both precise and exact on boundaries. The
other rules work on running text.
"""
from __future__ import annotations

import re
from functools import lru_cache

from pipeline.detection.rules.registry import register
from pipeline.detection.rules.common import (LETTER, LOWER, TRIM_TRAILING, UPPER, merge_overlapping, mk, register_common,
                                   spans_from, text_before, trim, trimmed_spans)
from pipeline.spans import Span, dedupe

LOCALE = "es"
register_common(LOCALE)

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
_TITLE = r"(?:(?:Dr|Dra|DR|DRA|Dres|Sr|Sra|Srta|Prof|Profa|D|Dña|Dª)(?:\.:?|:|(?=[ \t]))[ \t]*)+"

NAME_TOKEN = rf"(?:M(?:ª|\.ª|\.a)|[{UPPER}](?:[{LETTER}'´’-]*[{LETTER}])?)(?:\.(?=[ \t]|$)|(?![\wº°ª/.]))"
NAME_PARTICLE = r"(?:de|del|la|las|los|y|i|da|do|dos|das|van|von|di|du|el)"


# --- header fields -------------------------------------------------------------------------

# label (regex) -> generic type. Order matters: longer labels first.
HEADER_LABELS: list[tuple[str, str]] = [
    (r"Fecha\s+de\s+nacimiento", "DATE"),
    (r"Fecha\s+de\s+(?:ingreso|alta|consulta|intervenci[oó]n|defunci[oó]n|exitus)", "DATE"),
    (r"Pa[ií]s\s+de\s+(?:nacimiento|origen|procedencia)", "COUNTRY"),
    (r"Pa[ií]s", "COUNTRY"),
    (r"Nacionalidad", "COUNTRY"),
    (r"Localidad\s*/\s*Provincia", "CITY"),
    (r"Localidad|Municipio|Ciudad|Poblaci[oó]n", "CITY"),
    (r"Provincia", "STATE"),
    (r"C[oó]digo\s+[Pp]ostal|C\.\s?P\.|CP", "ZIP"),
    (r"Domicilio|Direcci[oó]n", "STREET"),
    (r"Nombre", "PATIENT"),
    (r"Apellidos?", "PATIENT"),
    (r"NHC|N\.?H\.?C\.?|CIPA|CIP|N[ºo°]\s*(?:de\s+)?[Hh]istoria(?:\s+[Cc]l[ií]nica)?|Historia\s+[Cc]l[ií]nica", "MEDICALRECORD"),
    (r"NASS|NSS|N[ºo°]\s*(?:de\s+)?(?:la\s+)?Seguridad\s+Social|Tarjeta\s+[Ss]anitaria|TIS", "HEALTHPLAN"),
    (r"Episodio|N[ºo°]\s*(?:de\s+)?[Ee]pisodio", "ENCOUNTER"),
    (r"DNI|NIF|NIE|Pasaporte", "NATIONALID"),
    (r"Edad", "AGE"),
    (r"Sexo", "SEX"),
]
_HEADER_ANY = "|".join(f"(?:{p})" for p, _ in HEADER_LABELS)
_HEADER_LINE = re.compile(rf"(?mi)^[ \t\ufeff]*(?:{_HEADER_ANY})[ \t]*:")
_HEADER_FIELD = re.compile(rf"(?i)(?<![\w/])(?P<label>{_HEADER_ANY})[ \t]*:[ \t]*")
_HEADER_TYPES = [(re.compile(rf"(?i)(?:{p})$"), t) for p, t in HEADER_LABELS]
# labels that end a value in the middle of a header line ("Edad: 70 años Sexo: H.")
_INLINE_STOP = re.compile(r"\s(?:Sexo|Edad|NºCol|Nº\s*Col|N\.º\s*Col|Col\.|NHC|NASS|CP|Tel[eé]fono|Tfno|Fax)\s*:")


def _line_end(text: str, pos: int) -> int:
    """Offset of the end of the line ``pos`` is on (its newline, or the end of the text)."""
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _header_type(label: str) -> str | None:
    for rx, t in _HEADER_TYPES:
        if rx.match(label):
            return t
    return None


# Between a town and its province in one field: a comma, a full stop after a word of four letters
# or more that is no abbreviation ("Sta.", "Cdad. Real"), or the brackets round the province.
_PLACE_SEPARATOR = re.compile(rf"[ \t]*,[ \t]*|(?<=[{LETTER}]{{4}})\.[ \t]+(?=[{UPPER}])|[ \t]*\([ \t]*|[ \t]*\)")
_PLACE_ABBREVIATIONS = {"cdad", "prov", "pcia", "avda", "gral", "dpto", "depto", "mpio", "munic"}


def _place_cuts(text: str, s: int, e: int) -> list[tuple[int, int]]:
    """The separators between the places of one field value ``text[s:e]``."""
    cuts = []
    for m in _PLACE_SEPARATOR.finditer(text, s, e):
        if text[m.start()] == "." and re.search(r"\w+$", text[s:m.start()]).group().lower() in _PLACE_ABBREVIATIONS:
            continue
        cuts.append(m.span())
    return cuts


@register(LOCALE, "header_fields", "ID", score=0.97,
          type_by_schema={})
def header_fields(text: str, doc_id: str) -> list[Span]:
    """Values of labelled header lines (``NHC: 368503.``, ``Domicilio: C/ Lavapiés, 94``, ``Edad: 70 años``)."""
    out: list[Span] = []
    for lm in _HEADER_LINE.finditer(text):
        line_end = _line_end(text, lm.start())
        pos = lm.start()
        while True:
            fm = _HEADER_FIELD.search(text, pos, line_end)
            if not fm:
                break
            gtype = _header_type(re.sub(r"\s+", " ", fm.group("label")).strip())
            vstart = fm.end()
            nxt = _HEADER_FIELD.search(text, vstart, line_end)
            stop = _INLINE_STOP.search(text, vstart, line_end)
            vend = min(x.start() for x in (nxt, stop) if x) if (nxt or stop) else line_end
            pos = vend if vend > vstart else vstart + 1
            if gtype is None:
                continue
            s, e = trim(text, vstart, vend)
            if gtype == "MEDICALRECORD":
                m = re.match(r"(?i)nhc\s*[-/]\s*", text[s:e])   # "nhc-150679", "nhc/976421": the key goes
                if m:
                    s += m.end()
            if e <= s or not re.search(r"\w", text[s:e]):
                continue
            if gtype == "PATIENT" and not re.match(rf"[{UPPER}]", text[s]):
                continue
            if gtype in ("MEDICALRECORD", "HEALTHPLAN", "ENCOUNTER", "NATIONALID", "ZIP") and not re.search(r"\d", text[s:e]):
                continue
            cuts = _place_cuts(text, s, e) if gtype in ("CITY", "STATE", "COUNTRY") else []
            if cuts:
                # "Santiago de Compostela, A Coruña", "Monterrey. Nvo León", "Puerto de Santa María
                # (Cádiz)": town and province are two spans
                cuts = [s] + [x for span in cuts for x in span] + [e]
                for ps, pe in zip(cuts[::2], cuts[1::2]):
                    ps, pe = trim(text, ps, pe)
                    if pe > ps:
                        out.append(mk(doc_id, ps, pe, gtype))
                continue
            out.append(mk(doc_id, s, e, gtype))
    return out


# --- names after titles and signature labels ---------------------------------------------

_NAME_STOP_WORDS = {
    "Hospital", "Servicio", "Unidad", "Departamento", "Dpto", "Sección", "Complejo", "Clínica", "Clinica",
    "Centro", "Calle", "Avda", "Avenida", "Av", "Paseo", "Plaza", "Correo", "Email", "E-mail", "Mail",
    "Tel", "Teléfono", "Tfno", "Tlf", "Fax", "Facultad", "Universidad", "Instituto", "Fundación", "Área",
    "Residencia", "Consulta", "Urgencias", "Médico", "Especialista", "Jefe", "Adjunto", "Medicina",
    "Cirugía", "Oftalmología", "Pediatría", "Urología", "Nefrología", "Cardiología", "Dermatología",
    "Ginecología", "Neurología", "Oncología", "Radiología", "Anatomía", "Traumatología", "Psiquiatría",
    "C", "NºCol", "Nº", "Col", "Ctra", "Carretera", "Rúa", "Ronda", "Camino", "Pº", "Gran", "Vía",
    "Licenciado", "Licenciada", "Doctor", "Doctora", "Enfermera", "Enfermero", "Profesor", "Profesora",
    "Responsable", "Remitido", "España", "Dirección", "Paciente", "Apartado", "Urbanización",
    "Grupo", "Departament", "Correos", "Cátedra", "Servei", "Institut", "Fundació", "Laboratorio", "Planta",
    "Edificio", "Avinguda", "Carrer", "Passeig", "Plaça", "Pza", "Urb", "Polígono", "Ciudad", "Campus",
}
_PLACE_BEFORE = re.compile(
    r"(?:C/|c/|Calle|calle|Carrer|Paseo|Pº|Pza\.?|Plaza|Avda\.?|Av\.?|Avenida|Hospital|Clínica|Centro|Rúa|Ronda|"
    r"Camino|Instituto|Fundación|Universitario|Colegio|Residencia)[ \t]*(?:del?[ \t]+|de[ \t]+la[ \t]+)?$")
_NAME_RUN = re.compile(
    rf"(?P<name>{NAME_TOKEN}(?:[ \t]+(?:{NAME_PARTICLE}[ \t]+)*{NAME_TOKEN}){{0,6}})")
_TRAILING_PARTICLE = re.compile(rf"[ \t]+{NAME_PARTICLE}$")


def _drop_trailing_particles(text: str, s: int, e: int) -> int:
    """End of ``text[s:e]`` without the particles it ends with ("Juan de", "Hospital de la")."""
    while True:
        mm = _TRAILING_PARTICLE.search(text[s:e])
        if not mm:
            return e
        e = s + mm.start()


def _name_after(text: str, pos: int, limit: int) -> tuple[int, int] | None:
    """The run of capitalised words (with Spanish particles) starting at ``pos``, without stop words."""
    m = _NAME_RUN.match(text, pos, limit)
    if not m:
        return None
    # cut at the first stop word or at a dotted abbreviation that ends a sentence
    tokens = list(re.finditer(r"\S+", m.group("name")))
    end = m.start()
    for t in tokens:
        word = t.group().rstrip(".,")
        if word in _NAME_STOP_WORDS or word.split("/")[0] in _NAME_STOP_WORDS:
            break
        end = m.start() + t.end()
        if t.group().endswith(".") and len(word) > 2:
            break  # "García." closes the name
    s, e = trim(text, m.start(), end)
    e = _drop_trailing_particles(text, s, e)
    return (s, e) if e > s else None


_SIGNATURE = re.compile(
    rf"(?m)^[ \t\ufeff]*(?:M[eé]dico|Responsable\s+cl[ií]nico|Rsponsable\s+m[eé]dico|Responsable|Remitido\s+por|"
    rf"Firmado(?:\s+por)?|Facultativo)[ \t]*:[ \t]*(?:{_TITLE})?")
_TITLED = re.compile(rf"(?<![\w.])(?P<title>Dr|Dra|DR|DRA|Dres|doctor|doctora|Prof|Profa|Sr|Sra|Srta|Dña|Don|Doña)\.?:?"
                     rf"(?:[ \t]+(?:D|Dña|Dª|Dr|Dra)\.)*[ \t]*(?=[{UPPER}])")


@register(LOCALE, "doctor_names", "NAME", score=0.9)
def doctor_names(text: str, doc_id: str) -> list[Span]:
    """Names after signature labels (``Médico:``, ``Remitido por:``) and after titles (``Dra. Ana Ruiz``).

    The title is never part of the name. ``Dr./Dra./Prof.`` and signature labels give DOCTOR;
    ``Sr./Sra./Don/Doña`` give PATIENT (clinical notes address patients and relatives so).
    """
    out: list[Span] = []
    for m in _SIGNATURE.finditer(text):
        line_end = _line_end(text, m.end())
        r = _name_after(text, m.end(), line_end)
        if r:
            out.append(mk(doc_id, r[0], r[1], "DOCTOR"))
    for m in _TITLED.finditer(text):
        if _PLACE_BEFORE.search(text_before(text, m.start(), 30)):
            continue  # "Calle del Dr. Esquerdo", "Hospital Dr. Peset": a place, not a person
        line_end = _line_end(text, m.end())
        r = _name_after(text, m.end(), line_end)
        if r:
            gtype = "PATIENT" if m.group("title") in ("Sr", "Sra", "Srta", "Dña", "Don", "Doña") else "DOCTOR"
            out.append(mk(doc_id, r[0], r[1], gtype))
    return dedupe(out)


# --- professional licence numbers ----------------------------------------------------------

_COLEGIADO = re.compile(
    r"(?:N[ºo°]\.?\s*(?:de\s+)?Col(?:egiado)?\.?|N\.º\s*Col\.?|n[úu]mero\s+de\s+colegiad[oa]|"
    r"n[ºo°]\s*(?:de\s+)?colegiad[oa]|Col(?:egiado)?\.?\s*n[ºo°]\.?|colegiad[oa]\s+n[ºo°]\.?)\s*:?\s*"
    r"(?P<id>\d[\d \t/-]{2,16}\d)", re.IGNORECASE)


@register(LOCALE, "colegiado", "ID", score=0.95)
def colegiado(text: str, doc_id: str) -> list[Span]:
    """Medical licence numbers after ``NºCol:``, ``nº de colegiado`` (``28 28 70973``)."""
    return trimmed_spans(_COLEGIADO, text, doc_id, "LICENSE", "id")


# --- record numbers in running text ---------------------------------------------------------

_RECORD_TRIGGERS: list[tuple[str, str]] = [
    (r"(?:NHC|CIPA|CIP|N\.H\.C\.)\s*:?\s*(?:nhc-)?|[Hh]istoria\s+[Cc]l[ií]nica\s*(?:n[ºo°]\.?|n[úu]mero)?\s*:?\s*", "MEDICALRECORD"),
    (r"(?:NASS|NSS)\s*:?\s*|(?:[Nn][ºo°]\.?|n[úu]mero)\s+(?:de\s+)?(?:afiliaci[oó]n|la\s+Seguridad\s+Social|Seguridad\s+Social)\s*:?\s*|[Tt]arjeta\s+[Ss]anitaria\s*:?\s*", "HEALTHPLAN"),
    (r"[Ee]pisodio\s*(?:n[ºo°]\.?)?\s*:?\s*", "ENCOUNTER"),
    (r"(?:DNI|NIF|NIE|[Pp]asaporte)\s*(?:n[ºo°]\.?)?\s*:?\s*", "NATIONALID"),
]
_RECORD_RES = [(re.compile(rf"(?<![\w/])(?:{p})(?P<id>[A-Z]{{0,3}}-?\d[\d \t/.-]{{1,20}}\d|[A-Z]{{0,3}}\d+[A-Z]?)"), t)
               for p, t in _RECORD_TRIGGERS]
_DNI = re.compile(r"(?<![\w-])(?:\d{8}-?[A-HJ-NP-TV-Z]|[XYZ]-?\d{7}-?[A-HJ-NP-TV-Z])(?![\w-])")
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def _dni_ok(s: str) -> bool:
    s = s.replace("-", "")
    num = s[:-1].replace("X", "0").replace("Y", "1").replace("Z", "2")
    return num.isdigit() and _DNI_LETTERS[int(num) % 23] == s[-1]


@register(LOCALE, "record_numbers", "ID", score=0.93)
def record_numbers(text: str, doc_id: str) -> list[Span]:
    """Numbers after NHC/CIPA/historia clínica, NASS/tarjeta sanitaria, episodio, DNI/NIE; DNI/NIE by checksum."""
    out: list[Span] = []
    for rx, gtype in _RECORD_RES:
        out += trimmed_spans(rx, text, doc_id, gtype, "id", trailing=" \t\r\n.,;:/-")
    for m in _DNI.finditer(text):
        if _dni_ok(m.group()):
            out.append(mk(doc_id, m.start(), m.end(), "NATIONALID"))
    return dedupe(out)


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
    (r"a", rf"(?<![\w-])año\s+{_YEAR4}(?!\d)"),
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
_BARE_YEAR = re.compile(rf"(?=[12])(?:(?<=\ben )|(?<=\bEn )|(?<=\bdesde )|(?<=\bDesde )|(?<=\bhasta )|(?<=\bHasta )|(?<=\())({_YEAR4})(?![\d/.,-]\d|\d|\s*(?:mg|ml|UI|cc|kg|mm|cm|pacientes|casos|%))")
# "Hospital Universitario 12 de Octubre" is a hospital, "mayo" a capitalised... still a month
_HOSPITAL_DATE = re.compile(r"Hospital(?:\s+Universitario)?\s+[\"«“]?$")


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
_SEX_AFTER_PATIENT = re.compile(r"(?i)(?:paciente|sexo)\s+(?P<sex>var[oó]n|mujer|hombre|femenin[oa]|masculin[oa])\b")


@register(LOCALE, "sex", "OTHER", score=0.85)
def sex(text: str, doc_id: str) -> list[Span]:
    """The patient's sex in the opening description (``Varón de 65 años``, ``paciente mujer``)."""
    out = spans_from(_SEX, text, doc_id, "SEX", "sex") + spans_from(_SEX_AFTER_PATIENT, text, doc_id, "SEX", "sex")
    return [s for s in dedupe(out) if not _FAMILY_BEFORE.search(text_before(text, s.start, 45))]


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
              r"Costanilla|Plazuela|Pl\.)")
_STREET_NAME = rf"(?:[ \t]*(?:[{UPPER}\d][{LETTER}\d'´’ºª.-]*|{NAME_PARTICLE}|[{LOWER}]+))"
_STREET_NUM = (r"(?:,?[ \t]*(?:n[ºo°]\.?|n[ ]º|N[ºo°]\.?|número|num\.?)?[ \t]*(?:\d+(?:[ \t]?[A-Za-z](?![\wº°ª.]))?(?:[ \t]*-[ \t]*\d+(?:[A-Za-z](?![\wº°ª]))?(?![\wº°ª]))?|s/n|S/N)"
               r"|,?[ \t]*km\.?[ \t]*\d+(?:[.,]\d+)?)")
_FLOOR_WORD = r"(?:[Dd]cha|[Ii]zda|[Ii]zq|[Dd]er|[Dd]ch|[Ee]sq|[Ii]zqda|[Dd]rcha)\.?"
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
    for rx, gtype in ((_HOSPITAL, "HOSPITAL"), (_CENTRO_SALUD, "HEALTHCENTER")):
        for m in rx.finditer(text):
            s, e = _facility_span(text, *m.span("h"), trailing=" \t\r\n.,;:-(")
            if re.fullmatch(r"Hospital|Cl[ií]nica(?:\s+Universitaria)?|Complejo\s+Hospitalario|Policl[ií]nica|Sanatorio", text[s:e]):
                continue  # the bare word; "Hospital Clínico Universitario" is a name in MEDDOCAN
            if "Hospital de Día" in text[s:e]:
                continue
            out.append(mk(doc_id, s, e, gtype))
    return out


# --- relatives -----------------------------------------------------------------------------

_KIN = (r"(?:padre|madre|herman[oa]s?|hij[oa]s?|t[ií][oa]s?|prim[oa]s?|abuel[oa]s?|marido|espos[oa]|"
        r"sobrin[oa]s?|niet[oa]s?|cuñad[oa]s?|suegr[oa]s?|progenitor(?:es)?|familia|familiares|"
        r"bisabuel[oa]s?|hermanastr[oa]s?|padrastro|madrastra)")
_KIN_MOD = r"(?:mayor|menor|materno|materna|paternos?|paternas?|maternos|maternas|gemel[oa]|pequeñ[oa]|primogénit[oa])"
_FAMILY = re.compile(
    rf"(?<![\w])(?P<fam>(?:(?:ambos|ambas)\s+)?(?i:{_KIN})(?:\s+{_KIN_MOD})?"
    rf"(?:\s+de\s+(?:su\s+)?(?:abuel[oa]|padre|madre)\s+{_KIN_MOD})?)(?![\w])")
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
    for m in _INSTITUTION.finditer(text):
        s, e = _facility_span(text, *m.span("i"))
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
