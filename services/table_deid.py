"""De-identify a table (CSV, TSV, Parquet) into the same table with its text columns de-identified.

The table is streamed a chunk of rows at a time (:func:`pipeline.formats.table_io.iter_table`),
so memory stays flat in the file's size. Each chunk goes through the code paths of every other
de-identification, none copied:

1. the text cells become documents (the id column is the document name, the patient column its
   patient) and are detected by :class:`pipeline.detection.parallel.BatchDetector` (every usable
   core, forked once for the whole table);
2. they are rewritten by :class:`services.deid_batch.RunDeidentifier` (the engine with the
   chunk's patient knowledge), after each patient's identifying cells were added to that
   knowledge (:func:`pipeline.deid.table_rows.column_originals`: a copy of an id or date in a
   note is rewritten too);
3. the other columns follow the :class:`~pipeline.deid.table_rows.ColumnPlan` (pseudonyms with
   the installation's key, dates shifted by the patient's own offset, kept or dropped), and
   :func:`pipeline.deid.table_rows.row_leaks` adds the leak check of what the row exposes;
4. the rows are appended to a private temporary file renamed over the output at the end
   (:class:`pipeline.formats.table_io.TableWriter`): a failure leaves no output.

A patient's date offset is the engine's keyed draw; it is shared across chunks through a bounded
cache (:data:`OFFSET_CACHE`, the most recent patients), so a patient's rows get one offset when
they lie within that many patients of each other (a table sorted or grouped by patient always
does); beyond it the draw is recomputed, which gives the same offset unless the first draw
clashed with one of the patient's real dates in that chunk.

The summary names counts, columns given by the user and row numbers; never a cell's value.
"""
from __future__ import annotations

import os
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from pipeline.deid import DeidContext, DeidResult, Profile
from pipeline.deid.batch import MAX_LEAK_DETAILS
from pipeline.deid.leaks import LOCATIONS, Leak
from pipeline.deid.pseudonyms import document_pseudonym
from pipeline.deid.table_rows import (ColumnPlan, column_originals, is_blank, patient_date_offset, pseudonymise_cell,
                                      row_leaks, shift_cell)
from pipeline.detection.parallel import BatchDetector
from pipeline.errors import FormatError, WorkbenchError
from pipeline.formats.table_io import (DEFAULT_CHUNK_ROWS, MAX_CELL_CHARS, TableChunk, TableWriter, count_rows,
                                       iter_table, table_columns, table_format)
from pipeline.spans import Document, Span
from services.deid_batch import RunDeidentifier

Progress = Callable[[int, "int | None"], None]
#: patients whose date offset is remembered across chunks (about 100 bytes each)
OFFSET_CACHE = 50_000


class TableDeidError(WorkbenchError):
    """A table de-identification that cannot run as asked (safe to show)."""


class _BoundedOffsets(OrderedDict):
    """The engine's per-patient offset cache, keeping only the most recent :data:`OFFSET_CACHE`."""

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > OFFSET_CACHE:
            self.popitem(last=False)


@dataclass
class TableDeidSummary:
    """What a table de-identification did: counts, the user's column names, row numbers; no values."""

    input: str
    output: str
    format: str
    rows: int = 0
    documents: int = 0
    spans: dict[str, dict[str, int]] = field(default_factory=dict)     # category -> action -> n
    leaks: int = 0
    leaks_by_location: dict[str, int] = field(default_factory=dict)
    leak_details: list[dict] = field(default_factory=list)             # row, location, category, offsets
    uncovered_chars: int = 0
    unparseable_dates: int = 0          # in the text
    unreadable_date_cells: int = 0      # date cells that were not dates: blanked
    shifted_date_cells: int = 0
    pseudonymised_cells: int = 0
    propagated: int = 0
    fallbacks: int = 0
    dropped_columns: list[str] = field(default_factory=list)
    detector: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def line(self) -> str:
        per_cat = ", ".join(f"{c}={sum(a.values())}" for c, a in sorted(self.spans.items()))
        where = ", ".join(f"{k}={self.leaks_by_location[k]}" for k in LOCATIONS if self.leaks_by_location.get(k))
        return (f"rows={self.rows} documents={self.documents} spans[{per_cat}] leaks={self.leaks}"
                f"{f'[{where}]' if where else ''} uncovered_chars={self.uncovered_chars} "
                f"pseudonymised_cells={self.pseudonymised_cells} shifted_date_cells={self.shifted_date_cells} "
                f"unreadable_date_cells={self.unreadable_date_cells} unparseable_dates={self.unparseable_dates} "
                f"propagated={self.propagated} dropped_columns={len(self.dropped_columns)} "
                f"rows_per_s={self.rows / self.seconds if self.seconds else 0:.1f}")

    def add_results(self, results: Sequence[DeidResult]) -> None:
        for r in results:
            for cat, acts in r.counts.items():
                mine = self.spans.setdefault(cat, {})
                for a, n in acts.items():
                    mine[a] = mine.get(a, 0) + n
        self.documents += len(results)
        self.uncovered_chars += sum(r.uncovered_chars for r in results)
        self.unparseable_dates += sum(r.unparseable_dates for r in results)
        self.propagated += sum(r.propagated for r in results)
        self.fallbacks += sum(r.fallbacks for r in results)

    def add_leaks(self, row: int, leaks: Iterable[Leak]) -> None:
        for lk in leaks:
            self.leaks += 1
            self.leaks_by_location[lk.location] = self.leaks_by_location.get(lk.location, 0) + 1
            if len(self.leak_details) < MAX_LEAK_DETAILS:
                self.leak_details.append({"row": row, "location": lk.location, "category": lk.category,
                                          "start": lk.start, "end": lk.end, "kind": lk.kind})


@dataclass(frozen=True)
class TableJob:
    """One table de-identification: where from and to, the columns, the profile, the key."""

    input: Path
    output: Path
    plan: ColumnPlan
    profile: Profile
    secret: bytes
    locale: str
    fmt: str
    chunk_rows: int = DEFAULT_CHUNK_ROWS
    max_cell_chars: int = MAX_CELL_CHARS


def _row_key(plan: ColumnPlan, rec: dict, row: int) -> tuple[str, str | None]:
    """(document name, patient id) of a row: the id cell (else ``row-<n>``) and the patient cell."""
    doc_id = str(rec[plan.id]) if plan.id and not is_blank(rec[plan.id]) else f"row-{row}"
    patient = str(rec[plan.patient]) if plan.patient and not is_blank(rec[plan.patient]) else None
    return doc_id, patient


def _documents(plan: ColumnPlan, records: list[dict], first_row: int) -> list[tuple[int, str, Document]]:
    """(row index, text column, document) for every non-blank text cell of the chunk."""
    out = []
    for i, rec in enumerate(records):
        doc_id, patient = _row_key(plan, rec, first_row + i)
        for col in plan.text:
            text = rec[col]
            if isinstance(text, str) and text.strip():
                out.append((i, col, Document(doc_id=doc_id, text=text, spans=[], meta={}, patient_id=patient)))
    return out


def _deidentify_texts(spread: BatchDetector, job: TableJob, ctx: DeidContext, records: list[dict],
                      first_row: int, offsets: OrderedDict) -> tuple[list, DeidContext]:
    """Detect and rewrite the chunk's text cells; returns ((row index, column, doc, result), ...)
    and the run context (the chunk's patient knowledge and the shared offsets)."""
    placed = _documents(job.plan, records, first_row)
    docs = [d for _, _, d in placed]
    for d, spans in zip(docs, spread.detect_many(docs) if docs else []):
        d.spans = [s.with_(doc_id=d.doc_id) for s in spans]
    rd = RunDeidentifier(docs, job.profile, ctx)
    rd.ctx._offsets = offsets
    for i, rec in enumerate(records):
        doc_id, patient = _row_key(job.plan, rec, first_row + i)
        extra = column_originals(job.plan, rec)
        if extra:
            rd.ctx.add_patient_originals(patient or doc_id, extra)
    return [(i, col, d, rd(d)) for i, col, d in placed], rd.ctx


def _other_cells(job: TableJob, run_ctx: DeidContext, rec: dict, row: int, out: dict,
                 summary: TableDeidSummary) -> None:
    """The id, patient, pseudonymised and date cells of one output row (``out``, in place)."""
    plan = job.plan
    doc_id, patient = _row_key(plan, rec, row)
    for col in [c for c in (plan.id, plan.patient) if c] + list(plan.pseudonymise):
        if col in out and not is_blank(rec[col]):
            out[col] = (document_pseudonym(job.secret, str(rec[col])) if col == plan.id
                        else pseudonymise_cell(job.secret, plan.kind_of(col), rec[col]))
            summary.pseudonymised_cells += 1
    if not plan.dates:
        return
    pid = patient or doc_id
    offset = patient_date_offset(run_ctx, job.profile, pid, run_ctx.patient_originals.get(pid, []))
    for col in plan.dates:
        if col in out and not is_blank(rec[col]):
            out[col], ok = shift_cell(rec[col], offset, job.profile.locale or run_ctx.locale)
            summary.shifted_date_cells += ok
            summary.unreadable_date_cells += not ok


def _chunk(spread: BatchDetector, job: TableJob, ctx: DeidContext, chunk: TableChunk, columns: list[str],
           offsets: OrderedDict, summary: TableDeidSummary):
    """One chunk of rows de-identified: the output frame."""
    import pandas as pd

    records = chunk.frame.to_dict("records")
    done, run_ctx = _deidentify_texts(spread, job, ctx, records, chunk.first_row, offsets)
    outs = [{c: rec[c] for c in columns} for rec in records]
    phi: dict[int, list[tuple[str, str, str]]] = {}
    texts: dict[int, list[str]] = {}
    for i, col, doc, res in done:
        outs[i][col] = res.text
        texts.setdefault(i, []).append(res.text)
        phi.setdefault(i, []).extend((s.category, s.type, doc.text[s.start:s.end]) for s in res.source_spans)
        summary.add_leaks(chunk.first_row + i, res.leaks)
    summary.add_results([r for *_, r in done])
    for i, rec in enumerate(records):
        row = chunk.first_row + i
        _other_cells(job, run_ctx, rec, row, outs[i], summary)
        summary.add_leaks(row, row_leaks(f"row {row}", rec, outs[i], texts.get(i, []), job.plan, phi.get(i, [])))
    summary.rows += len(records)
    return pd.DataFrame(outs, columns=columns)


def _arrow_schema(job: TableJob, columns: list[str]):
    """The Parquet output schema: the input's field types, text and pseudonym columns as strings."""
    if job.fmt != "parquet":
        return None
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.ParquetFile(job.input).schema_arrow
    fields = []
    for name in columns:
        f = schema.field(name)
        role = job.plan.role(name)
        typ = pa.string() if role in ("text", "id", "patient", "pseudonymise") else f.type
        fields.append(pa.field(name, typ, nullable=True))
    return pa.schema(fields)


def check_job(job: TableJob) -> list[str]:
    """Refuse what cannot run (before anything is read or written); the table's header."""
    if not job.input.is_file():
        raise FormatError(str(job.input), "no such file")
    if job.output.resolve() == job.input.resolve():
        raise TableDeidError("the output must differ from the input (originals are never overwritten)")
    if job.output.exists() and not job.output.is_file():
        raise TableDeidError(f"{job.output} exists and is not a file")
    if table_format(job.output, job.fmt) != job.fmt:
        raise TableDeidError(f"the output must be a {job.fmt} file, like the input")
    header = table_columns(job.input, job.fmt)
    missing = [c for c in job.plan.named() if c not in header]
    if missing:
        raise FormatError(str(job.input), f"has no column {missing[0]!r} (it has {len(header)} columns; is the "
                                          "first line a header?)")
    return header


def deidentify_table(job: TableJob, detector, *, progress: Progress | None = None, workers: int | None = None,
                     parallel: bool = True, ctx: DeidContext | None = None) -> TableDeidSummary:
    """De-identify ``job.input`` into ``job.output`` (same format), chunk by chunk; all or nothing."""
    t0 = time.perf_counter()
    header = check_job(job)
    columns = job.plan.output_columns(header)
    summary = TableDeidSummary(str(job.input), str(job.output), job.fmt,
                               dropped_columns=[c for c in header if c not in columns],
                               detector="+".join(getattr(detector, "parts", []) or []))
    ctx = ctx or DeidContext(secret=job.secret, locale=job.locale)
    total = count_rows(job.input, job.fmt)
    schema = _arrow_schema(job, columns)
    offsets: OrderedDict = _BoundedOffsets()
    with BatchDetector(detector, workers=workers, parallel=parallel) as spread, \
            TableWriter(job.output, job.fmt) as writer:
        for chunk in iter_table(job.input, job.fmt, chunk_rows=job.chunk_rows, required=job.plan.named(),
                                checked=header, max_cell_chars=job.max_cell_chars):
            writer.write(_chunk(spread, job, ctx, chunk, columns, offsets, summary), schema)
            if progress:
                progress(summary.rows, total)
        writer.commit(columns, schema)
    summary.seconds = round(time.perf_counter() - t0, 3)
    return summary


def table_detector(*, model_dir: str | os.PathLike | None = None, schema: str = "i2b2-2014",
                   locale: str | None = None):
    """The detector for a table outside any project: the model version at ``model_dir`` (with its
    locale's rules and dictionaries), else the rules and dictionaries of ``schema``'s locale."""
    from pipeline.detection.detector import Detector

    if model_dir:
        if not Path(model_dir).is_dir():
            raise TableDeidError(f"{model_dir}: no such model folder")
        return Detector.load(model_dir)
    det = Detector.without_model(schema, locale)
    if not det.parts:
        raise TableDeidError(f"there are no rules or dictionaries for locale {det.locale!r}: pass a model folder")
    return det


__all__ = ["ColumnPlan", "TableDeidError", "TableDeidSummary", "TableJob", "deidentify_table", "table_detector"]
