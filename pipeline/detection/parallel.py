"""How a batch of documents is spread over the machine: the one place that decides.

Why: detection of a batch is pure Python and numpy on one core (features, lookups,
forward-backward, rules), so on a 2-core machine half the machine idled while a project was
pre-annotated or a folder detected. Every entry point that detects many notes (``detect``,
``deidentify --model``, ``deidentify-project``, pre-annotation jobs, the post-training evaluation)
goes through :class:`BatchDetector`; none decides cores, chunking or fork safety itself.

The detector, once loaded, is inherited by forked worker processes (copy-on-write: no second
load, no pickling of models); documents travel to the workers in small chunks, each detected as
one batch of :meth:`~pipeline.detection.detector.Detector.detect_many` (the spans are exactly those
of one process: tests/test_detection_parallel.py), and their spans come back in input order.
:meth:`BatchDetector.stream` takes any iterable (a generator reading files) and keeps a few chunks
per worker in flight, so memory does not grow with the number of notes.

Only where forking is safe and worth it: the ``fork`` start method exists, the batch holds at
least :data:`MIN_FORK_DOCS` documents (below that, forking and shipping chunks cost more than the
second core saves: a 16-note batch runs here), we are not already in a worker, and every active
model member is a CRF (a torch encoder's thread pool does not survive a fork reliably, so a
detector with an active encoder runs in this process).

What the worker path costs, and what keeps it small (measured with benchmarks/detection_speed.py):
the workers' CPU time per note equals one process's; what is lost is the tail (one worker still
busy with a big chunk while the other idles) and copy-on-write faults. So workers get small
chunks (:data:`CHUNK_DOCS`; the CRF's spans do not depend on how documents are batched: the
test compares output files byte for byte) with a few in flight each, and the garbage collector
is frozen at the fork (``gc.freeze``): otherwise each worker's first collection writes to the
header of every inherited object, copying the pages of the model's tables into every worker.
"""
from __future__ import annotations

import gc
import itertools
import multiprocessing as mp
import os
from collections import deque
from typing import Callable, Iterable, Iterator, Sequence

from pipeline.spans import Document, Span

BATCH_DOCS = 32          # Detector.detect_many's default batch
CHUNK_DOCS = 8           # documents per worker task: small, so the last tasks end together
IN_FLIGHT = 3            # tasks queued per worker: one running, the next ones ready
MIN_FORK_DOCS = 48       # fewer documents: detected here (about 0.6 s of one core; a fork costs more)

_WORKER: dict = {}       # in a forked worker: the inherited detector and its batch size
_SHARED: dict = {}       # in the parent while a pool forks: what the workers inherit
_END = object()


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


def planned_workers(detector, workers: int | None = None) -> int:
    """How many processes a batch for ``detector`` is spread over (1: this process)."""
    if _WORKER or "fork" not in mp.get_all_start_methods() or not fork_safe(detector):
        return 1
    return max(1, workers or usable_cores())


def fork_possible() -> bool:
    """Whether this process may fork workers at all (the ``fork`` start method, not a worker)."""
    return not _WORKER and "fork" in mp.get_all_start_methods()


def _init_worker(key: int) -> None:
    _WORKER.update(_SHARED[key])


def _detect_chunk(docs: list[Document]) -> list[list[Span]]:
    return _WORKER["det"].detect_many(docs, batch_docs=_WORKER["batch_docs"])


def _detect_here(detector, docs: list[Document], batch_docs: int) -> list[list[Span]]:
    if not hasattr(detector, "detect_many"):       # a minimal detector with ``detect`` only
        return [list(detector.detect(d)) for d in docs]
    return detector.detect_many(docs, batch_docs=batch_docs)


def _chunks(docs: Iterable[Document], size: int) -> Iterator[list[Document]]:
    it = iter(docs)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


class BatchDetector:
    """``detector`` spread over ``workers`` processes (default: the usable cores, where safe).

    A context manager: the worker pool is forked at the first call that has
    :data:`MIN_FORK_DOCS` documents or more and lives until :meth:`close`, so a job detecting
    step by step forks once. ``parallel=False``:
    always this process (the app's own process, which serves other sessions from its threads, is
    never forked).
    """

    def __init__(self, detector, *, workers: int | None = None, batch_docs: int = BATCH_DOCS,
                 parallel: bool = True) -> None:
        self.detector = detector
        self.batch_docs = max(1, batch_docs)
        self.workers = planned_workers(detector, workers) if parallel else 1
        self._pool = None
        self._frozen = False

    @property
    def step(self) -> int:
        """Documents per :meth:`detect_many` call that keep every worker busy (and are enough to fork)."""
        return max(MIN_FORK_DOCS, self.batch_docs * self.workers * 2) if self.workers > 1 else self.batch_docs

    def __enter__(self) -> "BatchDetector":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None
            _SHARED.pop(id(self), None)
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

    def _get_pool(self, first: Document):
        if self._pool is None:
            # one note detected here first (its spans are not used): what the detector builds on
            # first use (the rule pack's compiled patterns, word lists, feature tables) is built
            # once, before the fork, and shared by every worker instead of built in each
            _detect_here(self.detector, [first], self.batch_docs)
            key = id(self)
            _SHARED[key] = {"det": self.detector, "batch_docs": self.batch_docs}
            # the workers inherit the detector at the fork; nothing of it is pickled. Objects that
            # exist now are left out of every later collection (here and in the workers): a
            # collection would write to each one's header and copy its page into each worker
            gc.freeze()
            self._frozen = True
            self._pool = mp.get_context("fork").Pool(self.workers, initializer=_init_worker, initargs=(key,))
        return self._pool

    def detect_many(self, docs: Sequence[Document]) -> list[list[Span]]:
        """Spans per document in input order, exactly as ``detector.detect_many(docs)``."""
        return [spans for _, spans in self.stream(docs)]

    def stream(self, docs: Iterable[Document]) -> Iterator[tuple[Document, list[Span]]]:
        """``(document, spans)`` in input order, reading ``docs`` lazily: a bounded number of
        documents is held (``IN_FLIGHT x workers`` chunks of :data:`CHUNK_DOCS`, or one batch in
        this process), whatever the length of the stream. The caller handles (writes) what it is
        given while the workers detect what follows."""
        it = iter(docs)
        head = list(itertools.islice(it, MIN_FORK_DOCS))
        if self.workers <= 1 or len(head) < MIN_FORK_DOCS:     # small, or one process: here, batch by batch
            chunks = _chunks(itertools.chain(head, it), self.batch_docs)
            del head
            for chunk in chunks:
                yield from zip(chunk, _detect_here(self.detector, chunk, self.batch_docs))
            return
        pool = self._get_pool(head[0])
        pending: deque = deque()
        chunks = _chunks(itertools.chain(head, it), min(CHUNK_DOCS, self.batch_docs))
        del head                    # the chain holds them until handed out, not longer
        for chunk in chunks:
            pending.append((chunk, pool.apply_async(_detect_chunk, (chunk,))))
            while len(pending) >= IN_FLIGHT * self.workers:
                done, result = pending.popleft()
                yield from zip(done, result.get())
        while pending:
            done, result = pending.popleft()
            yield from zip(done, result.get())


def detect_many_parallel(detector, docs: Sequence[Document], *, workers: int | None = None,
                         batch_docs: int = BATCH_DOCS) -> list[list[Span]]:
    """Spans per document in input order, as ``detector.detect_many(docs)``, using up to
    ``workers`` processes (default: the usable cores); one pool for this call."""
    with BatchDetector(detector, workers=workers, batch_docs=batch_docs) as b:
        return b.detect_many(list(docs))


def _run_one(task):
    return _WORKER["fn"](task)


def spread_map(fn: Callable, tasks: Iterable[list], *, workers: int | None = None) -> Iterator[list]:
    """``[fn(x) for x in task]`` for each task, in order, on every usable core (see
    :func:`spread_stream`, which decides)."""
    return spread_stream(lambda task: [fn(x) for x in task], tasks, workers=workers)


def spread_stream(fn: Callable, tasks: Iterable, *, workers: int | None = None,
                  size: Callable[[object], int] = len) -> Iterator:
    """``fn(task)`` for each task, in order, on every usable core: forked workers inherit ``fn``
    and everything it refers to (nothing of it is pickled; each task and its result are). The
    caller keeps what must stay together (a patient's notes) in one task and says whether ``fn``
    is fork safe (``workers=1``: this process).

    ``tasks`` may be a generator (reading files): it is read lazily, with a few tasks per worker
    in flight, so memory does not grow with the number of tasks. Where the first tasks hold
    fewer than :data:`MIN_FORK_DOCS` items (``size(task)`` each) in all, or there is one task
    only, everything runs in this process."""
    it = iter(tasks)
    w = max(1, workers or usable_cores()) if fork_possible() else 1
    head: list = []
    n_items = 0
    while w > 1 and (n_items < MIN_FORK_DOCS or len(head) < 2) and (task := next(it, _END)) is not _END:
        head.append(task)
        n_items += size(task)
    n_head = len(head)
    rest = itertools.chain(head, it)
    del head                    # the chain holds them until handed out, not longer
    if w <= 1 or n_items < MIN_FORK_DOCS or n_head < 2:
        yield from map(fn, rest)
        return
    key = id(rest)
    _SHARED[key] = {"fn": fn}
    gc.freeze()                 # as in BatchDetector: no copy-on-write by the workers' collections
    try:
        with mp.get_context("fork").Pool(w, initializer=_init_worker, initargs=(key,)) as pool:
            pending: deque = deque()
            for task in rest:
                pending.append(pool.apply_async(_run_one, (task,)))
                while len(pending) >= IN_FLIGHT * w:
                    yield pending.popleft().get()
            while pending:
                yield pending.popleft().get()
    finally:
        _SHARED.pop(key, None)
        gc.unfreeze()
