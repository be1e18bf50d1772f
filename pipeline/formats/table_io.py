"""Tables (CSV, TSV, Parquet) read and written a chunk of rows at a time, memory flat in file size.

Why pandas with pyarrow: pandas is already a dependency and ``read_csv(chunksize=...)`` is a fast
C parser that streams CSV/TSV (quoted cells spanning lines included) in chunks of rows; Parquet is
read row group by row group with ``pyarrow.parquet.ParquetFile.iter_batches`` and written with
``ParquetWriter``, so neither format is ever held whole. (polars would be a new dependency for the
same two calls.)

Every cell of a CSV/TSV is read as the exact string the file holds (no type guessing, no ``NA``
conversion), so a table comes back out as it went in except for the cells a caller changes.
Parquet keeps its column types; a null stays null.

Errors are :class:`~pipeline.errors.FormatError` naming the file and the data row (1 = the first
row under the header) or, for bad bytes, the line; never a cell's value, and never the header's
names (a file without a header has a first row of data there): only the names the user gave.

Writing goes to a private temporary file beside the target, renamed over it at
:meth:`TableWriter.commit`; a failure (:meth:`TableWriter.abort`) leaves nothing behind.
"""
from __future__ import annotations

import codecs
import csv
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from pipeline.errors import FormatError
from pipeline.formats._output import FILE_MODE

#: file suffix -> table format
SUFFIX_FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".pq": "parquet"}
TABLE_FORMATS = ("csv", "tsv", "parquet")
SEPARATORS = {"csv": ",", "tsv": "\t"}
DEFAULT_CHUNK_ROWS = 1_000
#: the longest cell accepted, in characters: the importers' per-file limit (``Limits.max_file_bytes``)
MAX_CELL_CHARS = 20_000_000
_LINE = re.compile(r"\bline (\d+)")
_ROW = re.compile(r"\brow (\d+)")


def table_format(path: str | os.PathLike, fmt: str | None = None) -> str:
    """``fmt`` if given, else the format of ``path``'s suffix; a :class:`FormatError` otherwise.

    >>> table_format("notes.TSV"), table_format("x.bin", "parquet")
    ('tsv', 'parquet')
    """
    if fmt:
        if fmt not in TABLE_FORMATS:
            raise FormatError(str(path), f"unknown table format {fmt!r}; use one of {', '.join(TABLE_FORMATS)}")
        return fmt
    found = SUFFIX_FORMATS.get(Path(path).suffix.lower())
    if found is None:
        raise FormatError(str(path), "not a table by its name (.csv, .tsv, .parquet); name the format")
    return found


@dataclass(frozen=True)
class TableChunk:
    """Rows ``first_row`` .. ``first_row + len(frame) - 1`` of a table (1 = the first data row)."""

    first_row: int
    frame: "object"          # a pandas DataFrame (pandas is imported only by table commands)


# --------------------------------------------------------------------------- the header
def _csv_header(path: Path, fmt: str) -> list[str]:
    try:
        with open(path, encoding="utf-8-sig", errors="strict", newline="") as f:
            row = next(csv.reader(f, delimiter=SEPARATORS[fmt]), None)
    except UnicodeDecodeError:
        raise _bad_utf8(path) from None
    except csv.Error:
        raise FormatError(str(path), "the header row is not well-formed", 1) from None
    if not row or not any(c.strip() for c in row):
        raise FormatError(str(path), "file is empty (no header row)")
    return row


def table_columns(path: str | os.PathLike, fmt: str) -> list[str]:
    """The column names of the table (its header row, or the Parquet schema)."""
    p = Path(path)
    if not p.is_file():
        raise FormatError(str(p), "no such file")
    if fmt == "parquet":
        return list(_parquet_file(p).schema_arrow.names)
    return _csv_header(p, fmt)


def check_columns(path: str | os.PathLike, have: Sequence[str], wanted: Sequence[str]) -> None:
    """Refuse a table missing a column the user named, or holding one name twice (never listing the
    header, which could be a first row of data)."""
    seen: set[str] = set()
    for name in have:
        if name in seen:
            raise FormatError(str(path), f"column {name!r} appears twice in the header" if name in wanted
                              else "two columns of the header have the same name")
        seen.add(name)
    for name in wanted:
        if name not in seen:
            raise FormatError(str(path), f"has no column {name!r} (it has {len(have)} columns; is the first "
                                         "line a header?)")


# --------------------------------------------------------------------------- reading
def _bad_utf8(path: Path) -> FormatError:
    """The line and byte offset of the first byte that is not UTF-8 (read again, line by line)."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    offset = 0
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, start=1):
            try:
                decoder.decode(raw)
            except UnicodeDecodeError as e:
                return FormatError(str(path), f"not valid UTF-8 (first bad byte at byte offset {offset + e.start})",
                                   lineno)
            offset += len(raw)
    return FormatError(str(path), "not valid UTF-8 (the file ends inside a character)")


def _parser_error(path: Path, e: Exception) -> FormatError:
    """pandas' parser message reduced to what it says about structure (its numbers), never a cell."""
    text = str(e)
    m = _LINE.search(text)
    if "Expected" in text and m:
        return FormatError(str(path), "a row has more cells than the header", int(m.group(1)))
    if "EOF inside string" in text:
        r = _ROW.search(text)
        return FormatError(str(path), "a quoted cell is never closed" + (f" (it opens at row {r.group(1)})" if r
                                                                         else ""))
    return FormatError(str(path), f"not a well-formed table ({type(e).__name__})")


def _csv_chunks(path: Path, fmt: str, chunk_rows: int) -> Iterator[object]:
    import pandas as pd

    try:
        reader = pd.read_csv(path, sep=SEPARATORS[fmt], dtype=str, keep_default_na=False, na_filter=False,
                             chunksize=chunk_rows, encoding="utf-8-sig", encoding_errors="strict", engine="c",
                             quoting=csv.QUOTE_MINIMAL)
        with reader:
            yield from reader
    except UnicodeDecodeError:
        raise _bad_utf8(path) from None
    except pd.errors.EmptyDataError:
        raise FormatError(str(path), "file is empty") from None
    except (pd.errors.ParserError, csv.Error, ValueError) as e:
        raise _parser_error(path, e) from None


def _arrow_errors() -> tuple[type[BaseException], ...]:
    """What pyarrow and pandas raise on a damaged Parquet file (its footer, schema, pandas metadata
    or a row group): refused as the file's error, by type only."""
    import pyarrow as pa

    return (pa.ArrowException, OSError, ValueError, TypeError, KeyError, IndexError, NotImplementedError,
            UnicodeDecodeError, OverflowError)


def _parquet_file(path: Path):
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        pf.schema_arrow, pf.metadata        # read now: a damaged footer fails here, not later
        return pf
    except _arrow_errors() as e:
        raise FormatError(str(path), f"not a readable Parquet file ({type(e).__name__})") from None


def _parquet_chunks(path: Path, chunk_rows: int) -> Iterator[object]:
    pf = _parquet_file(path)
    errors = _arrow_errors()        # evaluated now: a generator closed at exit must not import
    try:
        for batch in pf.iter_batches(batch_size=chunk_rows):
            batch.validate(full=True)       # strings must be UTF-8: checked here, not when a cell is read
            frame = batch.to_pandas()
            yield frame
    except errors as e:
        raise FormatError(str(path), f"a row group cannot be read ({type(e).__name__})") from None


def check_cells(path: str | os.PathLike, chunk: TableChunk, columns: Sequence[str], *,
                max_cell_chars: int = MAX_CELL_CHARS) -> None:
    """Refuse a cell of ``columns`` over ``max_cell_chars`` characters or holding a NUL character
    (binary data), naming the row and the column."""
    frame = chunk.frame
    for col in columns:
        values = frame[col]
        for i, v in enumerate(values.tolist()):
            if not isinstance(v, str):
                continue
            if len(v) > max_cell_chars:
                raise FormatError(str(path), f"row {chunk.first_row + i}: the cell of column {col!r} is too large "
                                             f"({len(v)} characters; the limit is {max_cell_chars})")
            if "\x00" in v:
                raise FormatError(str(path), f"row {chunk.first_row + i}: the cell of column {col!r} holds binary "
                                             "data (a NUL character)")


def iter_table(path: str | os.PathLike, fmt: str, *, chunk_rows: int = DEFAULT_CHUNK_ROWS,
               required: Sequence[str] = (), checked: Sequence[str] = (),
               max_cell_chars: int = MAX_CELL_CHARS) -> Iterator[TableChunk]:
    """The table's rows in chunks of ``chunk_rows``; ``required`` columns must exist (checked before
    the first row is read); ``checked`` columns get :func:`check_cells`."""
    p = Path(path)
    check_columns(p, table_columns(p, fmt), list(required))
    chunks = _parquet_chunks(p, chunk_rows) if fmt == "parquet" else _csv_chunks(p, fmt, chunk_rows)
    first = 1
    for frame in chunks:
        chunk = TableChunk(first, frame)
        check_cells(p, chunk, checked, max_cell_chars=max_cell_chars)
        yield chunk
        first += len(frame)


def count_rows(path: str | os.PathLike, fmt: str) -> int | None:
    """Rows in a Parquet file (from its footer); None for CSV/TSV (counting would read it twice)."""
    if fmt != "parquet":
        return None
    return int(_parquet_file(Path(path)).metadata.num_rows)


# --------------------------------------------------------------------------- writing
class TableWriter:
    """Writes chunks of rows to ``path`` in ``fmt`` through a private temporary file beside it;
    :meth:`commit` renames it into place, :meth:`abort` (or leaving a ``with`` block by an error)
    removes it, so a failed run writes nothing."""

    def __init__(self, path: str | os.PathLike, fmt: str) -> None:
        self.path, self.fmt = Path(path), fmt
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".part", dir=self.path.parent)
        os.close(fd)
        os.chmod(tmp, FILE_MODE)
        self.tmp = Path(tmp)
        self.rows = 0
        self._handle = None         # an open text file (csv/tsv) or a ParquetWriter
        self._schema = None

    def __enter__(self) -> "TableWriter":
        return self

    def __exit__(self, exc_type, *exc) -> None:
        if exc_type is not None:
            self.abort()

    def write(self, frame, arrow_schema=None) -> None:
        """Append ``frame`` (a DataFrame); ``arrow_schema``: the Parquet schema of the output (the
        first chunk's is used when None)."""
        if self.fmt == "parquet":
            self._write_parquet(frame, arrow_schema)
        else:
            if self._handle is None:
                self._handle = open(self.tmp, "w", encoding="utf-8", newline="")
            frame.to_csv(self._handle, sep=SEPARATORS[self.fmt], index=False, header=self.rows == 0,
                         lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        self.rows += len(frame)

    def _write_parquet(self, frame, arrow_schema) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._handle is None:
            self._schema = arrow_schema or pa.Schema.from_pandas(frame, preserve_index=False)
            self._handle = pq.ParquetWriter(self.tmp, self._schema)
        table = pa.Table.from_pandas(frame, schema=self._schema, preserve_index=False)
        self._handle.write_table(table)

    def commit(self, columns: Sequence[str] = (), arrow_schema=None) -> Path:
        """Close and move the file into place; a table without rows still gets its header
        (``columns``) or schema."""
        if self._handle is None:
            if self.fmt == "parquet":
                import pyarrow as pa
                import pyarrow.parquet as pq
                schema = arrow_schema or pa.schema([(c, pa.string()) for c in columns])
                pq.write_table(schema.empty_table(), self.tmp)
            else:
                with open(self.tmp, "w", encoding="utf-8", newline="") as f:
                    csv.writer(f, delimiter=SEPARATORS[self.fmt], lineterminator="\n").writerow(list(columns))
        self._close()
        os.replace(self.tmp, self.path)
        return self.path

    def _close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def abort(self) -> None:
        self._close()
        self.tmp.unlink(missing_ok=True)
