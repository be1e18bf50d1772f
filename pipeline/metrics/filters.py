"""The filters of the Metrics page: one category, and a date range.

* ``category``: keep only spans of that coarse category on *both* sides of every comparison, so
  every figure answers "how well is <category> found";
* ``since`` / ``until`` (ISO dates, inclusive): applied by the caller to the date that fits each
  figure (when an assignment was finished, when gold was last saved, when a version was trained).

>>> f = MetricsFilter(category="NAME", since="2026-01-01")
>>> f.in_range("2026-03-04T10:00:00"), f.in_range("2025-12-31T23:59:59"), f.in_range(None)
(True, False, False)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from pipeline.spans import Span


@dataclass(frozen=True)
class MetricsFilter:
    category: str | None = None
    since: str | None = None     # "YYYY-MM-DD", inclusive
    until: str | None = None     # "YYYY-MM-DD", inclusive

    def in_range(self, ts: str | None) -> bool:
        """Whether an ISO timestamp falls in the date range (no timestamp: only without a range)."""
        if not self.since and not self.until:
            return True
        if not ts:
            return False
        day = ts[:10]
        return (not self.since or day >= self.since) and (not self.until or day <= self.until)

    def spans(self, spans: Iterable[Span]) -> list[Span]:
        return [s for s in spans if self.category is None or s.category == self.category]

    def layer(self, layer: Mapping[Any, Sequence[Span]]) -> dict[str, list[Span]]:
        """``{str(doc_id): spans}`` with the category filter applied."""
        return {str(k): self.spans(v) for k, v in layer.items()}
