"""From per-token label probabilities to character spans, with per-type thresholds.

Members give, for every word token, a distribution over the BIO labels. The ensemble averages
them (token = character span, so this is averaging per character span) and decodes:

* a token is PHI when its total entity probability ``1 - P(O)`` reaches the threshold of its most
  likely type (so a token split between two PHI types is still PHI: recall first);
* consecutive PHI tokens of one type form one span unless ``P(B-type) > P(I-type)`` says a new one
  begins (never between two tokens with no character between them);
* a span's score is the mean PHI probability of its tokens.

Thresholds are per fine type; 0.5 is the plain decision, lower buys recall. ``tune_thresholds``
picks, per type, the highest threshold whose dev recall reaches the target.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.scoring import score
from models.words import Words

DEFAULT_THRESHOLD = 0.5
# Tuning only ever lowers a threshold below the plain decision (0.5): it exists to buy recall.
GRID = (0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15, 0.1, 0.07, 0.05)


@dataclass(frozen=True)
class LabelIndex:
    """Where each type's B and I columns sit in a probability matrix."""

    labels: tuple[str, ...]
    types: tuple[str, ...]
    b_cols: np.ndarray
    i_cols: np.ndarray

    @classmethod
    def of(cls, labels: list[str]) -> "LabelIndex":
        if not labels or labels[0] != "O":
            raise ValueError("label list must start with 'O'")
        types = tuple(l[2:] for l in labels[1::2])
        for k, t in enumerate(types):
            if labels[1 + 2 * k] != f"B-{t}" or labels[2 + 2 * k] != f"I-{t}":
                raise ValueError("label list must be O, B-t1, I-t1, B-t2, I-t2, ...")
        b = np.arange(1, len(labels), 2)
        return cls(tuple(labels), types, b, b + 1)


def average(prob_lists: list[np.ndarray], weights: list[float] | None = None) -> np.ndarray:
    """Weighted mean of members' (n_tokens, n_labels) probability matrices for one document."""
    if not prob_lists:
        raise ValueError("no member probabilities to average")
    w = np.ones(len(prob_lists)) if weights is None else np.asarray(weights, dtype=float)
    out = np.zeros_like(prob_lists[0], dtype=np.float64)
    for p, wi in zip(prob_lists, w):
        out += wi * p
    return (out / w.sum()).astype(np.float32)


def decode(probs: np.ndarray, words: Words, index: LabelIndex,
           thresholds: np.ndarray | None = None) -> list[tuple[int, int, str, float]]:
    """Spans ``(start, end, type, score)`` for one document. ``thresholds`` has one entry per type."""
    n = probs.shape[0]
    if n == 0:
        return []
    b = probs[:, index.b_cols]
    i = probs[:, index.i_cols]
    ent = b + i
    best = ent.argmax(axis=1)
    phi = 1.0 - probs[:, 0]
    thr = np.full(len(index.types), DEFAULT_THRESHOLD) if thresholds is None else thresholds
    inside = phi >= thr[best]
    rows = np.arange(n)
    begins = b[rows, best] > i[rows, best]
    # a token glued to the previous one (no character between) never opens a new span of the
    # same type: gold sets never hold two touching spans of one type ("10/" + "10/1963")
    if n > 1:
        glued = np.zeros(n, dtype=bool)
        glued[1:] = np.asarray(words.starts[1:]) == np.asarray(words.ends[:-1])
        begins &= ~glued
    out: list[tuple[int, int, str, float]] = []
    cur_t = -1
    cur_s = cur_e = 0
    acc = 0.0
    cnt = 0
    starts, ends = words.starts, words.ends
    prev = -2
    for k in np.flatnonzero(inside):
        t = int(best[k])
        if cur_t == t and k == prev + 1 and not begins[k]:
            cur_e = ends[k]
            acc += float(phi[k])
            cnt += 1
        else:
            if cur_t >= 0:
                out.append((cur_s, cur_e, index.types[cur_t], acc / cnt))
            cur_t, cur_s, cur_e, acc, cnt = t, starts[k], ends[k], float(phi[k]), 1
        prev = k
    if cur_t >= 0:
        out.append((cur_s, cur_e, index.types[cur_t], acc / cnt))
    return out


def decode_many(probs: list[np.ndarray], words: list[Words], index: LabelIndex,
                thresholds: np.ndarray | None = None) -> list[list[tuple[int, int, str]]]:
    return [[(s, e, t) for s, e, t, _ in decode(p, w, index, thresholds)] for p, w in zip(probs, words)]


def thresholds_array(index: LabelIndex, thresholds: dict[str, float] | None) -> np.ndarray:
    thr = np.full(len(index.types), DEFAULT_THRESHOLD)
    for k, t in enumerate(index.types):
        if thresholds and t in thresholds:
            thr[k] = float(thresholds[t])
    return thr


def _gold_token_types(words: Words, gold: list[tuple[int, int, str]], types: dict[str, int]) -> np.ndarray:
    """Per token: index of the gold type covering it, -1 for none."""
    out = np.full(len(words), -1, dtype=np.int64)
    if not len(words):
        return out
    starts = np.asarray(words.starts)
    ends = np.asarray(words.ends)
    for s, e, t in gold:
        if t in types:
            out[(starts < e) & (ends > s)] = types[t]
    return out


def tune_thresholds(probs: list[np.ndarray], words: list[Words], gold: list[list[tuple[int, int, str]]],
                    index: LabelIndex, target_recall: float = 0.99, min_support: int = 5,
                    grid: tuple[float, ...] = GRID, measure: str = "token",
                    tolerance: float = 0.0) -> dict[str, float]:
    """Per type, the highest threshold in ``grid`` whose dev recall reaches the target.

    ``measure="token"`` (default): recall is the share of the type's gold PHI tokens that the
    decoder flags as PHI of any type, what de-identification needs (a token flagged with the
    wrong type is still removed). ``measure="strict"``: share of the type's gold spans found with
    exact offsets and type. Where no threshold reaches the target, the highest threshold whose
    recall is within ``tolerance`` of the best recall on the grid is kept (``tolerance=0``: the
    best recall, never trading any away). Types with fewer than ``min_support`` dev spans get
    the threshold tuned on all types pooled.
    """
    if measure not in ("token", "strict"):
        raise ValueError("measure must be 'token' or 'strict'")
    support: dict[str, int] = {}
    for g in gold:
        for _, _, t in g:
            support[t] = support.get(t, 0) + 1
    tindex = {t: k for k, t in enumerate(index.types)}

    if measure == "token":
        phi = np.concatenate([1.0 - p[:, 0] for p in probs]) if probs else np.zeros(0)
        gtype = np.concatenate([_gold_token_types(w, g, tindex) for w, g in zip(words, gold)]) if probs \
            else np.zeros(0, dtype=np.int64)
        is_phi = gtype >= 0

        def recalls(thr: np.ndarray) -> tuple[dict[str, float], float]:
            covered = phi >= thr[0]
            per = {}
            for t, k in tindex.items():
                m = gtype == k
                if m.any():
                    per[t] = float(covered[m].mean())
            return per, float(covered[is_phi].mean()) if is_phi.any() else 1.0
    else:
        def recalls(thr: np.ndarray) -> tuple[dict[str, float], float]:
            sc = score(decode_many(probs, words, index, thr), gold)
            per = {t: (c[0] / (c[0] + c[2]) if c[0] + c[2] else 1.0) for t, c in sc.per_type.items()}
            return per, sc.recall

    # pooled threshold first: one value for every type
    pooled_best, pooled_r = DEFAULT_THRESHOLD, -1.0
    per_grid: dict[float, dict[str, float]] = {}
    for g in sorted(grid, reverse=True):
        per, r = recalls(np.full(len(index.types), g))
        per_grid[g] = per
        if r > pooled_r + 1e-12:
            pooled_best, pooled_r = g, r
        if r >= target_recall:
            pooled_best = g
            break
    out: dict[str, float] = {}
    for t in index.types:
        if support.get(t, 0) < min_support:
            out[t] = float(pooled_best)
            continue
        rs = []
        chosen = None
        for g in sorted(grid, reverse=True):
            if g not in per_grid:
                per_grid[g] = recalls(np.full(len(index.types), g))[0]
            r = per_grid[g].get(t, 0.0)
            if r >= target_recall:
                chosen = g
                break
            rs.append((g, r))
        if chosen is None and rs:
            best_r = max(r for _, r in rs)
            chosen = next(g for g, r in rs if r >= best_r - tolerance - 1e-12)
        out[t] = float(chosen if chosen is not None else DEFAULT_THRESHOLD)
    return out
