"""The project's masked language model for paraphrase surrogates: train it (a job), find and load it.

* :func:`train_infill_job` (job kind ``train_infill``): a small masked LM trained on the
  documents of the project that have a gold layer, their gold PHI first replaced by list
  surrogates (:func:`models.masked_lm_source.surrogate_source`: the model never sees a real
  value; a note without gold could hold any, so it is left out and counted), with the spans
  carried over (PHI words masked more often, per-category word lists); the keyed set of the
  real values (:mod:`pipeline.deid.project_values`, installation key) is saved with it. Written
  to ``<models dir>/infill/<name>`` and made current only when complete: a failed or cancelled
  training leaves the previous model in use. Progress and cancel like any job.
* :func:`start_infill_training` (the De-identify page; leads); the command line
  (``python -m pipeline train-infill``) runs the same job in its process
  (:func:`services.worker.run_inline`).
* :func:`project_infiller`: the current model of a project, loaded once per process, for
  de-identification runs with the ``paraphrase`` action (``None`` when there is none: paraphrase
  spans then get list surrogates, counted). A model without its keyed set of project values
  (trained before it existed) is refused (:func:`require_project_values`).

Nothing here logs or returns text: results are names, counts and seconds.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

from sqlite_utils import Database

import store
from pipeline.errors import WorkbenchError
from pipeline.layers import GOLD
from services import access
from services.jobs import JobCancelled, JobContext, fail_stale_jobs, running_jobs, start_job
from services.settings import models_dir_for

INFILL_DIR = "infill"
JOB_KIND = "train_infill"
#: What a project's training uses unless asked otherwise (sized for a CPU: a few minutes for
#: a thousand notes; the tests pass a tiny config).
DEFAULT_CONFIG = {"hidden": 128, "layers": 2, "heads": 4, "intermediate": 512, "epochs": 4, "max_len": 128}

_cache: dict[str, object] = {}
_lock = threading.Lock()


class InfillError(WorkbenchError):
    """A language-model request that cannot run as asked (safe to show)."""


def infill_root(project: store.Project, db_path: str | os.PathLike) -> Path:
    """``<models dir>/project-<id>/infill``: beside the project's model versions (which the
    registry lists by their ``version.json``; this folder has none, so it is never one)."""
    return models_dir_for(project, db_path) / INFILL_DIR


def current_model(project: store.Project, db_path: str | os.PathLike) -> Path | None:
    from models.masked_lm_folders import current_model_dir

    return current_model_dir(infill_root(project, db_path))


def model_status(db: Database, user: store.User | str | None, project_id: int, db_path: str | os.PathLike) -> dict | None:
    """The project's current language model (name, when, documents, seconds), or None."""
    access.actor(user, "deidentify")
    from models.masked_lm_folders import model_info

    project = store.get_project(db, int(project_id))
    path = current_model(project, db_path)
    return model_info(path) if path is not None else None


def project_infiller(project: store.Project, db_path: str | os.PathLike):
    """The project's current masked LM (a :class:`models.masked_lm.MaskedLM`, the engine's
    ``Infiller``), loaded once per process and model; None when the project has none."""
    path = current_model(project, db_path)
    if path is None:
        return None
    key = str(path.resolve())
    with _lock:
        lm = _cache.get(key)
        if lm is None:
            from models.masked_lm_folders import load_masked_lm

            lm = load_masked_lm(path)
            require_project_values(lm)
            _cache.clear()          # one model at a time: the previous one is not used again
            _cache[key] = lm
    return lm


def require_project_values(lm) -> None:
    """A model trained before real values were kept out of its training text (no keyed set of
    the project's values beside it) may propose them: refused, with what to do."""
    if getattr(lm, "project_values", None) is None:
        raise InfillError(f"language model {lm.name} was trained on real PHI values (before they were replaced "
                          "by surrogates for training); train it again with train-infill")


# --------------------------------------------------------------------------- the job

def train_infill_job(ctx: JobContext) -> dict:
    """Params: ``project_id``; ``user``; ``config`` (:class:`models.masked_lm.MaskedLMConfig`
    fields over :data:`DEFAULT_CONFIG`); ``layer`` whose spans guide the masking (``gold``)."""
    from models.masked_lm import MaskedLMConfig
    from models.masked_lm_folders import write_masked_lm
    from models.masked_lm_source import surrogate_source
    from models.masked_lm_train import TrainingStopped, train_masked_lm
    from services.settings import project_locale, project_secret

    p = dict(ctx.params)
    with store.connect(ctx.db_path) as db:
        project = store.get_project(db, int(p["project_id"]))
        docs = store.load_documents(db, project.id)
        spans = store.read_project_layer(db, project.id, str(p.get("layer") or GOLD))
    docs = [d for d in docs if d.text and d.text.strip()]
    if not docs:
        raise InfillError(f"project {project.id} has no document text to train a language model on")
    gold = [d for d in docs if int(d.doc_id) in spans]
    if not gold:
        raise InfillError(f"project {project.id} has no document with gold spans: the language model learns only "
                          "from notes whose PHI is known, replaced by surrogates first")
    for d in gold:
        d.spans = list(spans[int(d.doc_id)])
    try:
        cfg = MaskedLMConfig.from_dict({**DEFAULT_CONFIG, **dict(p.get("config") or {})})
    except (TypeError, ValueError) as e:
        raise InfillError(f"language-model settings: {e}") from None
    ctx.progress(0, None, "replacing the notes' PHI by surrogates for training", force=True)
    secret = project_secret(ctx.db_path)
    source = surrogate_source(gold, secret=secret, locale=project_locale(project),
                              without_gold=len(docs) - len(gold))
    if not source.texts:
        raise InfillError(f"project {project.id}: no note could be rewritten without a real value left in it")
    ctx.progress(0, None, "training the project language model", force=True)

    def on_step(step: int, total: int, loss: float) -> None:
        ctx.progress(step, total, f"training the project language model · loss {loss:.3f}")

    try:
        lm, report = train_masked_lm(source.texts, spans=source.spans, groups=source.groups, config=cfg,
                                     progress=on_step, should_stop=ctx.should_stop)
    except TrainingStopped:
        raise JobCancelled("cancelled on request") from None
    ctx.check_stop()
    lm.project_values = source.project_values
    root = infill_root(project, ctx.db_path)
    path = write_masked_lm(lm, root)
    with store.connect(ctx.db_path) as db:
        store.audit(db, p.get("user"), "infill.train", f"project:{project.id}",
                    detail={"name": lm.name, "documents": report.documents, "seconds": report.seconds,
                            **source.counts()})
    return {"project_id": project.id, "name": lm.name, "path": str(path), "documents": report.documents,
            "with_spans": sum(1 for s in source.spans if s), "windows": report.windows,
            "steps": report.steps, "seconds": report.seconds, "losses": report.losses, **source.counts()}


def start_infill_training(db_path: str | os.PathLike, db: Database, user: store.User, project_id: int,
                          config: dict | None = None) -> int:
    """Train the project's language model as a job (leads); one at a time per project."""
    u = access.require(user, "train")
    store.get_project(db, int(project_id))
    fail_stale_jobs(db)
    if running_jobs(db, int(project_id), kinds=(JOB_KIND,)):
        raise InfillError("the project's language model is already being trained; wait for it or cancel it")
    return start_job(db_path, JOB_KIND, {"project_id": int(project_id), "config": dict(config or {}),
                                         "user": u.username}, user=u.username)
