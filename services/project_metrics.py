"""Everything the Metrics and Train pages chart, gathered from the store into the inputs of
:mod:`pipeline.metrics`, :mod:`pipeline.metrics.agreement` and :mod:`pipeline.metrics.throughput`.

The pages only call these functions and render what comes back: no layer reading, filtering or
scoring happens in a page. Results are dataclasses holding figures, document ids and labels -
never document text - so a page may cache them (keyed on ``dashboard.state.data_version``).

Filters (:class:`MetricsFilter`):

* ``category``: keep only spans of that coarse category on *both* sides of every comparison, so
  every figure answers "how well is <category> found";
* ``since`` / ``until`` (ISO dates, inclusive): assignment ``finished_at`` for agreement,
  annotator-vs-gold and throughput; the gold layer's last save for the pre-annotation
  evaluation; ``created_at`` for model versions.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from sqlite_utils import Database

import store
from pipeline.layers import GOLD, PRE, annotator_layer
from pipeline.metrics import EvaluationReport, evaluate
from pipeline.metrics.agreement import CHANCE_CAVEAT, AgreementReport, GoldComparison, against_gold, agreement
from pipeline.metrics.filters import MetricsFilter
from pipeline.metrics.summaries import (PRF, character_rows, gold_comparison_rows, headline, measure_rows,
                                        per_category, version_rows)
from pipeline.metrics.throughput import AnnotatorThroughput, AssignmentRecord, throughput
from pipeline.spans import Span

__all__ = ["MetricsFilter", "PreEvaluation", "ProjectMetrics", "VersionComparison", "annotator_agreement",
           "annotator_throughput", "annotators_against_gold", "compare_versions", "finished_annotations",
           "gold_comparison_rows", "headline", "measure_rows", "per_category", "pre_vs_gold", "project_metrics",
           "version_rows"]


# --------------------------------------------------------------------------- model versions

@dataclass(frozen=True)
class VersionComparison:
    """A version's per-category dev figures next to the active version's."""

    candidate: dict
    active: dict | None
    rows: list[dict]
    candidate_per_category: dict[str, dict]
    active_per_category: dict[str, dict]


def compare_versions(db: Database, project_id: int, candidate_id: int) -> VersionComparison:
    cand = store.get_model_version(db, candidate_id)
    if cand.project_id != int(project_id):
        raise store.NotFoundError(f"model version {candidate_id} is not in project {project_id}")
    act = store.active_model(db, project_id)
    cpc = per_category(cand.metrics)
    apc = per_category(act.metrics) if act else {}
    rows = []
    for cat in sorted(set(cpc) | set(apc)):
        c, a = cpc.get(cat, {}), apc.get(cat, {})
        row: dict[str, Any] = {"category": cat, "support": c.get("support", a.get("support"))}
        for k in PRF:
            row[f"new {k}"] = c.get(k)
            row[f"active {k}"] = a.get(k) if act else None
        row["Δ F1"] = (c["f1"] - a["f1"]) if act and c.get("f1") is not None and a.get("f1") is not None else None
        rows.append(row)
    [cand_row] = version_rows([cand])
    act_row = version_rows([act])[0] if act else None
    return VersionComparison(cand_row, act_row, rows, cpc, apc)


# --------------------------------------------------------------------------- layers from the store

def _layer_dates(db: Database, project_id: int, layer: str) -> dict[int, str]:
    return store.layer_updated_at(db, project_id, layer)


def _texts(db: Database, project_id: int, ids: Iterable[int]) -> dict[str, str]:
    ids = sorted(set(int(i) for i in ids))
    if not ids:
        return {}
    return {str(r.id): r.text or "" for r in store.list_documents(db, project_id, ids=ids, with_text=True)}


def finished_annotations(db: Database, project_id: int, flt: MetricsFilter) -> tuple[dict[str, dict[str, list[Span]]], list]:
    """``{annotator: {doc_id: spans}}`` of the documents each annotator *finished* (assignment
    status, finished in the date range), with the category filter; and those assignments."""
    done = [a for a in store.list_assignments(db, project_id=project_id, status="finished")
            if flt.in_range(a.finished_at)]
    by_user: dict[str, set[int]] = defaultdict(set)
    for a in done:
        by_user[a.user].add(a.doc_id)
    out: dict[str, dict[str, list[Span]]] = {}
    for user, docs in sorted(by_user.items()):
        layer = store.read_project_layer(db, project_id, annotator_layer(user))
        out[user] = {str(d): flt.spans(layer.get(d, [])) for d in sorted(docs)}
    return out, done


# --------------------------------------------------------------------------- evaluation

@dataclass
class PreEvaluation:
    """The ``pre`` layer (what annotators were shown) against finished gold."""

    report: EvaluationReport
    n_documents: int
    sources: dict[str, int]              # model:<version> (or rules-only) -> documents
    held_out_documents: int              # of them, not used to train the active model
    active_model: str | None


def pre_vs_gold(db: Database, project_id: int, flt: MetricsFilter, *, held_out_only: bool = False) -> PreEvaluation | None:
    """Evaluate the ``pre`` layer against finished gold on the documents that have both.

    ``held_out_only`` drops documents the active model was trained on (its ``train_doc_ids``),
    whose figures would flatter it."""
    gold = store.read_project_layer(db, project_id, GOLD, status="finished")
    pre = store.read_project_layer(db, project_id, PRE)
    dates = _layer_dates(db, project_id, GOLD) if (flt.since or flt.until) else {}
    act = store.active_model(db, project_id)
    trained_on = set((act.config or {}).get("train_doc_ids") or []) if act else set()
    ids = sorted(d for d in gold if d in pre and (not dates or flt.in_range(dates.get(d))))
    held_out = [d for d in ids if d not in trained_on]
    if held_out_only:
        ids = held_out
    if not ids:
        return None
    sources: Counter = Counter()
    for d in ids:
        models = sorted({s.source for s in pre[d] if s.source.startswith("model:")})
        sources[", ".join(models) or "rules/dictionaries only"] += 1
    keys = [str(d) for d in ids]
    system = flt.layer({d: pre[d] for d in ids})
    reference = flt.layer({d: gold[d] for d in ids})
    report = evaluate(system, reference, _texts(db, project_id, ids), doc_ids=keys)
    return PreEvaluation(report=report, n_documents=len(ids), sources=dict(sources),
                         held_out_documents=len(held_out), active_model=act.name if act else None)


def annotator_agreement(db: Database, project_id: int, flt: MetricsFilter) -> AgreementReport | None:
    """Agreement over the documents finished by at least two annotators (``None`` if none)."""
    annotations, _ = finished_annotations(db, project_id, flt)
    counts = Counter(d for docs in annotations.values() for d in docs)
    shared = {d for d, n in counts.items() if n >= 2}
    if not shared:
        return None
    ann = {u: {d: s for d, s in docs.items() if d in shared} for u, docs in annotations.items()}
    ann = {u: docs for u, docs in ann.items() if docs}
    return agreement(ann, _texts(db, project_id, map(int, shared)))


def annotators_against_gold(db: Database, project_id: int, flt: MetricsFilter) -> list[GoldComparison]:
    """Each annotator against finished gold, next to the ``pre`` layer on the same documents."""
    annotations, _ = finished_annotations(db, project_id, flt)
    gold = flt.layer(store.read_project_layer(db, project_id, GOLD, status="finished"))
    pre = flt.layer(store.read_project_layer(db, project_id, PRE))
    return [c for c in against_gold(annotations, gold, pre) if c.n_documents]


def annotator_throughput(db: Database, project_id: int, flt: MetricsFilter) -> list[AnnotatorThroughput]:
    """Documents and spans per hour from finished assignments (seconds recorded by the Annotate
    page) and the span count of each annotator's layer (category filter applied)."""
    annotations, done = finished_annotations(db, project_id, flt)
    records = [AssignmentRecord(user=a.user, doc_id=str(a.doc_id), seconds_spent=a.seconds_spent,
                                n_spans=len(annotations.get(a.user, {}).get(str(a.doc_id), [])))
               for a in done]
    return throughput(records)


# --------------------------------------------------------------------------- the page's bundle

@dataclass
class ProjectMetrics:
    """Everything the Metrics page shows, computed once per data version and filter."""

    filter: MetricsFilter
    categories: list[str]
    active: dict | None                          # version row of the active model
    active_per_category: dict[str, dict]          # its stored dev evaluation
    versions: list[dict]                          # learning curve rows, oldest first
    pre: PreEvaluation | None
    agreement: AgreementReport | None
    vs_gold: list[GoldComparison]
    throughput: list[AnnotatorThroughput]
    caveat: str = CHANCE_CAVEAT
    notes: list[str] = field(default_factory=list)
    active_characters: list[dict] = field(default_factory=list)   # the active model's character P/R per category


def project_metrics(db: Database, project_id: int, flt: MetricsFilter | None = None, *,
                    held_out_only: bool = False) -> ProjectMetrics:
    flt = flt or MetricsFilter()
    project = store.get_project(db, project_id)
    versions = store.list_model_versions(db, project_id)
    act = next((v for v in versions if v.active), None)
    apc = per_category(act.metrics) if act else {}
    if flt.category is not None:
        apc = {k: v for k, v in apc.items() if k == flt.category}
    notes = []
    if act and (act.metrics or {}).get("evaluated_on"):
        notes.append("The active model's dev figures come from held-out gold documents of other patients; its "
                     "thresholds were tuned on them, so they are slightly optimistic.")
    return ProjectMetrics(
        filter=flt, categories=list(project.schema.categories), active=version_rows([act])[0] if act else None,
        active_per_category=apc, versions=version_rows(versions, flt),
        pre=pre_vs_gold(db, project_id, flt, held_out_only=held_out_only),
        agreement=annotator_agreement(db, project_id, flt), vs_gold=annotators_against_gold(db, project_id, flt),
        throughput=annotator_throughput(db, project_id, flt), notes=notes,
        active_characters=character_rows(act.metrics, flt.category) if act else [])
