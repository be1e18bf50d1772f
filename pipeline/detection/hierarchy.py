"""The hierarchical (superclass/subclass) combination of a category model and a type model.

The German clinical pipeline trains one model on the coarse category of each PHI mention and
another on the fine type, and joins them so that the more reliable coarse decision is never lost
to a fine-type mistake:

* the category model's span overlaps a type-model span whose type belongs to that category:
  the span (category model's extent) takes that type;
* the category model finds PHI where the type model finds none: the category with its "other"
  type (a type of the category whose name says other, e.g. ``Name_Other``, ``OTRO_NUMERO_IDENTIF``;
  for a category without one, the type the caller names in ``fallback_types``, e.g. the commonest
  type of that category in the gold set; failing that the category's first type, flagged);
* the two disagree (the overlapping type belongs to another category): the span becomes the
  schema's ``OTHER`` category, type uncertain, and is flagged for review;
* the type model finds PHI the category model does not: kept as the type model says when
  ``keep_type_only`` (recall first, the default), else dropped.

Pure: spans in, spans out. Which spans were flagged comes back as a list of indexes, so the
caller decides how a flag is shown (the model marks them with a low score, see
:data:`UNCERTAIN_SCORE`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from pipeline.schemas import LabelSchema
from pipeline.spans import Span

#: An ensemble's modes: flat (the type members alone) or hierarchical (joined with a category
#: model as above). Here, with no heavy imports, so the command line and the app can check a
#: choice without loading the models.
MODES = ("flat", "hierarchical")
#: What "other" is called in the schemas' type names (case-insensitive word parts).
OTHER_WORDS = ("other", "otro", "otros", "otra", "andere")
#: The score a flagged span carries: below every low-confidence mark, so the editor shows it as
#: uncertain and "most uncertain first" queues bring its document forward.
UNCERTAIN_SCORE = 0.2


@dataclass
class HierarchyResult:
    """The joined spans of one document and what happened to them."""

    spans: list[Span]
    flagged: list[int] = field(default_factory=list)      # indexes into ``spans``: uncertain type
    counts: dict[str, int] = field(default_factory=dict)  # outcome -> number of spans


def _says_other(type_: str) -> bool:
    parts = type_.lower().replace("-", "_").split("_")
    return any(p in OTHER_WORDS for p in parts)


def other_type(schema: LabelSchema, category: str, fallback_types: Mapping[str, str] | None = None) -> str | None:
    """The type that stands for "some PHI of this category": a type whose name says other, the
    only type of a one-type category, else ``fallback_types[category]``; ``None`` if none fits.

    >>> from pipeline.schemas import GERMAN, MEDDOCAN
    >>> other_type(GERMAN, "NAME"), other_type(MEDDOCAN, "ID"), other_type(MEDDOCAN, "AGE")
    ('Name_Other', 'OTRO_NUMERO_IDENTIF', 'EDAD_SUJETO_ASISTENCIA')
    >>> other_type(MEDDOCAN, "NAME") is None
    True
    """
    types = schema.categories.get(category, ())
    named = [t for t in types if _says_other(t)]
    if named:
        return named[0]
    if len(types) == 1:
        return types[0]
    fb = (fallback_types or {}).get(category)
    return fb if fb in types else None


def uncertain_label(schema: LabelSchema, fallback_types: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """``(category, type)`` for a span whose type the two models disagree on: the schema's OTHER
    category and its other type; ``None`` when the schema has no OTHER category."""
    if "OTHER" not in schema.categories:
        return None
    t = other_type(schema, "OTHER", fallback_types)
    return ("OTHER", t) if t else None


def combine_hierarchical(category_spans: Sequence[Span], type_spans: Sequence[Span], schema: LabelSchema, *,
                         fallback_types: Mapping[str, str] | None = None,
                         keep_type_only: bool = True) -> HierarchyResult:
    """Join one document's category-model spans (``category`` set, ``type`` ignored) with its
    type-model spans (``type`` set) as the module docstring says.

    When the schema has no OTHER category, a disagreement keeps the category model's category
    with its other type (still flagged); when that category has no other type either, the type
    model's type is kept (flagged).

    >>> from pipeline.schemas import MEDDOCAN
    >>> cat = [Span("d", 0, 5, "NAME"), Span("d", 10, 14, "ID"), Span("d", 20, 24, "LOCATION")]
    >>> typ = [Span("d", 0, 5, "NAME", "NOMBRE_SUJETO_ASISTENCIA"), Span("d", 20, 24, "DATE", "FECHAS"),
    ...        Span("d", 30, 33, "AGE", "EDAD_SUJETO_ASISTENCIA")]
    >>> r = combine_hierarchical(cat, typ, MEDDOCAN)
    >>> [(s.start, s.category, s.type) for s in r.spans]
    [(0, 'NAME', 'NOMBRE_SUJETO_ASISTENCIA'), (10, 'ID', 'OTRO_NUMERO_IDENTIF'), (20, 'OTHER', 'OTROS_SUJETO_ASISTENCIA'), (30, 'AGE', 'EDAD_SUJETO_ASISTENCIA')]
    >>> r.flagged, r.counts["disagree"]
    ([2], 1)
    """
    cats = sorted(category_spans, key=lambda s: (s.start, s.end))
    types = sorted(type_spans, key=lambda s: (s.start, s.end))
    used = [False] * len(types)
    out: list[Span] = []
    flagged: list[int] = []
    counts = {"type": 0, "category_other": 0, "disagree": 0, "type_only": 0, "dropped": 0}
    unsure = uncertain_label(schema, fallback_types)

    for c in cats:
        over = [k for k, t in enumerate(types) if t.start < c.end and c.start < t.end]
        for k in over:
            used[k] = True
        inside = [types[k] for k in over if types[k].type and schema.has(c.category, types[k].type)]
        if inside:
            best = max(inside, key=lambda t: (min(t.end, c.end) - max(t.start, c.start), t.score))
            out.append(c.with_(type=best.type, score=min(c.score, best.score) if best.score else c.score))
            counts["type"] += 1
            continue
        if not over:
            t = other_type(schema, c.category, fallback_types)
            if t is not None:
                out.append(c.with_(type=t))
                counts["category_other"] += 1
                continue
            # no "other" type to give: the category's first type, flagged for a person to choose
            out.append(c.with_(type=schema.categories[c.category][0], score=min(c.score, UNCERTAIN_SCORE)))
            flagged.append(len(out) - 1)
            counts["category_other"] += 1
            continue
        # the models disagree on what this is
        theirs = max((types[k] for k in over), key=lambda t: min(t.end, c.end) - max(t.start, c.start))
        t_own = other_type(schema, c.category, fallback_types)
        if unsure is not None:
            cat, typ = unsure
        elif t_own is not None:
            cat, typ = c.category, t_own
        else:
            cat, typ = theirs.category, theirs.type
        out.append(c.with_(category=cat, type=typ, score=min(c.score, UNCERTAIN_SCORE)))
        flagged.append(len(out) - 1)
        counts["disagree"] += 1

    for k, t in enumerate(types):
        if used[k]:
            continue
        if keep_type_only:
            out.append(t)
            counts["type_only"] += 1
        else:
            counts["dropped"] += 1
    order = sorted(range(len(out)), key=lambda i: (out[i].start, out[i].end))
    where = {old: new for new, old in enumerate(order)}
    return HierarchyResult([out[i] for i in order], sorted(where[i] for i in flagged), counts)
