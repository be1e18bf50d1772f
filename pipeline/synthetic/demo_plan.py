"""The demo project's plan: which stage of the workflow each synthetic note is at, and how the
simulated people and the simulated model behave on it.

A first start should show a workbench with work in it: documents that are only imported,
documents with machine pre-annotations, documents waiting in annotators' queues, documents two
simulated annotators finished (so agreement has something to compare), and adjudicated gold
(so training and metrics have something to learn from). :mod:`services.demo` writes the plan
into the store; everything here is seeded and pure.
"""
from __future__ import annotations

import random

from pipeline.spans import Document, Span
from pipeline.synthetic.annotators import simulate_annotator

DEMO_NAME = "Demo (synthetic)"
DEMO_SOURCE = "model:demo"
ANNOTATORS = ("ana", "ben")
REVIEWER = "rita"
DEMO_USERS = (("ana", "annotator"), ("ben", "annotator"), ("rita", "reviewer"))

# Share of documents at each stage, in workflow order (the rest of the documents are "new").
STAGES = (("gold", 0.15), ("double", 0.25), ("in_progress", 0.05), ("assigned", 0.15), ("pre", 0.30))
# How the demo "model" errs relative to the truth (per gold span).
PRE_RATES = {"miss_rate": 0.10, "boundary_rate": 0.06, "wrong_category_rate": 0.04, "spurious_rate": 0.08}


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
