"""Surrogates for what has a name: people, professions, institutions, places and streets.

Most are a keyed draw from the locale's lists (:func:`~pipeline.deid.surrogate_kit.from_list`);
the few codes among them (user names, ZIP codes, rooms) are re-drawn in their shape. Kept apart
from :mod:`pipeline.deid.surrogate_numbers` (values with a format) so each room stays small;
:mod:`pipeline.deid.surrogates` imports both, this one first, so the registry fills in the
order it always had.
"""
from __future__ import annotations

import re

from pipeline.deid.context import SurrogateContext
from pipeline.deid.keys import choose
from pipeline.deid.names import name_surrogate
from pipeline.deid.normalize import norm_key
from pipeline.deid.surrogate_kit import (ADDRESS_WORDS, NoSurrogate, Surrogate, _list_case, check_words,
                                         from_list, pattern_surrogate, register)


def drawn_from(list_name: str) -> Surrogate:
    """The generator that draws from the locale's list ``list_name`` (:func:`from_list`)."""
    def generate(original: str, ctx: SurrogateContext) -> str:
        return from_list(list_name, original, ctx)
    generate.__name__ = f"drawn_from_{list_name}"
    return generate


def in_shape(kind: str) -> Surrogate:
    """The generator that re-draws a code's digits and letters in place (:func:`pattern_surrogate`)."""
    def generate(original: str, ctx: SurrogateContext) -> str:
        return pattern_surrogate(original, ctx, kind)
    generate.__name__ = f"in_shape_{kind.lower()}"
    return generate


# -- names and professions ------------------------------------------------------------------------

@register("name")
def name(original: str, ctx: SurrogateContext) -> str:
    try:
        return name_surrogate(original, ctx)
    except LookupError as e:
        raise NoSurrogate(str(e)) from None


username = register("username")(in_shape("USERNAME"))
profession = register("profession")(drawn_from("professions"))


# -- locations ------------------------------------------------------------------------------------

hospital = register("hospital")(drawn_from("hospitals"))


@register("health_center")
def health_center(original: str, ctx: SurrogateContext) -> str:
    name_ = "health_centers" if ctx.lookup("health_centers") else "hospitals"
    return from_list(name_, original, ctx, kind="hospitals")


organization = register("organization")(drawn_from("organizations"))
city = register("city")(drawn_from("cities"))


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


country = register("country")(drawn_from("countries"))
zip_code = register("zip")(in_shape("ZIP"))
room = register("room")(in_shape("ROOM"))
department = register("department")(drawn_from("departments"))
location_other = register("location_other")(drawn_from("locations_other"))


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

