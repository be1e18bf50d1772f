"""Plain text: one document per ``.txt`` file, from a file, a folder or a zip; no spans.

The text is kept exactly as the file holds it (a leading BOM and ``\\r`` included), so offsets
found later line up with the original file.
"""
from __future__ import annotations

import os
from typing import Iterator, Sequence

from pipeline.errors import FormatError
from pipeline.formats._common import require_text
from pipeline.formats._output import target_paths, write_file
from pipeline.formats._sources import Limits, PathLike, Progress, check_unique_ids, decode_utf8, open_entries
from pipeline.schemas import LabelSchema
from pipeline.spans import Document


def read_text(paths: PathLike | Sequence[PathLike], schema: LabelSchema | None = None, *,
              limits: Limits | None = None, progress: Progress | None = None,
              allow_overlap: bool = True) -> list[Document]:
    """Every ``.txt`` under ``paths``; ``doc_id`` is the path relative to the folder or zip, without
    extension. ``schema`` and ``allow_overlap`` are accepted (and unused: plain text has no spans)
    so all readers share one signature."""
    return list(iter_text(paths, schema, limits=limits, progress=progress))


def iter_text(paths: PathLike | Sequence[PathLike], schema: LabelSchema | None = None, *,
              limits: Limits | None = None, progress: Progress | None = None,
              allow_overlap: bool = True) -> Iterator[Document]:
    """The documents of :func:`read_text` one at a time, each read when asked for."""
    with open_entries(paths, (".txt",), limits) as entries:
        if not entries:
            raise FormatError(str(paths), "no .txt files found")
        check_unique_ids([(e.stem_id, e.display) for e in entries])
        for i, e in enumerate(entries):
            text = decode_utf8(e.read(), e.display)
            require_text(text, e.display)
            yield Document(doc_id=e.stem_id, text=text, spans=[], meta={}, source_file=e.display)
            if progress:
                progress(i + 1, len(entries))


def write_text(docs: Sequence[Document], out_dir: str | os.PathLike) -> list[os.PathLike]:
    """``out_dir/<doc_id>.txt`` for every document, text written verbatim."""
    paths = target_paths(docs, out_dir, ".txt")
    for doc, p in zip(docs, paths):
        write_file(p, doc.text)
    return paths
