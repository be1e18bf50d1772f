"""Where a reader's bytes come from: one file, a folder, or a zip, behind one small type.

Every reader goes through :func:`open_entries`, so the safety checks live in one place: file
count and size limits, zip-bomb checks (declared sizes and compression ratios, before a byte is
inflated), refusal of absolute or ``..`` paths, links and duplicate names inside archives,
refusal of symbolic links inside an imported folder, and strict UTF-8 decoding that reports the
line of the first bad byte. Nothing is ever extracted to disk: zip members are read into memory
one at a time, bounded by the limits.

The zip-bomb rule (:class:`Limits`): nothing may inflate more than ``max_zip_ratio`` times, as
one member or as the whole archive (the sum of what is read against the archive's size on
disk), once it inflates beyond ``ratio_check_above`` bytes. Below that a member or a whole
archive is harmless however well it compresses (an empty ``.ann``, a short repetitive note),
and above it no real clinical text comes near 200x. The whole-archive ratio is what stops many
small members that each pass the member check (a 270 KB zip of thousands of 60 KB members);
``max_total_bytes`` caps the total whatever the ratio.
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
from pipeline.formats._output import name_key, name_problem

PathLike = str | os.PathLike
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Limits:
    """Bounds a reader refuses to exceed; the defaults suit a project import, tests shrink them."""

    max_file_bytes: int = 20_000_000
    max_files: int = 100_000
    max_total_bytes: int = 2_000_000_000
    #: inflated/compressed ratio above which a zip member, or a whole zip, is treated as a bomb
    max_zip_ratio: float = 200.0
    #: a member (or a whole archive) inflating to at most this many bytes is not ratio-checked:
    #: tiny files compress wildly and harmlessly; the archive's total is checked all the same
    ratio_check_above: int = 65_536


@dataclass(frozen=True)
class Entry:
    """One input file: ``rel`` is its posix path relative to the folder or zip it came from."""

    rel: str
    display: str
    size: int
    _load: Callable[[], bytes] = field(repr=False, compare=False)
    _head: Callable[[int], bytes] | None = field(default=None, repr=False, compare=False)

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

    def head(self, n: int) -> bytes:
        """At most the first ``n`` bytes: a file on disk is read no further (for a reader that
        looks at the start of a large file first; a zip member is read whole and cut)."""
        return self._head(n) if self._head is not None else self.read()[:n]


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


def _file_entry(path: Path, rel: str, limits: Limits, *, nofollow: bool = False) -> Entry:
    """A file on disk; ``nofollow`` (files found in a folder) refuses a file that was swapped for a
    symbolic link between listing and reading."""
    size = path.stat().st_size
    _check_size(str(path), size, limits)

    def read_up_to(n: int) -> bytes:
        flags = os.O_RDONLY | (getattr(os, "O_NOFOLLOW", 0) if nofollow else 0)
        try:
            fd = os.open(path, flags)
            with open(fd, "rb") as f:
                return f.read(n)
        except OSError as e:
            raise FormatError(str(path), f"cannot be read ({type(e).__name__})") from None

    def load() -> bytes:
        data = read_up_to(limits.max_file_bytes + 1)
        _check_size(str(path), len(data), limits)  # it may have grown since stat
        return data

    return Entry(rel=rel, display=str(path), size=size, _load=load, _head=read_up_to)


def _refuse_links(root: Path, dirpath: str, names: Sequence[str]) -> None:
    """A symbolic link inside an imported folder could pull in any file the importing user can
    read (``notes/x.txt -> ~/.ssh/id_rsa``), so links to files and to folders are refused; the
    error names the link relative to the folder, never where it points."""
    for name in names:
        if _is_hidden([name]):
            continue  # hidden entries are never read
        p = Path(dirpath) / name
        if p.is_symlink():
            rel = p.relative_to(root).as_posix()
            raise FormatError(str(root), f"{rel!r} is a symbolic link; links inside an imported folder are refused "
                                         "(copy the file in instead)")


def _folder_entries(root: Path, suffixes: tuple[str, ...], limits: Limits) -> list[Entry]:
    def unreadable(e: OSError) -> None:  # os.walk would otherwise skip the folder silently
        raise FormatError(str(root), f"a folder inside it cannot be read ({type(e).__name__})")

    out: list[Entry] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=unreadable):
        _refuse_links(root, dirpath, [*dirnames, *filenames])
        dirnames[:] = sorted(d for d in dirnames if not _is_hidden([d]))
        for name in sorted(filenames):
            if _is_hidden([name]) or not name.lower().endswith(suffixes):
                continue
            p = Path(dirpath) / name
            if not p.is_file():
                continue
            out.append(_file_entry(p, p.relative_to(root).as_posix(), limits, nofollow=True))
            if len(out) > limits.max_files:
                raise FormatError(str(root), f"more than {limits.max_files} files")
    return out


def _check_ratios(display: str, chosen: Sequence[zipfile.ZipInfo], archive_bytes: int, limits: Limits) -> None:
    """The zip-bomb rule (see the module's docstring), on declared sizes, before a byte is inflated.

    Declared sizes cannot lie upwards: a member that inflates beyond its declared size is
    refused while it is read. The total is checked first (an absolute bound), then each member
    (the message names the first one over the limit), then the archive as a whole (many small
    members, each under ``ratio_check_above``).
    """
    total = sum(i.file_size for i in chosen)
    if total > limits.max_total_bytes:
        raise FormatError(display, f"archive expands to more than {limits.max_total_bytes} bytes: refused")
    for info in chosen:
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > limits.ratio_check_above and ratio > limits.max_zip_ratio:
            raise FormatError(display, f"archive member {info.filename!r} expands {ratio:.0f}x "
                                       f"(limit {limits.max_zip_ratio:.0f}x): refused as a possible zip bomb")
    ratio = total / max(archive_bytes, 1)
    if total > limits.ratio_check_above and ratio > limits.max_zip_ratio:
        raise FormatError(display, f"archive expands {ratio:.0f}x in all ({len(chosen)} members, {total} bytes; "
                                   f"limit {limits.max_zip_ratio:.0f}x): refused as a possible zip bomb")


def _zip_entries(path: Path, zf: zipfile.ZipFile, suffixes: tuple[str, ...], limits: Limits) -> list[Entry]:
    display = str(path)
    chosen: list[zipfile.ZipInfo] = []
    seen: set[str] = set()
    for info in zf.infolist():
        name = info.filename
        if info.is_dir():
            continue
        pure = PurePosixPath(name.replace("\\", "/"))
        if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":") or ".." in pure.parts:
            raise FormatError(display, f"archive member {name!r} has an absolute or parent-relative path; refused")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise FormatError(display, f"archive member {name!r} is a symbolic link; refused")
        if pure.as_posix() in seen:  # zip allows it; reading by name would give one copy for both
            raise FormatError(display, f"archive member {name!r} appears more than once; refused")
        seen.add(pure.as_posix())
        if _is_hidden(pure.parts) or not pure.name.lower().endswith(suffixes):
            continue
        if info.flag_bits & 0x1:
            raise FormatError(display, f"archive member {name!r} is encrypted")
        _check_size(f"{display}!{name}", info.file_size, limits)
        chosen.append(info)
        if len(chosen) > limits.max_files:
            raise FormatError(display, f"more than {limits.max_files} files")
    _check_ratios(display, chosen, path.stat().st_size, limits)
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
    """Refuse ids the writers could not write back (:func:`~pipeline.formats._output.name_problem`)
    and two documents whose ids are equal or one under :func:`~pipeline.formats._output.name_key`
    (letter case, Unicode form, trailing dots: one would overwrite the other on export, or two
    notes would look like one): ``docs_ids`` is ``[(doc_id, display), ...]``, the id being the
    file's path inside its folder or zip, so naming it quotes no content."""
    seen: dict[str, tuple[str, str]] = {}
    for doc_id, display in docs_ids:
        problem = name_problem(doc_id)
        if problem:
            raise FormatError(display, f"this file's path cannot be used as a document name: {problem}")
        key = name_key(doc_id)
        if key in seen:
            other_id, other = seen[key]
            how = "is also used by" if other_id == doc_id else \
                f"differs only in letter case, Unicode form or trailing dots from {other_id!r} in"
            raise FormatError(display, f"document id {doc_id!r} {how} {other}")
        seen[key] = (doc_id, display)
