"""Counts and the scores derived from them, kept apart from matching so every measure
(entity, span, token) reports the same way and aggregates (micro, macro, weighted) the same way.

Zero-denominator rule, used everywhere: a ratio whose denominator is 0 is 0.0, except when both
sides are empty (no reference items and no system items), where precision, recall and F1 are
1.0: there was nothing to find and nothing was wrongly flagged. The official MEDDOCAN/i2b2
scorer reports 0.0 in that degenerate case; every other case agrees with it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping


@dataclass(frozen=True)
class Counts:
    """Matched and unmatched items of one comparison.

    ``tp`` counts matched reference items (the recall numerator), ``tp_sys`` matched system items
    (the precision numerator). They differ only for overlap matching, where one system span can
    cover two reference spans; ``None`` means "same as ``tp``".
    """

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tp_sys: int | None = None

    @property
    def tps(self) -> int:
        return self.tp if self.tp_sys is None else self.tp_sys

    @property
    def n_reference(self) -> int:
        return self.tp + self.fn

    @property
    def n_system(self) -> int:
        return self.tps + self.fp

    @property
    def both_empty(self) -> bool:
        return self.n_reference == 0 and self.n_system == 0

    @property
    def precision(self) -> float:
        d = self.n_system
        if d == 0:
            return 1.0 if self.n_reference == 0 else 0.0
        return self.tps / d

    @property
    def recall(self) -> float:
        d = self.n_reference
        if d == 0:
            return 1.0 if self.n_system == 0 else 0.0
        return self.tp / d

    @property
    def f1(self) -> float:
        if self.both_empty:
            return 1.0
        p, r = self.precision, self.recall
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)

    def __add__(self, other: "Counts") -> "Counts":
        same = self.tp_sys is None and other.tp_sys is None
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn,
                      None if same else self.tps + other.tps)

    def to_dict(self) -> dict:
        d = {"precision": self.precision, "recall": self.recall, "f1": self.f1,
             "tp": self.tp, "fp": self.fp, "fn": self.fn, "support": self.n_reference}
        if self.tp_sys is not None and self.tp_sys != self.tp:
            d["tp_system"] = self.tp_sys
        return d


def total(counts: Iterable[Counts]) -> Counts:
    out = Counts()
    for c in counts:
        out = out + c
    return out


@dataclass(frozen=True)
class Scores:
    """An averaged P/R/F1 (macro or weighted) that has no single set of counts behind it."""

    precision: float
    recall: float
    f1: float

    def to_dict(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1}


def macro(per_label: Mapping[str, Counts]) -> Scores:
    """Unweighted mean of per-label P, R and F1 (F1 is the mean of F1s, as scikit-learn does)."""
    if not per_label:
        return Scores(1.0, 1.0, 1.0)
    vals = list(per_label.values())
    n = len(vals)
    return Scores(sum(c.precision for c in vals) / n, sum(c.recall for c in vals) / n, sum(c.f1 for c in vals) / n)


def weighted(per_label: Mapping[str, Counts]) -> Scores:
    """Per-label P, R and F1 averaged with the reference count (support) as weight."""
    if not per_label:
        return Scores(1.0, 1.0, 1.0)
    w = sum(c.n_reference for c in per_label.values())
    if w == 0:
        return Scores(0.0, 0.0, 0.0)
    vals = per_label.values()
    return Scores(sum(c.precision * c.n_reference for c in vals) / w,
                  sum(c.recall * c.n_reference for c in vals) / w,
                  sum(c.f1 * c.n_reference for c in vals) / w)


@dataclass(frozen=True)
class Aggregate:
    """micro (pooled counts), macro and weighted over a set of per-label counts."""

    micro: Counts
    macro: Scores
    weighted: Scores

    @classmethod
    def of(cls, per_label: Mapping[str, Counts], micro: Counts | None = None) -> "Aggregate":
        return cls(micro if micro is not None else total(per_label.values()), macro(per_label), weighted(per_label))

    def to_dict(self) -> dict:
        return {"micro": self.micro.to_dict(), "macro": self.macro.to_dict(), "weighted": self.weighted.to_dict()}


@dataclass(frozen=True)
class Measure:
    """One way of comparing two layers, broken down per fine type and per coarse category.

    ``micro``/``macro``/``weighted`` are over fine types (the label the file carries, as the
    official scorer uses it); ``category`` holds the same aggregates over ``per_category``.
    """

    name: str
    micro: Counts
    macro: Scores
    weighted: Scores
    per_type: dict[str, Counts]
    per_category: dict[str, Counts]
    category: Aggregate

    @classmethod
    def build(cls, name: str, per_type: dict[str, Counts], per_category: dict[str, Counts],
              micro: Counts | None = None, category_micro: Counts | None = None) -> "Measure":
        t = Aggregate.of(per_type, micro)
        return cls(name=name, micro=t.micro, macro=t.macro, weighted=t.weighted,
                   per_type=dict(sorted(per_type.items())), per_category=dict(sorted(per_category.items())),
                   category=Aggregate.of(per_category, category_micro))

    def to_dict(self) -> dict:
        return {
            "micro": self.micro.to_dict(), "macro": self.macro.to_dict(), "weighted": self.weighted.to_dict(),
            "per_type": {k: v.to_dict() for k, v in self.per_type.items()},
            "per_category": {k: v.to_dict() for k, v in self.per_category.items()},
            "category": self.category.to_dict(),
        }
