"""Labels for the spans a rewrite's placeholders mark: a typed tag resolved in the project's
schema, the generic label of an untyped one, and the :class:`~pipeline.spans.Span` objects.

Apart from :mod:`pipeline.detection.rewrite_align` (which finds *where* the placeholders are,
schema-free) because this half is about the project's label set only.
"""
from __future__ import annotations

from typing import Iterable

from pipeline.detection.rewrite_align import align_rewrite
from pipeline.detection.rewrite_placeholders import DEFAULT_PLACEHOLDER, Placeholder, PlacedSpan
from pipeline.detection.rules.typemap import GENERIC_CATEGORY, map_type
from pipeline.schemas import COARSE_CATEGORIES, LabelSchema, SchemaError
from pipeline.spans import Span

#: Placeholder words a model may use that the schemas do not spell this way.
TAG_ALIASES: dict[str, str] = {
    "PERSON": "NAME", "NOMBRE": "NAME", "PLACE": "LOCATION", "ADDRESS": "LOCATION", "DIRECCION": "LOCATION",
    "LUGAR": "LOCATION", "FECHA": "DATE", "EDAD": "AGE", "TELEFONO": "PHONE", "CORREO": "EMAIL",
    "NUMBER": "ID", "IDENTIFIER": "ID", "ORGANISATION": "ORGANIZATION", "INSTITUTION": "ORGANIZATION",
    "PROFESION": "PROFESSION", "JOB": "PROFESSION", "OCCUPATION": "PROFESSION",
}


def resolve_tag(tag: str, schema: LabelSchema) -> tuple[str, str] | None:
    """``(category, fine type)`` a placeholder tag names in ``schema`` (type ``""`` where the tag
    names a category with several types); ``None`` for a tag the schema has no place for.

    >>> from pipeline.schemas import MEDDOCAN
    >>> resolve_tag("FECHAS", MEDDOCAN), resolve_tag("date", MEDDOCAN), resolve_tag("NAME", MEDDOCAN)
    (('DATE', 'FECHAS'), ('DATE', 'FECHAS'), ('NAME', ''))
    """
    if not tag:
        return None
    by_upper = {t.upper(): t for t in schema.types}
    up = tag.upper().replace(" ", "_")
    if up in by_upper:
        t = by_upper[up]
        return schema.category_of(t), t
    cats = {c.upper(): c for c in schema.categories}
    if up in cats:
        return map_type(schema, cats[up], "")
    up = TAG_ALIASES.get(up, up)
    if up in GENERIC_CATEGORY:
        return map_type(schema, GENERIC_CATEGORY[up], up)
    if up in COARSE_CATEGORIES:
        return map_type(schema, up, "")
    return None


def known_tags(schema: LabelSchema) -> frozenset[str]:
    """Every tag :func:`resolve_tag` places in ``schema`` (upper case): what a typed placeholder accepts."""
    cand = ({t.upper() for t in schema.types} | {c.upper() for c in schema.categories} | set(TAG_ALIASES)
            | set(GENERIC_CATEGORY) | set(COARSE_CATEGORIES))
    return frozenset(t for t in cand if resolve_tag(t, schema) is not None)


def generic_label(schema: LabelSchema, label: str | None = None) -> tuple[str, str]:
    """The ``(category, type)`` of spans from an untyped placeholder: ``label`` resolved in the
    schema when given, else the schema's ``OTHER`` category. A schema without ``OTHER``
    (i2b2-2014) needs ``label``: no other category means "PHI of unstated kind"."""
    if label:
        got = resolve_tag(label, schema)
        if got is None:
            raise SchemaError(f"label {label!r} is not in schema {schema.name!r}")
        return got
    if "OTHER" in schema.categories:
        return map_type(schema, "OTHER", "") or ("OTHER", "")
    raise SchemaError(f"schema {schema.name!r} has no OTHER category for untyped placeholders: "
                      "name a category or type for them (generic label)")


def rewrite_spans(original: str, rewrite: str, doc_id: str, name: str, schema: LabelSchema,
                  placeholder: Placeholder | str = DEFAULT_PLACEHOLDER, *, offset: int = 0,
                  generic: str | None = None, truncated: bool = False) -> list[Span]:
    """The spans (source ``llm:<name>``, score = the rewrite's faithfulness) that ``rewrite``'s
    placeholders mark in ``original``; ``offset`` shifts them (``original`` is a chunk of a note).
    A typed tag the schema cannot place gets the generic label."""
    al = align_rewrite(original, rewrite, placeholder, truncated=truncated)
    return placed_to_spans(al.spans, doc_id, name, schema, offset=offset, score=al.faithfulness, generic=generic)


def placed_to_spans(placed: Iterable[PlacedSpan], doc_id: str, name: str, schema: LabelSchema, *,
                    offset: int = 0, score: float = 1.0, generic: str | None = None) -> list[Span]:
    out: list[Span] = []
    fallback: tuple[str, str] | None = None
    for p in placed:
        got = resolve_tag(p.tag, schema) if p.tag else None
        if got is None:
            fallback = fallback or generic_label(schema, generic)
            got = fallback
        out.append(Span(doc_id, p.start + offset, p.end + offset, got[0], got[1], f"llm:{name}", float(score)))
    return out
