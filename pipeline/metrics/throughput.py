"""Annotator throughput from assignment records: documents and spans per hour, median seconds
per document.

Input records are plain :class:`AssignmentRecord` dataclasses or dicts with the same keys
(``user``, ``doc_id``, ``seconds_spent``, ``n_spans``) as the store's assignment rows give them.
Records of the same user and document (an assignment reopened) are one document: seconds add up,
the span count is the latest. A document with no recorded time (``None`` or 0 seconds) counts in
``n_documents`` but not in the rates, which would otherwise look better than they are.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Iterable, Mapping


@dataclass(frozen=True)
class AssignmentRecord:
    user: str
    doc_id: str
    seconds_spent: float | None
    n_spans: int = 0


@dataclass(frozen=True)
class AnnotatorThroughput:
    user: str
    n_documents: int
    n_spans: int
    timed_documents: int
    total_seconds: float
    docs_per_hour: float | None          # None when no document has a recorded time
    spans_per_hour: float | None
    median_seconds_per_doc: float | None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def _as_record(r: AssignmentRecord | Mapping) -> AssignmentRecord:
    if isinstance(r, AssignmentRecord):
        return r
    secs = r.get("seconds_spent")
    return AssignmentRecord(user=str(r["user"]), doc_id=str(r["doc_id"]),
                            seconds_spent=None if secs is None else float(secs), n_spans=int(r.get("n_spans") or 0))


def throughput(records: Iterable[AssignmentRecord | Mapping]) -> list[AnnotatorThroughput]:
    """One row per user, sorted by user name."""
    per: dict[str, dict[str, tuple[float, int]]] = {}
    for raw in records:
        r = _as_record(raw)
        docs = per.setdefault(r.user, {})
        secs, _ = docs.get(r.doc_id, (0.0, 0))
        add = r.seconds_spent if r.seconds_spent and r.seconds_spent > 0 else 0.0
        docs[r.doc_id] = (secs + add, r.n_spans)
    out = []
    for user in sorted(per):
        docs = per[user]
        timed = [(s, n) for s, n in docs.values() if s > 0]
        total_s = sum(s for s, _ in timed)
        hours = total_s / 3600.0
        out.append(AnnotatorThroughput(
            user=user, n_documents=len(docs), n_spans=sum(n for _, n in docs.values()), timed_documents=len(timed),
            total_seconds=total_s,
            docs_per_hour=len(timed) / hours if hours > 0 else None,
            spans_per_hour=sum(n for _, n in timed) / hours if hours > 0 else None,
            median_seconds_per_doc=statistics.median(s for s, _ in timed) if timed else None))
    return out
