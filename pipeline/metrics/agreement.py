"""Agreement between annotators on the documents they both finished.

Input is ``annotations: {annotator: {doc_id: [Span, ...]}}`` holding, for each annotator, only
the documents that annotator finished (the caller filters on assignment status): a pair is
compared on the documents present for both, Krippendorff's alpha on every document finished by
at least two.

Measures: pairwise entity F1 (strict and relaxed, per category and overall, reusing
:mod:`pipeline.metrics`), Cohen's kappa per pair and Krippendorff's alpha (nominal) over all
annotators on whitespace-token labels, per-document agreement, and the list of disagreements the
Review page adjudicates. :func:`against_gold` puts each annotator's score against gold next to
the active model's score on the same documents.

Spans no person looked at (accepted in bulk, or machine suggestions left open:
:func:`pipeline.spans.is_unreviewed`) are kept apart: every figure is computed on the spans the
annotators decided, and the unreviewed ones are counted on their own (per annotator, how many
two annotators share, how many gold holds). Otherwise two annotators who both leave the same
suggestion untouched "agree", and the figures measure the model, not the annotators.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Hashable, Mapping, Sequence

import numpy as np

from pipeline.metrics import entity
from pipeline.metrics.counts import Measure
from pipeline.metrics.tokens import TokenIndex
from pipeline.spans import Span, is_unreviewed

Layer = Mapping[str, Sequence[Span]]

CHANCE_CAVEAT = (
    "Kappa and alpha are computed over every whitespace token, and most tokens are not PHI: the "
    "many tokens both annotators leave unlabelled inflate both coefficients. Read them next to "
    "the entity-level F1, which ignores agreement on non-PHI text."
)


# --------------------------------------------------------------------------- coefficients
def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters over the same items; ``None`` when undefined (expected
    agreement 1: both raters used one and the same label throughout, or no items)."""
    if len(a) != len(b):
        raise ValueError("both raters must label the same items")
    if not len(a):
        return None
    codes: dict[Hashable, int] = {}
    ia = np.fromiter((codes.setdefault(x, len(codes)) for x in a), dtype=np.int64, count=len(a))
    ib = np.fromiter((codes.setdefault(x, len(codes)) for x in b), dtype=np.int64, count=len(b))
    return _kappa_codes(ia, ib, len(codes))


def _kappa_codes(ia: np.ndarray, ib: np.ndarray, k: int) -> float | None:
    n = len(ia)
    if n == 0:
        return None
    po = float(np.mean(ia == ib))
    pe = float(np.dot(np.bincount(ia, minlength=k), np.bincount(ib, minlength=k))) / (n * n)
    if pe >= 1.0:
        return None
    return (po - pe) / (1.0 - pe)


def krippendorff_alpha_nominal(data: Sequence[Sequence[Hashable | None]]) -> float | None:
    """Krippendorff's alpha for nominal data: ``data[coder][unit]``, ``None`` for a missing value.

    Units with fewer than two values are not pairable and are dropped, as in Krippendorff (2011),
    "Computing Krippendorff's Alpha-Reliability". ``None`` when undefined (no pairable unit, or
    a single value used throughout).
    """
    codes: dict[Hashable, int] = {}
    rows = [[None if v is None else codes.setdefault(v, len(codes)) for v in row] for row in data]
    if not rows or not codes:
        return None
    n_units = max(len(r) for r in rows)
    counts = np.zeros((n_units, len(codes)), dtype=float)
    for row in rows:
        for u, v in enumerate(row):
            if v is not None:
                counts[u, v] += 1
    return _alpha_counts(counts)


def _alpha_counts(counts: np.ndarray) -> float | None:
    """Alpha from a units x values matrix of how many coders gave each value to each unit."""
    m = counts.sum(axis=1)
    counts, m = counts[m >= 2], m[m >= 2]
    if len(m) == 0:
        return None
    # coincidence matrix o[c, k] = sum_u n_uc (n_uk - [c == k]) / (m_u - 1)
    w = counts / (m - 1)[:, None]
    o = w.T @ counts - np.diag(w.sum(axis=0))
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d_o = n - np.trace(o)
    d_e = (n * n - np.dot(n_c, n_c)) / (n - 1)
    if d_e == 0:
        return None
    return float(1.0 - d_o / d_e)


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class PairAgreement:
    a: str
    b: str
    n_documents: int
    strict: Measure          # b scored against a; F1 is symmetric
    relaxed: Measure
    kappa: float | None      # token labels at the report's level
    n_tokens: int

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "n_documents": self.n_documents, "strict": self.strict.to_dict(),
                "relaxed": self.relaxed.to_dict(), "kappa": self.kappa, "n_tokens": self.n_tokens}


@dataclass(frozen=True)
class DocumentAgreement:
    doc_id: str
    annotators: tuple[str, ...]
    strict_f1: float     # mean over the pairs that finished the document
    relaxed_f1: float
    n_disagreements: int

    def to_dict(self) -> dict:
        return {"doc_id": self.doc_id, "annotators": list(self.annotators), "strict_f1": self.strict_f1,
                "relaxed_f1": self.relaxed_f1, "n_disagreements": self.n_disagreements}


@dataclass(frozen=True)
class Disagreement:
    """A stretch of a document where the annotators who finished it did not mark the same spans.

    ``start``/``end`` cover the overlapping spans of the group; ``labels`` gives each annotator's
    label there (the label of their first span in the group) or ``None`` when they marked nothing;
    ``spans`` each annotator's exact ``(start, end, label)`` triples. ``kind``: ``missing`` (someone
    marked nothing), ``label`` (same offsets, different labels), ``boundary``, or ``unreviewed``
    (everyone marked the same, but nobody looked: each only accepted it in bulk or left it open).
    """

    doc_id: str
    start: int
    end: int
    labels: dict[str, str | None]
    spans: dict[str, tuple[tuple[int, int, str], ...]] = field(default_factory=dict)
    kind: str = "boundary"

    def to_dict(self) -> dict:
        return {"doc_id": self.doc_id, "start": self.start, "end": self.end, "labels": dict(self.labels),
                "spans": {k: [list(t) for t in v] for k, v in self.spans.items()}, "kind": self.kind}


@dataclass
class AgreementReport:
    annotators: list[str]
    level: str
    pairs: list[PairAgreement]
    alpha: float | None
    alpha_units: int
    per_document: list[DocumentAgreement]
    disagreements: list[Disagreement]
    caveat: str = CHANCE_CAVEAT
    unreviewed: dict[str, int] = field(default_factory=dict)   # annotator -> spans nobody looked at, left out
    unreviewed_shared: int = 0     # spans two or more annotators hold only unreviewed (left out, not "agreed")

    def pair(self, a: str, b: str) -> PairAgreement | None:
        for p in self.pairs:
            if {p.a, p.b} == {a, b}:
                return p
        return None

    def matrix(self, measure: str = "strict",
               category: str | None = None) -> tuple[list[str], list[list[float | None]]]:
        """Annotator x annotator F1 (``strict``/``relaxed``, overall or for one category) or
        ``kappa``; the diagonal is 1.0 and pairs with no common document are ``None``."""
        names = self.annotators
        z: list[list[float | None]] = [[1.0 if i == j else None for j in names] for i in names]
        for p in self.pairs:
            if not p.n_documents:
                continue
            if measure == "kappa":
                v = p.kappa
            else:
                m: Measure = getattr(p, measure)
                if category is None:
                    v = m.micro.f1
                else:
                    c = m.per_category.get(category)
                    v = c.f1 if c is not None else None
            i, j = names.index(p.a), names.index(p.b)
            z[i][j] = z[j][i] = v
        return names, z

    def to_dict(self) -> dict:
        return {"annotators": self.annotators, "level": self.level, "pairs": [p.to_dict() for p in self.pairs],
                "alpha": self.alpha, "alpha_units": self.alpha_units, "caveat": self.caveat,
                "per_document": [d.to_dict() for d in self.per_document],
                "disagreements": [d.to_dict() for d in self.disagreements],
                "unreviewed": dict(self.unreviewed), "unreviewed_shared": self.unreviewed_shared}


# --------------------------------------------------------------------------- computation
def split_unreviewed(layer: Layer) -> tuple[dict[str, list[Span]], dict[str, list[Span]]]:
    """``(decided, unreviewed)``: a layer's spans a person looked at, and those nobody did."""
    decided: dict[str, list[Span]] = {}
    apart: dict[str, list[Span]] = {}
    for d, spans in layer.items():
        decided[d] = [s for s in spans if not is_unreviewed(s)]
        apart[d] = [s for s in spans if is_unreviewed(s)]
    return decided, apart


def _shared_unreviewed(apart: Mapping[str, Layer]) -> int:
    """Spans (offsets and label) that two or more annotators hold, each only unreviewed."""
    seen: dict[tuple[str, int, int, str], int] = {}
    for layer in apart.values():
        for d, spans in layer.items():
            for k in {(d, s.start, s.end, s.label) for s in spans}:
                seen[k] = seen.get(k, 0) + 1
    return sum(1 for n in seen.values() if n >= 2)


def disagreements(doc_id: str, layers: Mapping[str, Sequence[Span]], *,
                  unreviewed_apart: bool = False) -> list[Disagreement]:
    """Groups of overlapping spans (across every annotator given) where the annotators' span sets
    differ. Every annotator in ``layers`` finished the document; identical duplicates collapse.
    With ``unreviewed_apart`` a group where they agree but every span in it is unreviewed
    (:func:`pipeline.spans.is_unreviewed`) is one too, of kind ``unreviewed``: for Review, where
    agreement between people who did not look is no agreement."""
    items = sorted({(s.start, s.end, s.label, who) for who, spans in layers.items() for s in spans})
    looked = {(s.start, s.end, s.label, who) for who, spans in layers.items() for s in spans if not is_unreviewed(s)}
    groups: list[list[tuple[int, int, str, str]]] = []
    end = -1
    for it in items:
        if groups and it[0] < end:
            groups[-1].append(it)
            end = max(end, it[1])
        else:
            groups.append([it])
            end = it[1]
    out = []
    names = sorted(layers)
    for g in groups:
        per = {who: tuple((s, e, lab) for s, e, lab, w in g if w == who) for who in names}
        sets = {frozenset(v) for v in per.values()}
        if len(sets) == 1 and not (unreviewed_apart and len(names) > 1 and not any(it in looked for it in g)):
            continue
        if len(sets) == 1:
            kind = "unreviewed"
        elif any(not v for v in per.values()):
            kind = "missing"
        elif len({frozenset((s, e) for s, e, _ in v) for v in per.values()}) == 1:
            kind = "label"
        else:
            kind = "boundary"
        out.append(Disagreement(doc_id=doc_id, start=g[0][0], end=max(x[1] for x in g),
                                labels={who: (v[0][2] if v else None) for who, v in per.items()},
                                spans=per, kind=kind))
    return out


def _token_codes(idx: TokenIndex, layer: Layer, level: str) -> np.ndarray:
    t = idx.layer(layer)
    return t.category if level == "category" else t.label


def agreement(annotations: Mapping[str, Layer], texts: Mapping[str, str], *,
              level: str = "category") -> AgreementReport:
    """Every agreement figure over ``annotations`` (see the module docstring).

    ``level`` (``category`` or ``type``) is the token label kappa and alpha compare; entity F1 is
    reported at both levels anyway.
    """
    if level not in ("category", "type"):
        raise ValueError("level must be 'category' or 'type'")
    split = {a: split_unreviewed(layer) for a, layer in annotations.items()}
    annotations = {a: decided for a, (decided, _) in split.items()}
    apart = {a: unrev for a, (_, unrev) in split.items()}
    names = sorted(annotations)
    finished = {a: set(annotations[a]) for a in names}
    shared_docs = sorted(d for d in set().union(*finished.values()) if sum(d in finished[a] for a in names) >= 2) \
        if names else []
    idx = TokenIndex(texts, shared_docs)
    codes = {a: _token_codes(idx, annotations[a], level) for a in names}
    n_codes = len(idx.categories if level == "category" else idx.labels)
    # a token's row is in play for an annotator only where they finished its document
    present = {a: np.zeros(idx.n_tokens, dtype=bool) for a in names}
    for a in names:
        for d in shared_docs:
            if d in finished[a]:
                present[a][idx.doc_slice(d)] = True

    pairs = []
    for a, b in combinations(names, 2):
        common = sorted(finished[a] & finished[b])
        mask = present[a] & present[b]
        pairs.append(PairAgreement(
            a=a, b=b, n_documents=len(common),
            strict=entity.strict(annotations[b], annotations[a], common),
            relaxed=entity.relaxed(annotations[b], annotations[a], common),
            kappa=_kappa_codes(codes[a][mask], codes[b][mask], n_codes), n_tokens=int(mask.sum())))

    flat = np.zeros(idx.n_tokens * n_codes, dtype=float)
    rows = np.arange(idx.n_tokens)
    for a in names:
        flat += np.bincount(rows[present[a]] * n_codes + codes[a][present[a]], minlength=len(flat))
    counts = flat.reshape(idx.n_tokens, n_codes)
    alpha = _alpha_counts(counts) if idx.n_tokens else None

    per_doc, dis = [], []
    for d in shared_docs:
        who = [a for a in names if d in finished[a]]
        found = disagreements(d, {a: annotations[a].get(d, ()) for a in who})
        dis.extend(found)
        s_f1, r_f1 = [], []
        for a, b in combinations(who, 2):
            la, lb = {d: annotations[a].get(d, ())}, {d: annotations[b].get(d, ())}
            s_f1.append(entity.micro_counts(lb, la, [d]).f1)
            r_f1.append(entity.micro_counts(lb, la, [d], overlap=True).f1)
        per_doc.append(DocumentAgreement(d, tuple(who), sum(s_f1) / len(s_f1), sum(r_f1) / len(r_f1), len(found)))

    return AgreementReport(annotators=names, level=level, pairs=pairs, alpha=alpha,
                           alpha_units=int((counts.sum(axis=1) >= 2).sum()), per_document=per_doc,
                           disagreements=dis,
                           unreviewed={a: sum(len(v) for v in apart[a].values()) for a in names},
                           unreviewed_shared=_shared_unreviewed(apart))


@dataclass(frozen=True)
class GoldComparison:
    """One annotator against gold, and the model against the same gold on the same documents."""

    annotator: str
    n_documents: int
    strict: Measure
    relaxed: Measure
    model_strict: Measure | None
    model_relaxed: Measure | None
    n_unreviewed: int = 0          # spans nobody looked at (bulk-accepted, left open): not in the figures
    unreviewed_in_gold: int = 0    # of them, those gold holds exactly (offsets and label)

    def to_dict(self) -> dict:
        return {"annotator": self.annotator, "n_documents": self.n_documents, "strict": self.strict.to_dict(),
                "n_unreviewed": self.n_unreviewed, "unreviewed_in_gold": self.unreviewed_in_gold,
                "relaxed": self.relaxed.to_dict(),
                "model_strict": self.model_strict.to_dict() if self.model_strict else None,
                "model_relaxed": self.model_relaxed.to_dict() if self.model_relaxed else None}


def against_gold(annotations: Mapping[str, Layer], gold: Layer, model: Layer | None = None) -> list[GoldComparison]:
    """Each annotator scored against ``gold`` on the documents they finished that have gold,
    with ``model`` (e.g. the active model's pre-annotations) scored on exactly those documents,
    so the two figures are comparable. A document absent from ``model`` counts as no spans.
    An annotator's unreviewed spans are scored apart (``n_unreviewed``, ``unreviewed_in_gold``)."""
    out = []
    for a in sorted(annotations):
        docs = sorted(set(annotations[a]) & set(gold))
        decided, apart = split_unreviewed(annotations[a])
        gold_keys = {(d, s.start, s.end, s.label) for d in docs for s in gold.get(d, ())}
        unrev = [(d, s.start, s.end, s.label) for d in docs for s in apart.get(d, ())]
        out.append(GoldComparison(
            annotator=a, n_documents=len(docs),
            strict=entity.strict(decided, gold, docs), relaxed=entity.relaxed(decided, gold, docs),
            model_strict=entity.strict(model, gold, docs) if model is not None else None,
            model_relaxed=entity.relaxed(model, gold, docs) if model is not None else None,
            n_unreviewed=len(unrev), unreviewed_in_gold=sum(k in gold_keys for k in unrev)))
    return out
