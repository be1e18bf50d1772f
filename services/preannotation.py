"""Pre-annotation: write the ``pre`` layer (the machine suggestions annotators correct) of
documents nobody has worked on yet, as a job.

The detector is the project's (:func:`services.detectors.detector_for`): a model version (the
active one unless the lead picks another) with rules and dictionaries, or rules and
dictionaries alone. Spans whose label the project's schema lacks are dropped and counted. A
document someone saved in the meantime is retried once, then skipped and counted: a job never
overwrites a person's work.
"""
from __future__ import annotations

import os
from typing import Callable, Sequence

from sqlite_utils import Database

import store
from pipeline.errors import StaleSaveError
from pipeline.layers import PRE
from services import access
from services.detectors import detector_for
from services.jobs import JobCancelled, JobContext, run_here, start_job
from services.training import TrainingError, check_user

PREANNOTATE_BATCH = 16


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
    db = ctx.connect()
    try:
        check_user(db, user, "train")
        project = store.get_project(db, pid)
        mv = None
        if params.get("rules_only"):
            choice = detector_for(db, project, rules_only=True)
        else:
            mv = _model_version(db, pid, params.get("model_version_id"))
            choice = detector_for(db, project, model_version=mv)
        det = choice.detector
        ids = [int(i) for i in params["doc_ids"]] if params.get("doc_ids") else unannotated_documents(db, pid)
    finally:
        db.conn.close()

    schema = project.schema
    total = len(ids)
    done = n_spans = stale = dropped = 0
    ctx.progress(0, total, f"pre-annotating {total} document(s) with {', '.join(det.parts)}", force=True)
    for i in range(0, total, PREANNOTATE_BATCH):
        if ctx.should_stop():
            raise JobCancelled("cancelled on request")
        chunk = ids[i:i + PREANNOTATE_BATCH]
        db = ctx.connect()
        try:
            docs = store.load_documents(db, pid, ids=chunk)
            preds = det.detect_many(docs)
            for doc, spans in zip(docs, preds):
                keep = [s.with_(doc_id=doc.doc_id, layer=PRE) for s in spans if schema.has(s.category, s.type)]
                dropped += len(spans) - len(keep)
                for attempt in range(2):
                    state = store.read_layer(db, int(doc.doc_id), PRE)
                    try:
                        store.save_layer(db, int(doc.doc_id), PRE, keep, expected_version=state.version,
                                         user=user, status="finished")
                        n_spans += len(keep)
                        break
                    except StaleSaveError:
                        if attempt:
                            stale += 1
                done += 1
        finally:
            db.conn.close()
        ctx.progress(done, total, f"{done} of {total} document(s) pre-annotated")
    ctx.progress(done, total, f"{done} of {total} document(s) pre-annotated", force=True)
    return {"documents": done, "spans": n_spans, "skipped_stale": stale, "dropped_outside_schema": dropped,
            "model_version_id": mv.id if mv else None, "model": mv.name if mv else None, "parts": det.parts}


def _params(project_id: int, user: str | None, rules_only: bool, model_version_id: int | None,
            doc_ids: Sequence[int] | None) -> dict:
    params: dict = {"project_id": int(project_id), "user": user, "rules_only": bool(rules_only)}
    if model_version_id is not None:
        params["model_version_id"] = int(model_version_id)
    if doc_ids:
        params["doc_ids"] = [int(d) for d in doc_ids]
    return params


def start_preannotation(db_path: str | os.PathLike, db: Database, user: store.User, project_id: int, *,
                        rules_only: bool = False, model_version_id: int | None = None,
                        doc_ids: Sequence[int] | None = None) -> int:
    """Check the lead's right and that there is a model to use, and start the worker; the job id."""
    access.require(user, "train")
    if not rules_only and model_version_id is None and store.active_model(db, project_id) is None:
        raise TrainingError("there is no active model: activate one, or pre-annotate with rules and dictionaries only")
    params = _params(project_id, user.username, rules_only, model_version_id, doc_ids)
    return start_job(db_path, "preannotate", params, user=user.username)


def preannotate_from_store(db_path: str | os.PathLike, project_id: int, *, model_version_id: int | None = None,
                           doc_ids: Sequence[int] | None = None, rules_only: bool = False, user: str | None = None,
                           progress: Callable[[int, int | None, str | None], None] | None = None) -> dict:
    """Run the ``preannotate`` job in this process, for the command line."""
    params = _params(project_id, user, rules_only, model_version_id, doc_ids)
    return run_here(db_path, "preannotate", preannotate_job, params, user=user, on_progress=progress)
