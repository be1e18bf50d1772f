"""Rule recognizers grouped in locale packs.

A recognizer is a small function ``(text, doc_id) -> list[Span]`` registered by name in a
locale pack with :func:`register`. It emits spans with generic i2b2-style types (DATE, PHONE,
MEDICALRECORD, ZIP, ...); :func:`run_rules` stamps ``source="rule:<name>"`` and the rule's
fixed confidence on them and maps their types onto the project's schema
(:mod:`pipeline.rules.typemap`), so one pack serves MEDDOCAN and i2b2 projects alike.
Spans from different rules may overlap: :func:`pipeline.combine.combine` decides.

Packs live in ``pipeline/rules/<locale>.py`` and are imported lazily the first time a locale is
asked for. Shared recognizers (email, URL, IP address) are in :mod:`pipeline.rules.common` and
registered in every pack.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

from pipeline.rules.typemap import GENERIC_CATEGORY, map_type
from pipeline.schemas import LabelSchema, get_schema
from pipeline.spans import Span

RecognizerFn = Callable[[str, str], list[Span]]


@dataclass(frozen=True)
class Recognizer:
    """A registered rule: its function, the category it finds, its fixed confidence."""

    name: str
    locale: str
    category: str
    fn: RecognizerFn
    score: float = 0.9
    type_by_schema: dict[str, dict[str, str]] = field(default_factory=dict)
    description: str = ""

    def __call__(self, text: str, doc_id: str) -> list[Span]:
        return [s.with_(source=f"rule:{self.name}", score=self.score) for s in self.fn(text, doc_id)]


_PACKS: dict[str, dict[str, Recognizer]] = {}
_KNOWN_PACKS = ("en", "es")


def register(locale: str, name: str, category: str, type_by_schema: dict[str, dict[str, str]] | None = None,
             *, score: float = 0.9, description: str = "") -> Callable[[RecognizerFn], RecognizerFn]:
    """Decorator: add the function to ``locale``'s pack under ``name``.

    ``category`` is the coarse class the rule finds (documentation and filtering); ``type_by_schema``
    overrides the generic->fine mapping for particular schemas (``{"meddocan": {"IDNUM": "..."}}``).
    Registering the same name twice in a locale replaces the earlier rule (tests and plug-ins may
    swap a rule).
    """
    def deco(fn: RecognizerFn) -> RecognizerFn:
        _PACKS.setdefault(locale, {})[name] = Recognizer(
            name=name, locale=locale, category=category, fn=fn, score=score,
            type_by_schema=dict(type_by_schema or {}), description=description or (fn.__doc__ or "").strip().split("\n")[0])
        return fn
    return deco


def _ensure_loaded(locale: str) -> None:
    if locale in _KNOWN_PACKS:
        importlib.import_module(f"pipeline.rules.{locale}")  # registers on first import


def available_packs() -> list[str]:
    return list(_KNOWN_PACKS)


def get_pack(locale: str) -> list[Recognizer]:
    """The recognizers of ``locale``'s pack, in registration order. Unknown locale: ``KeyError``."""
    base = locale.split("-")[0].split("_")[0].lower()
    if base not in _KNOWN_PACKS and base not in _PACKS:
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


def run_rules(text: str, doc_id: str, locale: str, schema: LabelSchema | str,
              *, only: set[str] | None = None, exclude: set[str] | None = None) -> list[Span]:
    """Run every recognizer of ``locale``'s pack; spans typed for ``schema``, sorted by offsets.

    ``only``/``exclude`` select recognizers by name. Overlaps between rules are left for
    :func:`pipeline.combine.combine`.
    """
    sch = get_schema(schema) if isinstance(schema, str) else schema
    out: list[Span] = []
    for rec in get_pack(locale):
        if only is not None and rec.name not in only:
            continue
        if exclude and rec.name in exclude:
            continue
        out.extend(to_schema(rec(text, doc_id), sch, rec.type_by_schema))
    out.sort(key=lambda s: (s.start, s.end, s.label))
    return out
