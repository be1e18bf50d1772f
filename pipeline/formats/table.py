"""Tables as a document format: one document per row (and text column) of a CSV, TSV or Parquet file.

The registry's ``csv``, ``tsv`` and ``parquet`` readers and writers (:data:`pipeline.formats.READERS`,
:data:`~pipeline.formats.WRITERS`) use the JSONL names for the columns: ``text``, ``id`` (the
document name, else ``row-<n>``), ``patient_id``, and ``spans`` (a JSON list of
``{"start", "end", "label"}``, checked as JSONL spans are); every other column is kept as
metadata. :class:`TableColumns` names other columns (the ``import`` command's ``--text-column``,
``--id-column``, ``--patient-column``, ``--keep-column``/``--drop-column``); a row with several text
columns gives one document per column, named ``<id>/<column>``.

Errors name the file and the data row (1 = the first row under the header) and the column;
never a cell's value. Importing reads the whole table (it is stored in one transaction), so the
importers' limits apply: at most ``limits.max_files`` documents, and no table larger than
``limits.max_total_bytes``; de-identification streams instead (:mod:`services.table_deid`).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

from pipeline.errors import FormatError
from pipeline.formats._common import refuse_overlaps, sorted_unique
from pipeline.formats._output import make_private_dirs, name_key, name_problem
from pipeline.formats._sources import Limits, PathLike, Progress
from pipeline.formats.table_io import (MAX_CELL_CHARS, TableChunk, TableWriter, count_rows, iter_table, table_columns,
                                       table_format)
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

SOURCE = "import:table"


@dataclass(frozen=True)
class TableColumns:
    """Which columns of a table hold what; ``None`` (id, patient, spans): the column of the default
    name when the table has one (``id``, ``patient_id``, ``spans``), else none.

    ``keep``/``drop``: metadata columns; ``keep=None`` keeps every column not named otherwise.
    """

    text: tuple[str, ...] = ("text",)
    id: str | None = None
    patient: str | None = None
    spans: str | None = None
    keep: tuple[str, ...] | None = None
    drop: tuple[str, ...] = ()
    defaults: dict = field(default_factory=lambda: {"id": "id", "patient": "patient_id", "spans": "spans"},
                           compare=False, repr=False)

    def resolved(self, header: Sequence[str]) -> "TableColumns":
        """The columns with defaults filled in from ``header`` (only where the table has them)."""
        pick = {k: getattr(self, k) or (v if v in header else None) for k, v in self.defaults.items()}
        return TableColumns(self.text, pick["id"], pick["patient"], pick["spans"], self.keep, self.drop, {})

    def named(self) -> list[str]:
        return [*self.text, *(c for c in (self.id, self.patient, self.spans) if c), *(self.keep or ()), *self.drop]

    def meta_columns(self, header: Sequence[str]) -> list[str]:
        special = {*self.text, self.id, self.patient, self.spans, *self.drop}
        if self.keep is not None:
            return [c for c in self.keep if c not in special]
        return [c for c in header if c not in special]


def _row_error(path: str, row: int, e: FormatError) -> FormatError:
    """A span error from the JSONL checks, re-said for a table row (the message names no value)."""
    text = str(e)
    message = text.split(": ", 1)[1] if ": " in text else text
    return type(e)(path, f"row {row}: {message}")


def _spans(raw: object, row: int, col: str, schema: LabelSchema, doc_id: str, text: str, path: str) -> list[Span]:
    from pipeline.formats.jsonl import _span

    if raw in (None, ""):
        return []
    try:
        items = json.loads(str(raw))
    except (json.JSONDecodeError, RecursionError, ValueError):
        raise FormatError(path, f"row {row}: column {col!r} is not a JSON list of spans") from None
    if not isinstance(items, list):
        raise FormatError(path, f"row {row}: column {col!r} is not a JSON list of spans")
    try:
        return [_span(s, k, schema, doc_id, text, path, row) for k, s in enumerate(items)]
    except FormatError as e:
        raise _row_error(path, row, e) from None


def _cell(value: object) -> str | None:
    if value is None or (isinstance(value, float) and value != value):     # a Parquet null
        return None
    return str(value)


def _doc_id(cols: TableColumns, rec: dict, row: int, text_col: str, path: str) -> str:
    base = _cell(rec[cols.id]) if cols.id else f"row-{row}"
    if base is None or not base.strip():
        raise FormatError(path, f"row {row}: the id column {cols.id!r} is empty")
    doc_id = base if len(cols.text) == 1 else f"{base}/{text_col}"
    problem = name_problem(doc_id)
    if problem:
        raise FormatError(path, f"row {row}: the id (column {cols.id!r}) cannot be a document name: {problem}")
    return doc_id


def row_documents(cols: TableColumns, rec: dict, row: int, schema: LabelSchema, meta_cols: Sequence[str],
                  path: str, *, allow_overlap: bool = True) -> list[Document]:
    """The documents of one row (a dict column -> value): one per text column."""
    out = []
    meta = {c: v for c in meta_cols if (v := _cell(rec[c])) is not None}
    patient = _cell(rec[cols.patient]) if cols.patient else None
    for col in cols.text:
        text = _cell(rec[col])
        if text is None or not text.strip():
            raise FormatError(path, f"row {row}: the text column {col!r} is empty")
        doc_id = _doc_id(cols, rec, row, col, path)
        spans = _spans(rec[cols.spans], row, cols.spans, schema, doc_id, text, path) if cols.spans else []
        if not allow_overlap:
            try:
                refuse_overlaps([(s, None) for s in spans], path, row)
            except FormatError as e:
                raise _row_error(path, row, e) from None
        out.append(Document(doc_id=doc_id, text=text, spans=sorted_unique(spans), meta=dict(meta),
                            patient_id=patient or None, source_file=path))
    return out


def _size_limit(p: Path, limits: Limits) -> None:
    size = p.stat().st_size
    if size > limits.max_total_bytes:
        raise FormatError(str(p), f"table is too large to import at once ({size} bytes; the limit is "
                                  f"{limits.max_total_bytes}): de-identify it in a stream instead")


def iter_table_documents(path: PathLike, schema: LabelSchema, *, fmt: str | None = None,
                         columns: TableColumns | None = None, limits: Limits | None = None,
                         chunk_rows: int = 1_000, allow_overlap: bool = True) -> Iterator[Document]:
    """The documents of a table, row by row (ids checked unique as they come)."""
    p = Path(path)
    kind = table_format(p, fmt)
    lim = limits or Limits()
    header = table_columns(p, kind)
    cols = (columns or TableColumns()).resolved(header)
    meta_cols = cols.meta_columns(header)
    seen: dict[str, int] = {}
    max_cell = min(MAX_CELL_CHARS, lim.max_file_bytes)
    for chunk in iter_table(p, kind, chunk_rows=chunk_rows, required=cols.named(), checked=header,
                            max_cell_chars=max_cell):
        for i, rec in enumerate(chunk.frame.to_dict("records")):
            row = chunk.first_row + i
            for doc in row_documents(cols, rec, row, schema, meta_cols, str(p), allow_overlap=allow_overlap):
                key = name_key(doc.doc_id)
                if key in seen:
                    raise FormatError(str(p), f"row {row}: the document id repeats the one of row {seen[key]} "
                                              "(letter case, Unicode form and trailing dots aside)")
                seen[key] = row
                if len(seen) > lim.max_files:
                    raise FormatError(str(p), f"more than {lim.max_files} documents")
                yield doc


def read_table_documents(path: PathLike, schema: LabelSchema, *, fmt: str | None = None,
                         columns: TableColumns | None = None, limits: Limits | None = None,
                         progress: Progress | None = None, allow_overlap: bool = True) -> list[Document]:
    """Every document of one table file; all or nothing (the importers' size limits)."""
    p = Path(path)
    if not p.is_file() or p.suffix.lower() == ".zip":
        raise FormatError(str(p), "not a table file (a table is one .csv, .tsv or .parquet file, not a folder or zip)")
    lim = limits or Limits()
    _size_limit(p, lim)
    docs = list(iter_table_documents(p, schema, fmt=fmt, columns=columns, limits=lim, allow_overlap=allow_overlap))
    if not docs:
        raise FormatError(str(p), "the table has no rows")
    if progress:
        progress(1, 1)
    return docs


def _reader(fmt: str) -> Callable[..., list[Document]]:
    def read(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
             progress: Progress | None = None, allow_overlap: bool = True) -> list[Document]:
        items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        if len(items) != 1:
            raise FormatError(str(items[0]) if items else "", "a table import reads one file")
        return read_table_documents(items[0], schema, fmt=fmt, limits=limits, progress=progress,
                                    allow_overlap=allow_overlap)
    read.__name__ = f"read_{fmt}"
    read.__doc__ = f"One {fmt.upper()} table as documents (the registry's reader; default column names)."
    return read


def _records(docs: Sequence[Document]) -> tuple[list[dict], list[str]]:
    meta_keys: list[str] = []
    for d in docs:
        for k in d.meta or {}:
            if k not in meta_keys and k not in ("id", "patient_id", "text", "spans"):
                meta_keys.append(k)
    rows = []
    for d in docs:
        spans = [{"start": s.start, "end": s.end, "label": s.label, "category": s.category, "type": s.type}
                 for s in sorted(d.spans, key=lambda s: (s.start, s.end, s.label))]
        rows.append({"id": d.doc_id, "patient_id": d.patient_id or "", "text": d.text,
                     "spans": json.dumps(spans, ensure_ascii=False),
                     **{k: "" if (d.meta or {}).get(k) is None else str(d.meta[k]) for k in meta_keys}})
    return rows, ["id", "patient_id", "text", "spans", *meta_keys]


def _writer(fmt: str) -> Callable[..., list[Path]]:
    def write(docs: Sequence[Document], out_dir: str | os.PathLike, *, filename: str | None = None) -> list[Path]:
        import pandas as pd

        ids: set[str] = set()
        for d in docs:
            if d.doc_id in ids:
                raise FormatError(str(out_dir), f"two documents share the id {d.doc_id!r}")
            ids.add(d.doc_id)
        rows, columns = _records(docs)
        make_private_dirs(out_dir)
        target = Path(out_dir) / (filename or f"documents.{fmt}")
        with TableWriter(target, fmt) as w:
            if rows:
                w.write(pd.DataFrame(rows, columns=columns))
            return [w.commit(columns)]
    write.__name__ = f"write_{fmt}"
    write.__doc__ = f"Documents as one {fmt.upper()} table: id, patient_id, text, spans (JSON), metadata columns."
    return write


TABLE_READERS = {fmt: _reader(fmt) for fmt in ("csv", "tsv", "parquet")}
TABLE_WRITERS = {fmt: _writer(fmt) for fmt in ("csv", "tsv", "parquet")}

__all__ = ["TABLE_READERS", "TABLE_WRITERS", "TableChunk", "TableColumns", "count_rows", "iter_table_documents",
           "read_table_documents", "row_documents"]
