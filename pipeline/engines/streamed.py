"""De-identifying a folder in two streamed passes (the ``local`` engine), memory flat in its length.

Why two passes: a note's surrogates avoid every PHI value of its patient, its leak check looks
for them, and its date offset is its patient's, so a note is de-identified only once each note
of its patient has been read (and, with ``--model``, detected); and two inputs whose output
names would clash are refused before anything is written. Neither needs the text of every note
at once. So:

1. :func:`scan` reads the input once and keeps per note only its id and patient (the names are
   checked as it goes; a broken file stops the run here, before anything is written). With
   ``--schema auto`` this is also the read that checks the preset chosen from the first notes
   (:class:`pipeline.formats.stream.AutoRead`): a label that does not fit stops it here too, and
   the command starts again with the next preset, so the input is read twice, not once more per
   preset tried.
2. The input is read again (:func:`patient_tasks`): the notes of each patient, once the last of
   them is read, join a task of about :data:`TASK_DOCS` notes; tasks are spread over every usable
   core by :func:`pipeline.detection.parallel.spread_stream` (a few in flight per worker). A
   worker detects the task's notes (``--model``, a fork-safe detector) and de-identifies them
   with :func:`pipeline.deid.deidentify_batch`, exactly as the whole batch in one process does
   for those patients (every cross-note state of it is per patient: tests/test_deid_streamed.py
   compares the files). The results are written as they come back (:class:`~pipeline.engines._sink.OutputSink`:
   each file moved into place whole and recorded in the manifest; JSONL in input order) and the
   summary is accumulated in input order (:class:`~pipeline.engines._summary.SummaryAccumulator`).

A detector that must not be forked (an active encoder) detects in this process, batch by batch,
as :class:`~pipeline.detection.parallel.BatchDetector` decides; only de-identification is spread
then. Held at once: the ids, a few tasks per worker, and the notes of patients whose notes are
not all read yet (notes of one patient that lie far apart in the input wait for the last one).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from pipeline.engines.types import DeidJob, EngineError
from pipeline.spans import Document, Span

TASK_DOCS = 8            # notes per worker task (whole patients): small, so the last tasks end together

Task = list[tuple[int, Document, bool]]       # (input index, note, done by an earlier run)


@dataclass
class Scan:
    """What the first pass keeps: per note its input id and patient; per patient its last note."""

    ids: list[str] = field(default_factory=list)
    patients: list[str] = field(default_factory=list)
    last: dict[str, int] = field(default_factory=dict)
    todo: set[int] = field(default_factory=set)


def scan(docs: Iterable[Document], secret: bytes, done_ids: frozenset[str]) -> Scan:
    """First pass: ids, patients, the notes to do; two inputs with one id, or whose output names
    would clash (:func:`pipeline.deid.pseudonyms.output_ids`), are refused before anything is written."""
    from pipeline.deid import patient_id_of
    from pipeline.deid.pseudonyms import output_ids

    s = Scan()
    seen: set[str] = set()

    def noted() -> Iterator[Document]:
        for i, d in enumerate(docs):
            if d.doc_id in seen:        # the writers would refuse it after work was done (ids may be PHI: not named)
                raise EngineError(f"input documents {s.ids.index(d.doc_id) + 1} and {i + 1} share an id")
            seen.add(d.doc_id)
            pid = patient_id_of(d)
            s.ids.append(d.doc_id)
            s.patients.append(pid)
            s.last[pid] = i
            if d.doc_id not in done_ids:
                s.todo.add(i)
            yield d

    output_ids(noted(), secret)
    return s


def patient_tasks(docs: Iterable[Document], s: Scan, size: int = TASK_DOCS) -> Iterator[Task]:
    """Second pass: whole patients (each in input order) in tasks of about ``size`` notes, a
    patient joining once its last note is read; patients with nothing left to do are left out.
    The input must be the one :func:`scan` read (same ids, same order)."""
    waiting: dict[str, Task] = {}
    task: Task = []
    n = -1
    for n, d in enumerate(docs):
        if n >= len(s.ids) or d.doc_id != s.ids[n]:
            raise EngineError("the input changed while it was read (a document was added, removed or renamed); "
                              "run again")
        pid = s.patients[n]
        notes = waiting.setdefault(pid, [])
        notes.append((n, d, n not in s.todo))
        if s.last[pid] != n:
            continue
        del waiting[pid]
        if all(done for _, _, done in notes):
            continue
        task.extend(notes)
        if len(task) >= size:
            yield task
            task = []
    if n + 1 != len(s.ids):
        raise EngineError("the input changed while it was read (a document was removed); run again")
    if task:
        yield task


def with_spans(docs: Iterable[Document], detector) -> Iterator[Document]:
    """The notes with the spans ``detector`` finds, detected in this process batch by batch (for
    a detector that is not forked: :func:`pipeline.detection.parallel.planned_workers`)."""
    from pipeline.detection.parallel import BatchDetector

    with BatchDetector(detector) as spread:
        for d, spans in spread.stream(docs):
            yield Document(d.doc_id, d.text, list(spans), dict(d.meta), d.patient_id, d.source_file)


def slim(r):
    """The result as the summary reads it (no text, spans or metadata)."""
    return dataclasses.replace(r, text="", spans=[], actions=[], source_spans=[], meta={}, alternatives=[])


def task_runner(job: DeidJob, detector) -> Callable[[Task], list[tuple[int, Document, object]]]:
    """What a worker does with a task: detect its notes (``detector`` given), de-identify them,
    return ``(input index, output document, summary-only result)`` per note to do."""
    from pipeline.deid import deidentify_batch

    def run(task: Task) -> list[tuple[int, Document, object]]:
        docs = [d for _, d, _ in task]
        spans: dict[str, list[Span]] | None = None
        if detector is not None:
            spans = {d.doc_id: list(x) for d, x in zip(docs, detector.detect_many(docs))}
        done = frozenset(d.doc_id for _, d, is_done in task if is_done)
        index = {d.doc_id: i for i, d, _ in task}
        batch = deidentify_batch(docs, job.profile, job.ctx, done_ids=done, spans=spans, workers=1)
        return [(index[r.doc_id], r.to_document(), slim(r)) for r in batch.results]

    return run


def warmed(docs: Iterable[Document], detector) -> Iterator[Document]:
    """``docs``, the first one detected here once before it is handed on (its spans are not
    used): what the detector builds on first use is built before the fork, shared by the workers."""
    first = True
    for d in docs:
        if first and detector is not None:
            detector.detect_many([Document(d.doc_id, d.text)])
            first = False
        yield d


def deidentify_streamed(job: DeidJob, detector) -> object:
    """Both passes (see the module docstring); returns the run's :class:`~pipeline.deid.BatchSummary`.
    The folder's fingerprint is written after the first pass: input it refuses leaves nothing."""
    from pipeline.deid.pseudonyms import document_pseudonym
    from pipeline.detection.parallel import planned_workers, spread_stream
    from pipeline.engines._sink import OutputSink
    from pipeline.engines._summary import SummaryAccumulator
    from pipeline.engines.types import write_fingerprint

    s = scan(job.docs, job.ctx.secret, job.done_ids)
    manifest = write_fingerprint(job)
    kept = {}
    if job.fmt == "jsonl" and job.prior:       # documents a prior run wrote, by the input id they came from
        by_name = {p.doc_id: p for p in job.prior}
        kept = {x: by_name[n] for x, n in ((x, document_pseudonym(job.ctx.secret, x)) for x in s.ids) if n in by_name}
    acc = SummaryAccumulator()
    sink = OutputSink(s.ids, job.out_dir, job.fmt, s.todo, kept=kept, on_ordered=lambda i, r: acc.add(r),
                      manifest=manifest)
    docs: Iterable[Document] = job.docs
    if detector is not None and planned_workers(detector) == 1:
        docs, detector = with_spans(docs, detector), None         # detected here; only de-identification spread
    complete = False
    written = 0
    try:
        for results in spread_stream(task_runner(job, detector), patient_tasks(warmed(docs, detector), s)):
            sink.put_many(results)          # a task's files in one write
            written += len(results)
            if job.progress:
                job.progress(written, len(s.todo))
        complete = True
    finally:
        sink.close(complete=complete)
    return acc.summary(skipped=len(s.ids) - len(s.todo))
