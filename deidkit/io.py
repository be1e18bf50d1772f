"""Reading and writing every registered format (:data:`pipeline.formats.READERS` / ``WRITERS``).

A format another module registers (Label Studio, doccano, ...) is available here the moment it
is in the registry: nothing in this module names one.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from pipeline.spans import Document

PathLike = str | os.PathLike


@dataclass(frozen=True)
class Formats:
    """The format names :func:`read` and :func:`write` accept."""

    read: tuple[str, ...]
    write: tuple[str, ...]


def formats() -> Formats:
    """The registered formats, by name.

    >>> {"jsonl", "csv", "parquet"} <= set(formats().read) and "conll" in formats().write
    True
    """
    from pipeline.formats import READERS, WRITERS

    return Formats(tuple(sorted(READERS)), tuple(sorted(WRITERS)))


def read(path: PathLike, fmt: str, *, schema: str = "auto", columns=None) -> list[Document]:
    """The documents of ``path`` (a file, folder or zip) in format ``fmt``, with their spans; all or
    nothing. ``schema``: a preset name, a JSON schema file, or ``"auto"`` (the first preset every
    label fits). ``columns``: for a table, a :class:`pipeline.formats.table.TableColumns`."""
    from pipeline.formats import read_collection_auto
    from pipeline.formats.table import read_table_documents
    from pipeline.formats.table_io import TABLE_FORMATS
    from pipeline.schemas import get_schema

    if columns is not None and fmt in TABLE_FORMATS:
        return read_table_documents(path, get_schema("i2b2-2014" if schema == "auto" else schema), fmt=fmt,
                                    columns=columns)
    return read_collection_auto(path, fmt, schema)[1]


def write(docs: Sequence[Document], out_dir: PathLike, fmt: str, **options) -> list[Path]:
    """Write ``docs`` under ``out_dir`` (created 0700) in ``fmt``; returns the files written.

    >>> import tempfile
    >>> from pipeline.spans import Document, Span
    >>> note = Document("note-1", "Seen by Dr Wu.", [Span("note-1", 11, 13, "NAME", "DOCTOR")])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     files = write([note], tmp, "csv")
    ...     back = read(files[0], "csv", schema="i2b2-2014")
    >>> [(s.start, s.end, s.type) for s in back[0].spans] == [(11, 13, "DOCTOR")]
    True
    """
    from pipeline.formats import write_collection

    return write_collection(list(docs), out_dir, fmt, **options)
