"""What one de-identification of a project's documents applies and yields, shared by a stored
run (:mod:`services.deid_runs`) and an upload (:mod:`services.deid_files`) so that both resolve
profiles, find spans and measure quality the same way.

* :func:`resolve_profile`: a built-in profile, one saved for the project, or JSON.
* :func:`gather_inputs`: documents with the spans to apply. Spans come from a layer (``gold``
  by default); a document without that layer is detected
  (:func:`services.detectors.detector_for`) unless ``missing="skip"``.
* :class:`RunDeidentifier`: a batch de-identified one document at a time with the batch's
  patient knowledge, so a run can save its outputs as it goes.
* :func:`summary_dicts` and :func:`quality_comparison`: the figures a batch yields.

What an output span carries: ``layer`` is ``deid:<action>:<input layer>``
(:func:`pipeline.layers.output_layer`, :func:`output_spans`) and ``source``/``score`` are the
input span's, so risk scoring can tell kept spans, machine-only and unreviewed low-confidence
detections apart without the inputs.

Paraphrase: a profile with the ``paraphrase`` action loads the project's masked language
model (:func:`infiller_for`, :func:`services.infill.project_infiller`; list surrogates,
counted, where the project has none). Such a de-identification also computes its quality table
against list surrogates (same documents and spans, de-identified in memory;
:func:`pipeline.deid.quality.compare_with_list_surrogates`, figures only, on at most
:data:`MAX_QUALITY_DOCS` documents).

Nothing here logs or returns document text: results, counts and errors name ids, offsets,
categories and numbers only.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from sqlite_utils import Database

import store
from pipeline.deid import DeidContext, DeidResult, Profile, builtin_profiles, deidentify, patient_id_of
from pipeline.deid.pseudonyms import output_ids
from pipeline.deid.batch import BatchSummary
from pipeline.deid.resolved import collect_originals
from pipeline.errors import WorkbenchError
from pipeline.layers import DETECTED, output_layer
from pipeline.spans import Document, Span
from services.detectors import DetectorChoice, detect_documents, detector_for

DEFAULT_PROFILE = "replace"
MAX_LEAK_DETAILS = 500            # leak locations kept with a run (ids, offsets, labels)
MISSING_CHOICES = ("detect", "skip")
MAX_QUALITY_DOCS = 500            # documents of a paraphrase run compared with list surrogates


class DeidentificationError(WorkbenchError):
    """A de-identification request that cannot run as asked (safe to show)."""


# --------------------------------------------------------------------------- profiles

def saved_profiles(db: Database, project_id: int) -> dict[str, store.DeidProfile]:
    """Profiles saved for the project, by name."""
    return {p.name: p for p in store.list_deid_profiles(db, project_id)}


def resolve_profile(db: Database, project_id: int, spec: Any) -> Profile:
    """A :class:`pipeline.deid.Profile` from a built-in name (``redact``/``replace``/``paraphrase``), the name of a
    profile saved for the project, a profile dict, or its JSON text."""
    if spec is None or spec == "":
        spec = DEFAULT_PROFILE
    if isinstance(spec, Profile):
        return spec
    if isinstance(spec, dict):
        return Profile.from_json(spec)
    spec = str(spec)
    if spec.lstrip().startswith("{"):
        return Profile.from_json(spec)
    saved = saved_profiles(db, project_id)
    if spec in saved:
        data = dict(saved[spec].profile)
        data.setdefault("name", spec)
        return Profile.from_json(data)
    builtins = builtin_profiles()
    if spec in builtins:
        return builtins[spec]
    raise DeidentificationError(f"unknown de-identification profile {spec!r}: use "
                                f"{', '.join(sorted(set(builtins) | set(saved)))} or a profile JSON")


# --------------------------------------------------------------------------- inputs

@dataclass
class DeidInputs:
    """The documents of a run with the spans to apply and where each document's spans came from."""

    docs: list[Document]                       # spans set (layer or detected)
    input_layer: dict[str, str]                # doc id -> layer name or "detected"
    not_deidentified: list[int] = field(default_factory=list)   # lacked the layer, missing="skip"
    detector: str | None = None
    model_version: str | None = None


def selected_ids(db: Database, project_id: int, doc_ids: Any) -> list[int]:
    """``"all"`` or a list of document ids of the project (unknown ids are refused)."""
    if doc_ids in (None, "all"):
        return [r.id for r in store.list_documents(db, project_id)]
    if isinstance(doc_ids, (str, bytes)):
        raise DeidentificationError("doc_ids must be \"all\" or a list of document ids")
    ids = sorted({int(i) for i in doc_ids})
    known = {r.id for r in store.list_documents(db, project_id, ids=ids)}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise DeidentificationError(f"documents {', '.join(map(str, unknown[:10]))} are not in project {project_id}")
    return ids


def gather_inputs(db: Database, project: store.Project, ids: Sequence[int], layer: str, missing: str, *,
                  detector: DetectorChoice | Callable[[], DetectorChoice] | None = None,
                  progress: Callable[[int, int], None] | None = None) -> DeidInputs:
    """Documents with the spans of ``layer``; those lacking it are detected (``missing="detect"``)
    or left out (``"skip"``)."""
    if missing not in MISSING_CHOICES:
        raise DeidentificationError(f"missing must be one of {', '.join(MISSING_CHOICES)}, not {missing!r}")
    docs = store.load_documents(db, project.id, ids=list(ids))
    by_layer = store.read_project_layer(db, project.id, layer)
    have = [d for d in docs if int(d.doc_id) in by_layer]
    lack = [d for d in docs if int(d.doc_id) not in by_layer]
    for d in have:
        d.spans = list(by_layer[int(d.doc_id)])
    inputs = DeidInputs(docs=have, input_layer={d.doc_id: layer for d in have})
    if lack and missing == "skip":
        inputs.not_deidentified = [int(d.doc_id) for d in lack]
    elif lack:
        choice = detector() if callable(detector) else (detector or detector_for(db, project))
        found = detect_documents(choice, lack, progress=progress)
        for d in lack:
            d.spans = found.get(d.doc_id, [])
            inputs.input_layer[d.doc_id] = DETECTED
        inputs.docs = sorted(have + lack, key=lambda d: int(d.doc_id))
        inputs.detector, inputs.model_version = choice.description, choice.model_version
    return inputs


class RunDeidentifier:
    """De-identifies a batch one document at a time with the batch's patient knowledge.

    Mirrors the first pass of :func:`pipeline.deid.deidentify_batch` (every document's PHI
    values are added to its patient's list before any document is rewritten) so a run can save
    its outputs as it goes; ``tests/test_release_jobs.py`` checks the outputs are identical to
    ``deidentify_batch``'s.
    """

    def __init__(self, docs: Sequence[Document], profile: Profile, ctx: DeidContext) -> None:
        output_ids(docs, ctx.secret)          # two documents sharing an output name: refused first
        self.profile = profile
        self.ctx = DeidContext(secret=ctx.secret, locale=ctx.locale, extra_lists=ctx.extra_lists,
                               list_loader=ctx.list_loader,
                               patient_originals={k: list(v) for k, v in ctx.patient_originals.items()},
                               infiller=ctx.infiller, project_values=ctx.project_values)
        for doc in docs:
            self.ctx.add_patient_originals(patient_id_of(doc), collect_originals(doc, doc.spans, profile))

    def __call__(self, doc: Document) -> DeidResult:
        return deidentify(doc, doc.spans, self.profile, self.ctx)


def output_spans(result: DeidResult, input_layer: str) -> list[Span]:
    """The result's spans as stored: action and input layer in ``layer`` (see :func:`output_layer`)."""
    return [s.with_(layer=output_layer(a, input_layer)) for s, a in zip(result.spans, result.actions)]


def infiller_for(profile: Profile, project: store.Project, db_path: str | os.PathLike):
    """The project's language model when ``profile`` paraphrases (None otherwise, or when the
    project has none: paraphrase spans then get list surrogates, counted)."""
    if not profile.uses_paraphrase():
        return None
    from services.infill import project_infiller

    return project_infiller(project, db_path)


def quality_comparison(docs: Sequence[Document], results: Sequence[DeidResult], profile: Profile, ctx: DeidContext,
                       *, progress: Callable[[int, int], None] | None = None) -> dict:
    """``{"comparison": [rows], "compared_documents": n, "embedding": name|None}`` for a run with
    the ``paraphrase`` action (figures only; see :mod:`pipeline.deid.quality`). The BERTScore
    columns need the project's language model (they are empty without one)."""
    from pipeline.deid.quality import compare_with_list_surrogates

    docs = list(docs)[:MAX_QUALITY_DOCS]
    keep = {d.doc_id for d in docs}
    chosen = [r for r in results if r.doc_id in keep]
    if progress:
        progress(0, 1)
    infiller = ctx.infiller
    embed = getattr(infiller, "embed", None)
    rows = compare_with_list_surrogates(docs, chosen, profile, ctx, embed=embed)
    if progress:
        progress(1, 1)
    return {"comparison": [r.to_dict() for r in rows], "compared_documents": len(chosen),
            "embedding": getattr(infiller, "name", None) if embed is not None else None}


def summary_dicts(summary: BatchSummary, leaks: Iterable[Any] = ()) -> tuple[dict, dict]:
    """``(counts, quality)`` for ``store.finish_deid_run`` from a ``BatchSummary`` (no text)."""
    d = summary.to_dict()
    quality_keys = ("surrogates", "same_rate", "mean_trigram_similarity", "diversity", "quality_by_category")
    quality = {k: d.pop(k) for k in quality_keys if k in d}
    details = [lk.to_dict() if hasattr(lk, "to_dict") else dict(lk) for lk in leaks]
    d["leak_details"] = details[:MAX_LEAK_DETAILS]
    return d, quality
