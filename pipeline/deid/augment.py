"""Surrogate copies of gold notes: more PHI values for a model to learn from, same contexts.

A detector that has seen each name, street and id once tends to memorise values rather than
the contexts they sit in. The replace engine already writes a realistic note with fresh values
and carries the spans to their new offsets (:func:`pipeline.deid.engine.deidentify`), so a copy of
a gold note with other surrogates is a new training example whose gold is known exactly. Used by
training (``TrainConfig.augment_copies``: copies of the training split, and of the dev split for
the published refit on both): thresholds and dev figures are always tuned and measured on real
notes.

The copies live in memory for one training run and are never stored or shown.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Sequence

from pipeline.deid.context import DeidContext
from pipeline.deid.engine import deidentify
from pipeline.deid.profile import Profile, builtin_profiles
from pipeline.spans import Document, Span


def augment_profile() -> Profile:
    """The built-in ``replace`` profile, except that OTHER spans (sex, relatives named by role,
    free descriptions) keep their words, because redacting them would teach the model that a
    placeholder is that kind of PHI; and no propagation, so a copy's spans are exactly its gold."""
    base = builtin_profiles()["replace"]
    return replace(base, name="augment", actions={**base.actions, "OTHER": "keep"}, propagate=False,
                   description="training copies: surrogates for every category but OTHER")


@dataclass
class AugmentResult:
    """The copies, and how many notes were left out of a copy because a surrogate fell back to a
    placeholder (a copy whose gold would hold ``[LOCATION]`` teaches the wrong thing)."""

    documents: list[Document]
    skipped: int = 0
    by_copy: list[int] = field(default_factory=list)


def copy_secret(seed: int, copy: int) -> bytes:
    """The key of copy ``copy``: each copy draws other surrogates, and a run repeats."""
    return hashlib.sha256(f"surrogate-augment:{seed}:{copy}".encode()).digest()


def surrogate_copies(docs: Sequence[Document], copies: int, *, locale: str, seed: int = 13,
                     profile: Profile | None = None) -> AugmentResult:
    """``copies`` rewrites of every note in ``docs`` (gold spans as category/type), each with
    other surrogates; a copy's spans are the rewritten gold spans at their new offsets.

    >>> from pipeline.spans import Document, Span
    >>> d = Document("n1", "Paciente: Ana Pérez, 45 años.", [Span("n1", 10, 19, "NAME", "NOMBRE_SUJETO_ASISTENCIA")])
    >>> out = surrogate_copies([d], 2, locale="es").documents
    >>> [c.doc_id for c in out]
    ['n1~copy1', 'n1~copy2']
    >>> all(c.text[c.spans[0].start:c.spans[0].end] != "Ana Pérez" for c in out)
    True
    """
    if copies < 0:
        raise ValueError("the number of surrogate copies cannot be negative")
    profile = profile or augment_profile()
    out: list[Document] = []
    skipped = 0
    by_copy: list[int] = []
    for k in range(1, copies + 1):
        ctx = DeidContext(secret=copy_secret(seed, k), locale=locale)
        made = 0
        for doc in docs:
            if not doc.spans:
                continue
            r = deidentify(doc, None, profile, ctx)
            if r.fallbacks:
                skipped += 1
                continue
            cid = f"{doc.doc_id}~copy{k}"
            spans = [Span(cid, s.start, s.end, s.category, s.type, "augment", 1.0, s.layer) for s in r.spans]
            out.append(Document(cid, r.text, spans, patient_id=doc.patient_id))
            made += 1
        by_copy.append(made)
    return AugmentResult(out, skipped, by_copy)


#: the case forms of :func:`case_copies`, in the order they are made
CASE_FORMS = ("upper", "lower")


def recase(text: str, form: str) -> str:
    """``text`` in upper or lower case, character for character: a letter whose other case is
    longer ("ß" -> "SS", "İ" -> "i̇") stays as it is, so every span keeps its offsets.

    >>> recase("Dr. Weiß saw pt at St. Mary's", "upper")
    "DR. WEIß SAW PT AT ST. MARY'S"
    """
    if form not in CASE_FORMS:
        raise ValueError(f"case form must be one of {', '.join(CASE_FORMS)}")
    change = str.upper if form == "upper" else str.lower
    out = change(text)
    if len(out) == len(text):
        return out
    return "".join(c2 if len(c2 := change(c)) == 1 else c for c in text)


def case_copies(docs: Sequence[Document], copies: int) -> list[Document]:
    """Copies of ``docs`` in UPPER and lower case with the same spans, so a model cannot learn
    that capitals mark a name (wards write whole notes in capitals or in lower case).
    ``copies`` 1: one copy per note, upper and lower in turn; 2: both; 0: none.

    >>> from pipeline.spans import Document, Span
    >>> d = Document("n1", "Seen by Dr. Holmes.", [Span("n1", 12, 18, "NAME", "DOCTOR")])
    >>> [(c.doc_id, c.text[12:18]) for c in case_copies([d], 2)]
    [('n1~upper', 'HOLMES'), ('n1~lower', 'holmes')]
    """
    if copies < 0 or copies > len(CASE_FORMS):
        raise ValueError(f"case copies must be between 0 and {len(CASE_FORMS)}")
    out: list[Document] = []
    for i, doc in enumerate(docs):
        forms = CASE_FORMS if copies == 2 else (CASE_FORMS[i % 2],) if copies == 1 else ()
        for form in forms:
            cid = f"{doc.doc_id}~{form}"
            spans = [Span(cid, s.start, s.end, s.category, s.type, s.source, s.score, s.layer) for s in doc.spans]
            out.append(Document(cid, recase(doc.text, form), spans, patient_id=doc.patient_id))
    return out
