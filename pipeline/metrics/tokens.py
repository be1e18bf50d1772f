"""Token-level comparison on whitespace tokens (as Johnson et al. evaluate de-identification).

A token is a maximal run of non-whitespace characters. A layer labels a token with the label of
the span that overlaps it most (ties: the span that comes first by start, end, label); a token no
span touches is ``O``. Partial overlap counts: "17/06/2016." is a DATE token when the span stops
before the full stop.

:class:`TokenIndex` tokenises each document once; every token measure, the per-1000-token rates
and the operating-point sweep reuse it, with labels held as integer codes in numpy arrays.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from pipeline.metrics.counts import Counts, Measure
from pipeline.spans import Span, SpanError

Layer = Mapping[str, Sequence[Span]]
_TOKEN = re.compile(r"\S+")
OUTSIDE = "O"


@dataclass
class TokenLabels:
    """Per-token label codes of one layer over a :class:`TokenIndex` (0 = outside any span)."""

    label: np.ndarray      # codes into TokenIndex.labels (fine type, or category where no type)
    category: np.ndarray   # codes into TokenIndex.categories
    score: np.ndarray      # highest score of a span touching the token, -inf where none


class TokenIndex:
    """Whitespace tokens of a set of documents, concatenated in ``doc_ids`` order."""

    def __init__(self, texts: Mapping[str, str], doc_ids: Sequence[str]):
        self.doc_ids = list(doc_ids)
        self.starts: dict[str, list[int]] = {}
        self.ends: dict[str, list[int]] = {}
        self.offset: dict[str, int] = {}
        n = 0
        for doc in self.doc_ids:
            if doc not in texts:
                raise SpanError(f"{doc}: no text given for this document")
            st, en = [], []
            for m in _TOKEN.finditer(texts[doc]):
                st.append(m.start())
                en.append(m.end())
            self.starts[doc], self.ends[doc], self.offset[doc] = st, en, n
            n += len(st)
        self.n_tokens = n
        self.labels: list[str] = [OUTSIDE]
        self.categories: list[str] = [OUTSIDE]
        self._lcode: dict[str, int] = {OUTSIDE: 0}
        self._ccode: dict[str, int] = {OUTSIDE: 0}

    def doc_slice(self, doc: str) -> slice:
        o = self.offset[doc]
        return slice(o, o + len(self.starts[doc]))

    def _code(self, table: dict[str, int], names: list[str], name: str) -> int:
        c = table.get(name)
        if c is None:
            c = table[name] = len(names)
            names.append(name)
        return c

    def layer(self, spans_by_doc: Layer) -> TokenLabels:
        n = self.n_tokens
        lab_l, cat_l, sc_l = [0] * n, [0] * n, [-np.inf] * n
        for doc in self.doc_ids:
            spans = spans_by_doc.get(doc, ())
            if not spans:
                continue
            st, en, o = self.starts[doc], self.ends[doc], self.offset[doc]
            best: dict[int, int] = {}
            for s in sorted(spans, key=lambda s: (s.start, s.end, s.label)):
                lc = self._code(self._lcode, self.labels, s.label)
                cc = self._code(self._ccode, self.categories, s.category)
                i0 = bisect_right(en, s.start)   # first token ending after the span starts
                i1 = bisect_left(st, s.end)      # first token starting at or after the span ends
                for i in range(i0, i1):
                    ov = min(en[i], s.end) - max(st[i], s.start)
                    if ov > best.get(i, 0):
                        best[i] = ov
                        lab_l[o + i], cat_l[o + i] = lc, cc
                    if s.score > sc_l[o + i]:
                        sc_l[o + i] = s.score
        return TokenLabels(np.asarray(lab_l, dtype=np.int32), np.asarray(cat_l, dtype=np.int32),
                           np.asarray(sc_l, dtype=float))


def _per_label(gold: np.ndarray, pred: np.ndarray, names: list[str]) -> dict[str, Counts]:
    n = len(names)
    agree = gold == pred
    tp = np.bincount(gold[agree & (gold != 0)], minlength=n)
    fn = np.bincount(gold[~agree & (gold != 0)], minlength=n)
    fp = np.bincount(pred[~agree & (pred != 0)], minlength=n)
    return {names[i]: Counts(int(tp[i]), int(fp[i]), int(fn[i]))
            for i in range(1, n) if tp[i] or fp[i] or fn[i]}


def token_measure(idx: TokenIndex, gold: TokenLabels, pred: TokenLabels) -> Measure:
    """Token label must match (per fine type; per category on categories)."""
    per_type = _per_label(gold.label, pred.label, idx.labels)
    per_cat = _per_label(gold.category, pred.category, idx.categories)
    return Measure.build("token", per_type, per_cat)


def _binary_breakdown(gold: np.ndarray, pred: np.ndarray, g_phi: np.ndarray, p_phi: np.ndarray,
                      names: list[str]) -> dict[str, Counts]:
    n = len(names)
    tp = np.bincount(gold[p_phi], minlength=n)
    fn = np.bincount(gold[~p_phi], minlength=n)
    tps = np.bincount(pred[g_phi], minlength=n)
    fp = np.bincount(pred[~g_phi], minlength=n)
    return {names[i]: Counts(int(tp[i]), int(fp[i]), int(fn[i]), int(tps[i]))
            for i in range(1, n) if tp[i] or fp[i] or fn[i] or tps[i]}


def binary_measure(idx: TokenIndex, gold: TokenLabels, pred: TokenLabels) -> Measure:
    """PHI versus not-PHI per token; the breakdown files each token under its own side's label."""
    g, p = gold.label != 0, pred.label != 0
    micro = Counts(int(np.sum(g & p)), int(np.sum(~g & p)), int(np.sum(g & ~p)))
    per_type = _binary_breakdown(gold.label, pred.label, g, p, idx.labels)
    per_cat = _binary_breakdown(gold.category, pred.category, g, p, idx.categories)
    return Measure.build("binary_token", per_type, per_cat, micro, micro)


def per_1000(n: int, n_tokens: int) -> float:
    return 0.0 if n_tokens == 0 else 1000.0 * n / n_tokens
