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

import random
import secrets
from dataclasses import dataclass, field

from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span
from pipeline.synthetic import generate_corpus, simulate_annotator

DEMO_NAME = "Demo (synthetic)"
DEMO_SOURCE = "model:demo"
ANNOTATORS = ("ana", "ben")
REVIEWER = "rita"
DEMO_USERS = (("ana", "annotator"), ("ben", "annotator"), ("rita", "reviewer"))

# Share of documents at each stage, in workflow order (the rest of the documents are "new").
STAGES = (("gold", 0.15), ("double", 0.25), ("in_progress", 0.05), ("assigned", 0.15), ("pre", 0.30))
# How the demo "model" errs relative to the truth (per gold span).
PRE_RATES = {"miss_rate": 0.10, "boundary_rate": 0.06, "wrong_category_rate": 0.04, "spurious_rate": 0.08}


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


def plan_stages(n: int, seed: int) -> list[str]:
    """The stage of each of ``n`` documents, shuffled reproducibly."""
    stages: list[str] = []
    for stage, share in STAGES:
        stages += [stage] * int(round(share * n))
    stages = stages[:n] + ["new"] * max(0, n - len(stages))
    random.Random(f"demo-stages:{seed}").shuffle(stages)
    return stages


def split_for(patient_id: str | None, seed: int) -> str:
    """train/dev/test by patient, so one patient's notes never straddle splits."""
    r = random.Random(f"demo-split:{seed}:{patient_id}").random()
    return "train" if r < 0.7 else "dev" if r < 0.85 else "test"


def pre_annotations(doc: Document, seed: int) -> list[Span]:
    """Machine suggestions: the truth with a few misses, shifted boundaries, wrong types and extras;
    confident (0.55-1) where it overlaps the truth, hesitant (0.3-0.65) where it does not."""
    rng = random.Random(f"demo-pre:{seed}:{doc.doc_id}")
    sim = simulate_annotator(doc, "demo-model", seed, **PRE_RATES)
    out = []
    for s in sim:
        hit = any(g.start < s.end and s.start < g.end for g in doc.spans)
        score = rng.uniform(0.55, 1.0) if hit else rng.uniform(0.3, 0.65)
        out.append(s.with_(layer="pre", source=DEMO_SOURCE, score=round(score, 3)))
    return out


def annotation_seconds(doc: Document, annotator: str, rng: random.Random) -> float:
    """Plausible time spent: a fixed start-up plus reading speed, slower for the careful annotator."""
    per_char = {"ana": 0.09, "ben": 0.05}.get(annotator, 0.07)
    return round((30 + len(doc.text) * per_char) * rng.uniform(0.7, 1.4), 1)


def _ensure_users(db, by: str | None) -> list[str]:
    import store

    created = []
    for username, role in DEMO_USERS:
        if store.get_user(db, username) is None:
            # Random and never shown: the demo users own layers; a lead can set a password later.
            store.create_user(db, username, secrets.token_urlsafe(24), role, user=by)
            created.append(username)
    return created


def create_demo_project(db, *, n_docs: int = 120, seed: int = 7, name: str = DEMO_NAME,
                        user: str | None = None) -> int:
    """Create the demo project in ``db`` and return its id (see :func:`build_demo` for counts)."""
    return build_demo(db, n_docs=n_docs, seed=seed, name=name, user=user).project_id


def build_demo(db, *, n_docs: int = 120, seed: int = 7, name: str = DEMO_NAME, user: str | None = None) -> DemoSummary:
    """Create the demo project and say what is in it. One transaction: all or nothing."""
    import store

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


def _stage_document(db, doc: Document, did: int, stage: str, seed: int, rng: random.Random,
                    by: str | None) -> None:
    import store

    if stage == "new":
        return
    sid = str(did)
    store.save_layer(db, did, "pre", [s.with_(doc_id=sid) for s in pre_annotations(doc, seed)],
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
        store.save_layer(db, did, "annotator:ana", half, expected_version=0, user="ana", status="in_progress")
        store.record_time(db, did, "ana", annotation_seconds(doc, "ana", rng) / 2)
        return
    for annotator in ANNOTATORS:
        spans = [s.with_(doc_id=sid) for s in simulate_annotator(doc, annotator, seed)]
        store.set_assignment_status(db, did, annotator, "in_progress")
        store.save_layer(db, did, f"annotator:{annotator}", spans, expected_version=0, user=annotator,
                         status="finished")
        store.set_assignment_status(db, did, annotator, "finished")
        store.record_time(db, did, annotator, annotation_seconds(doc, annotator, rng))
    if stage == "gold":
        gold = [s.with_(doc_id=sid, layer="gold", source=f"human:{REVIEWER}", score=1.0) for s in doc.spans]
        store.save_layer(db, did, "gold", gold, expected_version=0, user=REVIEWER, status="finished")


def ensure_demo(db, *, n_docs: int = 120, seed: int = 7) -> int | None:
    """Create the demo project only on a first start (the store has no project); its id, or None."""
    summary = ensure_demo_summary(db, n_docs=n_docs, seed=seed)
    return summary.project_id if summary else None


def ensure_demo_summary(db, *, n_docs: int = 120, seed: int = 7) -> DemoSummary | None:
    import store

    # Check and create under one write lock, so two starts at once cannot both create it.
    with store.transaction(db):
        if store.list_projects(db):
            return None
        return build_demo(db, n_docs=n_docs, seed=seed)
