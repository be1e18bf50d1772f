"""The ``local`` engine: everything in this process (the reference the ``ray`` engine must match)."""
from __future__ import annotations

from pipeline.detection.parallel import detect_many_parallel
from pipeline.engines.types import DeidJob, DetectJob, DetectSpec, DetectSummary, ordered_output, write_fingerprint
from pipeline.spans import Document, Span


def detect_all(docs, model_dir: str) -> dict[str, list[Span]]:
    """Spans for every document (what ``deidentify --model`` does), on every usable core where the
    model allows it (:mod:`pipeline.detection.parallel` decides), the spans of one process."""
    detector = DetectSpec(model_dir=model_dir).build()
    return {d.doc_id: list(spans) for d, spans in zip(docs, detect_many_parallel(detector, docs))}


class LocalEngine:
    """Reads nothing itself: runs the job's documents through the pipeline functions and writes."""

    name = "local"

    def deidentify(self, job: DeidJob):
        from pipeline.deid import deidentify_batch
        from pipeline.engines._sink import write_atomically

        spans = detect_all(job.docs, job.model_dir) if job.model_dir else None
        manifest = write_fingerprint(job)
        # the second pass on every usable core too (whole patients per worker task; a command, not the app)
        batch = deidentify_batch(job.docs, job.profile, job.ctx, progress=job.progress, done_ids=job.done_ids,
                                 spans=spans, workers=None)
        if job.fmt == "jsonl":
            from pipeline.deid.pseudonyms import prior_by_input

            new = {r.doc_id: r.to_document() for r in batch.results}
            kept = prior_by_input(job.docs, job.prior, job.ctx.secret)
            write_atomically(ordered_output(job.docs, new, kept), job.out_dir, "jsonl", manifest)
        elif batch.results:
            write_atomically([r.to_document() for r in batch.results], job.out_dir, job.fmt, manifest)
        return batch.summary

    def detect(self, job: DetectJob) -> DetectSummary:
        from pipeline.formats import write_collection

        det = job.spec.build()
        results = detect_many_parallel(det, job.docs)
        out_docs = [Document(d.doc_id, d.text, spans, dict(d.meta), d.patient_id, d.source_file)
                    for d, spans in zip(job.docs, results)]
        if job.progress:
            job.progress(len(out_docs), len(out_docs))
        write_collection(out_docs, job.out_dir, job.fmt)
        return DetectSummary(len(out_docs), sum(len(s) for s in results), list(det.parts))
