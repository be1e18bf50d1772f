"""Scoring a run: residual PHI, kept quasi-identifiers and context uniqueness per document.

The colours tell a reviewer where to look. **Red**: the released note likely still identifies
someone: evidence of PHI left outside every span (a stretch the model reads as PHI with a
probability of at least ``residual_red``, an e-mail address, a capitalised word after a title),
a direct identifier kept as written, or kept facts (age, place, profession, year, sex) whose
combination fewer than ``k_threshold`` people share. **Amber**: weaker evidence (a candidate
between ``residual_amber`` and ``residual_red``, a rule or list hit detection dropped, a long
number or full date left as written, one kept fact no one else shows). **Green**: neither. A
span that was detected and replaced is not evidence either way; unreviewed low-confidence
spans and unique contexts are shown as information (``info``) and set no colour. Every reason
says, in words, what was found where (offsets, never the text).

:class:`RiskScorer` keeps each document's contexts, quasi-identifiers and the embeddings of
every context string it has seen, so :meth:`RiskScorer.rescore` after an edit embeds only the
new context strings. Uniqueness is a property of the whole corpus (an edit in one document can
make another's context unique), so the neighbour search and the levels are recomputed for all
documents; that part is vectorised and takes seconds even at 10,000 documents.
"""
from __future__ import annotations

import logging
import time
from typing import Callable, Iterable, Sequence

import numpy as np

from pipeline.risk.contexts import Context, extract_contexts
from pipeline.risk.embedders import Embedder, Embedding, build_embedder
from pipeline.risk.neighbours import MULTI_OWNER, best_other_similarity
from pipeline.risk.quasi import QuasiIdentifiers, derive, individual, k_counts
from pipeline.risk.signals import SIGNALS
from pipeline.risk.types import (AMBER, COLOURS, INFO, KEEP, LEVELS, PHI_LIKE_TEXT, POSSIBLE_MISSED_PHI,
                                 QUASI_IDENTIFIER, RED, UNIQUE_CONTEXT, UNREVIEWED_LOW_CONFIDENCE, DeidDocument, Reason,
                                 RiskConfig, RiskReport, colour_for, colour_of)
from pipeline.risk.uniqueness import METHODS

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]      # (stage, done, total)
_REASON_ORDER = (KEEP, POSSIBLE_MISSED_PHI, PHI_LIKE_TEXT, QUASI_IDENTIFIER, UNREVIEWED_LOW_CONFIDENCE, UNIQUE_CONTEXT)
QI_WORDS = {"age_band": "age", "location": "place", "profession": "profession", "year": "year", "sex": "sex"}


class RiskScorer:
    """Scores a corpus of de-identified documents and re-scores it after edits."""

    def __init__(self, config: RiskConfig | None = None, embedder: Embedder | None = None,
                 progress: Progress | None = None) -> None:
        self.config = config or RiskConfig()
        self.config.check()
        self.embedder: Embedder = embedder or build_embedder(self.config.encoder, lexical_dim=self.config.lexical_dim)
        self.progress = progress
        self._docs: dict[str, DeidDocument] = {}
        self._contexts: dict[str, list[Context]] = {}
        self._quasi: dict[str, QuasiIdentifiers] = {}
        self._vec_row: dict[str, int] = {}
        self._emb: Embedding | None = None
        self.neighbour_method = ""
        self.timings: dict[str, float] = {}

    @property
    def method(self) -> str:
        return self.config.method

    @property
    def embedder_name(self) -> str:
        return self.embedder.name

    # -- public -----------------------------------------------------------------------------
    def score(self, docs: Sequence[DeidDocument]) -> list[RiskReport]:
        """Score ``docs`` from scratch (the scorer forgets earlier documents, keeps embeddings)."""
        self._docs, self._contexts, self._quasi = {}, {}, {}
        self._add(docs)
        return self._compute()

    def rescore(self, changed: Sequence[DeidDocument] = (), removed: Iterable[str] = ()) -> list[RiskReport]:
        """Replace/add ``changed`` documents, drop ``removed`` ids, and return every report again."""
        for doc_id in removed:
            self._docs.pop(doc_id, None)
            self._contexts.pop(doc_id, None)
            self._quasi.pop(doc_id, None)
        self._add(changed, replace=True)
        return self._compute()

    # -- internals --------------------------------------------------------------------------
    def _tick(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)

    def _add(self, docs: Sequence[DeidDocument], replace: bool = False) -> None:
        t0 = time.perf_counter()
        seen: set[str] = set()
        for i, doc in enumerate(docs):
            if doc.doc_id in seen or (not replace and doc.doc_id in self._docs):
                raise ValueError(f"document id {doc.doc_id!r} appears twice")
            seen.add(doc.doc_id)
            doc.check()
            self._docs[doc.doc_id] = doc
            self._contexts[doc.doc_id] = extract_contexts(doc, self.config.window)
            self._quasi[doc.doc_id] = derive(doc)
            if i % 1000 == 0:
                self._tick("contexts", i, len(docs))
        self.timings["contexts"] = time.perf_counter() - t0

    def _owners(self) -> dict[str, int]:
        ids: dict[str, int] = {}
        out: dict[str, int] = {}
        for doc_id, doc in self._docs.items():
            key = f"patient:{doc.patient_id}" if (self.config.group_by_patient and doc.patient_id) else f"doc:{doc_id}"
            out[doc_id] = ids.setdefault(key, len(ids))
        return out

    def _embed(self, strings: list[str]) -> Embedding:
        """Embeddings of ``strings``; only strings never embedded before are encoded."""
        if not getattr(self.embedder, "fitted", True):
            self.embedder.fit(strings)
        missing = [s for s in strings if s not in self._vec_row]
        if missing or self._emb is None:
            new = self.embedder.embed(missing)
            self._emb = new if self._emb is None else Embedding.concat([self._emb, new])
            base = len(self._vec_row)
            for j, s in enumerate(missing):
                self._vec_row[s] = base + j
        rows = np.fromiter((self._vec_row[s] for s in strings), dtype=np.int64, count=len(strings))
        if len(rows) == len(self._emb) and np.array_equal(rows, np.arange(len(rows))):
            return self._emb
        return self._emb.take(rows)

    def _compute(self) -> list[RiskReport]:
        cfg = self.config
        t = time.perf_counter()
        owner_of_doc = self._owners()
        # 1. deduplicate context strings; a string under two owners is not unique
        uniq: dict[str, int] = {}
        owners: list[int] = []
        ctx_uid: dict[str, np.ndarray] = {}
        for doc_id, ctxs in self._contexts.items():
            o = owner_of_doc[doc_id]
            ids = np.empty(len(ctxs), dtype=np.int64)
            for j, c in enumerate(ctxs):
                u = uniq.get(c.text)
                if u is None:
                    u = uniq[c.text] = len(owners)
                    owners.append(o)
                elif owners[u] != o:
                    owners[u] = MULTI_OWNER
                ids[j] = u
            ctx_uid[doc_id] = ids
        strings = list(uniq)
        self.timings["dedup"] = time.perf_counter() - t
        # 2. embed (only strings never seen before) and 3. search
        t = time.perf_counter()
        self._tick("embed", 0, len(strings))
        vecs = self._embed(strings)
        self.timings["embed"] = time.perf_counter() - t
        t = time.perf_counter()
        self._tick("neighbours", 0, len(strings))
        best, self.neighbour_method = best_other_similarity(vecs, np.asarray(owners, dtype=np.int64),
                                                            exact_cutoff=cfg.exact_cutoff, k=cfg.ann_k)
        self.timings["neighbours"] = time.perf_counter() - t
        # 4. quasi-identifiers and reports
        t = time.perf_counter()
        ks = k_counts(self._quasi, {d: individual(doc) for d, doc in self._docs.items()}, cfg.quasi_fields)
        total = sum(len(c) for c in self._contexts.values())
        reports = [self._report(doc, ctx_uid[doc_id], best, ks.get(doc_id), total)
                   for doc_id, doc in self._docs.items()]
        self.timings["assemble"] = time.perf_counter() - t
        self._tick("done", len(reports), len(reports))
        log.info("risk: %d documents, %d contexts (%d distinct), embedder %s, search %s",
                 len(reports), total, len(strings), self.embedder_name, self.neighbour_method)
        return reports

    def _report(self, doc: DeidDocument, uids: np.ndarray, best: np.ndarray, k: int | None, total: int) -> RiskReport:
        cfg = self.config
        ctxs = self._contexts[doc.doc_id]
        sims = best[uids] if len(uids) else np.zeros(0, dtype=np.float32)
        unique = np.isnan(sims) | (sims < cfg.threshold)
        n_unique = int(unique.sum())
        scores = {name: fn(n_unique, len(ctxs), total) for name, fn in METHODS.items()}
        reasons: list[Reason] = []
        for fn in SIGNALS.values():
            reasons.extend(fn(doc, cfg))
        q = self._quasi[doc.doc_id]
        if k is not None and k < cfg.k_threshold:
            reasons.extend(_quasi_reason(q.as_dict(cfg.quasi_fields), k, cfg.k_threshold))
        if n_unique:
            lowest = sims[unique]
            lowest = None if np.isnan(lowest).all() else round(float(np.nanmin(lowest)), 4)
            reasons.append(Reason(UNIQUE_CONTEXT, f"{n_unique} of the {len(ctxs)} places where an identifier stood "
                                  "are surrounded by words no other document shares (similarity below "
                                  f"{cfg.threshold:.2f}): a reader who knows the case might recognise it. Shown "
                                  "for information; it does not set the colour.", similarity=lowest, level=INFO))
        reasons.sort(key=lambda r: (-LEVELS.index(r.level), _kind_rank(r.kind),
                                    r.start if r.start is not None else -1))
        strengths = [r.strength or 0.0 for r in reasons if r.level != INFO]
        return RiskReport(doc.doc_id, round(100.0 * max(strengths, default=0.0), 2), colour_of(reasons), reasons,
                          cfg.method, colour_for(scores[cfg.method]), scores, len(ctxs), n_unique)


def _kind_rank(kind: str) -> int:
    return _REASON_ORDER.index(kind) if kind in _REASON_ORDER else len(_REASON_ORDER)


def _quasi_reason(qi: dict[str, str], k: int, k_threshold: int) -> list[Reason]:
    """Kept facts whose combination fewer than ``k_threshold`` individuals share: red with two
    facts or more, amber for one fact no one else shows, nothing otherwise."""
    if len(qi) >= 2:
        level = RED
    elif k <= 1:
        level = AMBER
    else:
        return []
    facts = ", ".join(QI_WORDS.get(f, f) for f in qi)     # which facts; their values stay in the tuple
    who = "no other person" if k <= 1 else f"only {k} people"
    return [Reason(QUASI_IDENTIFIER, f"The facts kept as written ({facts}) are shared by {who} in this run "
                   f"(fewer than {k_threshold}): together they can point to one person.",
                   quasi_identifiers=qi, k=k, level=level, strength=0.8 if level == RED else 0.4)]


def score_run(docs: Sequence[DeidDocument], config: RiskConfig | None = None, *,
              embedder: Embedder | None = None, progress: Progress | None = None) -> list[RiskReport]:
    """Reports for every document of a de-identification run (contract of ``pipeline.risk``)."""
    return RiskScorer(config, embedder, progress).score(docs)


def rescore(scorer: RiskScorer, changed: Sequence[DeidDocument] = (), removed: Iterable[str] = ()) -> list[RiskReport]:
    """Re-score after edits: ``changed`` documents replace their earlier versions; all reports
    are returned, because an edit in one document can change another's uniqueness."""
    return scorer.rescore(changed, removed)


_RANK = {c: i for i, c in enumerate(reversed(COLOURS))}   # red 0, amber 1, green 2


def triage_order(reports: Iterable[RiskReport]) -> list[RiskReport]:
    """Red first, then amber, then green; within a colour by score, then number of reasons, desc."""
    return sorted(reports, key=lambda r: (_RANK.get(r.colour, len(_RANK)), -r.score, -len(r.reasons), r.doc_id))


def to_rows(reports: Iterable[RiskReport]) -> list[dict]:
    """Rows for ``store.save_risk_scores(db, run_id, rows)``."""
    return [r.to_row() for r in reports]
