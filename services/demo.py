"""The demo project: a synthetic i2b2 2014 project at every stage of the workflow.

A first start should show a workbench with work in it, not an empty page: documents that are
only imported, documents with machine pre-annotations, documents waiting in annotators' queues,
documents two simulated annotators finished (so agreement has something to compare), and
adjudicated gold (so training and metrics have something to learn from). Everything is written
through the store's functions inside one transaction: a failure leaves no half-made project.

Gold is never imported as a visible layer: documents arrive without spans, and only the
adjudicated documents get a ``gold`` layer, saved by the reviewer. The demo users get random
passwords that are never shown; they exist to own layers, and a lead can reset them.
"""
from __future__ import annotations

import os
import random
import secrets
from dataclasses import dataclass, field

from sqlite_utils import Database

import store
from pipeline.layers import GOLD, PRE, annotator_layer
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document
from pipeline.synthetic import generate_corpus, simulate_annotator
from pipeline.synthetic.demo_plan import (ANNOTATORS, DEMO_NAME, DEMO_SOURCE, DEMO_USERS, PRE_RATES, REVIEWER, STAGES,
                                          annotation_seconds, plan_stages, pre_annotations, split_for)
from services import deid_runs, training, training_job
from services.jobs import JobContext, start_job

__all__ = ["ANNOTATORS", "DEMO_NAME", "DEMO_SOURCE", "DEMO_USERS", "PRE_RATES", "REVIEWER", "STAGES", "DemoSummary",
           "build_demo", "create_demo_project", "ensure_demo", "ensure_demo_summary", "plan_stages",
           "pre_annotations", "split_for"]


@dataclass
class DemoSummary:
    """What was created, in counts (safe to print: no text)."""

    project_id: int
    name: str
    documents: int
    stages: dict[str, int] = field(default_factory=dict)
    users_created: list[str] = field(default_factory=list)

    def line(self) -> str:
        parts = ", ".join(f"{n} {stage}" for stage, n in self.stages.items() if n)
        return f"{self.name!r} (project {self.project_id}): {self.documents} documents ({parts})"


def _ensure_users(db: Database, by: str | None) -> list[str]:
    created = []
    for username, role in DEMO_USERS:
        if store.get_user(db, username) is None:
            # Random and never shown: the demo users own layers; a lead can set a password later.
            store.create_user(db, username, secrets.token_urlsafe(24), role, user=by)
            created.append(username)
    return created


def create_demo_project(db: Database, *, n_docs: int = 120, seed: int = 7, name: str = DEMO_NAME,
                        user: str | None = None) -> int:
    """Create the demo project in ``db`` and return its id (see :func:`build_demo` for counts)."""
    return build_demo(db, n_docs=n_docs, seed=seed, name=name, user=user).project_id


def build_demo(db: Database, *, n_docs: int = 120, seed: int = 7, name: str = DEMO_NAME, user: str | None = None) -> DemoSummary:
    """Create the demo project and say what is in it. One transaction: all or nothing."""
    if n_docs < 1:
        raise store.InvalidValueError("the demo needs at least one document")
    truth = generate_corpus(n_docs, seed)
    stages = plan_stages(len(truth), seed)
    rng = random.Random(f"demo-time:{seed}")
    with store.transaction(db):
        created = _ensure_users(db, user)
        pid = store.create_project(db, name, I2B2_2014,
                                   settings={"demo": {"seed": seed, "documents": n_docs, "generator": "pipeline.synthetic"}},
                                   user=user)
        plain = [Document(doc_id=d.doc_id, text=d.text, spans=[],
                          meta={"kind": d.meta.get("kind"), "synthetic": True, "split": split_for(d.patient_id, seed)},
                          patient_id=d.patient_id)
                 for d in truth]
        ids = store.add_documents(db, pid, plain, layer=None, user=user)
        for doc, did, stage in zip(truth, ids, stages):
            _stage_document(db, doc, did, stage, seed, rng, user)
    counts = {s: stages.count(s) for s, _ in STAGES}
    counts["new"] = stages.count("new")
    return DemoSummary(project_id=pid, name=name, documents=len(truth), stages=counts, users_created=created)


def _stage_document(db: Database, doc: Document, did: int, stage: str, seed: int, rng: random.Random,
                    by: str | None) -> None:
    if stage == "new":
        return
    sid = str(did)
    store.save_layer(db, did, PRE, [s.with_(doc_id=sid) for s in pre_annotations(doc, seed)],
                     expected_version=0, user=by, status="finished")
    if stage == "pre":
        return
    for annotator in ANNOTATORS:
        store.assign(db, did, annotator, by=by)
    if stage == "assigned":
        return
    if stage == "in_progress":
        # ana has started: half her spans saved, assignment in progress; ben has not begun.
        spans = simulate_annotator(doc, "ana", seed)
        half = [s.with_(doc_id=sid) for s in spans[: len(spans) // 2]]
        store.set_assignment_status(db, did, "ana", "in_progress")
        store.save_layer(db, did, annotator_layer("ana"), half, expected_version=0, user="ana", status="in_progress")
        store.record_time(db, did, "ana", annotation_seconds(doc, "ana", rng) / 2)
        return
    for annotator in ANNOTATORS:
        spans = [s.with_(doc_id=sid) for s in simulate_annotator(doc, annotator, seed)]
        store.set_assignment_status(db, did, annotator, "in_progress")
        store.save_layer(db, did, annotator_layer(annotator), spans, expected_version=0, user=annotator,
                         status="finished")
        store.set_assignment_status(db, did, annotator, "finished")
        store.record_time(db, did, annotator, annotation_seconds(doc, annotator, rng))
    if stage == "gold":
        gold = [s.with_(doc_id=sid, layer=GOLD, source=f"human:{REVIEWER}", score=1.0) for s in doc.spans]
        store.save_layer(db, did, GOLD, gold, expected_version=0, user=REVIEWER, status="finished")


def ensure_demo(db: Database, *, n_docs: int = 120, seed: int = 7) -> int | None:
    """Create the demo project only on a first start (the store has no project); its id, or None."""
    summary = ensure_demo_summary(db, n_docs=n_docs, seed=seed)
    return summary.project_id if summary else None


def ensure_demo_summary(db: Database, *, n_docs: int = 120, seed: int = 7) -> DemoSummary | None:
    # Check and create under one write lock, so two starts at once cannot both create it.
    with store.transaction(db):
        if store.list_projects(db):
            return None
        return build_demo(db, n_docs=n_docs, seed=seed)


# --------------------------------------------------------------------------- the first five minutes

#: A CRF-only ensemble trains on the demo's gold set in seconds; encoders would take minutes.
DEMO_MODEL_MEMBERS = ("crf",)


def demo_model_job(ctx: JobContext) -> dict:
    """Job kind ``demo_setup``: what a new installation needs so every page shows real work -
    train a model on the demo project's gold set (CRF members), activate it, then de-identify
    the project (gold spans where there is gold, the new model's detections elsewhere) and score
    the run's re-identification risk. Runs in the background right after the first start, so
    the app is usable at once; progress shows on the Train page."""
    pid = int(ctx.params["project_id"])
    user = ctx.params.get("user")
    steps = {"train": ("training a model", training_job.train_job),
             "deidentify": ("de-identifying the project", deid_runs.deidentify_job)}
    train_ctx = JobContext(db_path=ctx.db_path, job_id=ctx.job_id, on_progress=ctx.on_progress,
                           params={"project_id": pid, "members": list(DEMO_MODEL_MEMBERS), "user": user,
                                   "config": {"crf": {"max_iterations": 60}}})
    ctx.progress(0, None, f"demo set-up: {steps['train'][0]}", force=True)
    trained = steps["train"][1](train_ctx)
    with store.connect(ctx.db_path) as db:
        training.activate_version(db, user or "installer", trained["model_version_id"])
    ctx.check_stop()
    ctx.progress(0, None, f"demo set-up: {steps['deidentify'][0]}", force=True)
    deid_ctx = JobContext(db_path=ctx.db_path, job_id=ctx.job_id, on_progress=ctx.on_progress,
                          params={"project_id": pid, "doc_ids": "all", "layer": GOLD, "missing": "detect",
                                  "profile": "replace", "user": user, "risk": True})
    run = steps["deidentify"][1](deid_ctx)
    return {"model_version_id": trained["model_version_id"], "name": trained["name"],
            "dev_strict": trained.get("dev_strict"), "run_id": run["run_id"], "documents": run["documents"],
            "leaks": run["leaks"], "risk": run.get("risk")}


def start_demo_setup(db_path: str | os.PathLike, project_id: int, *, user: str = "installer") -> int:
    """Start :func:`demo_model_job` in a worker process; the job id."""
    return start_job(db_path, "demo_setup", {"project_id": int(project_id), "user": user}, user=user)
