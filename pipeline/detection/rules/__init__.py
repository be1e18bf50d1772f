"""Rule recognizers grouped in locale packs.

A recognizer is a small function ``(text, doc_id) -> list[Span]`` registered by name in a
locale pack with :func:`register`. It emits spans with generic i2b2-style types (DATE, PHONE,
MEDICALRECORD, ZIP, ...); :func:`run_rules` stamps ``source="rule:<name>"`` and the rule's
fixed confidence on them and maps their types onto the project's schema
(:mod:`pipeline.detection.rules.typemap`), so one pack serves MEDDOCAN and i2b2 projects alike.
Spans from different rules may overlap: :func:`pipeline.detection.combine.combine` decides.

Packs live in ``pipeline/detection/rules/<locale>.py`` (or a package ``<locale>/``, as ``es``) and are
imported lazily the first time a locale is asked for. Shared recognizers (email, URL, IP address) are in
:mod:`pipeline.detection.rules.common` and registered in every pack.
"""
from __future__ import annotations

import importlib

from pipeline.detection.rules.registry import (_PACKS, KNOWN_PACKS as _KNOWN_PACKS, Recognizer, RecognizerFn, register,
                                              rules_text)
from pipeline.detection.rules.typemap import GENERIC_CATEGORY, map_type
from pipeline.schemas import LabelSchema, get_schema
from pipeline.spans import Span

def _ensure_loaded(locale: str) -> None:
    if locale in _KNOWN_PACKS:
        importlib.import_module(f"pipeline.detection.rules.{locale}")  # registers on first import


def available_packs() -> list[str]:
    return list(_KNOWN_PACKS)


def _base(locale: str) -> str:
    return locale.split("-")[0].split("_")[0].lower()


def has_pack(locale: str) -> bool:
    """Whether ``locale`` (``es-ES`` counts as ``es``) has a rule pack."""
    base = _base(locale)
    return base in _KNOWN_PACKS or base in _PACKS


def get_pack(locale: str) -> list[Recognizer]:
    """The recognizers of ``locale``'s pack, in registration order. Unknown locale: ``KeyError``."""
    base = _base(locale)
    if not has_pack(base):
        raise KeyError(f"no rule pack for locale {locale!r}; available: {', '.join(_KNOWN_PACKS)}")
    _ensure_loaded(base)
    return list(_PACKS.get(base, {}).values())


def get_recognizer(locale: str, name: str) -> Recognizer:
    for r in get_pack(locale):
        if r.name == name:
            return r
    raise KeyError(f"no recognizer {name!r} in pack {locale!r}")


def to_schema(spans: list[Span], schema: LabelSchema, overrides: dict[str, dict[str, str]] | None = None) -> list[Span]:
    """Map generic types onto ``schema``; drop spans whose category the schema lacks."""
    out: list[Span] = []
    ov = (overrides or {}).get(schema.name)
    for s in spans:
        cat = s.category or GENERIC_CATEGORY.get(s.type, "")
        mapped = map_type(schema, cat, s.type, ov)
        if mapped is None:
            continue
        out.append(s.with_(category=mapped[0], type=mapped[1]))
    return out


def pack_hits(text: str, locale: str) -> dict[str, list[Span] | Exception]:
    """Every recognizer's raw spans on ``text`` (generic types, no source, document id ``""``), by
    name; a recognizer that fails gives its exception instead.

    Detection needs a document's rule hits twice, as rule spans and as the rule-hit features of
    a CRF member: computed once here, they serve both (:func:`run_rules` with ``hits``,
    :func:`models.crf.rule_tags`)."""
    out: dict[str, list[Span] | Exception] = {}
    pack = get_pack(locale)
    seen = rules_text(_base(locale), text)
    for rec in pack:
        try:
            out[rec.name] = rec.fn(seen, "")
        except Exception as e:  # noqa: BLE001 - reported where the hits are used
            out[rec.name] = e
    return out


def run_rules(text: str, doc_id: str, locale: str, schema: LabelSchema | str,
              *, only: set[str] | None = None, exclude: set[str] | None = None,
              hits: dict[str, list[Span] | Exception] | None = None) -> list[Span]:
    """Run every recognizer of ``locale``'s pack; spans typed for ``schema``, sorted by offsets.

    ``only``/``exclude`` select recognizers by name. Overlaps between rules are left for
    :func:`pipeline.detection.combine.combine`. ``hits``: :func:`pack_hits` of ``text``, when
    already computed (a failed recognizer's exception is raised here, as without them).
    """
    sch = get_schema(schema) if isinstance(schema, str) else schema
    out: list[Span] = []
    pack = get_pack(locale)
    seen = rules_text(_base(locale), text) if hits is None or any(r.name not in hits for r in pack) else text
    for rec in pack:
        if only is not None and rec.name not in only:
            continue
        if exclude and rec.name in exclude:
            continue
        if hits is not None and rec.name in hits:
            raw = hits[rec.name]
            if isinstance(raw, Exception):
                raise raw
            found = [s.with_(doc_id=doc_id, source=f"rule:{rec.name}", score=rec.score) for s in raw]
        else:
            found = rec(seen, doc_id)
        out.extend(to_schema(found, sch, rec.type_by_schema))
    out.sort(key=lambda s: (s.start, s.end, s.label))
    return out
