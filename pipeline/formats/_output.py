"""Where writers put files: document ids become relative paths, checked so none escapes ``out_dir``.

Writers validate every document before writing the first byte, so a refused export leaves no
half-written folder behind.
"""
from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Iterable

from pipeline.errors import FormatError
from pipeline.spans import Document


def target_paths(docs: Iterable[Document], out_dir: str | os.PathLike, suffix: str) -> list[Path]:
    """One path per document: ``out_dir/<doc_id><suffix>``; ids may hold ``/`` for sub-folders."""
    out = Path(out_dir)
    paths: list[Path] = []
    seen: set[str] = set()
    for doc in docs:
        doc_id = str(doc.doc_id)
        parts = PurePosixPath(doc_id).parts
        if (not doc_id or "\\" in doc_id or "\x00" in doc_id or doc_id.startswith("/")
                or any(p in ("", ".", "..") for p in parts)):
            raise FormatError(str(out), f"document id {doc_id!r} cannot be used as a file name")
        key = doc_id.lower()  # refuse ids that collide on case-insensitive file systems too
        if key in seen:
            raise FormatError(str(out), f"two documents share the id {doc_id!r}")
        seen.add(key)
        paths.append(out.joinpath(*parts[:-1], parts[-1] + suffix))
    return paths


def check_spans_fit(doc: Document, out_dir: str | os.PathLike) -> None:
    n = len(doc.text)
    for s in doc.spans:
        if not (0 <= s.start < s.end <= n):
            raise FormatError(str(out_dir), f"document {doc.doc_id!r}: span {s.start}-{s.end} ({s.label}) "
                                            f"lies outside the text (length {n})")
        if not s.category:
            raise FormatError(str(out_dir), f"document {doc.doc_id!r}: span {s.start}-{s.end} has no category")


def write_file(path: Path, data: str) -> None:
    """UTF-8, newlines untouched (offsets count ``\\r`` too)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(data)
