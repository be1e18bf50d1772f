"""Where a risk report's reasons point in the de-identified text, for a reviewer to see.

>>> reason_marks([{"start": 4, "end": 9, "context_start": 0, "context_end": 20}], text_len=15)
[(0, 15, 'context'), (4, 9, 'entity')]
"""
from __future__ import annotations

from typing import Sequence


def reason_marks(reasons: Sequence[dict], text_len: int) -> list[tuple[int, int, str]]:
    """Stretches of a de-identified text to mark for its risk reasons: ``(start, end, what)``
    with ``what`` ``"entity"`` (the span a reason names) or ``"context"`` (its context window),
    clipped to the text, sorted, duplicates removed."""
    out: set[tuple[int, int, str]] = set()
    for r in reasons:
        for a, b, what in ((r.get("context_start"), r.get("context_end"), "context"),
                           (r.get("start"), r.get("end"), "entity")):
            if a is None or b is None:
                continue
            a, b = max(0, int(a)), min(text_len, int(b))
            if a < b:
                out.add((a, b, what))
    return sorted(out, key=lambda m: (m[0], -m[1], m[2]))
