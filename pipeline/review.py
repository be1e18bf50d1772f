"""Adjudication (the Review page) and the work lists of the Home page.

Review: a document that two or more annotators finished is compared
(:func:`pipeline.agreement.disagreements`); where they agree, the spans go into the draft gold
as they are; for each disagreement the reviewer takes one annotator's spans or neither
(:func:`draft_gold`), may edit the result, and saves it as the ``gold`` layer. Then
:func:`possible_misses` closes the loop with the model: suggestions of the ``pre`` layer that
gold lacks (no overlapping gold span) and nobody dismissed are listed for the reviewer to
confirm (added to gold) or dismiss (remembered by ``store.dismiss_miss``).

Home: :func:`review_queue` (awaiting adjudication), :func:`unassigned_documents`,
:func:`models_to_activate`, :func:`latest_risk_run` / :func:`risk_counts` / :func:`red_documents`,
:func:`project_agreement`. Functions that take ``db`` only read; access checks are the
caller's (``store.access``).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from sqlite_utils import Database

import store
from pipeline.agreement import AgreementReport, Disagreement, DocumentAgreement, agreement, disagreements
from pipeline.errors import WorkbenchError
from pipeline.spans import Span

NEITHER = "neither"


class ReviewError(WorkbenchError):
    """Gold that cannot be saved yet (undecided disagreements); safe to show."""


# --------------------------------------------------------------------------- the review queue

@dataclass(frozen=True)
class ReviewItem:
    doc_id: int
    name: str
    annotators: tuple[str, ...]        # usernames whose layer of this document is finished
    gold_status: str | None            # None (no gold yet), "in_progress" or "finished"


def annotator_name(layer: str) -> str:
    return layer.split(":", 1)[1] if layer.startswith("annotator:") else layer


def finished_layers(db: Database, doc_id: int) -> dict[str, list[Span]]:
    """``{username: spans}`` of the annotator layers of ``doc_id`` marked finished."""
    return {annotator_name(name): ls.spans for name, ls in store.annotator_layers(db, int(doc_id)).items()
            if ls.status == "finished"}


def review_queue(db: Database, project_id: int, *, awaiting_only: bool = True) -> list[ReviewItem]:
    """Documents with two or more finished annotator layers (assignment and layer finished),
    in document order; with ``awaiting_only``, those whose gold is not finished yet."""
    per_doc: dict[int, list[str]] = defaultdict(list)
    names: dict[int, str] = {}
    for a in store.list_assignments(db, project_id=project_id, status="finished"):
        per_doc[a.doc_id].append(a.user)
        names[a.doc_id] = a.doc_name
    out = []
    for doc_id in sorted(d for d, users in per_doc.items() if len(users) >= 2):
        layers = store.layers_of(db, doc_id)
        done = tuple(sorted(u for u in per_doc[doc_id]
                            if (info := layers.get(f"annotator:{u}")) is not None and info.status == "finished"))
        if len(done) < 2:
            continue
        gold = layers.get("gold")
        status = gold.status if gold is not None else None
        if awaiting_only and status == "finished":
            continue
        out.append(ReviewItem(doc_id=doc_id, name=names[doc_id], annotators=done, gold_status=status))
    return out


# --------------------------------------------------------------------------- adjudication

def document_disagreements(doc_id: int | str, layers: Mapping[str, Sequence[Span]]) -> list[Disagreement]:
    return disagreements(str(doc_id), layers)


def document_agreement(doc_id: int | str, layers: Mapping[str, Sequence[Span]], text: str) -> DocumentAgreement | None:
    """Strict and relaxed F1 (mean over pairs) and the number of disagreements for one document;
    ``None`` with fewer than two layers."""
    if len(layers) < 2:
        return None
    sid = str(doc_id)
    report = agreement({a: {sid: list(sp)} for a, sp in layers.items()}, {sid: text})
    return report.per_document[0] if report.per_document else None


def choice_options(d: Disagreement) -> list[str]:
    """What the reviewer can take for a disagreement: each annotator's spans, or neither."""
    return sorted(d.labels) + [NEITHER]


def disagreement_spans(d: Disagreement, layers: Mapping[str, Sequence[Span]]) -> dict[str, list[Span]]:
    """Each annotator's spans inside disagreement ``d`` (full :class:`Span` objects)."""
    out: dict[str, list[Span]] = {}
    for who, triples in d.spans.items():
        wanted = set(triples)
        out[who] = [s for s in layers.get(who, ()) if (s.start, s.end, s.label) in wanted]
    return out


def _gold_span(s: Span, doc_id: int | str, reviewer: str) -> Span:
    return s.with_(doc_id=str(doc_id), layer="gold", source=f"human:{reviewer}", score=1.0)


def draft_gold(doc_id: int | str, layers: Mapping[str, Sequence[Span]], found: Sequence[Disagreement],
               choices: Mapping[int, str | None], reviewer: str) -> list[Span]:
    """Gold from the annotators' layers: every span outside the disagreements (where all agree),
    plus, for disagreement ``i``, the spans of annotator ``choices[i]`` in it (nothing for
    ``neither`` or an undecided one). Spans get layer ``gold``, source ``human:<reviewer>``."""
    out: dict[tuple[int, int, str], Span] = {}
    for who, spans in layers.items():
        for s in spans:
            if any(d.start < s.end and s.start < d.end for d in found):
                continue
            out.setdefault((s.start, s.end, s.label), _gold_span(s, doc_id, reviewer))
    for i, d in enumerate(found):
        who = choices.get(i)
        if not who or who == NEITHER:
            continue
        if who not in d.spans:
            raise ReviewError(f"document {doc_id}: {who} is not one of the annotators of disagreement {i + 1}")
        wanted = set(d.spans[who])
        for s in layers[who]:
            if (s.start, s.end, s.label) in wanted:
                out.setdefault((s.start, s.end, s.label), _gold_span(s, doc_id, reviewer))
    return sorted(out.values(), key=lambda s: (s.start, s.end, s.label))


def undecided(found: Sequence[Disagreement], choices: Mapping[int, str | None]) -> list[int]:
    """Indices of disagreements without a choice."""
    return [i for i in range(len(found)) if not choices.get(i)]


def check_decided(found: Sequence[Disagreement], choices: Mapping[int, str | None]) -> None:
    """Refuse to make gold while a disagreement is undecided (:class:`ReviewError`)."""
    left = undecided(found, choices)
    if left:
        shown = ", ".join(str(i + 1) for i in left[:10]) + (" ..." if len(left) > 10 else "")
        raise ReviewError(f"{len(left)} disagreement(s) are still undecided ({shown}); choose a version or "
                          "'neither' for each before saving gold")


def as_gold(spans: Iterable[Span], doc_id: int | str, reviewer: str) -> list[Span]:
    """Spans edited by the reviewer, as gold spans (human spans keep their source)."""
    out = []
    for s in spans:
        src = s.source if s.source.startswith("human:") else f"human:{reviewer}"
        out.append(s.with_(doc_id=str(doc_id), layer="gold", source=src, score=1.0))
    return sorted(out, key=lambda s: (s.start, s.end, s.label))


# --------------------------------------------------------------------------- possible misses

def dismissed_keys(dismissed: Iterable[Any]) -> set[tuple[int, int, str, str]]:
    """Keys of ``store.DismissedMiss`` rows (or spans) for :func:`possible_misses`."""
    return {(int(d.start), int(d.end), d.category, d.type or "") for d in dismissed}


def possible_misses(pre: Iterable[Span], gold: Sequence[Span],
                    dismissed: set[tuple[int, int, str, str]] | Iterable[Any] = ()) -> list[Span]:
    """Suggestions of the ``pre`` layer with no overlapping gold span that were not dismissed,
    sorted by offsets: candidates for "the reviewers missed this"."""
    keys = dismissed if isinstance(dismissed, set) else dismissed_keys(dismissed)
    out = []
    for s in pre:
        if (s.start, s.end, s.category, s.type or "") in keys:
            continue
        if any(g.start < s.end and s.start < g.end for g in gold):
            continue
        out.append(s)
    return sorted(out, key=lambda s: (s.start, s.end, s.label))


def confirm_miss(gold: Sequence[Span], miss: Span, reviewer: str) -> list[Span]:
    """Gold with ``miss`` added as a reviewer's span."""
    added = _gold_span(miss, miss.doc_id, reviewer)
    keys = {(s.start, s.end, s.label) for s in gold}
    out = list(gold) + ([] if (added.start, added.end, added.label) in keys else [added])
    return sorted(out, key=lambda s: (s.start, s.end, s.label))


# --------------------------------------------------------------------------- work lists (Home)

def unassigned_documents(db: Database, project_id: int) -> list[store.DocumentRecord]:
    """Documents of the project nobody is assigned to (without text)."""
    taken = {a.doc_id for a in store.list_assignments(db, project_id=project_id)}
    return [d for d in store.list_documents(db, project_id) if d.id not in taken]


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


def models_to_activate(versions: Sequence[store.ModelVersion]) -> list[store.ModelVersion]:
    """Evaluated versions newer than the active one (all evaluated ones if none is active) that
    are not failed or rolled back: what a lead may want to look at and activate."""
    active = next((v for v in versions if v.active), None)
    return [v for v in versions if not v.active and v.metrics and v.status not in ("failed", "rolled_back")
            and (active is None or v.id > active.id)]


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
    """Agreement over the project's documents finished by two or more annotators (reads their
    layers and texts); ``None`` when there are none."""
    per_doc: dict[int, int] = defaultdict(int)
    for a in store.list_assignments(db, project_id=project_id, status="finished"):
        per_doc[a.doc_id] += 1
    shared = sorted(d for d, n in per_doc.items() if n >= 2)
    if not shared:
        return None
    annotations: dict[str, dict[str, list[Span]]] = defaultdict(dict)
    for doc_id in shared:
        for who, spans in finished_layers(db, doc_id).items():
            annotations[who][str(doc_id)] = spans
    if not annotations:
        return None
    texts = {str(d.id): d.text or "" for d in store.list_documents(db, project_id, ids=shared, with_text=True)}
    return agreement(dict(annotations), texts)
