"""Pre-annotation: write the ``pre`` layer (the machine suggestions annotators correct) of
documents nobody has worked on yet, as a job.

The detector is the project's (:func:`services.detectors.detector_for`): a model version (the
active one unless the lead picks another) with rules and dictionaries, or rules and
dictionaries alone. A project with no gold of its own (a cold start) may instead use a model
version of another project of the same locale (``transfer_version_id``, its labels mapped through
the schemas), and may add a pretrained member that needs no gold (``pretrained``, e.g. spaCy
``es_core_news_sm``); :func:`services.detectors.preannotation_sources` lists the choices in
words, and the job's result says which source the suggestions came from (``source``). Spans
whose label the project's schema lacks are dropped and counted. A document someone saved in
the meantime is retried once, then skipped and counted: a job never overwrites a person's work.
"""
from __future__ import annotations

import os
from typing import Callable, Sequence

from sqlite_utils import Database

import store
from pipeline.detection.parallel import BatchDetector
from pipeline.errors import StaleSaveError
from pipeline.layers import PRE
from pipeline.spans import Span
from services import access
from services.detectors import RULES_WORDS, PreannotationSource, detector_for, transfer_problem, transfer_words
from services.jobs import JobCancelled, JobContext, run_here, start_job
from services.training import TrainingError, check_user

PREANNOTATE_BATCH = 16


def came_from(spans: Sequence[Span]) -> str:
    """Where a document's machine suggestions came from, in words, read from their sources
    (``model:v3@Ward 7`` -> "model v3 from project Ward 7", ``model:spacy-es_core_news_sm`` ->
    "spaCy es_core_news_sm", ``rule:*`` and ``dict:*`` -> "rules", "dictionaries"); "" for none.

    >>> came_from([Span("d", 0, 1, "NAME", source="model:v3@Ward 7"), Span("d", 2, 3, "DATE", source="rule:date")])
    'model v3 from project Ward 7, rules'
    """
    from pipeline.detection.pretrained_ner import PRETRAINED

    models: list[str] = []
    kinds: set[str] = set()
    for s in spans:
        kind, _, rest = s.source.partition(":")
        if kind == "model" and rest:
            if rest in PRETRAINED:
                words = PRETRAINED[rest].words
            else:
                name, _, project = rest.partition("@")
                words = f"model {name}" + (f" from project {project}" if project else "")
            if words not in models:
                models.append(words)
        elif kind:
            kinds.add(kind)
    rest_words = [w for k, w in (("rule", "rules"), ("dict", "dictionaries"), ("import", "imported spans"),
                                  ("human", "people")) if k in kinds]
    return ", ".join(models + rest_words)


def unannotated_documents(db: Database, project_id: int) -> list[int]:
    """Documents with neither a gold layer nor any annotator layer (the default targets of
    pre-annotation: nobody's work on them can be affected)."""
    return store.unseen_doc_ids(db, project_id)


def _model_version(db: Database, project_id: int, model_version_id: int | None) -> store.ModelVersion:
    mv = store.get_model_version(db, int(model_version_id)) if model_version_id is not None \
        else store.active_model(db, project_id)
    if mv is None:
        raise TrainingError(f"project {project_id} has no active model: train and activate one, or pre-annotate "
                            "with rules and dictionaries only")
    if mv.project_id != project_id:
        raise TrainingError(f"model version {mv.id} belongs to another project")
    return mv


def preannotate_job(ctx: JobContext) -> dict:
    """Write the ``pre`` layer of documents with a model version's detections (the active one
    unless ``model_version_id``; rules and dictionaries only with ``rules_only``)."""
    params = ctx.params
    try:
        pid = int(params["project_id"])
    except (KeyError, TypeError, ValueError):
        raise TrainingError("a pre-annotation job needs a project_id") from None
    user = params.get("user")
    with store.connect(ctx.db_path) as db:
        check_user(db, user, "train")
        project = store.get_project(db, pid)
        mv = None
        pretrained = params.get("pretrained") or None
        if params.get("transfer_version_id") is not None:
            mv = store.get_model_version(db, int(params["transfer_version_id"]))
            choice = detector_for(db, project, transfer_from=mv, pretrained=pretrained)
        elif params.get("rules_only"):
            choice = detector_for(db, project, rules_only=True, pretrained=pretrained)
        else:
            mv = _model_version(db, pid, params.get("model_version_id"))
            choice = detector_for(db, project, model_version=mv, pretrained=pretrained)
        det = choice.detector
        ids = [int(i) for i in params["doc_ids"]] if params.get("doc_ids") else unannotated_documents(db, pid)

    total = len(ids)
    ctx.progress(0, total, f"pre-annotating {total} document(s) with {choice.source}", force=True)
    done, n_spans, stale, dropped = _detect_and_save(ctx, det, pid, project.schema, ids, user)
    ctx.progress(done, total, f"{done} of {total} document(s) pre-annotated", force=True)
    dropped += int(getattr(det, "dropped", 0))   # another project's labels the schema cannot hold
    return {"documents": done, "spans": n_spans, "skipped_stale": stale, "dropped_outside_schema": dropped,
            "model_version_id": mv.id if mv else None, "model": mv.name if mv else None, "parts": det.parts,
            "source": choice.source}


def _documents(ctx: JobContext, project_id: int, ids: Sequence[int], size: int):
    """The documents of ``ids``, loaded ``size`` at a time when asked for (no connection stays
    open between loads: the detection workers, forked while this runs, inherit none)."""
    for i in range(0, len(ids), size):
        if ctx.should_stop():
            raise JobCancelled("cancelled on request")
        with store.connect(ctx.db_path) as db:
            docs = store.load_documents(db, project_id, ids=list(ids[i:i + size]))
        yield from docs


def _save_chunk(db: Database, done: list, schema, user: str | None) -> tuple[int, int, int]:
    """Save the ``pre`` layers of ``done`` (``(document, spans)``) in one transaction: (spans
    saved, spans outside the schema, documents skipped because someone saved them meanwhile)."""
    n_spans = dropped = stale = 0
    with store.transaction(db):
        for doc, spans in done:
            keep = [s.with_(doc_id=doc.doc_id, layer=PRE) for s in spans if schema.has(s.category, s.type)]
            dropped += len(spans) - len(keep)
            for attempt in range(2):
                state = store.read_layer(db, int(doc.doc_id), PRE)
                try:   # a stale save rolls back its own savepoint only
                    store.save_layer(db, int(doc.doc_id), PRE, keep, expected_version=state.version,
                                     user=user, status="finished")
                    n_spans += len(keep)
                    break
                except StaleSaveError:
                    if attempt:
                        stale += 1
    return n_spans, dropped, stale


def _detect_and_save(ctx: JobContext, det, project_id: int, schema, ids: Sequence[int],
                     user: str | None) -> tuple[int, int, int, int]:
    """Detect ``ids`` (on every core where the detector allows: :mod:`pipeline.detection.parallel`)
    and save their ``pre`` layers a chunk per transaction while the workers detect the next
    notes: (documents, spans, skipped as stale, dropped outside the schema)."""
    total = len(ids)
    counts = [0, 0, 0, 0]
    ready: list = []

    def save() -> None:
        with store.connect(ctx.db_path) as db:
            got = _save_chunk(db, ready, schema, user)
        counts[0] += len(ready)
        for k, n in enumerate(got, start=1):
            counts[k] += n
        ready.clear()
        ctx.progress(counts[0], total, f"{counts[0]} of {total} document(s) pre-annotated")

    with BatchDetector(det, batch_docs=PREANNOTATE_BATCH) as spread:
        step = spread.step
        for pair in spread.stream(_documents(ctx, project_id, ids, step)):
            ready.append(pair)
            if len(ready) >= step:
                save()
        if ready:
            save()
    done, n_spans, dropped, stale = counts
    return done, n_spans, stale, dropped


def _params(project_id: int, user: str | None, rules_only: bool, model_version_id: int | None,
            doc_ids: Sequence[int] | None, transfer_version_id: int | None = None,
            pretrained: str | None = None) -> dict:
    if transfer_version_id is not None and (rules_only or model_version_id is not None):
        raise TrainingError("choose one source: another project's model, this project's model, or rules and "
                            "dictionaries")
    params: dict = {"project_id": int(project_id), "user": user, "rules_only": bool(rules_only)}
    if model_version_id is not None:
        params["model_version_id"] = int(model_version_id)
    if transfer_version_id is not None:
        params["transfer_version_id"] = int(transfer_version_id)
    if pretrained:
        params["pretrained"] = str(pretrained)
    if doc_ids:
        params["doc_ids"] = [int(d) for d in doc_ids]
    return params


def check_source(db: Database, project_id: int, *, transfer_version_id: int | None = None,
                 pretrained: str | None = None) -> None:
    """Refuse, in words, a cold-start source that cannot serve the project (before a job starts)."""
    from pipeline.detection import pretrained_ner

    project = store.get_project(db, project_id)
    if transfer_version_id is not None:
        try:
            mv = store.get_model_version(db, int(transfer_version_id))
        except store.NotFoundError:
            raise TrainingError(f"there is no model version {int(transfer_version_id)}") from None
        problem = transfer_problem(db, project, mv)
        if problem:
            raise TrainingError(problem)
    if pretrained:
        from services.settings import project_locale

        if pretrained not in {s.name for s in pretrained_ner.pretrained_for(project_locale(project))}:
            raise TrainingError(f"there is no pretrained member {pretrained!r} for this project's locale")
        reason = pretrained_ner.unavailable_reason(pretrained)
        if reason:
            raise TrainingError(reason)


def source_words(db: Database, project_id: int, *, rules_only: bool = False, model_version_id: int | None = None,
                 transfer_version_id: int | None = None, pretrained: str | None = None) -> str:
    """What a pre-annotation with these choices will come from, in words (for the page)."""
    from pipeline.detection import pretrained_ner

    if transfer_version_id is not None:
        base = f"{transfer_words(db, store.get_model_version(db, int(transfer_version_id)))} with {RULES_WORDS}"
    elif rules_only:
        base = RULES_WORDS
    else:
        mv = store.get_model_version(db, int(model_version_id)) if model_version_id is not None \
            else store.active_model(db, project_id)
        base = f"model {mv.name} with {RULES_WORDS}" if mv else RULES_WORDS
    spec = pretrained_ner.PRETRAINED.get(pretrained or "")
    return f"{spec.words} + {base}" if spec else base


def start_preannotation(db_path: str | os.PathLike, db: Database, user: store.User, project_id: int, *,
                        rules_only: bool = False, model_version_id: int | None = None,
                        doc_ids: Sequence[int] | None = None, transfer_version_id: int | None = None,
                        pretrained: str | None = None) -> int:
    """Check the lead's right and that the chosen source can serve the project, and start the
    worker; the job id. Sources: the project's active model (default) or ``model_version_id``;
    ``rules_only``; or ``transfer_version_id``, a version of another project of the same locale;
    each optionally with a ``pretrained`` member."""
    access.require(user, "train")
    if (not rules_only and model_version_id is None and transfer_version_id is None
            and store.active_model(db, project_id) is None):
        raise TrainingError("there is no active model: activate one, or pre-annotate with rules and dictionaries only")
    check_source(db, project_id, transfer_version_id=transfer_version_id, pretrained=pretrained)
    params = _params(project_id, user.username, rules_only, model_version_id, doc_ids, transfer_version_id, pretrained)
    return start_job(db_path, "preannotate", params, user=user.username)


def preannotate_from_store(db_path: str | os.PathLike, project_id: int, *, model_version_id: int | None = None,
                           doc_ids: Sequence[int] | None = None, rules_only: bool = False, user: str | None = None,
                           progress: Callable[[int, int | None, str | None], None] | None = None,
                           transfer_version_id: int | None = None, pretrained: str | None = None) -> dict:
    """Run the ``preannotate`` job in this process, for the command line."""
    params = _params(project_id, user, rules_only, model_version_id, doc_ids, transfer_version_id, pretrained)
    with store.connect(db_path) as db:
        check_source(db, project_id, transfer_version_id=transfer_version_id, pretrained=pretrained)
    return run_here(db_path, "preannotate", preannotate_job, params, user=user, on_progress=progress)


def start_from_source(db_path: str | os.PathLike, db: Database, user: store.User, project_id: int,
                      source: PreannotationSource, *, pretrained: str | None = None,
                      doc_ids: Sequence[int] | None = None) -> int:
    """Start a pre-annotation from a choice of :func:`services.detectors.preannotation_sources`
    (the page's path); the job id. Checks as :func:`start_preannotation`."""
    if source.transfer:
        return start_preannotation(db_path, db, user, project_id, transfer_version_id=source.model_version_id,
                                   pretrained=pretrained, doc_ids=doc_ids)
    if source.key == "rules":
        return start_preannotation(db_path, db, user, project_id, rules_only=True, pretrained=pretrained,
                                   doc_ids=doc_ids)
    return start_preannotation(db_path, db, user, project_id, model_version_id=source.model_version_id,
                               pretrained=pretrained, doc_ids=doc_ids)


def last_preannotation(db: Database, user: store.User | None, project_id: int) -> str | None:
    """The newest finished pre-annotation of the project in words (documents, suggestions and
    where they came from), or ``None``. Needs the right to train."""
    from services import jobs

    access.require(user, "train")
    for job in jobs.recent_jobs(db, project_id, kinds=("preannotate",), limit=5):
        if job.status == "done":
            return jobs.describe_result(job)
    return None
