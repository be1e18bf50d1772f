"""Importing documents (and their spans) into a project: one path for the app's upload and the
command line's ``import``.

Reading and checking is :mod:`pipeline.formats.uploads` (an upload's bytes, or a file, folder or
zip on disk, with the same checks); storing is :func:`store_documents`: one transaction that
creates the project when asked and adds every document with its spans, or writes nothing.
Summaries name counts and labels only, never document text.
"""
from __future__ import annotations

import os
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from sqlite_utils import Database

import store
from pipeline.formats import EMPTY_LAYERS, MARKS, SUGGESTION_FORMATS, UNANNOTATED, Limits
from pipeline.formats.table import TableColumns, read_table_documents
from pipeline.errors import FormatError
from pipeline.formats.table_io import TABLE_FORMATS, table_columns
from pipeline.formats.uploads import UploadLimits, read_local, read_upload, upload_name
from pipeline.layers import GOLD, is_annotator_layer
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, dedupe
from services import access


@dataclass(frozen=True)
class ImportSummary:
    """What an import stored: counts and labels only (safe to show and to log)."""

    project_id: int
    filename: str
    format: str
    layer: str | None
    doc_ids: list[int] = field(default_factory=list)
    spans: int = 0
    spans_per_category: dict[str, int] = field(default_factory=dict)
    spans_per_type: dict[str, int] = field(default_factory=dict)
    created: bool = False
    #: spans stored in layers other than ``layer``, by layer (a Label Studio export's
    #: annotators and predictions)
    other_layers: dict[str, int] = field(default_factory=dict)

    @property
    def documents(self) -> int:
        return len(self.doc_ids)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["documents"] = self.documents
        return d


def store_documents(db: Database, project: store.Project | None, docs: Sequence[Document], fmt: str, *,
                    filename: str, user: str | None, layer: str | None = GOLD, allow_overlap: bool = False,
                    new_project: tuple[str, LabelSchema] | None = None) -> ImportSummary:
    """Store checked documents in one transaction: the project (``new_project`` = name and schema
    when ``project`` is None) and every document with its spans in ``layer`` (plain text has no
    spans and gets no layer rows). A failure writes nothing."""
    spanless = fmt == "text" or (fmt in TABLE_FORMATS and not any(d.spans for d in docs))  # a table without spans
    store_layer = None if spanless else layer
    main_docs, other_layers, unannotated = split_layers(docs, store_layer, marks=fmt in SUGGESTION_FORMATS)
    # a document nobody annotated (a Label Studio task without an annotation) gets no layer, not
    # an empty one; documents found free of PHI still get theirs
    empty_later = store_layer is not None and any(unannotated)
    with store.transaction(db):
        created = project is None
        if created:
            if new_project is None:
                raise ValueError("store_documents needs a project or a new project's name and schema")
            pid = store.create_project(db, new_project[0], new_project[1], user=user)
        else:
            pid = project.id
        ids = store.add_documents(db, pid, main_docs, layer=store_layer, user=user,
                                  empty_layers=store_layer is not None and not empty_later, allow_overlap=allow_overlap)
        for doc_id, d, skip in zip(ids, main_docs, unannotated):
            if empty_later and not d.spans and not skip:
                store.save_layer(db, doc_id, store_layer, [], expected_version=0, user=user, status="finished")
        for doc_id, spans_by_layer in zip(ids, other_layers):
            for name, spans in sorted(spans_by_layer.items()):
                store.save_layer(db, doc_id, name, spans, expected_version=0, user=user, status="finished",
                                 allow_overlap=allow_overlap)
    by_label = Counter((s.category, s.type or "-") for d in main_docs for s in d.spans)
    by_layer = Counter(name for layers in other_layers for name, spans in layers.items() for _ in spans)
    per_category: Counter = Counter()
    for (c, _t), n in by_label.items():
        per_category[c] += n
    return ImportSummary(project_id=pid, filename=filename, format=fmt, layer=store_layer, doc_ids=list(ids),
                         spans=sum(by_label.values()), spans_per_category=dict(sorted(per_category.items())),
                         spans_per_type={f"{c}/{t}": n for (c, t), n in sorted(by_label.items())}, created=created,
                         other_layers=dict(sorted(by_layer.items())))


def split_layers(docs: Sequence[Document], layer: str | None, *, marks: bool = False
                 ) -> tuple[list[Document], list[dict[str, list]], list[bool]]:
    """Documents with only the spans of the import's layer; per document the spans of the
    other layers a format named (Label Studio's annotators and predictions: ``Span.layer``); and
    per document whether it is unannotated. A span naming the import's own layer, or none,
    stays with the document.

    ``marks``: the format's reader sets :data:`~pipeline.formats.MARKS` (Label Studio, Prodigy),
    so they are obeyed: an unannotated document gets no layer, an annotator's layer listed as
    empty is stored empty. They are taken out of the stored metadata whatever the format."""
    main: list[Document] = []
    others: list[dict[str, list]] = []
    unannotated: list[bool] = []
    for d in docs:
        keep, rest = [], {}
        for s in d.spans:
            if not s.layer or s.layer == layer:
                keep.append(s.with_(layer=""))
            else:
                rest.setdefault(s.layer, []).append(s.with_(layer="", doc_id=""))
        if marks:
            for name in d.meta.get(EMPTY_LAYERS) or []:
                if is_annotator_layer(str(name)) and name != layer:
                    rest.setdefault(str(name), [])
        meta = {k: v for k, v in d.meta.items() if k not in MARKS}
        main.append(Document(d.doc_id, d.text, dedupe(keep), meta, d.patient_id, d.source_file))
        others.append(rest)
        unannotated.append(marks and bool(d.meta.get(UNANNOTATED)) and not keep)
    return main, others, unannotated


def import_upload(db: Database, project_id: int, filename: str, data: bytes, fmt: str, *, user: Any,
                  layer: str | None = GOLD, limits: UploadLimits | None = None,
                  allow_overlap: bool = False, columns: TableColumns | None = None) -> ImportSummary:
    """Read one upload and store its documents (and spans, in ``layer``) in one transaction.

    Everything is checked before the store is touched; a failure at any point leaves the store
    as it was (no project, document, layer or span row added). Overlapping spans are refused
    unless ``allow_overlap``, by the reader, so the error names the file and line
    (:class:`~pipeline.errors.SpanOverlapError`). Raises :class:`~pipeline.errors.FormatError`,
    :class:`~pipeline.spans.SpanError`, :class:`store.DuplicateError`, :class:`store.NotFoundError`,
    :class:`PermissionDenied` or :class:`~pipeline.errors.StoreBusyError`: all safe to show.
    ``columns``: a table's columns, as the command line's ``--*-column`` options give them.
    """
    who = access.actor(user, "import_documents")
    project = store.get_project(db, project_id)
    docs = read_upload(filename, data, fmt, project.schema, limits, allow_overlap=allow_overlap, columns=columns)
    return store_documents(db, project, docs, fmt, filename=upload_name(filename), user=who, layer=layer,
                           allow_overlap=allow_overlap)


def upload_table_header(filename: str, data: bytes, fmt: str) -> list[str]:
    """The column names of an uploaded table (CSV/TSV: its first line; Parquet: its schema), read
    without parsing the rows, for the Admin page's column choices. Raises
    :class:`~pipeline.errors.FormatError` naming the file as uploaded, never a cell."""
    name = upload_name(filename)
    if fmt not in TABLE_FORMATS:
        raise FormatError(name, f"{fmt} is not a table format ({', '.join(TABLE_FORMATS)})")
    if name.lower().endswith(".zip"):
        raise FormatError(name, "a table is one .csv, .tsv or .parquet file, not a zip")
    with tempfile.TemporaryDirectory(prefix="wb-header-") as tmp:
        path = Path(tmp) / name
        path.write_bytes(bytes(data))
        try:
            return table_columns(path, fmt)
        except FormatError as e:
            raise FormatError(name, str(e).replace(str(path), "").lstrip(": ") or "not a table") from None


def import_path(db: Database, path: str | os.PathLike, fmt: str, *, project_name: str, schema: LabelSchema,
                user: str | None, layer: str | None = GOLD, split: str | None = None, allow_overlap: bool = False,
                limits: Limits | None = None, progress: Callable[[int, int], None] | None = None,
                columns: TableColumns | None = None) -> ImportSummary:
    """Read a file, folder or zip on disk and store it into ``project_name`` (created with
    ``schema`` when missing; an existing project keeps its own schema). All or nothing.
    ``columns``: which columns of a table (csv, tsv, parquet) hold the text, id, patient and
    metadata (:class:`pipeline.formats.table.TableColumns`; default: ``text``, ``id``, ``patient_id``)."""
    project = store.get_project_by_name(db, project_name)
    use = project.schema if project else schema
    if columns is not None and fmt in TABLE_FORMATS:
        docs = read_table_documents(path, use, fmt=fmt, columns=columns, limits=limits, progress=progress,
                                    allow_overlap=allow_overlap)
    else:
        docs = read_local(path, fmt, use, limits=limits, progress=progress, allow_overlap=allow_overlap)
    if split:
        for d in docs:
            d.meta["split"] = split
    return store_documents(db, project, docs, fmt, filename=os.fspath(path), user=user, layer=layer,
                           allow_overlap=allow_overlap, new_project=(project_name, schema))
