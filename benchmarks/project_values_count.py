"""The "real value of the project" column of ``paraphrase_quality.py`` and ``deid_leaks.py``.

Counts the surrogates the engine made up (paraphrase fills, list surrogates; not kept text, not
placeholders, not shifted dates or ages) that equal or contain, as whole words, a PHI value of
the training notes (a value, or a part of a person's name, as
:func:`pipeline.deid.project_values.value_forms` reads them) that is not itself an entry of the
locale's public surrogate lists. It compares plain normalised strings in memory, apart from the
keyed set the engine uses, so it checks that set rather than repeating it. Goal: 0.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from pipeline.deid import DeidContext
from pipeline.deid.operators import fixed_text, rewrites
from pipeline.deid.project_values import MAX_WORDS, UNKEYED_CATEGORIES, normalised, value_forms
from pipeline.spans import Document


def training_forms(docs: Iterable[Document]) -> set[str]:
    """Normalised forms of the gold PHI values of ``docs`` (in memory only, never printed)."""
    return {f for d in docs for s in d.spans for f in value_forms(s.category, d.text[s.start:s.end])}


def public_forms(locale: str) -> frozenset[str]:
    return DeidContext(secret=b"public-lists-only-0123456789", locale=locale).public_entries(locale)


def _contains(text: str, forms: set[str], public: frozenset[str]) -> bool:
    words = normalised(text).split()
    for i in range(len(words)):
        for j in range(i + 1, min(len(words), i + MAX_WORDS) + 1):
            form = " ".join(words[i:j])
            if form in forms and form not in public:
                return True
    return False


def count_real_values(results: Sequence, forms: set[str], public: frozenset[str],
                      actions: Iterable[str] | None = None) -> tuple[int, int]:
    """(surrogates holding a training value, surrogates checked) over de-identified results."""
    want = set(actions) if actions is not None else None
    hits = total = 0
    for r in results:
        for s, a in zip(r.spans, r.actions):
            if not rewrites(a) or fixed_text(a) or s.category in UNKEYED_CATEGORIES:
                continue
            if want is not None and a not in want:
                continue
            total += 1
            hits += _contains(r.text[s.start:s.end], forms, public)
    return hits, total
