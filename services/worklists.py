"""What the Home page shows: the project at a glance, and what each person should do next.

The figures are the ones the other pages compute (agreement is
:func:`services.project_metrics.annotator_agreement`, the same computation the Metrics page
shows, so the two pages cannot disagree); this module only gathers them. Results hold counts,
names and ids - never document text - so a page may cache them.
"""
from __future__ import annotations

from typing import Any

from sqlite_utils import Database

import store
from pipeline.metrics.agreement import AgreementReport
from pipeline.metrics.filters import MetricsFilter
from pipeline.metrics.summaries import headline_f1, held_out_documents, models_to_activate
from services import access
from services.jobs import failed_jobs
from services.project_metrics import annotator_agreement


def unassigned_documents(db: Database, project_id: int) -> list[store.DocumentRecord]:
    """Documents of the project nobody is assigned to (without text)."""
    taken = {a.doc_id for a in store.list_assignments(db, project_id=project_id)}
    return [d for d in store.list_documents(db, project_id) if d.id not in taken]


def latest_risk_run(db: Database, project_id: int) -> store.DeidRun | None:
    """The newest finished de-identification run of the project (the one risk is shown for)."""
    return next((r for r in store.list_deid_runs(db, project_id) if r.status == "done"), None)


def risk_counts(db: Database, run_id: int) -> dict[str, int]:
    """Documents per risk colour in a run (red, amber, green)."""
    counts = {c: 0 for c in store.COLOURS}
    for r in store.risk_queue(db, run_id):
        counts[r.colour] = counts.get(r.colour, 0) + 1
    return counts


def red_documents(db: Database, project_id: int) -> list[store.RiskScore]:
    """Red, undecided documents of the latest run: a reviewer's first job."""
    run = latest_risk_run(db, project_id)
    return store.risk_queue(db, run.id, undecided_only=True, colour="red") if run else []


def project_agreement(db: Database, project_id: int) -> AgreementReport | None:
    """Agreement over the project's documents finished by two or more annotators (the Metrics
    page's figure without filters); ``None`` when there are none."""
    return annotator_agreement(db, project_id, MetricsFilter())


def project_overview(db: Database, project_id: int) -> dict[str, Any]:
    """Counts for the Home page (no text, so safe to cache): documents by status, gold, the
    active model and its F1, agreement over double-annotated documents, risk colours of the
    latest run."""
    s = store.stats(db, project_id)
    mv = store.active_model(db, project_id)
    rep = project_agreement(db, project_id)
    pair_f1 = [p.strict.micro.f1 for p in rep.pairs if p.n_documents] if rep else []
    run = latest_risk_run(db, project_id)
    return {
        "documents": s["documents"],
        "by_status": s["documents_by_status"],
        "gold_finished": s["gold_finished"],
        "gold_spans": s["gold_spans"],
        "active_model": mv.name if mv else None,
        "active_f1": headline_f1(mv.metrics) if mv else None,
        "active_dev_docs": held_out_documents(mv.metrics) if mv else None,
        "agreement_f1": (sum(pair_f1) / len(pair_f1)) if pair_f1 else None,
        "agreement_docs": len(rep.per_document) if rep else 0,
        "alpha": rep.alpha if rep else None,
        "risk_run": run.id if run else None,
        "risk": risk_counts(db, run.id) if run else None,
        "assignments_by_user": s["assignments_by_user"],
    }


def lead_todo(db: Database, user: store.User, project_id: int) -> dict[str, Any]:
    """What a lead should look at: unassigned documents, failed jobs, versions to activate."""
    access.require(user, "admin")
    return {"unassigned": unassigned_documents(db, project_id),
            "failed_jobs": failed_jobs(db, project_id, limit=10),
            "to_activate": models_to_activate(store.list_model_versions(db, project_id))}
