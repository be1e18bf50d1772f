"""A small strict scorer for model selection inside training (early stopping, thresholds).

Training must not depend on the full metrics module, and it needs only three figures: strict
micro P/R/F1 (offsets and fine type), per-type counts, and span-only recall (offsets, any type),
the figure that matters for privacy.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    span_tp: int = 0
    span_fn: int = 0
    per_type: dict[str, list[int]] = field(default_factory=dict)  # type -> [tp, fp, fn]

    @staticmethod
    def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        return p, r, f

    @property
    def precision(self) -> float:
        return self._prf(self.tp, self.fp, self.fn)[0]

    @property
    def recall(self) -> float:
        return self._prf(self.tp, self.fp, self.fn)[1]

    @property
    def f1(self) -> float:
        return self._prf(self.tp, self.fp, self.fn)[2]

    @property
    def span_recall(self) -> float:
        n = self.span_tp + self.span_fn
        return self.span_tp / n if n else 0.0

    def to_json(self) -> dict:
        return {
            "strict": {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                       "tp": self.tp, "fp": self.fp, "fn": self.fn},
            "span_recall": self.span_recall,
            "per_type": {t: dict(zip(("precision", "recall", "f1"), self._prf(*c)), tp=c[0], fp=c[1], fn=c[2])
                         for t, c in sorted(self.per_type.items())},
        }


def score(pred: Iterable[Iterable[tuple[int, int, str]]], gold: Iterable[Iterable[tuple[int, int, str]]]) -> Score:
    """Compare per-document sets of ``(start, end, type)``; documents are paired by position."""
    s = Score()
    counts: Counter = Counter()
    for p_doc, g_doc in zip(pred, gold):
        p = set(p_doc)
        g = set(g_doc)
        for x in p & g:
            counts[x[2], 0] += 1
        for x in p - g:
            counts[x[2], 1] += 1
        for x in g - p:
            counts[x[2], 2] += 1
        p_off = {(a, b) for a, b, _ in p}
        for a, b, _ in g:
            if (a, b) in p_off:
                s.span_tp += 1
            else:
                s.span_fn += 1
    for (t, k), v in counts.items():
        s.per_type.setdefault(t, [0, 0, 0])[k] += v
    s.tp = sum(c[0] for c in s.per_type.values())
    s.fp = sum(c[1] for c in s.per_type.values())
    s.fn = sum(c[2] for c in s.per_type.values())
    return s
