"""Files in and out of the De-identify page: an upload de-identified in the app's process
(nothing stored), and a run's or an upload's outputs exported as a zip.

* :func:`deidentify_documents` / :func:`deidentify_upload`: an upload, at most
  :data:`MAX_UPLOAD_DOCS` documents (more are imported into the project and de-identified as a
  job, :mod:`services.deid_runs`). Documents without spans are detected first; the profile,
  language model and quality comparison are :mod:`services.deid_batch`'s, as for a run.
* :func:`stored_outputs_as_documents` / :func:`export_outputs`: a run or an upload as a zip in
  one of :data:`EXPORT_FORMATS`, after checking the user may export, with an ``export`` audit
  row (counts, no text). Every format is written from the same leak-checked documents (text,
  output spans, pseudonymous id, no metadata), so the leak check covers all of them.

Exports use the outputs' keyed pseudonyms (``doc-3f9a1c2b7e4d``, stored with each output as
``deid_outputs.output_name``) for file names and ids and carry no metadata. A run or upload
that failed its leak check is never exported.

Nothing here logs or returns document text: results, audit rows and errors name ids,
counts and numbers only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from sqlite_utils import Database

import store
from pipeline.deid import BatchResult, DeidContext, DeidResult, Profile, deidentify_batch, document_pseudonym
from pipeline.deid import zip_outputs
from pipeline.formats.table import TableColumns
from pipeline.formats.uploads import read_upload
from pipeline.layers import parse_output_layer
from pipeline.spans import Document
from services import access
from services.deid_batch import DeidentificationError, infiller_for, quality_comparison
from services.detectors import DetectorChoice, detect_documents
from services.settings import db_path_of, project_locale, project_secret

#: What a run or an upload can be downloaded as: every registered writer that carries a
#: de-identified document whole (text, output spans, pseudonymous id). CoNLL is left out (its
#: tokens lose the text's line structure); tables hold one row per document (id, text, spans).
EXPORT_FORMATS = ("brat", "xml", "jsonl", "text", "label-studio", "doccano", "prodigy", "spacy", "hf-dataset",
                  "csv", "tsv", "parquet")
MAX_UPLOAD_DOCS = 5000            # de-identified in the app's process; more: import them and run a job


@dataclass
class UploadRun:
    """An upload de-identified in the app's process (nothing stored)."""

    originals: list[Document]
    batch: BatchResult
    detected: list[str]              # doc ids whose spans were detected
    detector: str | None
    profile_name: str
    quality: dict = field(default_factory=dict)     # paraphrase: the comparison with list surrogates

    def __repr__(self) -> str:  # no text in reprs
        return f"UploadRun(documents={len(self.originals)}, detected={len(self.detected)})"


def deidentify_documents(docs: Sequence[Document], profile: Profile, secret: bytes, locale: str, *,
                         detector: DetectorChoice | Callable[[], DetectorChoice] | None = None,
                         progress: Callable[[int, int], None] | None = None,
                         infiller: object | None = None) -> UploadRun:
    """De-identify documents that are not in the store (an upload). Documents without spans are
    detected first with ``detector`` (a choice, or a function making one: only called when
    needed); without a detector they are refused, never released as they are. ``infiller``:
    the language model for the ``paraphrase`` action (with such a profile the result carries
    the quality comparison with list surrogates)."""
    docs = list(docs)
    lacking = [d for d in docs if not d.spans]
    det_name = None
    if lacking:
        if detector is None:
            raise DeidentificationError(f"{len(lacking)} uploaded document(s) carry no spans and there is no detector")
        choice = detector() if callable(detector) else detector
        found = detect_documents(choice, lacking, parallel=False)   # the app's process: never forked
        det_name = choice.description
        docs = [Document(doc_id=d.doc_id, text=d.text, spans=found[d.doc_id], meta=d.meta, patient_id=d.patient_id,
                         source_file=d.source_file) if d.doc_id in found else d for d in docs]
    deid_ctx = DeidContext(secret=secret, locale=locale, infiller=infiller)
    batch = deidentify_batch(docs, profile, deid_ctx, progress=progress)
    quality = {}
    if profile.uses_paraphrase() and not batch.summary.leaks:
        quality = quality_comparison(docs, batch.results, profile, deid_ctx)
    return UploadRun(originals=docs, batch=batch, detected=[d.doc_id for d in lacking], detector=det_name,
                     profile_name=profile.name, quality=quality)


def deidentify_upload(db: Database, user: store.User, project: store.Project, filename: str, data: bytes, fmt: str,
                      profile: Profile, *, detector: Callable[[], DetectorChoice],
                      progress: Callable[[int, int], None] | None = None,
                      columns: TableColumns | None = None) -> UploadRun:
    """The De-identify page's upload (leads): read and check it, detect spans where it has none
    (``detector`` is called only then), de-identify with the installation's key, and audit it
    (counts only). Nothing is stored. ``columns``: a table's text, id and patient columns."""
    u = access.require(user, "deidentify")
    docs = read_upload(filename, data, fmt, project.schema, columns=columns)
    if len(docs) > MAX_UPLOAD_DOCS:
        raise DeidentificationError(f"the upload holds {len(docs)} documents; more than {MAX_UPLOAD_DOCS} are "
                                    "de-identified as a job: import them into the project first")
    result = deidentify_documents(docs, profile, project_secret(db_path_of(db)), project_locale(project),
                                  detector=detector, progress=progress,
                                  infiller=infiller_for(profile, project, db_path_of(db)))
    store.audit(db, u.username, "deid.upload", f"project:{project.id}",
                detail={"documents": len(docs), "detected": len(result.detected), "profile": profile.name,
                        "leaks": result.batch.summary.leaks})
    return result


def stored_outputs_as_documents(db: Database, run_id: int, *, only: set[int] | None = None) -> list[Document]:
    """A run's outputs as documents named by their pseudonyms (for writing/zipping): never by the
    documents' names, and without metadata. A run that failed the leak check is refused.
    ``only``: the document ids to include (the releasable ones, :mod:`services.release`)."""
    run = store.get_deid_run(db, run_id)
    if run.failed_leak_check:
        raise DeidentificationError(f"run {run_id} failed the leak check: its outputs cannot be exported")
    outputs = store.list_deid_outputs(db, run_id, with_text=True)
    secret = None
    docs = []
    for o in outputs:
        if only is not None and o.doc_id not in only:
            continue
        name = o.output_name
        if not name:    # an output saved before names were stored: the same keyed name, recomputed
            secret = secret or project_secret(db_path_of(db))
            name = document_pseudonym(secret, str(o.doc_id))
        spans = [s.with_(doc_id=name, source=f"deid:{parse_output_layer(s.layer)[0]}", layer="") for s in o.spans]
        docs.append(Document(doc_id=name, text=o.text or "", spans=spans, meta={}))
    return docs


def export_outputs(db: Database, user: store.User, items: Sequence[Document | DeidResult], fmt: str, *,
                   target: str) -> bytes:
    """De-identified documents (``Document`` or ``DeidResult``) as a zip in ``fmt``, after checking
    ``user`` may export, with an ``export`` audit row (counts, no text)."""
    u = access.require(user, "export")
    if fmt not in EXPORT_FORMATS:
        raise DeidentificationError(f"unknown export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}")
    leaky = sum(1 for x in items if isinstance(x, DeidResult) and x.leaks)
    if leaky:
        raise DeidentificationError(f"{leaky} document(s) failed the leak check: fix their spans and de-identify "
                                    "again before downloading")
    data = zip_outputs(list(items), fmt)
    store.audit(db, u.username, "export", target, detail={"documents": len(items), "format": fmt, "bytes": len(data)})
    return data
