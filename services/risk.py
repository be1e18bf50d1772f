"""Re-identification risk of a de-identification run: score it (a job), read the triage queue,
record a reviewer's decision.

* :func:`risk_job` (job kind ``risk``) and :func:`score_run_risk` (also called at the end of a
  de-identification run): the run's outputs -> :func:`pipeline.risk.score_run` ->
  :func:`store.save_risk_scores` (decisions already taken are kept by the store).
* :func:`risk_documents`: what scoring needs to know about each output - which spans a person
  reviewed (``gold``/annotator input, :func:`pipeline.layers.reviewed_layer`) and whether a
  person has seen the document at all.
* :func:`add_candidates`: what the project's detector still reads as PHI in each released note
  outside its spans (:mod:`services.risk_evidence`): the evidence of PHI left that makes a
  document red or amber (:mod:`pipeline.risk.residual`).
* :func:`choose_embedder`: the active model's encoder for context similarity when it has one
  that loads, else the lexical fallback - and a note that says which and why.
* The Risk page's use-cases: :func:`start_scoring`, :func:`triage_queue`, :func:`decide`.
"""
from __future__ import annotations

import json
import os
from collections import Counter

from sqlite_utils import Database

import store
from pipeline.errors import WorkbenchError
from pipeline.layers import parse_output_layer, reviewed_layer
from models.context_embedding import MemberContextEmbedder, encoder_member_dir
from pipeline.risk import DEFAULT_METHOD, DeidDocument, DeidSpan, Embedder, LexicalEmbedder, RiskConfig, score_run
from services import access
from services.detectors import DetectorUnavailable, detector_for
from services.gold_opinion import project_opinion
from services.jobs import JobContext, start_job
from services.risk_evidence import with_candidates

EMBEDDER_CHOICES = ("auto", "lexical")


class RiskError(WorkbenchError):
    """A risk scoring request that cannot run as asked (safe to show)."""


def risk_documents(db: Database, run_id: int) -> list[DeidDocument]:
    """The run's outputs as :class:`pipeline.risk.DeidDocument`: spans with their action, score,
    whether a person reviewed them (gold/annotator input), and whether a person has seen the
    document (it has a gold or an annotator layer)."""
    run = store.get_deid_run(db, run_id)
    seen = store.human_seen_doc_ids(db, run.project_id)
    outputs = store.list_deid_outputs(db, run_id, with_text=True)
    patients = {r.id: r.patient_id for r in store.list_documents(db, run.project_id, ids=[o.doc_id for o in outputs])}
    docs = []
    for o in outputs:
        spans = []
        for s in o.spans:
            action, in_layer = parse_output_layer(s.layer)
            spans.append(DeidSpan(start=s.start, end=s.end, category=s.category, type=s.type, action=action,
                                  score=float(s.score), reviewed=reviewed_layer(in_layer), source=s.source))
        docs.append(DeidDocument(doc_id=str(o.doc_id), text=o.text or "", spans=spans, human_seen=o.doc_id in seen,
                                 patient_id=patients.get(o.doc_id)))
    return docs


def choose_embedder(db: Database, project_id: int, how: str = "auto", lexical_dim: int = 256) -> tuple[Embedder, str]:
    """The active model's encoder member (``auto``, when the version has one that loads), else
    the lexical TF-IDF fallback of :mod:`pipeline.risk.embedders`. Returns the embedder and a
    note in words saying which and, for a fallback, why."""
    if how not in EMBEDDER_CHOICES:
        raise RiskError(f"embedder must be one of {', '.join(EMBEDDER_CHOICES)}, not {how!r}")
    lexical = LexicalEmbedder(dim=lexical_dim)
    words = "character trigrams"
    if how == "lexical":
        return lexical, f"{words}, as asked"
    mv = store.active_model(db, project_id)
    if mv is None:
        return lexical, f"{words}: no model is active"
    try:
        member = encoder_member_dir(mv.path)
    except (OSError, ValueError):
        return lexical, f"{words}: the active model {mv.name} cannot be read from its folder"
    if member is None:
        return lexical, f"{words}: the active model {mv.name} has no encoder member (its members are CRFs)"
    try:
        emb = MemberContextEmbedder(member)
    except Exception as e:  # noqa: BLE001 - any failure to load means: use the fallback, and say why
        return lexical, f"{words}: the encoder of {mv.name} could not be loaded ({type(e).__name__})"
    return emb, f"the {member.name} encoder of the active model {mv.name}"


def score_run_risk(ctx: JobContext | None, db: Database, run_id: int, params: dict | None = None, *,
                   user: str | None = None) -> dict:
    """Score a run's outputs and save the scores (earlier decisions are kept by the store)."""
    params = dict(params or {})
    run = store.get_deid_run(db, run_id)
    if run.failed_leak_check:
        raise RiskError(f"run {run_id} failed the leak check: its outputs are not release candidates, so they are "
                        "not scored")
    project = store.get_project(db, run.project_id)
    docs = risk_documents(db, run_id)
    if not docs:
        raise RiskError(f"run {run_id} has no outputs to score")
    cfg = RiskConfig(method=str(params.get("method") or DEFAULT_METHOD),
                     group_by_patient=bool(params.get("group_by_patient", True)))
    if params.get("threshold") is not None:
        cfg.threshold = float(params["threshold"])
    if params.get("k") is not None:
        cfg.k_threshold = int(params["k"])
    low = params.get("confidence", (project.settings or {}).get("low_confidence"))
    if low is not None:
        cfg.confidence_threshold = float(low)
    try:
        cfg.check()
    except ValueError as e:
        raise RiskError(str(e)) from None
    embedder, note = choose_embedder(db, project.id, str(params.get("embedder") or "auto"))

    def progress(stage: str, done: int, total: int) -> None:
        if ctx is not None:
            ctx.progress(done, total, f"scoring risk ({stage})")

    if params.get("candidates", True):
        # up to a minute on 500 gold notes before the first scored document: say so
        progress("learning a second opinion from the project's gold, looking for PHI left", 0, len(docs))
        evidence, cfg.opinion_notes = add_candidates(db, project, docs)
    else:
        evidence, cfg.opinion_notes = "not asked", 0
    reports = score_run(docs, cfg, embedder=embedder, progress=progress)
    n = store.save_risk_scores(db, run_id, [r.to_row() for r in reports], method=cfg.method, user=user)
    colours = Counter(r.colour for r in reports)
    return {"run_id": run_id, "documents": n, "method": cfg.method, "threshold": cfg.threshold,
            "k": cfg.k_threshold, "embedder": note, "evidence": evidence,
            "colours": {c: colours.get(c, 0) for c in ("red", "amber", "green")}}


def add_candidates(db: Database, project: store.Project, docs: list[DeidDocument]) -> tuple[str, int]:
    """Set each document's candidates (what the project's detector, and a second detector
    trained on the project's gold, read as PHI outside its spans: :mod:`services.risk_evidence`,
    :mod:`services.gold_opinion`); returns in words which looked, and how many gold notes the
    second opinion learned from (0: none; ``RiskConfig.opinion_notes``)."""
    opinion, second = project_opinion(db, project.id)
    notes = opinion.notes if opinion is not None else 0
    try:
        choice = detector_for(db, project)
    except DetectorUnavailable as e:
        with_candidates(None, docs, opinion=opinion)
        return f"no detector looked for PHI left ({e}); {second}", notes
    with_candidates(choice.detector, docs, opinion=opinion)
    return f"{choice.source} looked for PHI left outside the spans; {second}", notes


def risk_job(ctx: JobContext) -> dict:
    """Params: ``run_id``; ``method`` (``document-share``), ``threshold``, ``k``, ``embedder``
    (``auto``/``lexical``), ``user``."""
    p = dict(ctx.params)
    with store.connect(ctx.db_path) as db:
        return score_run_risk(ctx, db, int(p["run_id"]), p, user=p.get("user"))


def latest_risk_result(db: Database, run_id: int) -> dict | None:
    """The result of the newest finished job that scored ``run_id`` (which embedder, method...)."""
    for job in store.list_jobs(db, status="done", limit=500):
        if not isinstance(job.result, dict):
            continue
        res = (job.result.get("risk") if job.kind in ("deidentify", "demo_setup")
               else job.result if job.kind == "risk" else None)
        if isinstance(res, dict) and int(res.get("run_id", -1)) == int(run_id):
            return res
    return None


def risk_words(risk: dict) -> str:
    """A scoring result in a reviewer's words (colour counts and what looked), for the pages."""
    c = risk.get("colours", {})
    return (f"{c.get('red', 0)} red, {c.get('amber', 0)} amber, {c.get('green', 0)} green"
            + (f"; {risk['evidence']}" if risk.get("evidence") else ""))


def risk_line(risk: dict) -> str:
    """One line about a scoring result (method, colours, embedder): for the command line."""
    c = risk.get("colours", {})
    return (f"risk[method={risk.get('method')} red={c.get('red', 0)} amber={c.get('amber', 0)} "
            f"green={c.get('green', 0)} embedder={json.dumps(risk.get('embedder'))}]")


# --------------------------------------------------------------------------- the Risk page

def start_scoring(db_path: str | os.PathLike, user: store.User, project_id: int, run_id: int, *,
                  method: str, threshold: float, k: int) -> int:
    """(Re-)score a run as a job, for a reviewer or lead; returns the job id."""
    access.require(user, "decide_risk")
    params = {"run_id": int(run_id), "project_id": int(project_id), "method": method, "threshold": float(threshold),
              "k": int(k), "user": user.username}
    return start_job(db_path, "risk", params, user=user.username)


def runs(db: Database, user: store.User, project_id: int) -> list[store.DeidRun]:
    """The project's de-identification runs, newest first, for someone who may see risk; runs
    that failed the leak check are left out (they are never released, so never triaged)."""
    access.require(user, "view_risk")
    return [r for r in store.list_deid_runs(db, project_id) if not r.failed_leak_check]


def triage_queue(db: Database, user: store.User, run_id: int) -> list[store.RiskScore]:
    """A run's scored documents, red first, with their decisions."""
    access.require(user, "view_risk")
    return store.risk_queue(db, run_id)


def scored_output(db: Database, user: store.User, run_id: int, doc_id: int) -> store.DeidOutput:
    """One de-identified document of a run, for the triage view."""
    access.require(user, "view_risk")
    return store.get_deid_output(db, run_id, doc_id)


def decide(db: Database, user: store.User, run_id: int, doc_id: int, decision: str, *,
           annotator: str | None = None, note: str = "") -> None:
    """Record a reviewer's decision on a document (accept, send back, withhold); audited. Sending
    back gives the document to ``annotator`` (default: its last annotator) with the reasons
    (:func:`send_back`)."""
    u = access.require(user, "decide_risk")
    if decision == "sent_back":
        send_back(db, u, run_id, doc_id, annotator=annotator, note=note)
        return
    store.decide_risk(db, run_id, doc_id, decision, u.username)


def default_annotator(db: Database, doc_id: int) -> str | None:
    """The annotator who last had the document (newest assignment), or None."""
    assignments = store.list_assignments(db, doc_id=doc_id)
    if not assignments:
        return None
    return max(assignments, key=lambda a: (a.finished_at or a.started_at or a.assigned_at, a.id)).user


def annotator_choices(db: Database, user: store.User, doc_id: int) -> list[str]:
    """Who a reviewer may send the document to: its last annotator first, then every enabled
    account that may annotate."""
    access.require(user, "decide_risk")
    first = default_annotator(db, doc_id)
    others = sorted(u.username for u in store.list_users(db, include_disabled=False) if u.username != first)
    return ([first] if first else []) + others


def send_back(db: Database, user: store.User | str | None, run_id: int, doc_id: int, *,
              annotator: str | None = None, note: str = "") -> str:
    """Send a scored document back to an annotator with the scorer's reasons and the reviewer's
    note; returns the annotator's name."""
    who = access.actor(user, "decide_risk")
    annotator = (annotator or "").strip() or default_annotator(db, doc_id)
    if not annotator:
        raise RiskError(f"document {doc_id} has never been assigned: choose the annotator to send it to")
    if store.get_user(db, annotator) is None:
        raise RiskError(f"no account named {annotator!r} to send the document to")
    score = next((r for r in store.risk_queue(db, run_id) if r.doc_id == int(doc_id)), None)
    reasons = list(score.reasons if score else [])
    store.send_back(db, run_id, doc_id, annotator, reasons=reasons, note=note.strip(), user=who)
    return annotator
