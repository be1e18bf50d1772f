"""Where a reader's bytes come from: one file, a folder, or a zip, behind one small type.

Every reader goes through :func:`open_entries`, so the safety checks live in one place: file
count and size limits, zip-bomb checks (declared sizes and compression ratio, before a byte is
inflated), refusal of absolute or ``..`` paths and links inside archives, and strict UTF-8
decoding that reports the line of the first bad byte. Nothing is ever extracted to disk: zip
members are read into memory one at a time, bounded by the limits.
"""
from __future__ import annotations

import contextlib
import lzma
import os
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Iterator, Sequence

from pipeline.errors import FormatError

PathLike = str | os.PathLike
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Limits:
    """Bounds a reader refuses to exceed; the defaults suit a project import, tests shrink them."""

    max_file_bytes: int = 20_000_000
    max_files: int = 100_000
    max_total_bytes: int = 2_000_000_000
    #: uncompressed/compressed ratio above which a large zip member is treated as a bomb
    max_zip_ratio: float = 200.0
    #: members smaller than this are not ratio-checked (tiny files compress wildly and harmlessly)
    ratio_check_above: int = 1_000_000


@dataclass(frozen=True)
class Entry:
    """One input file: ``rel`` is its posix path relative to the folder or zip it came from."""

    rel: str
    display: str
    size: int
    _load: Callable[[], bytes] = field(repr=False, compare=False)

    @property
    def stem_id(self) -> str:
        """The relative path without its extension: the document id for file-per-document formats."""
        p = PurePosixPath(self.rel)
        return str(p.with_suffix("")) if p.suffix else str(p)

    @property
    def suffix(self) -> str:
        return PurePosixPath(self.rel).suffix.lower()

    def read(self) -> bytes:
        return self._load()


def decode_utf8(data: bytes, display: str) -> str:
    """Strict UTF-8; newlines and a leading BOM are kept exactly (offsets count every character).

    MEDDOCAN's offsets, in both its brat and its XML copy, count the BOM as character 0, so
    keeping it is the only choice that makes offsets and texts agree across formats.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise FormatError(display, f"not valid UTF-8 (first bad byte at byte offset {e.start})", line) from None


def _is_hidden(parts: Sequence[str]) -> bool:
    return any(p.startswith(".") or p == "__MACOSX" for p in parts)


def _check_size(display: str, size: int, limits: Limits) -> None:
    if size > limits.max_file_bytes:
        raise FormatError(display, f"file is too large ({size} bytes; the limit is {limits.max_file_bytes})")


def _strip_common_dirs(rels: list[str]) -> list[str]:
    """Drop wrapper folders every member shares, so a zipped folder reads like the folder itself."""
    parts = [PurePosixPath(r).parts for r in rels]
    while parts and all(len(p) > 1 for p in parts) and len({p[0] for p in parts}) == 1:
        parts = [p[1:] for p in parts]
    return [str(PurePosixPath(*p)) for p in parts]


def _file_entry(path: Path, rel: str, limits: Limits) -> Entry:
    size = path.stat().st_size
    _check_size(str(path), size, limits)

    def load() -> bytes:
        data = path.read_bytes()
        _check_size(str(path), len(data), limits)  # it may have grown since stat
        return data

    return Entry(rel=rel, display=str(path), size=size, _load=load)


def _folder_entries(root: Path, suffixes: tuple[str, ...], limits: Limits) -> list[Entry]:
    out: list[Entry] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not _is_hidden([d]))
        for name in sorted(filenames):
            if _is_hidden([name]) or not name.lower().endswith(suffixes):
                continue
            p = Path(dirpath) / name
            if not p.is_file():
                continue
            out.append(_file_entry(p, p.relative_to(root).as_posix(), limits))
            if len(out) > limits.max_files:
                raise FormatError(str(root), f"more than {limits.max_files} files")
    return out


def _zip_entries(path: Path, zf: zipfile.ZipFile, suffixes: tuple[str, ...], limits: Limits) -> list[Entry]:
    display = str(path)
    chosen: list[zipfile.ZipInfo] = []
    total = 0
    for info in zf.infolist():
        name = info.filename
        if info.is_dir():
            continue
        pure = PurePosixPath(name.replace("\\", "/"))
        if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":") or ".." in pure.parts:
            raise FormatError(display, f"archive member {name!r} has an absolute or parent-relative path; refused")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise FormatError(display, f"archive member {name!r} is a symbolic link; refused")
        if _is_hidden(pure.parts) or not pure.name.lower().endswith(suffixes):
            continue
        if info.flag_bits & 0x1:
            raise FormatError(display, f"archive member {name!r} is encrypted")
        _check_size(f"{display}!{name}", info.file_size, limits)
        if info.file_size > limits.ratio_check_above:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > limits.max_zip_ratio:
                raise FormatError(display, f"archive member {name!r} expands {ratio:.0f}x "
                                           f"(limit {limits.max_zip_ratio:.0f}x): refused as a possible zip bomb")
        total += info.file_size
        if total > limits.max_total_bytes:
            raise FormatError(display, f"archive expands to more than {limits.max_total_bytes} bytes: refused")
        chosen.append(info)
        if len(chosen) > limits.max_files:
            raise FormatError(display, f"more than {limits.max_files} files")
    rels = _strip_common_dirs([PurePosixPath(i.filename.replace("\\", "/")).as_posix() for i in chosen])
    out = []
    for info, rel in zip(chosen, rels):
        def load(info: zipfile.ZipInfo = info) -> bytes:
            where = f"{display}!{info.filename}"
            try:
                with zf.open(info) as f:
                    data = f.read(info.file_size + 1)
            except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, zlib.error,
                    lzma.LZMAError, ValueError, struct.error) as e:
                # zlib/lzma errors: a corrupt compressed stream (a damaged or tampered archive)
                why = "corrupt compressed data" if isinstance(e, (zlib.error, lzma.LZMAError)) else type(e).__name__
                raise FormatError(where, f"cannot be read from the archive ({why})") from None
            if len(data) > info.file_size:
                raise FormatError(where, "member is larger than the archive declares: refused")
            return data
        out.append(Entry(rel=rel, display=f"{display}!{info.filename}", size=info.file_size, _load=load))
    return out


@contextlib.contextmanager
def open_entries(paths: PathLike | Sequence[PathLike], suffixes: tuple[str, ...],
                 limits: Limits | None = None) -> Iterator[list[Entry]]:
    """Yield the entries with one of ``suffixes`` under ``paths`` (files, folders or .zip files).

    A file named directly is taken whatever its suffix. Entries are sorted by relative path;
    zip files stay open until the ``with`` block ends.
    """
    limits = limits or Limits()
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    suffixes = tuple(s.lower() for s in suffixes)
    with contextlib.ExitStack() as stack:
        entries: list[Entry] = []
        for item in items:
            p = Path(item)
            if not p.exists():
                raise FormatError(str(p), "no such file or folder")
            if p.is_dir():
                entries.extend(_folder_entries(p, suffixes, limits))
            elif p.suffix.lower() == ".zip":
                try:
                    zf = stack.enter_context(zipfile.ZipFile(p))
                except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, ValueError, struct.error) as e:
                    # NotImplementedError: an unknown zip version; ValueError: a bad UTF-8 member name
                    raise FormatError(str(p), f"not a readable zip archive ({type(e).__name__})") from None
                entries.extend(_zip_entries(p, zf, suffixes, limits))
            else:
                entries.append(_file_entry(p, p.name, limits))
            if len(entries) > limits.max_files:
                raise FormatError(str(p), f"more than {limits.max_files} files")
        if sum(e.size for e in entries) > limits.max_total_bytes:
            raise FormatError(str(items[0]) if items else "", f"input is larger than {limits.max_total_bytes} bytes")
        yield sorted(entries, key=lambda e: e.rel)


def check_unique_ids(docs_ids: list[tuple[str, str]]) -> None:
    """Refuse two documents with one id: ``docs_ids`` is ``[(doc_id, display), ...]``."""
    seen: dict[str, str] = {}
    for doc_id, display in docs_ids:
        if doc_id in seen:
            raise FormatError(display, f"document id {doc_id!r} is also used by {seen[doc_id]}")
        seen[doc_id] = display
