"""Which detector a project uses: the one place that decides.

Pre-annotation, de-identification runs (for documents without spans) and uploads on the
De-identify page all ask :func:`detector_for`: the project's active model version (or the one
asked for) with the locale's rules and dictionaries, else rules and dictionaries alone; the
locale is the project's (:func:`services.settings.project_locale`).

A project with no gold (a cold start) can ask for more than rules and dictionaries
(:func:`preannotation_sources` lists what a lead may choose, in words):

* a model version trained in **another project of the same locale** (``transfer_from``): its
  spans are relabelled through the schemas (:func:`pipeline.schemas.map_schema`; types the
  target cannot hold are dropped and counted) and joined with this project's rules and
  dictionaries exactly as a project's own model is (model spans first,
  :func:`pipeline.detection.merge_policy.merge_model_first`);
* a **pretrained member** that needs no gold (``pretrained``, e.g. spaCy ``es_core_news_sm``,
  :mod:`pipeline.detection.pretrained_ner`): its spans are added where nothing else found
  anything (the same merge, the detector's output first).

The join itself is :class:`pipeline.detection.sourced.SourcedDetector` (pure detection); here
is which sources a project may use. The detector stays the one loader of a project's own
versions, and a cold-start source is a choice a lead makes per pre-annotation.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from sqlite_utils import Database

import store
from pipeline.detection import pretrained_ner
from pipeline.detection.detector import Detector
from pipeline.detection.parallel import BatchDetector
from pipeline.detection.sourced import SourcedDetector
from pipeline.detection.rules import has_pack
from pipeline.detection.rules.typemap import SCHEMA_TYPE_MAPS
from pipeline.errors import WorkbenchError
from pipeline.layers import DETECTED
from pipeline.schemas import LabelSchema, SchemaMapping, map_schema
from pipeline.spans import Document, Span
from services import access
from services.settings import project_locale


class DetectorUnavailable(WorkbenchError):
    """No detector can be built for the project as asked (safe to show: names versions and locales)."""


@dataclass
class DetectorChoice:
    """The detector for documents without spans, and how to name it in a run."""

    detector: "Detector | SourcedDetector"
    description: str          # e.g. "model:crf+bert+rules+dictionaries" or "rules+dictionaries"
    model_version: str | None
    source: str = ""          # in words: "rules and dictionaries", "model v3 from project Ward 7 + ..."


def detector_for(db: Database, project: store.Project, *, model_version: store.ModelVersion | None = None,
                 rules_only: bool = False, transfer_from: store.ModelVersion | None = None,
                 pretrained: str | None = None) -> DetectorChoice:
    """The detector for ``project``: ``model_version`` (else the active one) with the locale's
    rules and dictionaries; without any model (or with ``rules_only``), rules and dictionaries
    alone. ``transfer_from`` (a version of another project of the same locale) takes the place
    of the project's own model; ``pretrained`` (a name in
    :data:`pipeline.detection.pretrained_ner.PRETRAINED`) adds a pretrained member.
    :class:`DetectorUnavailable` when a model cannot be loaded, a source does not fit the
    project, or nothing is left."""
    if transfer_from is not None:
        base = _rules_detector(project, lead="", required=False)
        choice = _with_transfer(db, project, base, transfer_from)
    else:
        choice = _own_detector(db, project, model_version=model_version, rules_only=rules_only)
    if pretrained:
        choice = _with_pretrained(project, choice, pretrained)
    return choice


def _own_detector(db: Database, project: store.Project, *, model_version: store.ModelVersion | None,
                  rules_only: bool) -> DetectorChoice:
    mv = None if rules_only else (model_version or store.active_model(db, project.id))
    if mv is not None:
        try:
            det = Detector.load(mv.path)
        except Exception as e:  # noqa: BLE001 - any failure: say which model, never a message quoting files
            which = f"the active model {mv.name}" if mv.active else f"model version {mv.name}"
            raise DetectorUnavailable(f"{which} cannot be loaded from its folder ({type(e).__name__}); "
                                      "activate another version or upload files that carry spans") from None
        return DetectorChoice(det, "+".join(det.parts) or f"model:{mv.name}", mv.name,
                              f"model {mv.name}" + (" with rules and dictionaries" if det.rules or det.dictionaries
                                                    else ""))
    det = _rules_detector(project, lead="" if rules_only else "no model is active and ")
    return DetectorChoice(det, "+".join(det.parts), None, RULES_WORDS)


RULES_WORDS = "rules and dictionaries"


def _rules_detector(project: store.Project, *, lead: str, required: bool = True) -> Detector:
    """Rules and dictionaries of the project's locale; ``required=False`` (another source will
    carry the detection): whatever the locale has, possibly nothing."""
    locale = project_locale(project)
    if not required:
        return Detector.without_model(project.schema, locale)
    if not has_pack(locale):
        raise DetectorUnavailable(f"{lead}there are no detection rules for locale {locale!r}: "
                                  "upload files that carry spans (brat, xml, jsonl), or train and activate a model")
    det = Detector.without_model(project.schema, locale)
    if not det.parts:
        raise DetectorUnavailable(f"{lead}no rules or dictionaries are available: upload files "
                                  "that carry spans (brat, xml, jsonl)")
    return det


# --------------------------------------------------------------------------- cold-start sources
def schema_mapping(source: "store.Project | LabelSchema", target: store.Project) -> SchemaMapping:
    """How ``source``'s labels become ``target``'s (through the rules' generic types)."""
    src = source.schema if isinstance(source, store.Project) else source
    return map_schema(src, target.schema, generic_maps=SCHEMA_TYPE_MAPS)


def transfer_problem(db: Database, project: store.Project, mv: store.ModelVersion) -> str | None:
    """Why version ``mv`` cannot pre-annotate ``project`` as another project's model, or ``None``."""
    if mv.project_id == project.id:
        return f"model version {mv.name} belongs to this project: choose it as the project's own model"
    if mv.status == "failed":
        return f"model version {mv.name} failed to train"
    try:
        other = store.get_project(db, mv.project_id)
    except store.NotFoundError:
        return f"the project of model version {mv.id} no longer exists"
    if project_locale(other) != project_locale(project):
        return (f"model version {mv.name} reads locale {project_locale(other)!r}, this project "
                f"{project_locale(project)!r}")
    mapping = schema_mapping(other, project)
    if not mapping.types:
        return f"none of the labels of model version {mv.name} fit this project's schema"
    return None


def transfer_words(db: Database, mv: store.ModelVersion) -> str:
    """``model v3 from project Ward 7``."""
    try:
        name = store.get_project(db, mv.project_id).name
    except store.NotFoundError:
        name = f"#{mv.project_id}"
    return f"model {mv.name} from project {name}"


def _with_transfer(db: Database, project: store.Project, base: Detector, mv: store.ModelVersion) -> DetectorChoice:
    problem = transfer_problem(db, project, mv)
    if problem:
        raise DetectorUnavailable(problem)
    other = store.get_project(db, mv.project_id)
    try:
        model = Detector.load(mv.path, rules=False, dictionaries=False)
    except Exception as e:  # noqa: BLE001 - say which model, never a message quoting files
        raise DetectorUnavailable(f"model version {mv.name} of project {other.name} cannot be loaded from its "
                                  f"folder ({type(e).__name__})") from None
    mapping = schema_mapping(model.schema, project)
    words = transfer_words(db, mv)
    det = SourcedDetector(base=base, transfer=model, mapping=mapping,
                          transfer_source=f"model:{mv.name}@{other.name}")
    return DetectorChoice(det, "+".join(det.parts), mv.name,
                          f"{words} with {RULES_WORDS}" if base.parts else words)


def _with_pretrained(project: store.Project, choice: DetectorChoice, name: str) -> DetectorChoice:
    spec = pretrained_ner.PRETRAINED.get(name)
    if spec is None or spec not in pretrained_ner.pretrained_for(project_locale(project)):
        raise DetectorUnavailable(f"there is no pretrained member {name!r} for locale {project_locale(project)!r}")
    reason = pretrained_ner.unavailable_reason(name, load=True)
    if reason:
        raise DetectorUnavailable(reason)
    inner = choice.detector
    det = inner if isinstance(inner, SourcedDetector) else SourcedDetector(base=inner)
    det.pretrained = name
    return DetectorChoice(det, "+".join(det.parts), choice.model_version, f"{spec.words} + {choice.source}")


@dataclass(frozen=True)
class PreannotationSource:
    """One way a lead may pre-annotate a project, in words, and what it needs."""

    key: str                       # "active", "rules", "version:<id>", "transfer:<id>"
    words: str                     # what the page shows
    model_version_id: int | None = None
    transfer: bool = False


@dataclass(frozen=True)
class PretrainedOption:
    """A pretrained member for the project's locale; ``reason`` says why it cannot run, if so."""

    name: str
    words: str
    reason: str | None = None


def preannotation_sources(db: Database, user: store.User | None, project: store.Project) -> list[PreannotationSource]:
    """What a lead may pre-annotate ``project`` with, best first, each in words: its active
    model; else (a cold start) the newest model active in another project of the same locale;
    rules and dictionaries; then the other versions of other same-locale projects (active ones
    first, newest first). Needs the right to train."""
    access.require(user, "train")
    out: list[PreannotationSource] = []
    active = store.active_model(db, project.id)
    if active is not None:
        out.append(PreannotationSource("active", f"the active model {active.name} with {RULES_WORDS}", active.id))
    rules = [PreannotationSource("rules", RULES_WORDS)] if has_pack(project_locale(project)) else []
    others: list[tuple[tuple, PreannotationSource]] = []
    for other in store.list_projects(db):
        if other.id == project.id or project_locale(other) != project_locale(project):
            continue
        for mv in store.list_model_versions(db, other.id):
            if transfer_problem(db, project, mv):
                continue
            words = transfer_words(db, mv) + (" (active there)" if mv.active else "")
            others.append(((not mv.active, -mv.id), PreannotationSource(f"transfer:{mv.id}", words, mv.id, True)))
    others.sort(key=lambda x: x[0])
    ranked = [src for _, src in others]
    if active is None and others and others[0][0][0] is False:
        return out + ranked[:1] + rules + ranked[1:]   # offered first: the newest model active elsewhere
    return out + rules + ranked


def pretrained_options(project: store.Project) -> list[PretrainedOption]:
    """The pretrained members for the project's locale, each with why it cannot run (if so)."""
    return [PretrainedOption(s.name, s.words, pretrained_ner.unavailable_reason(s.name))
            for s in pretrained_ner.pretrained_for(project_locale(project))]


def detect_documents(choice: DetectorChoice, docs: Sequence[Document], *,
                     progress: Callable[[int, int], None] | None = None, chunk: int = 32,
                     parallel: bool = True) -> dict[str, list[Span]]:
    """Spans for ``docs`` from ``choice.detector``, keyed by doc id, in the ``detected`` layer.
    ``parallel``: detect on every core by forking (jobs and commands); the app's own process,
    which serves other sessions from its threads, passes False and is never forked."""
    out: dict[str, list[Span]] = {}
    with BatchDetector(choice.detector, batch_docs=chunk, parallel=parallel) as spread:
        step = spread.step                      # parts that keep every core busy
        for i in range(0, len(docs), step):
            part = list(docs[i:i + step])
            for d, spans in zip(part, spread.detect_many(part)):
                out[d.doc_id] = [s.with_(doc_id=d.doc_id, layer=DETECTED) for s in spans]
            if progress:
                progress(min(i + step, len(docs)), len(docs))
    return out


def active_version_id(db: Database, project_id: int) -> int | None:
    """The id of the project's active model version (a cache key for a loaded detector)."""
    mv = store.active_model(db, project_id)
    return mv.id if mv else None


def detector_for_project(db: Database, project_id: int) -> DetectorChoice:
    """:func:`detector_for` by project id."""
    return detector_for(db, store.get_project(db, project_id))
