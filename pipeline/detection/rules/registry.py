"""The registry of rule recognizers: :func:`register` adds a function to a locale's pack.

Apart from :mod:`pipeline.detection.rules` so that the packs (``en``, ``es``, ``common``) import
the registry without importing the package that loads them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

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
KNOWN_PACKS = ("en", "es")
#: per locale, the text its recognizers read instead of the note (same length, same offsets)
_VIEWS: dict[str, Callable[[str], str]] = {}


def set_rules_view(locale: str, view: Callable[[str], str]) -> None:
    """Have ``locale``'s recognizers read ``view(text)`` instead of the note. The view must keep the
    length (a view that does not is ignored for that text), so the spans' offsets are the note's:
    English folds accented letters to their base letter, as its patterns and word lists spell them."""
    _VIEWS[locale] = view


def rules_text(locale: str, text: str) -> str:
    """What ``locale``'s recognizers read for ``text``: its view, or the text itself."""
    view = _VIEWS.get(locale)
    if view is None:
        return text
    seen = view(text)
    return seen if len(seen) == len(text) else text


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
