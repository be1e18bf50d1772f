"""Detection of many documents on every core: the detector forked into worker processes.

Why: detection of a batch is pure Python and numpy on one core (features, lookups,
forward-backward, rules), so on a 2-core machine half the machine idled while a project was
pre-annotated or a folder detected. The detector, once loaded, is inherited by forked workers
(copy-on-write: no second load, no pickling of models); each worker detects a run of batches and
returns the spans, which come back in input order. The output is exactly that of
:meth:`~pipeline.detection.detector.Detector.detect_many` (tests/test_detection_parallel.py).

Only where forking is safe and worth it: the ``fork`` start method exists, there are at least two
batches, and every active model member is a CRF (a torch encoder's thread pool does not survive
a fork reliably, so a detector with an active encoder runs in this process).
"""
from __future__ import annotations

import multiprocessing as mp
import os
from typing import Sequence

from pipeline.spans import Document, Span

_DETECTOR: dict = {}


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def fork_safe(detector) -> bool:
    """True for a plain detector whose model (if any) has only CRF members active."""
    if not hasattr(detector, "ensemble"):
        return False            # another kind of detector (e.g. with a transferred or pretrained source)
    ens = detector.ensemble
    if ens is None:
        return True
    members = getattr(ens, "members", {})
    return all(getattr(members[n], "kind", "") == "crf" for n in getattr(ens, "active_members", members))


def _detect_part(bounds: tuple[int, int]) -> list[list[Span]]:
    det, docs, batch_docs = _DETECTOR["det"], _DETECTOR["docs"], _DETECTOR["batch_docs"]
    return det.detect_many(docs[bounds[0]:bounds[1]], batch_docs=batch_docs)


def detect_many_parallel(detector, docs: Sequence[Document], *, workers: int | None = None,
                         batch_docs: int = 32) -> list[list[Span]]:
    """Spans per document in input order, as ``detector.detect_many(docs)``, using up to
    ``workers`` processes (default: the usable cores)."""
    docs = list(docs)
    n = min(workers or usable_cores(), max(1, len(docs) // batch_docs))
    if n <= 1 or "fork" not in mp.get_all_start_methods() or not fork_safe(detector) or _DETECTOR:
        return detector.detect_many(docs, batch_docs=batch_docs)
    # contiguous parts, a few per worker so a slow part does not leave a core idle at the end
    n_parts = min(len(docs) // batch_docs, n * 4)
    step = -(-len(docs) // n_parts)
    parts = [(i, min(i + step, len(docs))) for i in range(0, len(docs), step)]
    _DETECTOR.update(det=detector, docs=docs, batch_docs=batch_docs)
    try:
        with mp.get_context("fork").Pool(n) as pool:
            results = pool.map(_detect_part, parts, chunksize=1)
    finally:
        _DETECTOR.clear()
    return [spans for part in results for spans in part]
