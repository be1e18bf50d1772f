"""Person names: each part of a name is replaced on its own, so every mention stays the same person.

"John Smith" and, later, "Smith" or "J. Smith" of the same patient: "Smith" is keyed alone
(``HMAC(secret, patient|NAME|smith)``), so it maps to the same surrogate surname in all three.
Given names are drawn from the first-name list, anything else from the surname list; a given name
whose sex the locale lists know (in exactly one of ``first_names_female`` / ``first_names_male``)
gets a surrogate of the same sex ("Son Kyle" must not become "Son Monica"). Titles
("Dr.", "Dra.", "Mr."), particles inside a name ("del" of "María del Carmen", not the given
name "Del" of "Del Farrissey") and suffixes ("Jr.", "MD") are kept;
initials become another initial; letter case follows each original part (UPPER, Title, lower).
"""
from __future__ import annotations

import re
import string

from pipeline.deid.context import SurrogateContext
from pipeline.deid.keys import choose
from pipeline.deid.normalize import NAME_PARTICLES, NAME_TITLES, case_style, kept_particles, norm_key, strip_accents

TITLES = NAME_TITLES
PARTICLES = NAME_PARTICLES
_PART = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def _single_words(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(x for x in items if " " not in x.strip())


def _pool(ctx: SurrogateContext, name: str) -> tuple[str, ...]:
    """Single-word entries of a name list (a part is replaced by one part)."""
    return ctx.derived(name, "single", lambda items: _single_words(items) or items)  # type: ignore[return-value]


def _sex_list(k: str, ctx: SurrogateContext) -> str | None:
    """The same-sex list for first name ``k`` (normalised), or None when its sex is unknown.

    Surrogates should not change a person's sex: the text around a name ("Son ...", "su hija ...",
    "he", "she") still tells it. A name in both lists or in neither (unisex, or a locale without the
    lists: they load as empty) keeps the whole first-name pool. The key is unchanged, so the same
    original still maps to the same surrogate in every document of the patient.
    """
    female = k in ctx.lookup_set("first_names_female")
    male = k in ctx.lookup_set("first_names_male")
    if female == male:
        return None
    return "first_names_female" if female else "first_names_male"


def _cased(value: str, like: str) -> str:
    style = case_style(like)
    if style == "upper":
        return value.upper()
    if style == "lower":
        return value.lower()
    if style == "title" and value[:1].islower():
        return value[:1].upper() + value[1:]
    return value


def surrogate_part(part: str, ctx: SurrogateContext, *, keep_words: bool = True, particle: bool = False) -> str:
    """One name part (a given name or a surname) -> its keyed surrogate of the same kind.

    ``keep_words``: titles are kept (not when the part is the whole name: "Le", "du" or "jr"
    alone are a surname or someone's initials). ``particle``: the part is a particle inside the
    name (:func:`~pipeline.deid.normalize.kept_particles`), kept too; the same word starting or
    ending a name ("Del Farrissey", "Anna Le") is a given name or a surname, replaced.
    """
    k = norm_key(part)
    if keep_words and (k.rstrip(".") in TITLES or (particle and k in PARTICLES)):
        return part
    if len(k) == 1:
        return surrogate_initial(part, ctx)
    if not keep_words and len(k) <= 3 and (part.isupper() or part.islower()) and k not in ctx.lookup_set("surnames"):
        return "".join(surrogate_initial(c, ctx) if c.isalpha() else c for c in part)
    pool_name = "first_names" if k in ctx.lookup_set("first_names") else "surnames"
    accept = ctx.acceptable(part)
    picked = None
    if pool_name == "first_names" and (sex_list := _sex_list(k, ctx)):
        picked = choose(_pool(ctx, sex_list), ctx.deid.secret, (ctx.patient_id, "NAME", k), accept)
    if picked is None:
        picked = choose(_pool(ctx, pool_name), ctx.deid.secret, (ctx.patient_id, "NAME", k), accept)
    if picked is None:
        other = _pool(ctx, "surnames" if pool_name == "first_names" else "first_names")
        picked = choose(other, ctx.deid.secret, (ctx.patient_id, "NAME", k), accept)
    if picked is None:
        raise LookupError("no usable name surrogate")
    return _cased(picked, part)


def surrogate_initial(letter: str, ctx: SurrogateContext) -> str:
    base = strip_accents(letter).upper()
    letters = [c for c in string.ascii_uppercase if c != base]
    new = letters[ctx.key("INITIAL", base) % len(letters)]
    return new if letter.isupper() else new.lower()


def name_surrogate(original: str, ctx: SurrogateContext) -> str:
    """A full name, a surname, "J. Smith", "Dr. Smith", "SMITH, John", initials "JB": each part
    on its own."""
    parts = list(_PART.finditer(original))
    name_parts = [m for m in parts if norm_key(m.group()).rstrip(".") not in TITLES]
    single = len(parts) == 1 or len(name_parts) == 0
    inside = kept_particles(original)
    out: list[str] = []
    cursor = 0
    for m in parts:
        out.append(original[cursor:m.start()])
        out.append(surrogate_part(m.group(), ctx, keep_words=not single, particle=m.start() in inside))
        cursor = m.end()
    out.append(original[cursor:])
    result = "".join(out)
    if norm_key(result) == norm_key(original):
        raise LookupError("name has no replaceable part")
    return result
