"""Which category the system gave each reference span: the table a lead reads to see whether
misses are true misses or mislabels.

Each reference span is paired with the system span that overlaps it most (ties: same category
first, then the earliest); a reference span no system span touches goes to the MISSED column. A
system span that touches no reference span goes to the SPURIOUS row. Spans are de-duplicated on
(start, end, label) per side first, as in the other measures.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from pipeline.metrics.entity import IntervalIndex
from pipeline.spans import Span

MISSED = "MISSED"
SPURIOUS = "SPURIOUS"


@dataclass
class ConfusionTable:
    """counts[(reference label, system label)]; MISSED / SPURIOUS as described above."""

    level: str
    counts: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def rows(self) -> list[str]:
        labels = sorted({g for g, _ in self.counts if g != SPURIOUS})
        return labels + ([SPURIOUS] if any(g == SPURIOUS for g, _ in self.counts) else [])

    @property
    def columns(self) -> list[str]:
        labels = sorted({p for _, p in self.counts if p != MISSED} | {g for g, _ in self.counts if g != SPURIOUS})
        return labels + [MISSED]

    def matrix(self) -> tuple[list[str], list[str], list[list[int]]]:
        rows, cols = self.rows, self.columns
        return rows, cols, [[self.counts.get((r, c), 0) for c in cols] for r in rows]

    def to_dict(self) -> dict:
        rows, cols, m = self.matrix()
        return {"level": self.level, "rows": rows, "columns": cols, "matrix": m}


def confusion_table(system: Mapping[str, Sequence[Span]], reference: Mapping[str, Sequence[Span]],
                    doc_ids: Sequence[str], level: str = "category") -> ConfusionTable:
    if level not in ("category", "type"):
        raise ValueError("level must be 'category' or 'type'")
    key = (lambda s: s.category) if level == "category" else (lambda s: s.label)
    table = ConfusionTable(level)
    c = table.counts
    for doc in doc_ids:
        gold = sorted({(s.start, s.end, key(s)) for s in reference.get(doc, ())})
        pred = sorted({(s.start, s.end, key(s)) for s in system.get(doc, ())})
        for gs, ge, gl in gold:
            best, best_key = None, None
            for ps, pe, pl in pred:
                if ps >= ge:
                    break
                ov = min(ge, pe) - max(gs, ps)
                if ov > 0:
                    k = (ov, pl == gl)
                    if best_key is None or k > best_key:
                        best, best_key = pl, k
            cell = (gl, best if best is not None else MISSED)
            c[cell] = c.get(cell, 0) + 1
        gi = IntervalIndex((s, e) for s, e, _ in gold)
        for ps, pe, pl in pred:
            if not gi.overlaps(ps, pe):
                c[(SPURIOUS, pl)] = c.get((SPURIOUS, pl), 0) + 1
    return table
