"""Spanish values found by the label before them: the header fields, names after titles and
signature labels, licence numbers and record numbers.

A MEDDOCAN report opens with a labelled header ("NHC: ...", "Domicilio: ...", "Edad: ...") and
closes with a signature ("Médico: Dra. ...", "NºCol: ..."); in running text a record number
follows its key ("historia clínica nº", "DNI"). Each rule here reads the value after such a
label, which is both precise and exact on boundaries (the value without the label).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import LETTER, UPPER, mk, text_before, trim, trimmed_spans
from pipeline.detection.rules.es._common import LOCALE, NAME_PARTICLE, _drop_trailing_particles
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_TITLE = r"(?:(?:Dr|Dra|DR|DRA|Dres|Sr|Sra|Srta|Prof|Profa|D|Dña|Dª)(?:\.:?|:|(?=[ \t]))[ \t]*)+"

NAME_TOKEN = rf"(?:M(?:ª|\.ª|\.a)|[{UPPER}](?:[{LETTER}'´’-]*[{LETTER}])?)(?:\.(?=[ \t]|$)|(?![\wº°ª/.]))"


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
    r"Camino|Instituto|Fundación|Universitario|Colegio|Residencia)[ \t]*(?:del?[ \t]+|de[ \t]+la[ \t]+)?$",
    re.IGNORECASE)     # "CALLE DEL DR. ESQUERDO", "HOSPITAL DR. PESET" in a note in capitals
# the same words as a note in capitals writes them ("HOSPITAL", "SERVICIO", "CORREO")
_NAME_STOP_CAPS = {w.upper() for w in _NAME_STOP_WORDS if len(w) > 1}


def _stops_name(word: str) -> bool:
    return word in _NAME_STOP_WORDS or (len(word) > 1 and word.isupper() and word in _NAME_STOP_CAPS)


_NAME_RUN = re.compile(
    rf"(?P<name>{NAME_TOKEN}(?:[ \t]+(?:{NAME_PARTICLE}[ \t]+)*{NAME_TOKEN}){{0,6}})")


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
        if _stops_name(word) or _stops_name(word.split("/")[0]):
            break
        end = m.start() + t.end()
        if t.group().endswith(".") and len(word) > 2:
            break  # "García." closes the name
    s, e = trim(text, m.start(), end)
    e = _drop_trailing_particles(text, s, e)
    return (s, e) if e > s else None


_SIGNATURE = re.compile(
    rf"(?m)^[ \t\ufeff]*(?i:M[eé]dico|Responsable\s+cl[ií]nico|Rsponsable\s+m[eé]dico|Responsable|Remitido\s+por|"
    rf"Firmado(?:\s+por)?|Facultativo)[ \t]*:[ \t]*(?:{_TITLE})?")     # the label in any case ("REMITIDO POR:")
# the title ends its word: in capitals "DRA." is not "DR" + "A.", "DRENAJE" not "DR" + "ENAJE"
_TITLED = re.compile(rf"(?<![\w.])(?P<title>Dr|Dra|DR|DRA|Dres|doctor|doctora|Prof|Profa|Sr|Sra|Srta|Dña|Don|Doña)"
                     rf"(?!\w)\.?:?(?:[ \t]+(?:D|Dña|Dª|Dr|Dra)\.)*[ \t]*(?=[{UPPER}])")


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
    (r"(?:NHC|CIPA|CIP|N\.H\.C\.)\s*:?\s*(?:(?i:nhc)-)?|[Hh]istoria\s+[Cc]l[ií]nica\s*(?:n[ºo°]\.?|n[úu]mero)?\s*:?\s*", "MEDICALRECORD"),
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

