"""The ``train`` job: retrain the ensemble from a project's finished gold set, in the worker or
(:func:`train_from_store`, the command line) in this process.

:func:`train_job` (job kind ``train``): split the gold set patient-disjoint into train and
held-out dev (:func:`models.split.patient_split`), train, evaluate the new version on the dev
documents with the full detector (model + rules + dictionaries: what the ``pre`` layer will
contain) and record it with :func:`store.add_model_version` - *not* active: a lead looks at
the figures and activates it (:func:`services.training.activate_version`).

Apart from :mod:`services.training` because this is the part that runs: its steps, its live
loss/F1 history and its staging folder. What a lead chooses and decides (the request and its
checks, starting the job, the versions it leaves) stays there, and this module uses it.

Why training happens in a staging directory: :func:`models.trainer.train_ensemble` publishes a
version atomically, but a version is only *ours* once it has been evaluated and has a row in
the store. So the run publishes into ``<models>/.tmp-stage-<pid>/`` and the finished version is
moved into ``<models>/`` right before its row is written. A run that is cancelled, fails or is
killed (SIGKILL included) leaves only ``.tmp-*`` directories, which readers ignore and the next
run removes (:func:`models.version.remove_stale_tmp`); the store and the active model stay as
they were.

Heavy imports (torch, transformers) happen inside the job function, so importing this module
(which every worker does) stays cheap.
"""
from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import store
from models.split import patient_of, patient_split
from models.version import TMP_PREFIX, remove_stale_tmp
from pipeline.detection.detector import Detector
from pipeline.detection.parallel import detect_many_parallel
from pipeline.layers import GOLD
from pipeline.metrics import evaluate
from pipeline.spans import Document
from services.jobs import JobCancelled, JobContext, run_here
from services.settings import ProjectSettings, checkpoint_dir, models_dir_for, project_locale
from services.training import DEFAULT_MEMBERS, TrainingError, TrainParams, check_user

HISTORY_POINTS = 400          # loss/F1 points kept in a job's result (older ones thinned out)
HISTORY_FLUSH_S = 1.0


# --------------------------------------------------------------------------- live history

class _History:
    """Loss / dev-F1 points of a training run, kept in the job's result while it runs (so a
    reloaded page can chart them), thinned to :data:`HISTORY_POINTS`."""

    def __init__(self, ctx: JobContext):
        self.ctx = ctx
        self.points: list[dict] = []
        self.phase = "training"
        self._flushed = 0.0
        self._n = 0

    def add(self, member: str, loss: float | None, dev_f1: float | None, done: int, step: int | None = None) -> None:
        if loss is None and dev_f1 is None:
            return
        self._n += 1
        self.points.append({"i": self._n, "member": member, "done": done, "step": step,
                            "loss": None if loss is None else round(float(loss), 5),
                            "dev_f1": None if dev_f1 is None else round(float(dev_f1), 5)})
        if len(self.points) > HISTORY_POINTS:
            # keep every F1 point (few, and what a lead watches), thin the loss points
            self.points = [p for k, p in enumerate(self.points) if p["dev_f1"] is not None or k % 2 == 0]

    def snapshot(self) -> dict:
        return {"phase": self.phase, "history": list(self.points)}

    def flush(self, force: bool = False) -> None:
        if self.ctx.job_id is None:
            return
        now = time.monotonic()
        if not force and now - self._flushed < HISTORY_FLUSH_S:
            return
        self._flushed = now
        with store.connect(self.ctx.db_path) as db:
            store.update_job(db, self.ctx.job_id, result=self.snapshot())


# --------------------------------------------------------------------------- train

def _metrics_json(report) -> dict:
    d = report.to_json()
    d.pop("per_document", None)   # document ids and counts only, but large and not needed
    return d


#: progress units of the evaluation on held-out gold, after the trainer's own
EVAL_UNITS = 100


def train_job(ctx: JobContext) -> dict:
    """Retrain from the project's finished gold set; returns the new version's id and figures.

    The steps, each a function below: check the request, read the gold set, split it by
    patient, make the training configuration, then train, evaluate and record the version from
    a staging folder that goes whatever happens (the module docstring says why)."""
    p = TrainParams.from_params(ctx.params)
    _check_members(p.members)
    project, docs = _read_gold(ctx, p)
    split = _split_gold(project, docs, p)
    unlabelled = _project_texts(ctx, p, split)
    cfg = _train_config(project, p)
    models_dir, stage = _fresh_stage(project, ctx.db_path)
    history = _History(ctx)
    progress = _TrainProgress(ctx, history, len(p.members))
    t0 = time.time()
    final: Path | None = None
    try:
        info = _train(ctx, progress, split, project, cfg, stage, unlabelled)
        metrics = _evaluate_on_dev(ctx, progress, info, split)
        final = models_dir / info.name
        os.replace(info.path, final)
        mv_id = _record_version(ctx, p.user, project, info, final, metrics, split)
    except BaseException:
        if final is not None:
            shutil.rmtree(final, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    history.phase = "done"
    strict = metrics.get("strict", {}).get("micro", {})
    chars = metrics.get("characters", {}).get("micro", {})
    return {**history.snapshot(), "model_version_id": mv_id, "name": info.name, "path": str(final),
            "n_train_docs": len(split.train), "n_dev_docs": len(split.dev), "seconds": round(time.time() - t0, 1),
            "n_unlabelled_texts": len(unlabelled),
            "dev_strict": {k: strict.get(k) for k in ("precision", "recall", "f1")},
            "dev_characters": {k: chars.get(k) for k in ("precision", "recall")},
            "dev_document_recall": metrics.get("document_recall")}


@dataclass(frozen=True)
class _Split:
    """The gold set split patient-disjoint: what the members learn from, and the held-out dev
    documents the version is evaluated (and its thresholds tuned) on."""

    train: list[Document]
    dev: list[Document]


def _check_members(members: Sequence[str]) -> None:
    """Refuse, before anything is read, a member this installation cannot train (models/ says)."""
    from models.trainer import member_kind

    for m in members:
        try:
            member_kind(m)
        except ValueError:
            raise TrainingError(f"this installation cannot train ensemble member {m!r}") from None


def _read_gold(ctx: JobContext, p: TrainParams) -> tuple[store.Project, list[Document]]:
    """The project and its finished gold documents (the user's role checked again)."""
    with store.connect(ctx.db_path) as db:
        check_user(db, p.user, "train")
        project = store.get_project(db, p.project_id)
        docs = store.load_documents(db, p.project_id, layer=GOLD, status="finished")
    return project, docs


def _project_texts(ctx: JobContext, p: TrainParams, split: "_Split") -> list[str]:
    """The text of every note of the project the members do not learn from as gold: unannotated
    notes, notes in annotation, and the dev notes. Read without labels: the word clusters of the
    CRF members (:mod:`models.clusters`) and the encoders' vocabulary and masked-LM pre-training
    learn the ward's words from every imported note, so a surname or a unit seen only in notes no
    one annotated yet still gets a cluster."""
    train_ids = {d.doc_id for d in split.train}
    with store.connect(ctx.db_path) as db:
        return [d.text for d in store.load_documents(db, p.project_id) if d.doc_id not in train_ids]


def _split_gold(project: store.Project, docs: list[Document], p: TrainParams) -> _Split:
    """Split by patient; a gold set with fewer than two patients (or no span) cannot train."""
    summary_patients = len({patient_of(d) for d in docs})
    n_spans = sum(len(d.spans) for d in docs)
    if len(docs) < 2 or summary_patients < 2 or n_spans == 0:
        raise TrainingError(
            f"project {project.id} has {len(docs)} finished gold document(s) from {summary_patients} patient(s) "
            f"with {n_spans} span(s); training needs gold spans from at least 2 patients "
            "(one side trains, the other is held out to evaluate and tune thresholds)")
    train_docs, dev_docs = patient_split(docs, p.dev_fraction, p.seed)
    if not dev_docs or not train_docs:
        raise TrainingError("the gold set could not be split into train and held-out dev documents by patient")
    return _Split(train_docs, dev_docs)


def _train_config(project: store.Project, p: TrainParams):
    """The :class:`models.trainer.TrainConfig`: the request over the project's settings (target
    recall, locale, a checkpoint folder the transformer members start from)."""
    from models.trainer import TrainConfig

    settings = ProjectSettings.of(project)
    target = p.target_recall if p.target_recall is not None else settings.target_recall
    cfg_dict = {**p.config, "members": list(p.members), "mode": p.mode, "seed": p.seed, "target_recall": target,
                "locale": project_locale(project),
                "threads": p.threads or p.config.get("threads") or max(1, min(2, os.cpu_count() or 1))}
    if p.epochs is not None:
        cfg_dict["epochs"] = p.epochs
    cp = checkpoint_dir(project)
    if cp is not None:
        if not cp.is_dir():
            raise TrainingError(f"the project's checkpoint folder {settings.checkpoint_dir} does not exist")
        enc = dict(cfg_dict.get("encoders") or {})
        for m in p.members:
            if m != "crf":
                enc[m] = {**enc.get(m, {}), "init_from": str(cp.resolve())}
        cfg_dict["encoders"] = enc
    return TrainConfig.from_dict(cfg_dict)


def _fresh_stage(project: store.Project, db_path: str) -> tuple[Path, Path]:
    """The project's models folder (stale ``.tmp-*`` leftovers of killed runs removed) and this
    run's empty staging folder in it."""
    models_dir = models_dir_for(project, db_path)
    models_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_tmp(models_dir)
    stage = models_dir / f"{TMP_PREFIX}stage-{os.getpid()}"
    shutil.rmtree(stage, ignore_errors=True)
    return models_dir, stage


class _TrainProgress:
    """The trainer's events as the job's progress line and its loss/F1 history. The total is
    the trainer's (it learns its own as it goes) plus :data:`EVAL_UNITS` for the evaluation."""

    def __init__(self, ctx: JobContext, history: _History, n_members: int):
        self.ctx, self.history = ctx, history
        self.total = 1000 * n_members + 100 + EVAL_UNITS

    def __call__(self, ev) -> None:
        self.total = ev.total + EVAL_UNITS
        self.history.add(ev.member, ev.loss, ev.dev_f1, ev.done, getattr(ev, "step", None))
        msg = ev.message
        if ev.loss is not None:
            msg += f" · loss {ev.loss:.4f}"
        if ev.dev_f1 is not None:
            msg += f" · dev F1 {ev.dev_f1:.3f}"
        self.ctx.progress(ev.done, self.total, msg)
        self.history.flush()


def _train(ctx: JobContext, progress: _TrainProgress, split: _Split, project: store.Project, cfg, stage: Path,
           unlabelled: list[str] | None = None):
    """Train the ensemble into ``stage`` (``unlabelled``: the project's other notes' texts, see
    :func:`_project_texts`); a cancel (during or right after) ends the job."""
    from models.trainer import TrainingCancelled, train_ensemble

    try:
        info = train_ensemble(split.train, split.dev, project.schema, cfg, stage, progress=progress,
                              should_stop=ctx.should_stop, extra_texts=unlabelled)
    except TrainingCancelled:
        raise JobCancelled("cancelled on request") from None
    if ctx.should_stop():
        raise JobCancelled("cancelled on request")
    return info


def _evaluate_on_dev(ctx: JobContext, progress: _TrainProgress, info, split: _Split) -> dict:
    """The trained version's figures on the held-out dev documents (with the trainer's own);
    a cancel meanwhile ends the job before the version is moved in."""
    progress.history.phase = "evaluating"
    ctx.progress(progress.total - EVAL_UNITS, progress.total, "evaluating on held-out gold", force=True)
    progress.history.flush(force=True)
    metrics = _evaluate_version(Path(info.path), split.dev)
    metrics["training"] = info.metrics
    metrics["evaluated_on"] = {"documents": len(split.dev), "split": "dev (patient-disjoint)",
                               "note": "thresholds were tuned on these documents"}
    if ctx.should_stop():
        raise JobCancelled("cancelled on request")
    return metrics


def _record_version(ctx: JobContext, user: str | None, project: store.Project, info, final: Path, metrics: dict,
                    split: _Split) -> int:
    """Write the version's row (inactive), naming its train and dev documents; its id."""
    config = {**info.config, "train_doc_ids": [int(d.doc_id) for d in split.train],
              "dev_doc_ids": [int(d.doc_id) for d in split.dev], "job_id": ctx.job_id,
              "members": list(info.members), "locale": info.locale, "target_recall": info.target_recall}
    with store.connect(ctx.db_path) as db:
        return store.add_model_version(db, project.id, info.name, str(final), config=config, metrics=metrics,
                                       thresholds=info.thresholds, user=user)


def _evaluate_version(path: Path, dev_docs: Sequence) -> dict:
    """Every measure of :func:`pipeline.metrics.evaluate` for the version on the dev documents,
    run through the full detector (model, rules, dictionaries) as pre-annotation will be."""
    det = Detector.load(path)
    preds = detect_many_parallel(det, list(dev_docs))
    system = {d.doc_id: spans for d, spans in zip(dev_docs, preds)}
    reference = {d.doc_id: list(d.spans) for d in dev_docs}
    texts = {d.doc_id: d.text for d in dev_docs}
    report = evaluate(system, reference, texts, doc_ids=[d.doc_id for d in dev_docs])
    out = _metrics_json(report)
    out["detector"] = det.parts
    return out


# --------------------------------------------------------------------------- for the command line

def train_from_store(db_path: str | os.PathLike, project_id: int, *, members: Sequence[str] = DEFAULT_MEMBERS,
                     epochs: int | None = None, seed: int = 13, target_recall: float | None = None,
                     config: dict | None = None, threads: int | None = None, user: str | None = None,
                     progress: Callable[[int, int | None, str | None], None] | None = None,
                     mode: str = "flat") -> dict:
    """Run the ``train`` job in this process (recorded in the jobs table), for the command line."""
    params = {"project_id": int(project_id), "members": list(members), "epochs": epochs, "seed": seed,
              "target_recall": target_recall, "config": dict(config or {}), "user": user, "mode": mode}
    if threads is not None:
        params["threads"] = threads
    return run_here(db_path, "train", train_job, params, user=user, on_progress=progress)
