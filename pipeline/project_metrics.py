"""Everything the Metrics and Train pages chart, gathered from the store into the inputs of
:mod:`pipeline.metrics`, :mod:`pipeline.agreement` and :mod:`pipeline.throughput`.

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

from pipeline.agreement import CHANCE_CAVEAT, AgreementReport, GoldComparison, agreement, against_gold
from pipeline.metrics import EvaluationReport, evaluate
from pipeline.spans import Span
from pipeline.throughput import AnnotatorThroughput, AssignmentRecord, throughput

ANNOTATOR_PREFIX = "annotator:"
PRF = ("precision", "recall", "f1")


@dataclass(frozen=True)
class MetricsFilter:
    category: str | None = None
    since: str | None = None     # "YYYY-MM-DD", inclusive
    until: str | None = None     # "YYYY-MM-DD", inclusive

    def in_range(self, ts: str | None) -> bool:
        """Whether an ISO timestamp falls in the date range (no timestamp: only without a range)."""
        if not self.since and not self.until:
            return True
        if not ts:
            return False
        day = ts[:10]
        return (not self.since or day >= self.since) and (not self.until or day <= self.until)

    def spans(self, spans: Iterable[Span]) -> list[Span]:
        return [s for s in spans if self.category is None or s.category == self.category]

    def layer(self, layer: Mapping[Any, Sequence[Span]]) -> dict[str, list[Span]]:
        """``{str(doc_id): spans}`` with the category filter applied."""
        return {str(k): self.spans(v) for k, v in layer.items()}


# --------------------------------------------------------------------------- model versions

def per_category(metrics: Mapping | None) -> dict[str, dict]:
    """Per-category P/R/F1 (and counts) of a version's stored evaluation: the strict measure of
    :meth:`EvaluationReport.to_json` when present, else the per-type scores of the trainer's own
    figures (versions recorded by other tools)."""
    if not metrics:
        return {}
    strict = metrics.get("strict")
    if isinstance(strict, Mapping) and isinstance(strict.get("per_category"), Mapping):
        return {k: dict(v) for k, v in strict["per_category"].items()}
    ens = metrics.get("ensemble")
    if isinstance(ens, Mapping) and isinstance(ens.get("per_type"), Mapping):
        return {k: dict(v) for k, v in ens["per_type"].items()}
    return {}


def headline(metrics: Mapping | None, category: str | None = None) -> dict[str, float | None]:
    """Strict micro P/R/F1 of a stored evaluation (or of one category)."""
    out: dict[str, float | None] = {k: None for k in PRF}
    if not metrics:
        return out
    if category is not None:
        c = per_category(metrics).get(category)
        return {k: (float(c[k]) if c and c.get(k) is not None else None) for k in PRF}
    strict = metrics.get("strict")
    src = None
    if isinstance(strict, Mapping):
        src = strict.get("micro") if isinstance(strict.get("micro"), Mapping) else strict
    elif isinstance(metrics.get("ensemble"), Mapping):
        src = metrics["ensemble"].get("strict")
    if isinstance(src, Mapping):
        out = {k: (float(src[k]) if isinstance(src.get(k), (int, float)) else None) for k in PRF}
    return out


def version_rows(versions: Sequence[Any], flt: MetricsFilter | None = None) -> list[dict]:
    """One row per model version (oldest first) for the table and the learning curve."""
    flt = flt or MetricsFilter()
    rows = []
    for v in sorted(versions, key=lambda v: (v.created_at, v.id)):
        if not flt.in_range(v.created_at):
            continue
        h = headline(v.metrics, flt.category)
        ev = (v.metrics or {}).get("evaluated_on") or {}
        rows.append({"id": v.id, "name": v.name, "created_at": v.created_at, "status": v.status,
                     "active": v.active, **h, "document_recall": (v.metrics or {}).get("document_recall"),
                     "dev_documents": ev.get("documents"), "members": ", ".join((v.config or {}).get("members") or [])})
    return rows


@dataclass(frozen=True)
class VersionComparison:
    """A version's per-category dev figures next to the active version's."""

    candidate: dict
    active: dict | None
    rows: list[dict]
    candidate_per_category: dict[str, dict]
    active_per_category: dict[str, dict]


def compare_versions(db, project_id: int, candidate_id: int) -> VersionComparison:
    import store

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

def _layer_dates(db, project_id: int, layer: str) -> dict[int, str]:
    import store

    return store.layer_updated_at(db, project_id, layer)


def _texts(db, project_id: int, ids: Iterable[int]) -> dict[str, str]:
    import store

    ids = sorted(set(int(i) for i in ids))
    if not ids:
        return {}
    return {str(r.id): r.text or "" for r in store.list_documents(db, project_id, ids=ids, with_text=True)}


def finished_annotations(db, project_id: int, flt: MetricsFilter) -> tuple[dict[str, dict[str, list[Span]]], list]:
    """``{annotator: {doc_id: spans}}`` of the documents each annotator *finished* (assignment
    status, finished in the date range), with the category filter; and those assignments."""
    import store

    done = [a for a in store.list_assignments(db, project_id=project_id, status="finished")
            if flt.in_range(a.finished_at)]
    by_user: dict[str, set[int]] = defaultdict(set)
    for a in done:
        by_user[a.user].add(a.doc_id)
    out: dict[str, dict[str, list[Span]]] = {}
    for user, docs in sorted(by_user.items()):
        layer = store.read_project_layer(db, project_id, ANNOTATOR_PREFIX + user)
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


def pre_vs_gold(db, project_id: int, flt: MetricsFilter, *, held_out_only: bool = False) -> PreEvaluation | None:
    """Evaluate the ``pre`` layer against finished gold on the documents that have both.

    ``held_out_only`` drops documents the active model was trained on (its ``train_doc_ids``),
    whose figures would flatter it."""
    import store

    gold = store.read_project_layer(db, project_id, "gold", status="finished")
    pre = store.read_project_layer(db, project_id, "pre")
    dates = _layer_dates(db, project_id, "gold") if (flt.since or flt.until) else {}
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


def annotator_agreement(db, project_id: int, flt: MetricsFilter) -> AgreementReport | None:
    """Agreement over the documents finished by at least two annotators (``None`` if none)."""
    annotations, _ = finished_annotations(db, project_id, flt)
    counts = Counter(d for docs in annotations.values() for d in docs)
    shared = {d for d, n in counts.items() if n >= 2}
    if not shared:
        return None
    ann = {u: {d: s for d, s in docs.items() if d in shared} for u, docs in annotations.items()}
    ann = {u: docs for u, docs in ann.items() if docs}
    return agreement(ann, _texts(db, project_id, map(int, shared)))


def annotators_against_gold(db, project_id: int, flt: MetricsFilter) -> list[GoldComparison]:
    """Each annotator against finished gold, next to the ``pre`` layer on the same documents."""
    import store

    annotations, _ = finished_annotations(db, project_id, flt)
    gold = flt.layer(store.read_project_layer(db, project_id, "gold", status="finished"))
    pre = flt.layer(store.read_project_layer(db, project_id, "pre"))
    return [c for c in against_gold(annotations, gold, pre) if c.n_documents]


def annotator_throughput(db, project_id: int, flt: MetricsFilter) -> list[AnnotatorThroughput]:
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


def project_metrics(db, project_id: int, flt: MetricsFilter | None = None, *,
                    held_out_only: bool = False) -> ProjectMetrics:
    import store

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
        throughput=annotator_throughput(db, project_id, flt), notes=notes)


def measure_rows(per_cat: Mapping[str, Any]) -> list[dict]:
    """Table rows (category, P, R, F1, support) from ``Measure.per_category`` or its dict form."""
    rows = []
    for cat, c in per_cat.items():
        d = dict(c) if isinstance(c, Mapping) else {**{k: getattr(c, k) for k in PRF}, "support": c.n_reference}
        rows.append({"category": cat, **{k: d.get(k) for k in PRF}, "support": d.get("support")})
    return rows


def gold_comparison_rows(rows: Sequence[GoldComparison]) -> list[dict]:
    """Each annotator's strict/relaxed F1 against gold next to the pre layer's on the same documents."""
    out = []
    for c in rows:
        out.append({"annotator": c.annotator, "documents": c.n_documents,
                    "annotator strict F1": c.strict.micro.f1, "annotator relaxed F1": c.relaxed.micro.f1,
                    "pre strict F1": c.model_strict.micro.f1 if c.model_strict else None,
                    "pre relaxed F1": c.model_relaxed.micro.f1 if c.model_relaxed else None,
                    "annotator recall": c.strict.micro.recall,
                    "pre recall": c.model_strict.micro.recall if c.model_strict else None})
    return out
