"""The tools surrogate generators are built from, and the table they register into.

A generator (:mod:`pipeline.deid.surrogate_names`, :mod:`pipeline.deid.surrogate_numbers`)
needs the :func:`register` decorator, the two refusals (:class:`NoSurrogate`,
:class:`Unparseable`) and a few ways to draw a value: :func:`from_list` (a keyed pick from a
locale list), :func:`pattern_surrogate` (digits and letters re-drawn in place) and
:func:`check_words` with the vocabularies that may pass through a re-drawn span. They sit here,
below the generators and below :mod:`pipeline.deid.surrogates` (which maps types onto them), so
the generator modules and the registry import this one and never each other in a circle.
"""
from __future__ import annotations

import re
import string
from typing import Callable

from pipeline.deid.context import SurrogateContext
from pipeline.deid.keys import choose, keyed_stream
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
