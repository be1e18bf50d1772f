"""Training as a lead sees it: what can be asked for, whether the gold set allows it, starting
the job, and the model versions it leaves (list, activate, roll back, pick for export).

* the choices and their checks: :data:`KNOWN_MEMBERS`, :data:`ENSEMBLE_MODES`, the defaults,
  :class:`TrainParams` (a request validated, message safe to show: :class:`TrainingError`);
* :func:`gold_summary` (what a retrain would learn from) and :func:`start_training` (the Train
  page: one training per project at a time, run by the worker);
* :func:`activate_version`, :func:`rollback_version`, :func:`model_versions`,
  :func:`version_for_export`, :func:`training_documents`.

The job itself (its steps, its staging folder, :func:`services.training_job.train_from_store`
for the command line) is :mod:`services.training_job`: it imports this module, never the other
way round. Apart because the Train page and the command line's version commands need only
this side: it holds no job code and imports nothing heavy (no torch, no detector), so the
Streamlit process can validate a request without loading a model.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlite_utils import Database

import store
from models.registry import set_active
from models.split import patient_of
from pipeline.detection.hierarchy import MODES
from pipeline.errors import WorkbenchError
from pipeline.layers import GOLD
from pipeline.spans import Document
from services import access
from services.jobs import fail_stale_jobs, running_jobs, start_job

log = logging.getLogger(__name__)

#: one CRF (models.trainer.DEFAULT_MEMBERS, repeated so the app need not import torch): on
#: MEDDOCAN the three CRFs together matched it at a third of the speed, and crf+bert found less
#: than the CRF alone; every other member trains when chosen
DEFAULT_MEMBERS = ("crf",)
#: surrogate copies of every training note the members learn from, and whether the CRFs do too
#: (models.trainer.TrainConfig's defaults, repeated for the same reason): on MEDDOCAN one copy cut
#: the missed PHI tokens per 1,000 from 1.12 to 0.97-1.07 over three surrogate seeds
DEFAULT_AUGMENT_COPIES = 1
DEFAULT_AUGMENT_CRF = True
#: members models/ can train (checked again against models.trainer in the worker); listed here so
#: the app can validate a request without importing torch into the Streamlit process
KNOWN_MEMBERS = ("crf", "crf-l1", "crf-rules", "bert", "electra", "roberta")
#: ensemble modes: flat, or hierarchical (a category model beside the type members, disagreements
#: flagged as OTHER); from the pure hierarchy module, so the app need not import torch
ENSEMBLE_MODES = MODES
MAX_AUGMENT_COPIES = 8        # surrogate copies per training note (each adds a training set's worth of work)


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
    mode: str = "flat"
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
        if "augment_copies" in config:
            copies = _int(config["augment_copies"], "surrogate copies")
            if not 0 <= copies <= MAX_AUGMENT_COPIES:
                raise TrainingError(f"surrogate copies must be between 0 and {MAX_AUGMENT_COPIES}")
            config = {**config, "augment_copies": copies}
        if config.get("case_copies") is not None:
            case = _int(config["case_copies"], "case copies")
            if not 0 <= case <= 2:
                raise TrainingError("case copies must be 0 (none), 1 (one per note) or 2 (upper and lower)")
            config = {**config, "case_copies": case}
        if not isinstance(config.get("augment_crf", False), bool):
            raise TrainingError("augment_crf must be true or false")
        threads = params.get("threads")
        mode = params.get("mode") or config.get("mode") or "flat"
        if mode not in ENSEMBLE_MODES:
            raise TrainingError(f"unknown ensemble mode {str(mode)[:40]!r}; choose {' or '.join(ENSEMBLE_MODES)}")
        return cls(project_id=pid, members=tuple(members), epochs=epochs, seed=_int(params.get("seed", 13), "seed"),
                   target_recall=tr, dev_fraction=dev_fraction,
                   threads=_int(threads, "threads") if threads is not None else None, mode=mode, config=dict(config),
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

def check_user(db: Database, username: str | None, action: str) -> None:
    """Defence in depth for jobs: a job started on behalf of a workbench user needs that user's
    role to allow ``action`` (command-line users, ``cli:<login>``, have no row and the shell
    already gives them the database)."""
    if not username:
        return
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


def gold_summary(db: Database, project_id: int) -> GoldSummary:
    gold = store.read_project_layer(db, project_id, GOLD, status="finished")
    if not gold:
        return GoldSummary(0, 0, 0)
    recs = store.list_documents(db, project_id, ids=sorted(gold))
    patients = {patient_of(Document(str(r.id), "", patient_id=r.patient_id)) for r in recs}
    return GoldSummary(len(gold), len(patients), sum(len(v) for v in gold.values()))


# --------------------------------------------------------------------------- the job's start, the versions

def start_training(db_path: str | os.PathLike, db: Database, user: store.User, project_id: int, params: dict) -> int:
    """Check the role and the request, refuse a second concurrent training of the project (the
    machine's cores are shared with the app), and start the worker; returns the job id."""
    access.require(user, "train")
    p = TrainParams.from_params({**params, "project_id": project_id, "user": user.username})
    g = gold_summary(db, project_id)
    if not g.trainable:
        raise TrainingError(f"the gold set has {g.documents} finished document(s) from {g.patients} patient(s): "
                            "training needs gold spans from at least 2 patients")
    fail_stale_jobs(db)
    if running_jobs(db, project_id, kinds=("train",)):
        raise TrainingError("a training job is already running for this project; wait for it or cancel it")
    payload = {"project_id": p.project_id, "members": list(p.members), "mode": p.mode, "epochs": p.epochs, "seed": p.seed,
               "target_recall": p.target_recall, "dev_fraction": p.dev_fraction, "config": p.config,
               "user": user.username}
    if p.threads is not None:
        payload["threads"] = p.threads
    return start_job(db_path, "train", payload, user=user.username)


def activate_version(db: Database, user: store.User | str | None, mv_id: int) -> store.ModelVersion:
    """Activate a version (lead only) and point the models folder's ``ACTIVE`` file at it, so the
    command line (``detect --model <folder>``) uses the same model as the app."""
    store.activate_model(db, int(mv_id), user=access.actor(user, "activate_model"))
    mv = store.get_model_version(db, int(mv_id))
    point_active_file(mv)
    return mv


def rollback_version(db: Database, user: store.User | str | None, project_id: int) -> store.ModelVersion:
    """Make the version active before the current one active again (lead only)."""
    mv = store.rollback_model(db, int(project_id), user=access.actor(user, "activate_model"))
    point_active_file(mv)
    return mv


def point_active_file(mv: store.ModelVersion) -> None:
    try:
        path = Path(mv.path)
        set_active(path.parent, path.name)
    except (OSError, ValueError):  # a moved or deleted folder: the store stays the record
        log.warning("model version %s: could not update the ACTIVE file", mv.id)


def model_versions(db: Database, project_id: int) -> list[store.ModelVersion]:
    """The project's model versions, oldest first, with their dev figures."""
    return store.list_model_versions(db, project_id)


#: the pack steps a model can be spared from, in a lead's words
_STEP_WORDS = {"drop_safe_word_spans_en": "the safe-word guard (a span of clinical words alone needs strong evidence)"}


def _source_words(source: str) -> str:
    """A rule or list source in words: ``dict:surnames`` -> "the surnames list", ``rule:ages<90``
    -> "the ages rule's ages under 90"."""
    source, under, age = source.partition("<")
    kind, _, name = source.partition(":")
    what = {"dict": "list", "rule": "rule"}.get(kind, kind)
    return f"the {name.replace('_', ' ')} {what}" + (f"'s ages under {age}" if under else "")


def learnt_on_dev(mv: store.ModelVersion) -> str | None:
    """What a version's training run decided on its dev notes about the locale's rules and lists,
    in words for a lead (:mod:`pipeline.detection.step_policy`, :mod:`pipeline.detection.source_policy`),
    or ``None`` when it decided nothing: names of steps and sources, never text.

    >>> import store
    >>> mv = store.ModelVersion(1, 1, "v1", "m", {}, {"training": {"muted_sources": ["dict:surnames"]}}, {},
    ...                         "trained", False, "2026-11-26")
    >>> print(learnt_on_dev(mv))
    Learnt on its dev notes: it leaves out the surnames list (dict:surnames), which added mostly what
    your annotators do not mark.
    """
    training = (mv.metrics or {}).get("training", {}) or {}
    spared, muted = training.get("spared_steps") or [], training.get("muted_sources") or []
    parts = []
    if spared:
        parts.append("its own sure spans are spared from " + ", ".join(_STEP_WORDS.get(s, s.replace("_", " "))
                                                                    for s in spared))
    if muted:
        parts.append("it leaves out " + ", ".join(f"{_source_words(m)} ({m})" for m in muted)
                     + (", which added" if len(muted) == 1 else ", which each added")
                     + " mostly what your annotators do not mark")
    return ("Learnt on its dev notes: " + "; ".join(parts) + ".") if parts else None


def version_for_export(db: Database, user: store.User | str | None, project: store.Project,
                       name: str | None = None) -> store.ModelVersion:
    """The project's version called ``name`` (default: the active one), for a shareable export."""
    access.actor(user, "export")
    versions = store.list_model_versions(db, project.id)
    mv = next((v for v in versions if v.name == name), None) if name else next((v for v in versions if v.active), None)
    if mv is None:
        raise TrainingError(f"project {project.name!r} has no model version {name!r}" if name
                            else f"project {project.name!r} has no active model version")
    return mv


def training_documents(db: Database, user: store.User | str | None, project: store.Project,
                       mv: store.ModelVersion) -> list[Document]:
    """The gold documents a version learned from (its train and dev documents: thresholds are
    tuned and CRFs refit on the dev side too), as they are stored now."""
    access.actor(user, "export")
    ids = sorted({int(i) for key in ("train_doc_ids", "dev_doc_ids") for i in (mv.config or {}).get(key) or []})
    if not ids:
        raise TrainingError(f"model version {mv.name} does not record its training documents")
    return store.load_documents(db, project.id, layer=GOLD, ids=ids)
