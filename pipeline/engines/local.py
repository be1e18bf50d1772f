"""The ``local`` engine: this machine (its cores, forked; the reference the ``ray`` engine must match)."""
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
        """Streamed in two passes on every usable core (:mod:`pipeline.engines.streamed`): ``job.docs``
        may be a list or a re-readable input (:class:`pipeline.formats.stream.ReadAgain`), read
        twice. With a language model (paraphrase) everything runs here, in input order, at once."""
        if job.ctx.infiller is not None:
            return self._deidentify_at_once(job)
        from pipeline.engines.streamed import deidentify_streamed

        detector = DetectSpec(model_dir=job.model_dir).build() if job.model_dir else None
        return deidentify_streamed(job, detector)

    def _deidentify_at_once(self, job: DeidJob):
        from pipeline.deid import deidentify_batch
        from pipeline.engines._sink import write_atomically

        docs = list(job.docs)
        spans = detect_all(docs, job.model_dir) if job.model_dir else None
        manifest = write_fingerprint(job)
        batch = deidentify_batch(docs, job.profile, job.ctx, progress=job.progress, done_ids=job.done_ids,
                                 spans=spans, workers=1)        # a language model (torch) is never forked
        if job.fmt == "jsonl":
            from pipeline.deid.pseudonyms import prior_by_input

            new = {r.doc_id: r.to_document() for r in batch.results}
            kept = prior_by_input(docs, job.prior, job.ctx.secret)
            write_atomically(ordered_output(docs, new, kept), job.out_dir, "jsonl", manifest)
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
