"""Figures the pages show from stored evaluations: a model version's per-category and headline
scores, one row per version for the tables and the learning curve, the versions a lead may want
to activate, and table rows from measures and annotator-vs-gold comparisons.

Pure functions over the stored JSON of :meth:`pipeline.metrics.EvaluationReport.to_json` and
over version records (anything with ``id``, ``name``, ``created_at``, ``status``, ``active``,
``metrics``, ``config``), so they are tested without a store.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pipeline.metrics.agreement import GoldComparison
from pipeline.metrics.filters import MetricsFilter

PRF = ("precision", "recall", "f1")


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
        m = v.metrics or {}
        rows.append({"id": v.id, "name": v.name, "created_at": v.created_at, "status": v.status,
                     "active": v.active, **h, "span_recall": _micro(m, "span_strict", "recall"),
                     "char_precision": _micro(m, "characters", "precision"),
                     "char_recall": _micro(m, "characters", "recall"),
                     "document_recall": m.get("document_recall"), "fn_per_1000": m.get("fn_per_1000"),
                     "dev_documents": ev.get("documents"), "members": members_words(v.config)})
    return rows


def members_words(config: Mapping[str, Any] | None) -> str:
    """A version's members as the Train page lists them, with the surrogate copies they learned
    from (two versions of the same members can differ only there).

    >>> members_words({"members": ["crf", "bert"], "augment_copies": 2})
    'crf, bert + 2 surrogate copies'
    >>> members_words({"members": ["crf"], "augment_copies": 1, "augment_crf": True})
    'crf + 1 surrogate copy (CRFs too)'
    """
    config = config or {}
    words = ", ".join(config.get("members") or [])
    copies = config.get("augment_copies") or 0
    if copies:
        words += f" + {copies} surrogate cop{'y' if copies == 1 else 'ies'}" + (
            " (CRFs too)" if config.get("augment_crf") else "")
    return words


def _micro(metrics: Mapping, measure: str, key: str) -> float | None:
    """``metrics[measure]["micro"][key]`` of an ``EvaluationReport.to_json()``, or ``None``."""
    try:
        return float(metrics[measure]["micro"][key])
    except (KeyError, TypeError, ValueError):
        return None


def headline_f1(metrics: Mapping[str, Any] | None) -> float | None:
    """The strict micro F1 of a model version's evaluation (``EvaluationReport.to_json()``),
    or a top-level ``f1``; ``None`` when absent."""
    if not metrics:
        return None
    try:
        return float(metrics["strict"]["micro"]["f1"])
    except (KeyError, TypeError, ValueError):
        pass
    f1 = metrics.get("f1")
    return float(f1) if isinstance(f1, (int, float)) else None


#: Below this many held-out notes a figure is shown with a word that it rests on few notes: one
#: note more or less moves an F1 of 4 notes by several points.
FEW_NOTES = 30


def held_out_documents(metrics: Mapping[str, Any] | None) -> int | None:
    """How many held-out (dev) notes a version's figures rest on; ``None`` when not recorded.

    >>> held_out_documents({"evaluated_on": {"documents": 4}}), held_out_documents({})
    (4, None)
    """
    n = ((metrics or {}).get("evaluated_on") or {}).get("documents")
    return int(n) if isinstance(n, (int, float)) and not isinstance(n, bool) else None


def models_to_activate(versions: Sequence[Any]) -> list[Any]:
    """Evaluated versions newer than the active one (all evaluated ones if none is active) that
    are not failed or rolled back: what a lead may want to look at and activate."""
    active = next((v for v in versions if v.active), None)
    return [v for v in versions if not v.active and v.metrics and v.status not in ("failed", "rolled_back")
            and (active is None or v.id > active.id)]


def character_rows(metrics: Mapping | None, category: str | None = None) -> list[dict]:
    """Per category, the share of its PHI characters the version covered (any label) and the
    share of the characters it flagged under that category that are PHI, from the stored
    evaluation's ``characters`` measure (:mod:`pipeline.metrics.characters`); ``[]`` for
    versions evaluated before it existed.

    >>> character_rows({"characters": {"per_category": {"NAME": {"precision": 0.5, "recall": 1.0,
    ...     "support": 12, "tp": 12, "fp": 12, "fn": 0}}}})
    [{'category': 'NAME', 'character precision': 0.5, 'character recall': 1.0, 'PHI characters': 12}]
    """
    chars = (metrics or {}).get("characters")
    per = chars.get("per_category") if isinstance(chars, Mapping) else None
    if not isinstance(per, Mapping):
        return []
    rows = []
    for cat, c in per.items():
        if category is not None and cat != category:
            continue
        support = c.get("support") or 0
        flagged = (c.get("tp_system", c.get("tp")) or 0) + (c.get("fp") or 0)
        rows.append({"category": cat, "character precision": c.get("precision") if flagged else None,
                     "character recall": c.get("recall") if support else None, "PHI characters": support})
    return rows


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
                    "pre recall": c.model_strict.micro.recall if c.model_strict else None,
                    "bulk-accepted or left open (not scored)": c.n_unreviewed,
                    "of them in gold": c.unreviewed_in_gold})
    return out
