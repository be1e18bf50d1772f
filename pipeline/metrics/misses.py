"""Why a reference span was missed: no prediction at all, or a boundary the system drew differently.

Span recall says how many PHI spans a system missed; what to do about them depends on how. A
span nothing touched needs recall (a feature, a rule, more gold); a span inside a longer
prediction ("Hospital de Getafe Carretera Toledo" for "Hospital de Getafe") needs the gold's
boundary conventions; a span cut in pieces needs the opposite. The kinds, offsets only (any
type, as span recall):

* ``none``: no system span overlaps the reference span;
* ``too long``: one system span covers it and more;
* ``too short``: one system span lies inside it;
* ``split``: two or more system spans lie inside it;
* ``shifted``: a system span crosses one of its edges (starts inside, ends outside or the reverse).

>>> from pipeline.spans import Span
>>> ref = {"d": [Span("d", 0, 5, "NAME", "PATIENT"), Span("d", 10, 14, "DATE", "DATE"),
...              Span("d", 20, 30, "LOCATION", "STREET")]}
>>> sys_ = {"d": [Span("d", 0, 5, "NAME", "DOCTOR"), Span("d", 8, 14, "DATE", "DATE"),
...               Span("d", 20, 24, "LOCATION", "STREET"), Span("d", 25, 30, "LOCATION", "CITY")]}
>>> m = classify_misses(sys_, ref, ["d"])
>>> m.total, dict(m.by_kind())
(2, {'too long': 1, 'split': 1})
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from pipeline.spans import Span

KINDS: tuple[str, ...] = ("none", "too long", "too short", "split", "shifted")


@dataclass
class Misses:
    """counts[(reference label, kind)] over the reference spans not found with exact offsets."""

    counts: Counter = field(default_factory=Counter)
    reference_spans: int = 0

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def by_kind(self) -> Counter:
        out: Counter = Counter()
        for (_, kind), n in self.counts.items():
            out[kind] += n
        return Counter({k: out[k] for k in KINDS if out[k]})

    def by_label(self) -> Counter:
        out: Counter = Counter()
        for (label, _), n in self.counts.items():
            out[label] += n
        return out

    def rows(self) -> list[dict]:
        """One row per reference label with misses, most first: ``{"type", "missed", <kind>: n, ...}``."""
        return [{"type": label, "missed": n, **{k: self.counts.get((label, k), 0) for k in KINDS}}
                for label, n in sorted(self.by_label().items(), key=lambda kv: (-kv[1], kv[0]))]

    def to_dict(self) -> dict:
        return {"reference_spans": self.reference_spans, "missed": self.total, "by_kind": dict(self.by_kind()),
                "per_type": self.rows()}


def miss_kind(start: int, end: int, system: Iterable[tuple[int, int]]) -> str | None:
    """The kind of miss for reference offsets ``[start, end)`` against system offsets; None if found."""
    hit = [(a, b) for a, b in system if a < end and b > start]
    if (start, end) in hit:
        return None
    if not hit:
        return "none"
    if any(a <= start and b >= end for a, b in hit):
        return "too long"
    inside = [(a, b) for a, b in hit if a >= start and b <= end]
    if len(inside) == len(hit):
        return "too short" if len(inside) == 1 else "split"
    return "shifted"


def classify_misses(system: Mapping[str, Sequence[Span]], reference: Mapping[str, Sequence[Span]],
                    doc_ids: Sequence[str]) -> Misses:
    """Every reference span of ``doc_ids`` that no system span matches exactly, by label and kind."""
    out = Misses()
    for doc_id in doc_ids:
        offsets = {(s.start, s.end) for s in system.get(doc_id, ())}
        for ref in {(s.start, s.end, s.label) for s in reference.get(doc_id, ())}:
            out.reference_spans += 1
            kind = miss_kind(ref[0], ref[1], offsets)
            if kind is not None:
                out.counts[(ref[2], kind)] += 1
    return out
