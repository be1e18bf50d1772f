"""Operating points of a scored model: what precision and error rates a required recall costs.

One global threshold is swept over the system spans' scores (a span is kept when its score is at
least the threshold). Recall here is PHI-token recall (binary, whitespace tokens), the quantity a
de-identification lead sets a floor on; a token's score is the highest score of a system span
touching it. For each required recall the highest threshold that still reaches it is chosen
(highest precision among those that do). When even keeping every span falls short, the point is
marked ``achieved=False`` and reports the lowest threshold.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from pipeline.metrics.tokens import TokenLabels, per_1000

DEFAULT_TARGETS = (0.99, 0.995, 0.997, 1.0)


@dataclass(frozen=True)
class OperatingPoint:
    target_recall: float
    achieved: bool
    threshold: float | None   # None: no threshold reaches it and no span exists at all
    recall: float
    precision: float
    fn_per_1000: float
    fp_per_1000: float
    tp: int
    fp: int
    fn: int


@dataclass
class OperatingCurve:
    """The sweep, one entry per distinct threshold (descending), for plotting; and the points."""

    thresholds: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    precision: list[float] = field(default_factory=list)
    fn_per_1000: list[float] = field(default_factory=list)
    fp_per_1000: list[float] = field(default_factory=list)
    points: list[OperatingPoint] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"thresholds": self.thresholds, "recall": self.recall, "precision": self.precision,
                "fn_per_1000": self.fn_per_1000, "fp_per_1000": self.fp_per_1000,
                "points": [asdict(p) for p in self.points]}


def _ratio(num: np.ndarray, den: np.ndarray, empty: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, num / np.maximum(den, 1), np.where(empty, 1.0, 0.0))
    return out


def operating_curve(gold: TokenLabels, pred: TokenLabels, n_tokens: int,
                    targets: tuple[float, ...] = DEFAULT_TARGETS) -> OperatingCurve:
    g = gold.label != 0
    scores = pred.score
    n_gold = int(g.sum())
    finite = np.isfinite(scores)
    thr = np.unique(scores[finite])[::-1]                       # descending distinct thresholds
    gs = np.sort(scores[g & finite])
    ns = np.sort(scores[~g & finite])
    tp = len(gs) - np.searchsorted(gs, thr, side="left")         # gold tokens with score >= t
    fp = len(ns) - np.searchsorted(ns, thr, side="left")
    fn = n_gold - tp
    precision = _ratio(tp.astype(float), (tp + fp).astype(float), np.full(len(thr), n_gold == 0))
    recall = np.ones(len(thr)) if n_gold == 0 else tp / n_gold
    curve = OperatingCurve(thresholds=thr.tolist(), recall=recall.tolist(), precision=precision.tolist(),
                           fn_per_1000=[per_1000(int(x), n_tokens) for x in fn],
                           fp_per_1000=[per_1000(int(x), n_tokens) for x in fp])
    for target in targets:
        ok = np.nonzero(recall >= target - 1e-12)[0]
        if n_gold == 0:
            # nothing to find: keeping no span at all reaches any recall with no false positive
            curve.points.append(OperatingPoint(target, True, float(thr[0]) + 1.0 if len(thr) else None,
                                               1.0, 1.0, 0.0, 0.0, 0, 0, 0))
            continue
        if len(thr) == 0:
            curve.points.append(OperatingPoint(target, False, None, 0.0, 0.0, per_1000(n_gold, n_tokens), 0.0,
                                               0, 0, n_gold))
            continue
        i = int(ok[0]) if len(ok) else len(thr) - 1
        curve.points.append(OperatingPoint(
            target_recall=target, achieved=bool(len(ok)), threshold=float(thr[i]), recall=float(recall[i]),
            precision=float(precision[i]), fn_per_1000=curve.fn_per_1000[i], fp_per_1000=curve.fp_per_1000[i],
            tp=int(tp[i]), fp=int(fp[i]), fn=int(fn[i])))
    return curve
