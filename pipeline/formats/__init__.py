"""Import and export of documents and their spans: plain text, brat, i2b2 XML, JSONL, CoNLL, and
the annotation tools' formats (Label Studio, doccano, Prodigy, spaCy ``DocBin``, Hugging Face
``datasets`` Parquet) and tables (CSV, TSV, Parquet: :mod:`pipeline.formats.table`).

The CLI and the app call :func:`read_collection` and :func:`write_collection`; both dispatch
through small registries (one reader signature, one writer signature), so a new format is one
module plus one registry line. Readers check every file before returning anything and raise
:class:`pipeline.errors.FormatError` naming the file and line, never quoting document text.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Sequence

from pipeline.errors import FormatError, LabelNotInSchemaError
from pipeline.formats._interchange import EMPTY_LAYERS, MARKS, UNANNOTATED
from pipeline.formats._output import make_private_dirs
from pipeline.formats._sources import Limits, PathLike, Progress
from pipeline.formats.brat import read_brat, write_brat
from pipeline.formats.conll import bio_tags, read_conll, tokens_with_offsets, write_conll
from pipeline.formats.doccano import read_doccano, write_doccano
from pipeline.formats.hf_dataset import read_hf, write_hf
from pipeline.formats.i2b2_xml import read_i2b2_xml, write_i2b2_xml
from pipeline.formats.jsonl import read_jsonl, write_jsonl
from pipeline.formats.label_studio import read_label_studio, write_label_studio
from pipeline.formats.prodigy import read_prodigy, write_prodigy
from pipeline.formats.spacy_docbin import read_spacy, write_spacy
from pipeline.formats.table import TABLE_READERS, TABLE_WRITERS
from pipeline.formats.text import read_text, write_text
from pipeline.schemas import LabelSchema
from pipeline.spans import Document

Reader = Callable[..., list[Document]]   # (paths, schema, *, limits, progress, allow_overlap) -> documents
Writer = Callable[..., list[Path]]       # (docs, out_dir, **options) -> written files

READERS: dict[str, Reader] = {
    "brat": read_brat,
    "xml": read_i2b2_xml,
    "jsonl": read_jsonl,
    "text": read_text,
    "label-studio": read_label_studio,
    "doccano": read_doccano,
    "prodigy": read_prodigy,
    "spacy": read_spacy,
    "hf-dataset": read_hf,
    **TABLE_READERS,
}
WRITERS: dict[str, Writer] = {
    "brat": write_brat,
    "xml": write_i2b2_xml,
    "jsonl": write_jsonl,
    "text": write_text,
    "conll": write_conll,
    "label-studio": write_label_studio,
    "doccano": write_doccano,
    "prodigy": write_prodigy,
    "spacy": write_spacy,
    "hf-dataset": write_hf,
    **TABLE_WRITERS,
}
#: Formats whose files are not UTF-8 text (an upload of one is not sniffed for NUL bytes).
BINARY_FORMATS = frozenset({"spacy", "hf-dataset", "parquet"})
#: Writers that also carry the suggestions (``pre`` spans) beside the exported layer, and take
#: ``without_annotations`` (ids of documents whose exported layer does not exist).
SUGGESTION_FORMATS = frozenset({"label-studio", "prodigy"})


def read_collection(path: PathLike | Sequence[PathLike], fmt: str, schema: LabelSchema, *,
                    max_file_bytes: int = 20_000_000, max_files: int = 100_000,
                    limits: Limits | None = None, progress: Progress | None = None,
                    allow_overlap: bool = True) -> list[Document]:
    """All documents of ``path`` (a file, a folder or a zip) in format ``fmt``; all or nothing.

    With ``allow_overlap=False`` overlapping spans in one document are refused here, naming the
    file and line (an import into a project that refuses overlaps); exact duplicates are dropped.
    """
    if fmt not in READERS:
        raise FormatError(str(path), f"unknown import format {fmt!r}; use one of {', '.join(READERS)}")
    lim = limits or Limits(max_file_bytes=max_file_bytes, max_files=max_files)
    return READERS[fmt](path, schema, limits=lim, progress=progress, allow_overlap=allow_overlap)


AUTO_SCHEMA_ORDER = ("meddocan", "i2b2-2014", "german-8")


def read_collection_auto(path: PathLike | Sequence[PathLike], fmt: str, schema: str = "auto", *,
                         order: Sequence[str] = AUTO_SCHEMA_ORDER, **options) -> tuple[LabelSchema, list[Document]]:
    """Read with a named schema, or with ``"auto"`` the first preset every label fits.

    For third-party folders whose schema the user need not name. Only a label outside a preset
    moves on to the next one; any other error (a broken file) is raised at once.
    """
    from pipeline.schemas import get_schema

    if schema != "auto":
        chosen = get_schema(schema)
        return chosen, read_collection(path, fmt, chosen, **options)
    for name in order:
        chosen = get_schema(name)
        try:
            return chosen, read_collection(path, fmt, chosen, **options)
        except LabelNotInSchemaError:
            continue
    raise FormatError(str(path), f"labels fit none of the preset schemas ({', '.join(order)}); "
                                 "pass --schema with a JSON schema file")


def write_collection(docs: Sequence[Document], out_dir: str | os.PathLike, fmt: str, **options) -> list[Path]:
    """Write ``docs`` under ``out_dir`` in ``fmt`` (one of :data:`WRITERS`); returns the files.

    Every document is checked before the first file is written. ``options`` go to the writer
    (``root`` for xml, ``label`` for conll, ``lang`` for spacy, ``labels`` for label-studio,
    ``without_annotations`` for label-studio and prodigy).
    """
    if fmt not in WRITERS:
        raise FormatError(str(out_dir), f"unknown export format {fmt!r}; use one of {', '.join(WRITERS)}")
    make_private_dirs(out_dir)  # 0700 whatever the umask: what is written holds PHI
    return WRITERS[fmt](list(docs), out_dir, **options)


__all__ = [
    "Limits", "READERS", "WRITERS", "BINARY_FORMATS", "SUGGESTION_FORMATS", "UNANNOTATED", "EMPTY_LAYERS", "MARKS", "read_collection", "read_collection_auto", "write_collection",
    "read_brat", "write_brat", "read_i2b2_xml", "write_i2b2_xml", "read_jsonl", "write_jsonl",
    "read_text", "write_text", "write_conll", "read_conll", "tokens_with_offsets", "bio_tags",
]
