"""The surrogate registry: small functions ``(original, ctx) -> surrogate``, one per kind of value.

Generators are registered by name (``name``, ``city``, ``phone``, ``id``, ``date``...) and fine
types of every schema (i2b2 2014, MEDDOCAN, the German scheme) are mapped onto them, so "CITY"
and MEDDOCAN's "TERRITORIO" share one way to make a city. A lead can register a new generator or
map a new type with :func:`register` / :func:`map_type`.

Every generator is deterministic in (secret, patient, type, normalised original): see
:mod:`pipeline.deid.keys`. A generator raises :class:`NoSurrogate` when it cannot produce a
surrogate of the right type (no list for it, nothing to replace), :class:`Unparseable` when the
value is not what its type promises (a "date" that is no date); the caller then redacts.
"""
from __future__ import annotations

import re
import string
from typing import Callable

from pipeline.deid.ages import OVER_MAX, AgeParseError, shift_age
from pipeline.deid.context import SurrogateContext
from pipeline.deid.date_words import DateParseError
from pipeline.deid.dates import shift_date
from pipeline.deid.keys import choose, keyed_stream
from pipeline.deid.names import name_surrogate
from pipeline.deid.normalize import case_style, norm_key, strip_accents

Surrogate = Callable[[str, SurrogateContext], str]


class NoSurrogate(LookupError):
    """No surrogate of the right type can be made (missing list, nothing replaceable)."""


class Unparseable(ValueError):
    """The value cannot be read as its type (an unparseable date or age)."""


GENERATORS: dict[str, Surrogate] = {}


def register(name: str) -> Callable[[Surrogate], Surrogate]:
    def deco(fn: Surrogate) -> Surrogate:
        GENERATORS[name] = fn
        return fn
    return deco


# -- helpers ------------------------------------------------------------------------------------

def _list_case(value: str, original: str) -> str:
    """List entries keep their own capitalisation unless the original was all upper or lower."""
    style = case_style(original)
    if style == "upper":
        return value.upper()
    if style == "lower" and original.strip().lower() == original.strip():
        return value.lower()
    return value


def from_list(list_name: str, original: str, ctx: SurrogateContext, *, kind: str | None = None,
              pool: tuple[str, ...] | None = None) -> str:
    items = pool if pool is not None else ctx.lookup(list_name)
    if not items:
        raise NoSurrogate(f"no {list_name} list for locale {ctx.locale}")
    picked = choose(items, ctx.deid.secret, (ctx.patient_id, kind or list_name, norm_key(original)),
                    ctx.acceptable(original))
    if picked is None:
        raise NoSurrogate(f"every {list_name} entry clashes")
    return _list_case(picked, original)


def pattern_surrogate(original: str, ctx: SurrogateContext, kind: str, *, letters: bool = True) -> str:
    """Each digit (and, with ``letters``, each letter) becomes a different one of its kind, in place.

    Separators stay where they are, so "28 28 20943", "555-123-4567" or "AB-1234-X" keep their
    shape; each digit differs from the original digit at its position, so no digit leaks.
    """
    if not any(c.isdigit() or (letters and c.isalpha()) for c in original):
        raise NoSurrogate("nothing to replace")
    accept = ctx.acceptable(original)
    for attempt in range(16):
        stream = keyed_stream(ctx.deid.secret, ctx.patient_id, kind, norm_key(original), str(attempt))
        out = []
        for c in original:
            if c.isdigit() and c.isascii():
                out.append(str((int(c) + 1 + next(stream) % 9) % 10))
            elif letters and c.isalpha():
                base = strip_accents(c).upper()
                idx = string.ascii_uppercase.find(base)
                if idx < 0:
                    idx = 0
                new = string.ascii_uppercase[(idx + 1 + next(stream) % 25) % 26]
                out.append(new if c.isupper() else new.lower())
            else:
                out.append(c)
        cand = "".join(out)
        if accept(cand):
            return cand
    raise NoSurrogate("every pattern surrogate clashes")


def _ascii_word(value: str) -> str:
    return re.sub(r"[^a-z]", "", strip_accents(value).lower())


def _word_surrogate(piece: str, ctx: SurrogateContext, kind: str) -> str:
    """A lower-case ASCII word from the surname list, for e-mail and URL parts."""
    pool = ctx.derived("surnames", "ascii", lambda items: tuple(w for w in (_ascii_word(x) for x in items)
                                                              if len(w) >= 3))
    if not pool:
        return pattern_surrogate(piece, ctx, kind)
    picked = choose(pool, ctx.deid.secret, (ctx.patient_id, kind, norm_key(piece)),  # type: ignore[arg-type]
                    ctx.acceptable(piece))
    if picked is None:
        return pattern_surrogate(piece, ctx, kind)
    return picked.upper() if piece.isupper() else picked


def _alnum_runs(s: str, ctx: SurrogateContext, kind: str) -> str:
    """Letters runs of 3+ become words, shorter ones and digits keep their pattern."""
    def repl(m: re.Match) -> str:
        run = m.group()
        if run.isdigit():
            return pattern_surrogate(run, ctx, kind + "-digits", letters=False)
        if len(run) >= 3:
            return _word_surrogate(run, ctx, kind)
        return pattern_surrogate(run, ctx, kind + "-letters")
    return re.sub(r"[A-Za-z]+|\d+", repl, s)


_LETTERS = re.compile(r"[^\W\d_]+")


def check_words(original: str, allowed: frozenset[str], kind: str) -> None:
    """Refuse a format-preserving surrogate for a span holding words outside its vocabulary.

    Phone numbers, ages and house numbers are re-drawn digit by digit with their words kept
    ("ext", "años", "izda"); a word that is not part of that vocabulary (a name caught in an
    over-wide span) would pass through verbatim, so the span is redacted instead. Words of one
    or two letters (a door "D", "2ºA", an "x" extension) are allowed: like the leak check's short
    originals, they identify no one.
    """
    for w in _LETTERS.findall(original):
        k = strip_accents(w).lower().strip("ºª")
        if len(k) >= 3 and k not in allowed:
            raise NoSurrogate(f"{kind} span holds words outside its format")


PHONE_WORDS = frozenset({
    "ext", "extension", "extensión", "tel", "telf", "tfno", "tlf", "telefono", "phone", "fax", "movil", "mobile",
    "cell", "home", "work", "office", "pager", "beeper", "busca", "int", "or", "and", "y", "o", "de", "no", "num",
    "nr", "nro", "pin", "ph", "mob", "hm", "wk", "bb",
})
ADDRESS_WORDS = frozenset({
    "sn", "km", "bajo", "bajos", "piso", "planta", "pl", "puerta", "pta", "esc", "escalera", "izda", "izq",
    "izquierda", "izqda", "dcha", "der", "dch", "derecha", "dcho", "centro", "ctro", "bis", "no", "num", "numero",
    "portal", "bloque", "blq", "local", "apt", "apto", "apartamento", "apartment", "suite", "unit", "floor",
    "fl", "ste", "box", "po", "rm", "room", "bldg", "building", "y", "de", "del", "la", "el", "ático", "atico",
    "entlo", "entresuelo", "pral", "principal", "st", "nd", "rd", "th", "er", "nº", "bis", "casa", "urb",
    "esquina", "esq", "interior", "exterior", "ext", "int", "anden", "edificio", "edif", "letra", "mano",
    "apartado", "apdo", "oficina", "ofic", "dpto", "depto", "departamento", "modulo", "nave", "parcela",
    "manzana", "lote", "sector", "fase", "torre", "residencial", "izdo", "dpt", "door", "flat", "lot",
})


# -- names and professions ------------------------------------------------------------------------

@register("name")
def name(original: str, ctx: SurrogateContext) -> str:
    try:
        return name_surrogate(original, ctx)
    except LookupError as e:
        raise NoSurrogate(str(e)) from None


@register("username")
def username(original: str, ctx: SurrogateContext) -> str:
    return pattern_surrogate(original, ctx, "USERNAME")


@register("profession")
def profession(original: str, ctx: SurrogateContext) -> str:
    return from_list("professions", original, ctx)


# -- locations ------------------------------------------------------------------------------------

@register("hospital")
def hospital(original: str, ctx: SurrogateContext) -> str:
    return from_list("hospitals", original, ctx)


@register("health_center")
def health_center(original: str, ctx: SurrogateContext) -> str:
    name_ = "health_centers" if ctx.lookup("health_centers") else "hospitals"
    return from_list(name_, original, ctx, kind="hospitals")


@register("organization")
def organization(original: str, ctx: SurrogateContext) -> str:
    return from_list("organizations", original, ctx)


@register("city")
def city(original: str, ctx: SurrogateContext) -> str:
    return from_list("cities", original, ctx)


@register("state")
def state(original: str, ctx: SurrogateContext) -> str:
    core = original.strip().rstrip(".")
    items = ctx.lookup("states")
    if len(core) <= 3 and core.isupper():
        abbrs = ctx.derived("states", "abbr", lambda xs: tuple(x for x in xs if len(x) <= 3 and x.isupper()))
        if abbrs:
            return from_list("states", original, ctx, pool=abbrs)  # type: ignore[arg-type]
    full = ctx.derived("states", "full", lambda xs: tuple(x for x in xs if not (len(x) <= 3 and x.isupper())))
    return from_list("states", original, ctx, pool=full or items)  # type: ignore[arg-type]


@register("country")
def country(original: str, ctx: SurrogateContext) -> str:
    return from_list("countries", original, ctx)


@register("zip")
def zip_code(original: str, ctx: SurrogateContext) -> str:
    return pattern_surrogate(original, ctx, "ZIP")


@register("room")
def room(original: str, ctx: SurrogateContext) -> str:
    return pattern_surrogate(original, ctx, "ROOM")


@register("department")
def department(original: str, ctx: SurrogateContext) -> str:
    return from_list("departments", original, ctx)


@register("location_other")
def location_other(original: str, ctx: SurrogateContext) -> str:
    return from_list("locations_other", original, ctx)


@register("territory")
def territory(original: str, ctx: SurrogateContext) -> str:
    """MEDDOCAN's TERRITORIO: a postcode, a province/region or a city, whichever it is."""
    if any(c.isdigit() for c in original):
        return pattern_surrogate(original, ctx, "ZIP")
    k = norm_key(original)
    if k in ctx.lookup_set("states"):
        return state(original, ctx)
    if k in ctx.lookup_set("countries"):
        return country(original, ctx)
    return city(original, ctx)


_STREET_PREFIX = re.compile(
    r"^(?:calle|c/\.?|c\.|avda\.?|avenida|av\.?|paseo|p[ºo]\.?|plaza|pza\.?|pl\.?|ctra\.?|carretera|camino|"
    r"ronda|traves[ií]a|glorieta|v[ií]a|rambla|callej[oó]n|pasaje|urbanizaci[oó]n|urb\.?|carrer|r[uú]a|"
    r"pol[ií]gono|barrio|bo\.?)(?:\s+|(?<=[/.])|$)",
    re.I,
)
_NUMBER_START = re.compile(r"\d|\bs/n\b|\bkm\b", re.I)
_NUMBER_JOIN = re.compile(r"[\s,]*(?:(?:n\.?\s*[º°o]\.?|n[úu]m(?:ero)?\.?|no\.|#)\s*)?$", re.I)


@register("street")
def street(original: str, ctx: SurrogateContext) -> str:
    """Street name from the list, numbers re-drawn digit by digit, the original's layout kept.

    "Calle Carmen Romero, 23, 1D" -> "Calle Mayor, 47, 5D"; "Avda. Gaspar Aguilar 90" ->
    "Avda. Real 12"; "742 Evergreen Terrace" -> "318 Oak Street".
    """
    head = ""
    m = re.match(r"\s*\d+[A-Za-z]?\s+", original)
    rest = original
    if m and any(c.isalpha() for c in original[m.end():]):
        head, rest = original[:m.end()], original[m.end():]
    n = _NUMBER_START.search(rest)
    name_part, tail = (rest[:n.start()], rest[n.start():]) if n else (rest, "")
    j = _NUMBER_JOIN.search(name_part)
    name_part, joiner = name_part[:j.start()], name_part[j.start():]
    if not any(c.isalpha() for c in name_part):
        if head or tail:
            # digits re-drawn, letters kept: only safe when the letters are address words
            check_words(original, ADDRESS_WORDS, "street")
            return pattern_surrogate(original, ctx, "STREET-NUMBER", letters=False)
        raise NoSurrogate("street without a name")
    pm = _STREET_PREFIX.match(name_part)
    prefix = pm.group() if pm else ""
    items = ctx.lookup("streets")
    if not items:
        raise NoSurrogate(f"no streets list for locale {ctx.locale}")
    picked = choose(items, ctx.deid.secret, (ctx.patient_id, "streets", norm_key(name_part)),
                    ctx.acceptable(name_part))
    if picked is None:
        raise NoSurrogate("every street clashes")
    if prefix:
        lm = _STREET_PREFIX.match(picked)
        core = picked[lm.end():] if lm and lm.end() < len(picked) else picked
        new_name = prefix + core
    elif head:
        new_name = picked
    else:
        lm = _STREET_PREFIX.match(picked)
        new_name = picked[lm.end():] if lm and lm.end() < len(picked) else picked
    new_name = _list_case(new_name, name_part)
    check_words(head + " " + tail, ADDRESS_WORDS, "street")
    numbers = head + "\x00" + tail
    if any(c.isdigit() for c in numbers):
        numbers = pattern_surrogate(numbers, ctx, "STREET-NUMBER", letters=False)
    new_head, new_tail = numbers.split("\x00")
    return new_head + new_name + joiner + new_tail


# -- contacts -------------------------------------------------------------------------------------

@register("phone")
def phone(original: str, ctx: SurrogateContext) -> str:
    check_words(original, PHONE_WORDS, "phone")
    return pattern_surrogate(original, ctx, "PHONE", letters=False)


_EMAIL = re.compile(r"^(?P<local>[A-Za-z0-9._%+\-]+)@(?P<domain>[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)$")
_TLDS = frozenset({"com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "name", "pro", "health",
                   "med", "cat", "eus", "gal", "io", "co"})


def _plain_tld(label: str) -> bool:
    """A top-level domain that says nothing about anyone: generic, or a two-letter country code."""
    low = label.lower()
    return low in _TLDS or (len(low) == 2 and low.isalpha())


def _tld(label: str, ctx: SurrogateContext) -> str:
    return label if _plain_tld(label) else _alnum_runs(label, ctx, "TLD")


_WEBMAIL = frozenset({"gmail", "yahoo", "hotmail", "outlook", "live", "msn", "aol", "icloud", "me", "mail",
                      "protonmail", "gmx", "terra", "telefonica", "movistar", "ono", "orange", "wanadoo"})


@register("email")
def email(original: str, ctx: SurrogateContext) -> str:
    """``local@domain.tld`` keeps its shape: name-like parts stay name-like, digits keep their
    count, separators (``.``, ``_``, ``-``) and the top-level domain stay; public webmail
    domains (gmail, yahoo...) are kept, other domain labels are replaced."""
    m = _EMAIL.match(original)
    if not m:      # not a bare address (words around it): every word is replaced, none passes through
        out = _alnum_runs(original, ctx, "EMAIL")
        if not ctx.acceptable(original)(out):
            raise NoSurrogate("e-mail surrogate clashes")
        return out
    local, domain = m.group("local"), m.group("domain")
    new_local = _alnum_runs(local, ctx, "EMAIL")
    labels = domain.split(".")
    if len(labels) >= 2 and labels[-2].lower() in _WEBMAIL and _plain_tld(labels[-1]):
        new_domain = domain
    else:
        new_domain = ".".join([_alnum_runs(lab, ctx, "EMAIL-DOMAIN") for lab in labels[:-1]]
                              + [_tld(labels[-1], ctx)])
    out = f"{new_local}@{new_domain}"
    if not ctx.acceptable(original)(out):
        raise NoSurrogate("e-mail surrogate clashes")
    return out


_IPV4 = re.compile(r"^\s*(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\s*$")


@register("ip")
def ip_address(original: str, ctx: SurrogateContext) -> str:
    m = _IPV4.match(original)
    if not m:
        return pattern_surrogate(original, ctx, "IP")
    stream = keyed_stream(ctx.deid.secret, ctx.patient_id, "IP", norm_key(original))
    octets = []
    for g in m.groups():
        v = int(g)
        new = (v + 1 + next(stream) % 253) % 254 + 1
        octets.append(str(new))
    return original[:m.start(1)] + ".".join(octets) + original[m.end(4):]


_URL = re.compile(r"^(?P<scheme>[a-z][a-z0-9+.-]*://)?(?P<www>www\d?\.)?(?P<host>[^/?#:\s]+)"
                  r"(?P<port>:\d+)?(?P<rest>.*)$", re.I | re.S)


@register("url")
def url(original: str, ctx: SurrogateContext) -> str:
    """Scheme, ``www.``, top-level domain and punctuation kept; host labels and path words replaced."""
    m = _URL.match(original.strip())
    if not m or "." not in m.group("host"):
        return _alnum_runs(original, ctx, "URL")
    lead = original[:len(original) - len(original.lstrip())]
    trail = original[len(original.rstrip()):]
    labels = m.group("host").split(".")
    host = ".".join([_alnum_runs(lab, ctx, "URL-HOST") for lab in labels[:-1]] + [_tld(labels[-1], ctx)])
    rest = _alnum_runs(m.group("rest"), ctx, "URL-PATH")
    port = m.group("port") or ""
    out = lead + (m.group("scheme") or "") + (m.group("www") or "") + host + port + rest + trail
    if not ctx.acceptable(original)(out):
        raise NoSurrogate("URL surrogate clashes")
    return out


@register("net_address")
def net_address(original: str, ctx: SurrogateContext) -> str:
    """MEDDOCAN's DIREC_PROT_INTERNET: an IP address or a URL."""
    return ip_address(original, ctx) if _IPV4.match(original) else url(original, ctx)


# -- identifiers ----------------------------------------------------------------------------------

@register("id")
def identifier(original: str, ctx: SurrogateContext) -> str:
    return pattern_surrogate(original, ctx, "ID")


# -- dates and ages -------------------------------------------------------------------------------

@register("date")
def date(original: str, ctx: SurrogateContext) -> str:
    try:
        return shift_date(original, ctx.date_offset(), ctx.locale)
    except DateParseError:
        raise Unparseable("date") from None


@register("age")
def age(original: str, ctx: SurrogateContext) -> str:
    """The patient's offset; if that would give another real age of the patient, the nearest
    other offset that does not (deterministic, so the same age still maps to the same value)."""
    p = ctx.profile
    accept = ctx.acceptable(original)
    pick = ctx.key("AGE-BAND", norm_key(original))
    try:
        for i, off in enumerate(ctx.age_offsets()):
            out = shift_age(original, offset=off, mode=p.age_mode, band=p.age_band, band_pick=pick + i,
                            locale=ctx.locale)
            if accept(out) or OVER_MAX in out and norm_key(out) != norm_key(original):
                return out
    except AgeParseError:
        raise Unparseable("age") from None
    raise NoSurrogate("every shifted age is another real age of the patient")


# -- fine types and categories onto generators -----------------------------------------------------

TYPE_MAP: dict[str, str] = {
    # i2b2 2014
    "PATIENT": "name", "DOCTOR": "name", "USERNAME": "username", "PROFESSION": "profession",
    "ROOM": "room", "DEPARTMENT": "department", "HOSPITAL": "hospital", "ORGANIZATION": "organization",
    "STREET": "street", "CITY": "city", "STATE": "state", "COUNTRY": "country", "ZIP": "zip",
    "LOCATION-OTHER": "location_other", "AGE": "age", "DATE": "date", "PHONE": "phone", "FAX": "phone",
    "EMAIL": "email", "URL": "url", "IPADDR": "ip", "SSN": "id", "MEDICALRECORD": "id", "HEALTHPLAN": "id",
    "ACCOUNT": "id", "LICENSE": "id", "VEHICLE": "id", "DEVICE": "id", "BIOID": "id", "IDNUM": "id",
    # MEDDOCAN
    "NOMBRE_SUJETO_ASISTENCIA": "name", "NOMBRE_PERSONAL_SANITARIO": "name", "PROFESION": "profession",
    "CENTRO_SALUD": "health_center", "INSTITUCION": "organization", "CALLE": "street",
    "TERRITORIO": "territory", "PAIS": "country", "EDAD_SUJETO_ASISTENCIA": "age", "FECHAS": "date",
    "NUMERO_TELEFONO": "phone", "NUMERO_FAX": "phone", "CORREO_ELECTRONICO": "email",
    "DIREC_PROT_INTERNET": "net_address", "URL_WEB": "url", "ID_SUJETO_ASISTENCIA": "id",
    "ID_CONTACTO_ASISTENCIAL": "id", "ID_ASEGURAMIENTO": "id", "ID_TITULACION_PERSONAL_SANITARIO": "id",
    "ID_EMPLEO_PERSONAL_SANITARIO": "id", "IDENTIF_VEHICULOS_NRSERIE_PLACAS": "id",
    "IDENTIF_DISPOSITIVOS_NRSERIE": "id", "IDENTIF_BIOMETRICOS": "id", "NUMERO_IDENTIF": "id",
    "OTRO_NUMERO_IDENTIF": "id",
    # German 8-category scheme
    "Patient": "name", "Staff": "name", "Name_Other": "name", "Profession": "profession",
    "Organization": "organization", "Hospital": "hospital", "State": "state", "Country": "country",
    "City": "city", "Street": "street", "ZIP": "zip", "Location_Other": "location_other", "Age": "age",
    "Birthdate": "date", "Date": "date", "Email": "email", "Fax": "phone", "IP": "ip", "Phone": "phone",
    "URL": "url", "PatientID": "id", "StudyID": "id", "ID_Other": "id",
}
CATEGORY_MAP: dict[str, str] = {
    "NAME": "name", "PROFESSION": "profession", "AGE": "age", "DATE": "date", "ID": "id", "CONTACT": "phone",
}


def map_type(type_or_category: str, generator: str) -> None:
    """Send a (custom) fine type or category to an existing generator."""
    if generator not in GENERATORS:
        raise KeyError(f"no surrogate generator {generator!r}; known: {', '.join(sorted(GENERATORS))}")
    TYPE_MAP[type_or_category] = generator


def generator_name(category: str, type_: str = "") -> str | None:
    """The generator for a span: its fine type's, else its category's, else None (redact)."""
    if type_ and type_ in TYPE_MAP:
        return TYPE_MAP[type_]
    return CATEGORY_MAP.get(category)


class _Registry(dict):
    """``REGISTRY[type or category]`` -> generator function (the same function for all schemas)."""

    def __missing__(self, key: str) -> Surrogate:
        name_ = TYPE_MAP.get(key) or CATEGORY_MAP.get(key)
        if name_ is None:
            raise KeyError(key)
        return GENERATORS[name_]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (key in TYPE_MAP or key in CATEGORY_MAP)


REGISTRY: dict[str, Surrogate] = _Registry()


def generator_for(category: str, type_: str = "") -> Surrogate | None:
    name_ = generator_name(category, type_)
    return GENERATORS.get(name_) if name_ else None
