"""From per-token label probabilities to character spans, with per-type thresholds.

Members give, for every word token, a distribution over the BIO labels. The ensemble averages
them (token = character span, so this is averaging per character span) and decodes:

* the label sequence is the best BIO-consistent path (Viterbi) under the averaged probabilities,
  so an entity is kept or dropped whole, never cut where one middle token is uncertain;
* a per-type threshold below 0.5 shifts that type's B/I scores by its log-odds (recall first);
* a span's score is the mean PHI probability ``1 - P(O)`` of its tokens.

Thresholds are per fine type; 0.5 is the plain decision, lower buys recall. ``tune_thresholds``
picks, per type, the highest threshold whose dev recall reaches the target.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.scoring import score
from models.words import Words

DEFAULT_THRESHOLD = 0.5
ENTER_I_WEIGHT = 0.1  # see decode(): how much an I- label counts at a span's first token
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


def _log_odds_bias(thr: np.ndarray) -> np.ndarray:
    """Per type, the log-odds shift that moves the PHI decision from 0.5 to ``thr``."""
    t = np.clip(thr.astype(np.float64), 1e-6, 1 - 1e-6)
    return np.log((1.0 - t) / t)


def _viterbi(lp_o: np.ndarray, lp_b: np.ndarray, lp_i: np.ndarray, lp_enter: np.ndarray,
             glued: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Best path over one stretch of tokens: per token its kind (0 = O, 1 = B, 2 = I) and type."""
    n, n_types = lp_b.shape
    # states: O, B-t (a span of t starts here), I-t (a span of t goes on)
    o_s = lp_o[0]
    b_s = lp_enter[0].copy()
    i_s = np.full(n_types, -np.inf)
    ar = np.arange(n_types)
    # back pointers for O and B: the previous state coded -1 = O, t = B-t, n_types + t = I-t;
    # for I: 0 = from B-t, 1 = from I-t
    back_o = np.empty(n, dtype=np.int64)
    back_b = np.empty((n, n_types), dtype=np.int64)
    back_i = np.empty((n, n_types), dtype=np.int8)
    for k in range(1, n):
        ent = np.maximum(b_s, i_s)                       # best way to be inside type t
        ent_from = np.where(b_s >= i_s, ar, n_types + ar)
        top = int(ent.argmax())
        if o_s >= ent[top]:
            back_o[k] = -1
            new_o = o_s + lp_o[k]
        else:
            back_o[k] = ent_from[top]
            new_o = ent[top] + lp_o[k]
        # best previous state outside type t: O or the best other type
        if n_types > 1:
            ent2 = ent.copy()
            ent2[top] = -np.inf
            second = int(ent2.argmax())
            other = np.full(n_types, ent[top])
            other[top] = ent[second]
            other_code = np.full(n_types, int(ent_from[top]))
            other_code[top] = int(ent_from[second])
        else:
            other = np.full(n_types, -np.inf)
            other_code = np.full(n_types, -1)
        use_o = o_s >= other
        enter = np.where(use_o, o_s, other) + lp_enter[k]
        enter_code = np.where(use_o, -1, other_code)
        if glued[k]:
            new_b, back_b[k] = enter, enter_code
        else:
            restart = ent + lp_b[k]                      # a new span right after one of type t
            take = restart > enter
            new_b = np.where(take, restart, enter)
            back_b[k] = np.where(take, ent_from, enter_code)
        new_i = ent + lp_i[k]
        back_i[k] = (b_s < i_s).astype(np.int8)
        o_s, b_s, i_s = new_o, new_b, new_i
    # trace back: state as (kind, type) with kind 0 = O, 1 = B, 2 = I
    ent = np.maximum(b_s, i_s)
    top = int(ent.argmax())
    if o_s >= ent[top]:
        kind, t = 0, -1
    else:
        kind, t = (1, top) if b_s[top] >= i_s[top] else (2, top)
    path_kind = np.empty(n, dtype=np.int8)
    path_type = np.empty(n, dtype=np.int64)
    for k in range(n - 1, -1, -1):
        path_kind[k], path_type[k] = kind, t
        if k == 0:
            break
        if kind == 2:
            kind = 1 if back_i[k, t] == 0 else 2
        else:
            code = back_o[k] if kind == 0 else back_b[k, t]
            if code < 0:
                kind, t = 0, -1
            elif code < n_types:
                kind, t = 1, int(code)
            else:
                kind, t = 2, int(code - n_types)
    return path_kind, path_type


def decode(probs: np.ndarray, words: Words, index: LabelIndex,
           thresholds: np.ndarray | None = None, *, prune: bool = True) -> list[tuple[int, int, str, float]]:
    """Spans ``(start, end, type, score)`` for one document. ``thresholds`` has one entry per type.

    The best BIO-consistent label sequence under the averaged probabilities: Viterbi over
    ``log p`` with ``I-t`` allowed only after ``B-t``/``I-t``. A span entered from outside its
    type scores ``P(B-t) + 0.1 P(I-t)`` (an encoder sure of "I-" at an entity's first word still
    opens it); one started right after another of its type scores ``P(B-t)``. Per-token argmax
    decoding broke one entity into pieces wherever a single middle token was uncertain ("Natalia
    [Ontiveros] Palacios"); the constrained path keeps it whole or drops it as a unit. A threshold below 0.5
    adds its log-odds to the type's B and I scores (0.5 adds nothing), so lowering it still buys
    recall type by type. A token glued to the previous one (no character between) never opens a
    new span of the same type: gold sets never hold two touching spans of one type.
    """
    n = probs.shape[0]
    if n == 0:
        return []
    n_types = len(index.types)
    thr = np.full(n_types, DEFAULT_THRESHOLD) if thresholds is None else np.asarray(thresholds, dtype=np.float64)
    p64 = probs.astype(np.float64)
    bias = _log_odds_bias(thr)
    lp_o = np.log(np.clip(p64[:, 0], 1e-9, 1.0))
    lp_b = np.log(np.clip(p64[:, index.b_cols], 1e-9, 1.0)) + bias
    lp_i = np.log(np.clip(p64[:, index.i_cols], 1e-9, 1.0)) + bias
    # entering type t from outside it: mostly B, partly I (an encoder may put its mass on I- at
    # an entity's first word; full weight on I there cuts spans short on MEDDOCAN dev: 0.1)
    lp_enter = np.log(np.clip(p64[:, index.b_cols] + ENTER_I_WEIGHT * p64[:, index.i_cols], 1e-9, 1.0)) + bias
    glued = np.zeros(n, dtype=bool)
    if n > 1:
        glued[1:] = np.asarray(words.starts[1:]) == np.asarray(words.ends[:-1])
    # Tokens where O beats every entity reading by more than log(1 / ENTER_I_WEIGHT) are O on the
    # best path (putting O there loses at most that much at the next token, which must then enter
    # its span instead of continuing it), so the path is found stretch by stretch between them:
    # most of a note is such tokens, which keeps decoding cheap. ``prune=False`` checks this.
    path_kind = np.zeros(n, dtype=np.int8)
    path_type = np.full(n, -1, dtype=np.int64)
    if prune:
        ent_max = (np.log(np.clip(p64[:, index.b_cols] + p64[:, index.i_cols], 1e-9, 1.0)) + bias).max(axis=1)
        open_ = lp_o - ent_max <= np.log(1.0 / ENTER_I_WEIGHT) + 1e-6
    else:
        open_ = np.ones(n, dtype=bool)
    k = 0
    while k < n:
        if not open_[k]:
            k += 1
            continue
        j = k
        while j < n and open_[j]:
            j += 1
        pk, pt = _viterbi(lp_o[k:j], lp_b[k:j], lp_i[k:j], lp_enter[k:j], glued[k:j])
        path_kind[k:j], path_type[k:j] = pk, pt
        k = j
    phi = 1.0 - probs[:, 0]
    out: list[tuple[int, int, str, float]] = []
    starts, ends = words.starts, words.ends
    k = 0
    while k < n:
        if path_kind[k] == 0:
            k += 1
            continue
        t = int(path_type[k])
        j = k + 1
        while j < n and path_kind[j] == 2 and path_type[j] == t:
            j += 1
        out.append((starts[k], ends[j - 1], index.types[t], float(phi[k:j].mean())))
        k = j
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
