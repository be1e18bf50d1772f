"""Which detector a project uses: the one place that decides.

Pre-annotation, de-identification runs (for documents without spans) and uploads on the
De-identify page all ask :func:`detector_for`: the project's active model version (or the one
asked for) with the locale's rules and dictionaries, else rules and dictionaries alone; the
locale is the project's (:func:`services.settings.project_locale`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from sqlite_utils import Database

import store
from pipeline.detection.detector import Detector
from pipeline.detection.rules import has_pack
from pipeline.errors import WorkbenchError
from pipeline.layers import DETECTED
from pipeline.spans import Document, Span
from services.settings import project_locale


class DetectorUnavailable(WorkbenchError):
    """No detector can be built for the project as asked (safe to show: names versions and locales)."""


@dataclass
class DetectorChoice:
    """The detector for documents without spans, and how to name it in a run."""

    detector: Detector
    description: str          # e.g. "model:crf+bert+rules+dictionaries" or "rules+dictionaries"
    model_version: str | None


def detector_for(db: Database, project: store.Project, *, model_version: store.ModelVersion | None = None,
                 rules_only: bool = False) -> DetectorChoice:
    """The detector for ``project``: ``model_version`` (else the active one) with the locale's
    rules and dictionaries; without any model (or with ``rules_only``), rules and dictionaries
    alone. :class:`DetectorUnavailable` when the model cannot be loaded or nothing is left."""
    mv = None if rules_only else (model_version or store.active_model(db, project.id))
    if mv is not None:
        try:
            det = Detector.load(mv.path)
        except Exception as e:  # noqa: BLE001 - any failure: say which model, never a message quoting files
            which = f"the active model {mv.name}" if mv.active else f"model version {mv.name}"
            raise DetectorUnavailable(f"{which} cannot be loaded from its folder ({type(e).__name__}); "
                                      "activate another version or upload files that carry spans") from None
        return DetectorChoice(det, "+".join(det.parts) or f"model:{mv.name}", mv.name)
    locale = project_locale(project)
    lead = "" if rules_only else "no model is active and "
    if not has_pack(locale):
        raise DetectorUnavailable(f"{lead}there are no detection rules for locale {locale!r}: "
                                  "upload files that carry spans (brat, xml, jsonl), or train and activate a model")
    det = Detector.without_model(project.schema, locale)
    if not det.parts:
        raise DetectorUnavailable(f"{lead}no rules or dictionaries are available: upload files "
                                  "that carry spans (brat, xml, jsonl)")
    return DetectorChoice(det, "+".join(det.parts), None)


def detect_documents(choice: DetectorChoice, docs: Sequence[Document], *,
                     progress: Callable[[int, int], None] | None = None, chunk: int = 32) -> dict[str, list[Span]]:
    """Spans for ``docs`` from ``choice.detector``, keyed by doc id, in the ``detected`` layer."""
    out: dict[str, list[Span]] = {}
    for i in range(0, len(docs), chunk):
        part = list(docs[i:i + chunk])
        for d, spans in zip(part, choice.detector.detect_many(part)):
            out[d.doc_id] = [s.with_(doc_id=d.doc_id, layer=DETECTED) for s in spans]
        if progress:
            progress(min(i + chunk, len(docs)), len(docs))
    return out


def active_version_id(db: Database, project_id: int) -> int | None:
    """The id of the project's active model version (a cache key for a loaded detector)."""
    mv = store.active_model(db, project_id)
    return mv.id if mv else None


def detector_for_project(db: Database, project_id: int) -> DetectorChoice:
    """:func:`detector_for` by project id."""
    return detector_for(db, store.get_project(db, project_id))
