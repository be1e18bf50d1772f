"""Where writers put files: document ids become relative paths, checked so none escapes ``out_dir``.

Writers validate every document before writing the first byte, so a refused export leaves no
half-written folder behind. :func:`name_problem` is the one rule for what a document id may be;
the importers apply it too (:func:`pipeline.formats._sources.check_unique_ids`, the JSONL
reader), so a project never holds a document that cannot be exported.

Files are created owner-only (0600, folders 0700) whatever the process umask is: exports hold PHI.
"""
from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from typing import Iterable

from pipeline.errors import FormatError
from pipeline.spans import Document

#: Longest part of a document id, in UTF-8 bytes: file systems refuse names over 255 bytes,
#: and the writers add a suffix (``.txt``, ``.ann``, ``.xml``).
MAX_PART_BYTES = 240
FILE_MODE = 0o600
DIR_MODE = 0o700
CONTROL_CHARACTERS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_DRIVE = re.compile(r"^[A-Za-z]:")


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a document id that the writers turn into a file path, or None.

    A document id is a relative posix path (``ward7/note-1``): no absolute path or drive, no
    backslash, no empty, ``.`` or ``..`` part (``a//b`` would be written as ``a/b`` and collide),
    no control character (a newline in a file name), no invisible formatting character (a
    bidirectional override that shows ``txt.exe`` as ``exe.txt``, a zero-width space that makes
    two names look the same: Unicode category ``Cf``), no part longer than :data:`MAX_PART_BYTES`.
    Reasons never quote the name.
    """
    if not name or not name.strip():
        return "it is empty"
    if CONTROL_CHARACTERS.search(name):
        return "it holds a control character (a newline, tab or similar)"
    if any(unicodedata.category(c) == "Cf" for c in name):
        return "it holds an invisible formatting character (a zero-width or bidirectional control)"
    if _SURROGATE.search(name):
        return "it holds an unpaired surrogate (not valid Unicode)"
    if "\\" in name:
        return "it holds a backslash"
    if name.startswith("/") or _DRIVE.match(name):
        return "it is an absolute path"
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "it has an empty, '.' or '..' path part"
    if any(len(p.encode("utf-8")) > MAX_PART_BYTES for p in parts):
        return f"a path part is longer than {MAX_PART_BYTES} bytes"
    return None


def name_key(name: str) -> str:
    """Names equal under this key are one name to some file system or to a reader's eye, so two
    documents may not hold them: letter case (macOS, Windows), Unicode form (``José`` composed or
    decomposed: macOS stores one form), and trailing dots and spaces of a path part (Windows
    drops them: ``note.`` is ``note``). The store applies the same rule (``store.documents``).

    >>> name_key("Ward/NOTE.") == name_key("ward/note") and name_key("Jose\u0301") == name_key("JOSÉ")
    True
    """
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())
    return "/".join(part.rstrip(". ") for part in folded.split("/"))


def target_paths(docs: Iterable[Document], out_dir: str | os.PathLike, suffix: str) -> list[Path]:
    """One path per document: ``out_dir/<doc_id><suffix>``; ids may hold ``/`` for sub-folders."""
    out = Path(out_dir)
    paths: list[Path] = []
    seen: set[str] = set()
    for doc in docs:
        doc_id = str(doc.doc_id)
        problem = name_problem(doc_id)
        if problem:
            raise FormatError(str(out), f"document id {doc_id!r} cannot be used as a file name: {problem}")
        key = name_key(doc_id)  # refuse ids that collide on case-insensitive file systems too
        if key in seen:
            raise FormatError(str(out), f"two documents share the id {doc_id!r} "
                                        "(letter case, Unicode form and trailing dots aside)")
        seen.add(key)
        parts = doc_id.split("/")
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


def make_private_dirs(folder: str | os.PathLike) -> None:
    """Create ``folder`` and any missing parents as 0700 folders, set explicitly (``mkdir``'s mode
    is filtered by the umask, so a 022 umask would leave them readable by everyone). Folders that
    already exist are left as they are: they belong to whoever made them."""
    p = Path(folder)
    missing: list[Path] = []
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, DIR_MODE)
        except FileExistsError:
            if not d.is_dir():
                raise
            continue  # created meanwhile by someone else: theirs
        os.chmod(d, DIR_MODE)


def _open_private(path: Path) -> int:
    """A file descriptor for writing ``path``: 0600 whatever the umask, a symbolic link refused."""
    make_private_dirs(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
    try:
        if hasattr(os, "fchmod"):  # O_CREAT's mode is filtered by the umask, and ignored for an existing file
            os.fchmod(fd, FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_file(path: Path, data: str) -> None:
    """UTF-8, newlines untouched (offsets count ``\\r`` too); the file is 0600 whatever the umask,
    and a symbolic link at ``path`` is refused rather than followed."""
    with open(_open_private(path), "w", encoding="utf-8", newline="") as f:
        f.write(data)


def write_bytes(path: Path, data: bytes) -> None:
    """:func:`write_file` for a binary format (a spaCy ``DocBin``)."""
    with open(_open_private(path), "wb") as f:
        f.write(data)
