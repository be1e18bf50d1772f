"""Job functions behind the Train page and the ``train-project`` / ``preannotate`` commands.

* ``train`` (:func:`train_job`): retrain the ensemble from the project's finished gold layer,
  split patient-disjoint into train and held-out dev (:func:`models.split.patient_split`),
  evaluate the new version on the dev documents with the full detector (model + rules +
  dictionaries: what the ``pre`` layer will contain) and record it with
  :func:`store.add_model_version` - *not* active: a lead looks at the figures and activates it.
* ``preannotate`` (:func:`preannotate_job`): run a model version (the active one by default)
  over documents nobody has annotated yet and write their ``pre`` layer.

Why training happens in a staging directory: :func:`models.train.train_ensemble` publishes a
version atomically, but a version is only *ours* once it has been evaluated and has a row in
the store. So the run publishes into ``<models>/.tmp-stage-<pid>/`` and the finished version is
moved into ``<models>/`` right before its row is written. A run that is cancelled, fails or is
killed (SIGKILL included) leaves only ``.tmp-*`` directories, which readers ignore and the next
run removes (:func:`models.version.remove_stale_tmp`); the store and the active model stay as
they were.

Heavy imports (torch, transformers) happen inside the job functions, so importing this module
(which :mod:`pipeline.jobs` does to register the kinds) stays cheap for the app and the worker.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from pipeline.errors import WorkbenchError
from pipeline.jobs import JobCancelled, JobContext, register, run_inline, start_job

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MEMBERS = ("crf", "bert", "electra")
#: members models/ can train (checked again against models.train in the worker); listed here so
#: the app can validate a request without importing torch into the Streamlit process
KNOWN_MEMBERS = ("crf", "bert", "electra", "roberta")
#: job kinds the Train page shows progress for (``selftest`` lets an operator check workers)
PAGE_JOB_KINDS = ("train", "preannotate", "selftest")
STALE_JOB_SECONDS = 60.0
HISTORY_POINTS = 400          # loss/F1 points kept in a job's result (older ones thinned out)
HISTORY_FLUSH_S = 1.0
PREANNOTATE_BATCH = 16


class TrainingError(WorkbenchError):
    """A training or pre-annotation request that cannot run (message safe to show)."""


# --------------------------------------------------------------------------- parameters

@dataclass(frozen=True)
class TrainParams:
    """What a lead chooses on the Train page (plus ``config``: further TrainConfig fields such as
    ``encoders``/``crf`` overrides, which the tests use for tiny models)."""

    project_id: int
    members: tuple[str, ...] = DEFAULT_MEMBERS
    epochs: int | None = None
    seed: int = 13
    target_recall: float | None = None       # None: the project's setting
    dev_fraction: float = 0.15
    threads: int | None = None
    config: dict = field(default_factory=dict)
    user: str | None = None

    @classmethod
    def from_params(cls, params: dict) -> "TrainParams":
        try:
            pid = int(params["project_id"])
        except (KeyError, TypeError, ValueError):
            raise TrainingError("a training job needs a project_id") from None
        members = params.get("members") or list(DEFAULT_MEMBERS)
        if isinstance(members, str):
            members = [m.strip() for m in members.split(",") if m.strip()]
        bad = [m for m in members if m not in KNOWN_MEMBERS]
        if bad:
            raise TrainingError(f"unknown ensemble member(s) {', '.join(map(str, bad))}; "
                                f"choose from {', '.join(KNOWN_MEMBERS)}")
        if len(set(members)) != len(members):
            raise TrainingError("an ensemble member is listed twice")
        epochs = params.get("epochs")
        if epochs is not None:
            epochs = _int(epochs, "epochs")
            if not 1 <= epochs <= 200:
                raise TrainingError("epochs must be between 1 and 200")
        tr = params.get("target_recall")
        if tr is not None:
            tr = _float(tr, "target recall")
            if not 0.0 < tr <= 1.0:
                raise TrainingError("the target recall must be in (0, 1]")
        dev_fraction = _float(params.get("dev_fraction", 0.15), "dev fraction")
        if not 0.0 < dev_fraction < 0.9:
            raise TrainingError("the dev fraction must be in (0, 0.9)")
        config = params.get("config") or {}
        if not isinstance(config, dict):
            raise TrainingError("config must be a JSON object")
        threads = params.get("threads")
        return cls(project_id=pid, members=tuple(members), epochs=epochs, seed=_int(params.get("seed", 13), "seed"),
                   target_recall=tr, dev_fraction=dev_fraction,
                   threads=_int(threads, "threads") if threads is not None else None, config=dict(config),
                   user=params.get("user"))


def _int(v: Any, what: str) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        raise TrainingError(f"{what} must be a whole number") from None


def _float(v: Any, what: str) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        raise TrainingError(f"{what} must be a number") from None


# --------------------------------------------------------------------------- project helpers

def models_dir_for(project, db_path: str | os.PathLike) -> Path:
    """``<models_dir>/project-<id>``, one sub-folder per project so two projects never share a
    directory or an ``ACTIVE`` file. ``models_dir`` is the project setting, relative to the
    database's folder unless absolute; empty means ``models/<database name>`` beside the database,
    so two databases never share model folders either."""
    db = Path(db_path).resolve()
    setting = str((project.settings or {}).get("models_dir") or "").strip()
    base = Path(setting) if setting else Path("models") / db.stem
    if not base.is_absolute():
        base = db.parent / base
    return base / f"project-{int(project.id)}"


def _locale_of(project) -> str:
    from pipeline.detect import LOCALE_OF_SCHEMA

    return str((project.settings or {}).get("locale") or LOCALE_OF_SCHEMA.get(project.schema.name, "en"))


def _check_user(db, username: str | None, action: str) -> None:
    """Defence in depth for jobs: a job started on behalf of a workbench user needs that user's
    role to allow ``action`` (command-line users, ``cli:<login>``, have no row and the shell
    already gives them the database)."""
    if not username:
        return
    import store
    from store import access

    user = store.get_user(db, username)
    if user is not None:
        access.require(user, action)


@dataclass(frozen=True)
class GoldSummary:
    """What a retrain would learn from: finished gold documents, their patients and spans."""

    documents: int
    patients: int
    spans: int

    @property
    def trainable(self) -> bool:
        return self.documents >= 2 and self.patients >= 2 and self.spans > 0


def gold_summary(db, project_id: int) -> GoldSummary:
    import store
    from models.split import patient_of

    gold = store.read_project_layer(db, project_id, "gold", status="finished")
    if not gold:
        return GoldSummary(0, 0, 0)
    recs = store.list_documents(db, project_id, ids=sorted(gold))
    from pipeline.spans import Document

    patients = {patient_of(Document(str(r.id), "", patient_id=r.patient_id)) for r in recs}
    return GoldSummary(len(gold), len(patients), sum(len(v) for v in gold.values()))


def unannotated_documents(db, project_id: int) -> list[int]:
    """Documents with neither a gold layer nor any annotator layer (the default targets of
    pre-annotation: nobody's work on them can be affected)."""
    import store

    return store.unseen_doc_ids(db, project_id)


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

    def add(self, member: str, loss: float | None, dev_f1: float | None, done: int) -> None:
        if loss is None and dev_f1 is None:
            return
        self._n += 1
        self.points.append({"i": self._n, "member": member, "done": done,
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
        import store

        db = self.ctx.connect()
        try:
            store.update_job(db, self.ctx.job_id, result=self.snapshot())
        finally:
            db.conn.close()


def history_of(job) -> list[dict]:
    """The loss/F1 points of a train job (running or finished), for the page's chart."""
    res = job.result if isinstance(job.result, dict) else {}
    return [p for p in res.get("history") or [] if isinstance(p, dict)]


# --------------------------------------------------------------------------- train

def _metrics_json(report) -> dict:
    d = report.to_json()
    d.pop("per_document", None)   # document ids and counts only, but large and not needed
    return d


@register("train")
def train_job(ctx: JobContext) -> dict:
    """Retrain from the project's finished gold set; returns the new version's id and figures."""
    import store
    from models.split import patient_of, patient_split
    from models.train import TrainConfig, TrainingCancelled, train_ensemble
    from models.version import TMP_PREFIX, remove_stale_tmp

    from models.train import member_kind

    p = TrainParams.from_params(ctx.params)
    for m in p.members:
        try:
            member_kind(m)
        except ValueError:
            raise TrainingError(f"this installation cannot train ensemble member {m!r}") from None
    db = ctx.connect()
    try:
        _check_user(db, p.user, "train")
        project = store.get_project(db, p.project_id)
        docs = store.load_documents(db, p.project_id, layer="gold", status="finished")
    finally:
        db.conn.close()
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

    settings = project.settings or {}
    target = p.target_recall if p.target_recall is not None else float(settings.get("target_recall", 0.99))
    cfg_dict = {**p.config, "members": list(p.members), "seed": p.seed, "target_recall": target,
                "locale": _locale_of(project),
                "threads": p.threads or p.config.get("threads") or max(1, min(2, os.cpu_count() or 1))}
    if p.epochs is not None:
        cfg_dict["epochs"] = p.epochs
    checkpoint = str(settings.get("checkpoint_dir") or "")
    if checkpoint:
        cp = Path(checkpoint) if Path(checkpoint).is_absolute() else REPO_ROOT / checkpoint
        if not cp.is_dir():
            raise TrainingError(f"the project's checkpoint folder {checkpoint} does not exist")
        enc = dict(cfg_dict.get("encoders") or {})
        for m in p.members:
            if m != "crf":
                enc[m] = {**enc.get(m, {}), "init_from": str(cp.resolve())}
        cfg_dict["encoders"] = enc
    cfg = TrainConfig.from_dict(cfg_dict)

    models_dir = models_dir_for(project, ctx.db_path)
    models_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_tmp(models_dir)
    stage = models_dir / f"{TMP_PREFIX}stage-{os.getpid()}"
    shutil.rmtree(stage, ignore_errors=True)

    history = _History(ctx)
    eval_units = 100
    state = {"total": 1000 * len(p.members) + 100 + eval_units}
    t0 = time.time()

    def on_event(ev) -> None:
        state["total"] = ev.total + eval_units
        history.add(ev.member, ev.loss, ev.dev_f1, ev.done)
        msg = ev.message
        if ev.loss is not None:
            msg += f" · loss {ev.loss:.4f}"
        if ev.dev_f1 is not None:
            msg += f" · dev F1 {ev.dev_f1:.3f}"
        ctx.progress(ev.done, state["total"], msg)
        history.flush()

    final: Path | None = None
    try:
        try:
            info = train_ensemble(train_docs, dev_docs, project.schema, cfg, stage, progress=on_event,
                                  should_stop=ctx.should_stop)
        except TrainingCancelled:
            raise JobCancelled("cancelled on request") from None
        if ctx.should_stop():
            raise JobCancelled("cancelled on request")
        history.phase = "evaluating"
        ctx.progress(state["total"] - eval_units, state["total"], "evaluating on held-out gold", force=True)
        history.flush(force=True)
        metrics = _evaluate_version(Path(info.path), dev_docs)
        metrics["training"] = info.metrics
        metrics["evaluated_on"] = {"documents": len(dev_docs), "split": "dev (patient-disjoint)",
                                   "note": "thresholds were tuned on these documents"}
        if ctx.should_stop():
            raise JobCancelled("cancelled on request")
        final = models_dir / info.name
        os.replace(info.path, final)
        config = {**info.config, "train_doc_ids": [int(d.doc_id) for d in train_docs],
                  "dev_doc_ids": [int(d.doc_id) for d in dev_docs], "job_id": ctx.job_id,
                  "members": list(info.members), "locale": info.locale, "target_recall": info.target_recall}
        db = ctx.connect()
        try:
            mv_id = store.add_model_version(db, project.id, info.name, str(final), config=config, metrics=metrics,
                                            thresholds=info.thresholds, user=p.user)
        finally:
            db.conn.close()
    except BaseException:
        if final is not None:
            shutil.rmtree(final, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    history.phase = "done"
    strict = metrics.get("strict", {}).get("micro", {})
    return {**history.snapshot(), "model_version_id": mv_id, "name": info.name, "path": str(final),
            "n_train_docs": len(train_docs), "n_dev_docs": len(dev_docs), "seconds": round(time.time() - t0, 1),
            "dev_strict": {k: strict.get(k) for k in ("precision", "recall", "f1")},
            "dev_document_recall": metrics.get("document_recall")}


def _evaluate_version(path: Path, dev_docs: Sequence) -> dict:
    """Every measure of :func:`pipeline.metrics.evaluate` for the version on the dev documents,
    run through the full detector (model, rules, dictionaries) as pre-annotation will be."""
    from pipeline.detect import Detector
    from pipeline.metrics import evaluate

    det = Detector.load(path)
    preds = det.detect_many(list(dev_docs))
    system = {d.doc_id: spans for d, spans in zip(dev_docs, preds)}
    reference = {d.doc_id: list(d.spans) for d in dev_docs}
    texts = {d.doc_id: d.text for d in dev_docs}
    report = evaluate(system, reference, texts, doc_ids=[d.doc_id for d in dev_docs])
    out = _metrics_json(report)
    out["detector"] = det.parts
    return out


# --------------------------------------------------------------------------- pre-annotate

@register("preannotate")
def preannotate_job(ctx: JobContext) -> dict:
    """Write the ``pre`` layer of documents with a model version's detections (the active one
    unless ``model_version_id``; rules and dictionaries only with ``rules_only``)."""
    import store
    from pipeline.detect import Detector
    from pipeline.errors import StaleSaveError

    params = ctx.params
    try:
        pid = int(params["project_id"])
    except (KeyError, TypeError, ValueError):
        raise TrainingError("a pre-annotation job needs a project_id") from None
    user = params.get("user")
    db = ctx.connect()
    try:
        _check_user(db, user, "train")
        project = store.get_project(db, pid)
        mv = None
        if params.get("rules_only"):
            det = Detector.without_model(project.schema, _locale_of(project))
        else:
            mv_id = params.get("model_version_id")
            mv = store.get_model_version(db, int(mv_id)) if mv_id is not None else store.active_model(db, pid)
            if mv is None:
                raise TrainingError(f"project {pid} has no active model: train and activate one, or pre-annotate "
                                    "with rules and dictionaries only")
            if mv.project_id != pid:
                raise TrainingError(f"model version {mv.id} belongs to another project")
            det = Detector.load(mv.path)
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
                keep = [s.with_(doc_id=doc.doc_id, layer="pre") for s in spans if schema.has(s.category, s.type)]
                dropped += len(spans) - len(keep)
                for attempt in range(2):
                    state = store.read_layer(db, int(doc.doc_id), "pre")
                    try:
                        store.save_layer(db, int(doc.doc_id), "pre", keep, expected_version=state.version,
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


# --------------------------------------------------------------------------- for the page

def running_jobs(db, project_id: int, kinds: Sequence[str] = PAGE_JOB_KINDS) -> list:
    """Queued or running jobs of ``kinds`` for the project, newest first (what the page polls)."""
    import store

    out = []
    for status in ("running", "queued"):
        out += [j for j in store.list_jobs(db, project_id=project_id, status=status, limit=50) if j.kind in kinds]
    return sorted(out, key=lambda j: j.id, reverse=True)


def fail_stale_jobs(db) -> list[int]:
    """Fail running jobs whose worker stopped sending heartbeats (killed, crashed): a page calls
    this before listing jobs, so nobody watches a dead job's progress bar."""
    import store

    return store.mark_stale_jobs_failed(db, older_than_s=STALE_JOB_SECONDS)


def recent_jobs(db, project_id: int, kinds: Sequence[str] = PAGE_JOB_KINDS, limit: int = 20) -> list:
    """Newest jobs of ``kinds`` for the project."""
    import store

    return [j for j in store.list_jobs(db, project_id=project_id, limit=limit * 3) if j.kind in kinds][:limit]


def failed_jobs(db, project_id: int, kinds: Sequence[str] = PAGE_JOB_KINDS, limit: int = 20) -> list:
    return [j for j in recent_jobs(db, project_id, kinds, limit) if j.status == "failed"]


def start_training(db_path: str | os.PathLike, db, user, project_id: int, params: dict) -> int:
    """Check the role and the request, refuse a second concurrent training of the project (the
    machine's cores are shared with the app), and start the worker; returns the job id."""
    from store import access

    access.require(user, "train")
    p = TrainParams.from_params({**params, "project_id": project_id, "user": user.username})
    g = gold_summary(db, project_id)
    if not g.trainable:
        raise TrainingError(f"the gold set has {g.documents} finished document(s) from {g.patients} patient(s): "
                            "training needs gold spans from at least 2 patients")
    fail_stale_jobs(db)
    if running_jobs(db, project_id, kinds=("train",)):
        raise TrainingError("a training job is already running for this project; wait for it or cancel it")
    payload = {"project_id": p.project_id, "members": list(p.members), "epochs": p.epochs, "seed": p.seed,
               "target_recall": p.target_recall, "dev_fraction": p.dev_fraction, "config": p.config,
               "user": user.username}
    if p.threads is not None:
        payload["threads"] = p.threads
    return start_job(db_path, "train", payload, user=user.username)


def start_preannotation(db_path: str | os.PathLike, db, user, project_id: int, *, rules_only: bool = False,
                        model_version_id: int | None = None, doc_ids: Sequence[int] | None = None) -> int:
    import store
    from store import access

    access.require(user, "train")
    if not rules_only and model_version_id is None and store.active_model(db, project_id) is None:
        raise TrainingError("there is no active model: activate one, or pre-annotate with rules and dictionaries only")
    params: dict = {"project_id": int(project_id), "user": user.username, "rules_only": bool(rules_only)}
    if model_version_id is not None:
        params["model_version_id"] = int(model_version_id)
    if doc_ids:
        params["doc_ids"] = [int(d) for d in doc_ids]
    return start_job(db_path, "preannotate", params, user=user.username)


def cancel_job(db, user, job_id: int):
    import store
    from store import access

    access.require(user, "train")
    return store.request_cancel(db, int(job_id), user=user.username)


def activate_version(db, user, mv_id: int):
    """Activate a version (lead only) and point the models folder's ``ACTIVE`` file at it, so the
    command line (``detect --model <folder>``) uses the same model as the app."""
    import store
    from store import access

    access.require(user, "activate_model")
    store.activate_model(db, int(mv_id), user=user.username)
    mv = store.get_model_version(db, int(mv_id))
    point_active_file(mv)
    return mv


def rollback_version(db, user, project_id: int):
    import store
    from store import access

    access.require(user, "activate_model")
    mv = store.rollback_model(db, int(project_id), user=user.username)
    point_active_file(mv)
    return mv


def point_active_file(mv) -> None:
    try:
        from models.registry import set_active

        path = Path(mv.path)
        set_active(path.parent, path.name)
    except (OSError, ValueError):  # a moved or deleted folder: the store stays the record
        log.warning("model version %s: could not update the ACTIVE file", mv.id)


# --------------------------------------------------------------------------- command line

def train_from_store(db_path: str | os.PathLike, project_id: int, *, members: Sequence[str] = DEFAULT_MEMBERS,
                     epochs: int | None = None, seed: int = 13, target_recall: float | None = None,
                     config: dict | None = None, threads: int | None = None, user: str | None = None,
                     progress: Callable[[int, int | None, str | None], None] | None = None) -> dict:
    """Run the ``train`` job in this process (recorded in the jobs table), for the command line."""
    params = {"project_id": int(project_id), "members": list(members), "epochs": epochs, "seed": seed,
              "target_recall": target_recall, "config": dict(config or {}), "user": user}
    if threads is not None:
        params["threads"] = threads
    return run_inline(db_path, "train", params, user=user, on_progress=progress)


def preannotate_from_store(db_path: str | os.PathLike, project_id: int, *, model_version_id: int | None = None,
                           doc_ids: Sequence[int] | None = None, rules_only: bool = False, user: str | None = None,
                           progress: Callable[[int, int | None, str | None], None] | None = None) -> dict:
    """Run the ``preannotate`` job in this process, for the command line."""
    params: dict = {"project_id": int(project_id), "rules_only": bool(rules_only), "user": user}
    if model_version_id is not None:
        params["model_version_id"] = int(model_version_id)
    if doc_ids:
        params["doc_ids"] = [int(d) for d in doc_ids]
    return run_inline(db_path, "preannotate", params, user=user, on_progress=progress)


def result_summary(result: dict) -> str:
    """One line about a finished job's result (figures only)."""
    return json.dumps({k: v for k, v in result.items() if k not in ("history", "phase")}, default=str)
