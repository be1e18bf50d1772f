"""Entity- and span-level matching: strict, relaxed, span-only strict and span-only merged.

Each document is compared as the official i2b2 2014 / MEDDOCAN scorer does: as *sets* of
``(start, end, label)`` (or ``(start, end)`` for the span-only measures), so an exact duplicate
on either side counts once. Counts are pooled over documents (micro).

* strict: same start, end and fine type (MEDDOCAN subtrack 1). Per category: same start, end and
  category, so a NAME/DOCTOR marked NAME/PATIENT still counts for NAME.
* relaxed: a reference span is found when a system span with the same label overlaps it; a
  system span is correct when it overlaps a reference span with the same label.
* span_strict: same start and end, label ignored (subtrack 2 strict).
* span_merged: subtrack 2 merged, reproducing the official scorer: each side's spans are also
  merged when only non-alphanumeric characters lie between them; TP is the union of the strict
  and the merged intersections; a strict span missing from the other side is not an error when it
  lies inside a TP span. P = TP/(TP+FP), R = TP/(TP+FN) on those sets.

For the span-only measures ``per_type``/``per_category`` are a breakdown by the label each span
carries on its own side: a reference span counts as found (tp) or missed (fn) under its label, a
system span as correct (tp_sys) or spurious (fp) under its label.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from pipeline.metrics.counts import Counts, Measure, total
from pipeline.spans import Span

Layer = Mapping[str, Sequence[Span]]
Interval = tuple[int, int]

#: a letter or digit in any script (Python's notion of alphanumeric, "_" excluded)
_ALNUM = re.compile(r"[^\W_]")


class IntervalIndex:
    """Sorted intervals answering "does any overlap [a, b)?" and "does any contain [a, b)?" in
    O(log n), so relaxed matching stays linear-ish on long documents."""

    def __init__(self, intervals: Iterable[Interval]):
        items = sorted(set(intervals))
        self.starts = [s for s, _ in items]
        self.max_end: list[int] = []
        m = -1
        for _, e in items:
            m = max(m, e)
            self.max_end.append(m)

    def overlaps(self, a: int, b: int) -> bool:
        i = bisect_left(self.starts, b)  # intervals starting before b
        return i > 0 and self.max_end[i - 1] > a

    def contains(self, a: int, b: int) -> bool:
        i = bisect_right(self.starts, a)  # intervals starting at or before a
        return i > 0 and self.max_end[i - 1] >= b


def merge_spans(intervals: Iterable[Interval], text: str) -> list[Interval]:
    """Join intervals (sorted by start, end) when nothing alphanumeric lies between them in
    ``text``; overlapping or touching intervals always join (the gap is empty)."""
    out: list[list[int]] = []
    for s, e in sorted(set(intervals)):
        if out and (s <= out[-1][1] or not _ALNUM.search(text, out[-1][1], s)):
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def _add(d: dict[str, list[int]], key: str, idx: int, n: int = 1) -> None:
    d.setdefault(key, [0, 0, 0, 0])[idx] += n  # tp, fp, fn, tp_sys


def _counts(d: dict[str, list[int]]) -> dict[str, Counts]:
    return {k: Counts(tp=v[0], fp=v[1], fn=v[2], tp_sys=v[3]) for k, v in d.items()}


def _strict_counts(system: Layer, reference: Layer, doc_ids: Sequence[str], key) -> tuple[dict[str, Counts], Counts]:
    per: dict[str, list[int]] = {}
    for doc in doc_ids:
        g = {(s.start, s.end, key(s)) for s in reference.get(doc, ())}
        p = {(s.start, s.end, key(s)) for s in system.get(doc, ())}
        for x in g & p:
            _add(per, x[2], 0)
        for x in p - g:
            _add(per, x[2], 1)
        for x in g - p:
            _add(per, x[2], 2)
    counts = {k: Counts(tp=v[0], fp=v[1], fn=v[2]) for k, v in per.items()}
    micro = Counts(sum(c.tp for c in counts.values()), sum(c.fp for c in counts.values()),
                   sum(c.fn for c in counts.values()))
    return counts, micro


def strict(system: Layer, reference: Layer, doc_ids: Sequence[str]) -> Measure:
    """Same start, end and label (subtrack 1); per category, same start, end and category."""
    per_type, micro = _strict_counts(system, reference, doc_ids, lambda s: s.label)
    per_cat, cat_micro = _strict_counts(system, reference, doc_ids, lambda s: s.category)
    return Measure.build("strict", per_type, per_cat, micro, cat_micro)


def _relaxed_counts(system: Layer, reference: Layer, doc_ids: Sequence[str], key) -> dict[str, Counts]:
    per: dict[str, list[int]] = {}
    for doc in doc_ids:
        g: dict[str, set[Interval]] = defaultdict(set)
        p: dict[str, set[Interval]] = defaultdict(set)
        for s in reference.get(doc, ()):
            g[key(s)].add((s.start, s.end))
        for s in system.get(doc, ()):
            p[key(s)].add((s.start, s.end))
        for label in g.keys() | p.keys():
            gi, pi = IntervalIndex(g.get(label, ())), IntervalIndex(p.get(label, ()))
            for a, b in g.get(label, ()):
                _add(per, label, 0 if pi.overlaps(a, b) else 2)
            for a, b in p.get(label, ()):
                _add(per, label, 3 if gi.overlaps(a, b) else 1)
    return _counts(per)


def micro_counts(system: Layer, reference: Layer, doc_ids: Sequence[str], *, overlap: bool = False) -> Counts:
    """Pooled strict (or, with ``overlap``, relaxed) counts on fine labels, without the
    per-label breakdown: the cheap form for per-document figures."""
    if overlap:
        return total(_relaxed_counts(system, reference, doc_ids, lambda s: s.label).values())
    return _strict_counts(system, reference, doc_ids, lambda s: s.label)[1]


def relaxed(system: Layer, reference: Layer, doc_ids: Sequence[str]) -> Measure:
    """Overlap with the same label (type; per category, the same category)."""
    return Measure.build("relaxed", _relaxed_counts(system, reference, doc_ids, lambda s: s.label),
                         _relaxed_counts(system, reference, doc_ids, lambda s: s.category))


def _breakdown(per_type: dict, per_cat: dict, spans: Iterable[Span], hit, idx_hit: int, idx_miss: int) -> None:
    seen_t: set = set()
    seen_c: set = set()
    for s in spans:
        ok = hit(s.start, s.end)
        kt, kc = (s.start, s.end, s.label), (s.start, s.end, s.category)
        if kt not in seen_t:
            seen_t.add(kt)
            _add(per_type, s.label, idx_hit if ok else idx_miss)
        if kc not in seen_c:
            seen_c.add(kc)
            _add(per_cat, s.category, idx_hit if ok else idx_miss)


def span_strict(system: Layer, reference: Layer, doc_ids: Sequence[str]) -> Measure:
    """Same start and end, label ignored (subtrack 2 strict)."""
    tp = fp = fn = 0
    per_type: dict[str, list[int]] = {}
    per_cat: dict[str, list[int]] = {}
    for doc in doc_ids:
        g_sp, p_sp = reference.get(doc, ()), system.get(doc, ())
        g = {(s.start, s.end) for s in g_sp}
        p = {(s.start, s.end) for s in p_sp}
        tp += len(g & p)
        fp += len(p - g)
        fn += len(g - p)
        _breakdown(per_type, per_cat, g_sp, lambda a, b: (a, b) in p, 0, 2)
        _breakdown(per_type, per_cat, p_sp, lambda a, b: (a, b) in g, 3, 1)
    return Measure.build("span_strict", _counts(per_type), _counts(per_cat), Counts(tp, fp, fn))


def span_merged(system: Layer, reference: Layer, texts: Mapping[str, str], doc_ids: Sequence[str]) -> Measure:
    """Subtrack 2 merged, as the official scorer computes it (see the module docstring)."""
    tp = fp = fn = 0
    per_type: dict[str, list[int]] = {}
    per_cat: dict[str, list[int]] = {}
    for doc in doc_ids:
        text = texts[doc]
        g_sp, p_sp = reference.get(doc, ()), system.get(doc, ())
        g = {(s.start, s.end) for s in g_sp}
        p = {(s.start, s.end) for s in p_sp}
        hits = (g & p) | (set(merge_spans(g, text)) & set(merge_spans(p, text)))
        idx = IntervalIndex(hits)
        doc_fp = {x for x in p - g if not idx.contains(*x)}
        doc_fn = {x for x in g - p if not idx.contains(*x)}
        tp += len(hits)
        fp += len(doc_fp)
        fn += len(doc_fn)
        _breakdown(per_type, per_cat, g_sp, lambda a, b: (a, b) not in doc_fn, 0, 2)
        _breakdown(per_type, per_cat, p_sp, lambda a, b: (a, b) not in doc_fp, 3, 1)
    return Measure.build("span_merged", _counts(per_type), _counts(per_cat), Counts(tp, fp, fn))
