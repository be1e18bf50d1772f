"""A loaded detector with its key and locale: detect, de-identify and de-identify tables in a notebook.

Every call runs the code the command line runs, none copied: detection goes through
:class:`pipeline.detection.parallel.BatchDetector` (a list is spread over the cores where the
model allows it), de-identification through :func:`pipeline.deid.deidentify_batch` (the folder
command's engine: patient knowledge across the batch, keyed surrogates, the leak check), tables
through :func:`services.table_deid.deidentify_table`, and a project's detector through
:func:`services.detectors.detector_for`.

The key (``secret``) is what makes surrogates and pseudonyms stable: the same note gets the same
output with the same key. Give it as bytes, as a key file, or name the workbench database whose
key to use (``store=`` or ``$WORKBENCH_DB``); nothing is created silently elsewhere.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence, overload

from pipeline.deid import BatchResult, DeidContext, DeidResult, Profile, deidentify_batch, load_profile
from pipeline.detection.parallel import BatchDetector
from pipeline.errors import WorkbenchError
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

Text = str | Document
PathLike = str | os.PathLike


class DeidkitError(WorkbenchError):
    """A request the API cannot run as asked (the message names no document text)."""


def resolve_secret(secret: bytes | PathLike | None, store: PathLike | None = None) -> bytes:
    """The key as bytes: ``secret`` itself (bytes), the key file it names, else the key of the
    workbench database ``store`` (or ``$WORKBENCH_DB``), created 0600 beside it on first use.

    >>> resolve_secret(b"0123456789abcdef-example")
    b'0123456789abcdef-example'
    """
    from pipeline.deid import load_secret

    if isinstance(secret, (bytes, bytearray)):
        if len(secret) < 16:
            raise DeidkitError("the secret must be at least 16 bytes")
        return bytes(secret)
    if secret is not None:
        return load_secret(secret)
    db = store or os.environ.get("WORKBENCH_DB")
    if not db:
        raise DeidkitError("pass secret= (bytes or a key file) or store= (the workbench database whose key to use)")
    from services.settings import project_secret

    return project_secret(db)


def _doc(item: Text, i: int, patient_id: str | None = None) -> Document:
    if isinstance(item, Document):
        return item
    if not isinstance(item, str):
        raise DeidkitError(f"item {i} is not a string or a Document")
    return Document(doc_id=f"note-{i + 1}", text=item, spans=[], meta={}, patient_id=patient_id)


@dataclass
class Model:
    """A detector (a model version with its locale's rules and dictionaries, or those alone) with
    the key and locale its de-identification uses. Build it with :func:`deidkit.load`."""

    detector: object
    secret: bytes
    locale: str
    description: str
    model_version: str | None = None
    workers: int | None = None
    profiles: Mapping[str, Profile] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:          # never the key
        return f"Model({self.description!r}, locale={self.locale!r})"

    @property
    def schema(self) -> LabelSchema:
        return self.detector.schema

    def _spread(self, n: int) -> BatchDetector:
        return BatchDetector(self.detector, workers=self.workers, parallel=n > 1)

    @overload
    def detect(self, texts: Text) -> list[Span]: ...
    @overload
    def detect(self, texts: Sequence[Text]) -> list[list[Span]]: ...

    def detect(self, texts):
        """The PHI spans of one text (a list of :class:`~pipeline.spans.Span`), or of each text of a
        list (a list of lists, in order; spread over the cores by ``BatchDetector``)."""
        one = isinstance(texts, (str, Document))
        docs = [_doc(t, i) for i, t in enumerate([texts] if one else list(texts))]
        with self._spread(len(docs)) as spread:
            found = spread.detect_many(docs) if docs else []
        out = [[s.with_(doc_id=d.doc_id) for s in spans] for d, spans in zip(docs, found)]
        return out[0] if one else out

    def profile(self, profile: str | Profile | PathLike) -> Profile:
        """A profile by built-in name (``redact``, ``replace``, ``paraphrase``), one saved in the
        project this model came from, a JSON file, or a :class:`Profile` as it is."""
        if isinstance(profile, Profile):
            return profile
        return self.profiles.get(str(profile)) or load_profile(str(profile))

    @overload
    def deidentify(self, texts: Text, *, profile: str | Profile = ..., patient_id: str | None = ...) -> DeidResult: ...
    @overload
    def deidentify(self, texts: Sequence[Text], *, profile: str | Profile = ...,
                   patient_id: str | None = ...) -> BatchResult: ...

    def deidentify(self, texts, *, profile="replace", patient_id=None):
        """De-identify one text (a :class:`~pipeline.deid.DeidResult`: ``.text``, ``.spans``,
        ``.leaks``) or a list (a :class:`~pipeline.deid.BatchResult`: ``.results``, ``.summary``).
        Spans are detected unless a :class:`Document` brings its own; ``patient_id`` ties plain
        strings to one patient (one date shift, surrogates avoiding each other's values)."""
        one = isinstance(texts, (str, Document))
        docs = [_doc(t, i, patient_id) for i, t in enumerate([texts] if one else list(texts))]
        todo = [d for d in docs if not d.spans]
        for d, spans in zip(todo, self.detect(todo) if todo else []):
            d.spans = spans
        batch = deidentify_batch(docs, self.profile(profile), DeidContext(secret=self.secret, locale=self.locale))
        return batch.results[0] if one else batch

    def deidentify_table(self, input: PathLike, output: PathLike, *, text: Sequence[str], id: str | None = None,
                         patient: str | None = None, keep: Sequence[str] = (), drop: Sequence[str] = (),
                         pseudonymise: Mapping[str, str] | None = None, dates: Sequence[str] = (),
                         other: str = "drop", profile: str | Profile = "replace", fmt: str | None = None,
                         chunk_rows: int = 1000, progress: bool = False):
        """De-identify a CSV, TSV or Parquet table into ``output`` (same format); returns the
        :class:`services.table_deid.TableDeidSummary`. See ``python -m pipeline deidentify-table``."""
        from pipeline.deid.table_rows import ColumnPlan
        from pipeline.formats.table_io import table_format
        from services.table_deid import TableJob, deidentify_table

        plan = ColumnPlan(text=tuple(text), id=id, patient=patient, keep=tuple(keep), drop=tuple(drop),
                          pseudonymise=dict(pseudonymise or {}), dates=tuple(dates), other=other)
        job = TableJob(Path(input), Path(output), plan, self.profile(profile), self.secret, self.locale,
                       table_format(input, fmt), chunk_rows=chunk_rows)
        bar, close = _bar() if progress else (None, lambda: None)
        try:
            return deidentify_table(job, self.detector, progress=bar, workers=self.workers)
        finally:
            close()


def _bar():
    from tqdm.auto import tqdm

    bar = tqdm(unit="row", desc="deidentify-table")

    def progress(done: int, total: int | None) -> None:
        bar.total = total
        bar.update(done - bar.n)
    return progress, bar.close
