"""User uploads: the one entry point the app and the command line use to turn bytes into documents.

Why one module: an upload is untrusted input of any size and shape (a 2 GB zip bomb, a PDF
renamed ``.txt``, a brat file whose offsets belong to another text). Every check that depends
on it being an *upload* lives here, once, on top of the checks every reader already makes
(:mod:`pipeline.formats._sources`: zip-bomb ratios, member counts, strict UTF-8, offsets):

* a size limit on the upload itself (default 50 MiB, Streamlit's ``maxUploadSize``), checked
  before a byte is parsed;
* binary junk (a NUL byte, invalid UTF-8) refused with the file and line, not fed to a parser;
* nested archives refused by name (a zip inside a zip would otherwise be silently skipped, and
  its documents silently missing);
* control characters dropped from the upload's name (a newline in a name would split messages);
* temporary paths never leak into messages or into ``documents.source_file``: errors and
  documents name the file as the user called it (``notes.zip!a/b.txt``);
* the write (:mod:`services.imports`) is one transaction: all documents or none.

Messages name files, lines, counts and labels; never document text.
"""
from __future__ import annotations

import os
import struct
import tempfile
import zipfile
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path, PurePosixPath
from typing import Sequence

from pipeline.errors import FormatError
from pipeline.formats._output import CONTROL_CHARACTERS
from pipeline.formats import BINARY_FORMATS, READERS, Limits, read_collection
from pipeline.formats._common import safe_label
from pipeline.formats._sources import decode_utf8
from pipeline.formats.table import TABLE_READERS, TableColumns, read_table_documents
from pipeline.schemas import LabelSchema
from pipeline.spans import Document

MiB = 1024 * 1024
MAX_NAME_BYTES = 150

#: Suffixes of archives inside an archive; refused rather than silently skipped.
NESTED_ARCHIVE_SUFFIXES = (".zip", ".gz", ".tgz", ".tar", ".bz2", ".xz", ".7z", ".rar", ".jar", ".zst")


@dataclass(frozen=True)
class UploadLimits:
    """Bounds on one upload; the defaults suit the app (Streamlit refuses more than 50 MiB too).

    ``max_upload_bytes`` bounds the bytes received; the others bound what a zip may expand to
    (each member, all members, member count, and the compression ratio of each member and of
    the whole archive once they inflate beyond ``ratio_check_above`` bytes; see
    :mod:`pipeline.formats._sources`), so a small upload cannot become gigabytes in memory.
    """

    max_upload_bytes: int = 50 * MiB
    max_file_bytes: int = 50 * MiB
    max_total_bytes: int = 256 * MiB
    max_files: int = 20_000
    max_zip_ratio: float = 200.0
    ratio_check_above: int = 65_536

    def reader_limits(self) -> Limits:
        return Limits(max_file_bytes=self.max_file_bytes, max_files=self.max_files,
                      max_total_bytes=self.max_total_bytes, max_zip_ratio=self.max_zip_ratio,
                      ratio_check_above=self.ratio_check_above)


# --------------------------------------------------------------------------- names and messages

def upload_name(filename: str) -> str:
    """The base name of what the user uploaded, as messages and ``source_file`` show it.

    Browsers send a bare name, other clients may send a path: only the last part is kept, so an
    upload can never write or read outside its temporary folder. Control characters (a NUL, a
    newline) are dropped: they cannot be part of a file or document name, and a newline would
    split every message that names the upload.
    """
    raw = CONTROL_CHARACTERS.sub("", str(filename or "").replace("\\", "/"))
    raw = raw.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate cannot name a file
    name = PurePosixPath(raw).name.strip()
    if name in ("", ".", ".."):
        return "upload"
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:  # file systems refuse names over 255 bytes
        suffix = PurePosixPath(name).suffix
        suffix = suffix if len(suffix) <= 16 else ""
        room = MAX_NAME_BYTES - len(suffix.encode("utf-8"))
        name = name[: len(name) - len(suffix)].encode("utf-8")[:room].decode("utf-8", "ignore") + suffix
    return name


def _relabel(e: FormatError, tmp_prefix: str) -> FormatError:
    """The same error (same type: an overlap stays a :class:`SpanOverlapError`) naming the
    user's file instead of the temporary copy."""
    where = f"{e.path}:{e.line}" if e.line is not None else e.path
    text = str(e)
    message = text[len(where) + 2:] if text.startswith(where + ": ") else text
    return type(e)(e.path.replace(tmp_prefix, ""), message.replace(tmp_prefix, ""), e.line)


def _nul_line(data: bytes | str, idx: int) -> int:
    nl = b"\n" if isinstance(data, bytes) else "\n"
    return data.count(nl, 0, idx) + 1  # type: ignore[arg-type]


# --------------------------------------------------------------------------- checks

def _check_size(name: str, data: bytes, limits: UploadLimits) -> None:
    if len(data) > limits.max_upload_bytes:
        raise FormatError(name, f"upload is too large ({len(data)} bytes; the limit is {limits.max_upload_bytes} "
                                f"bytes): split it into several uploads")
    if not data:
        raise FormatError(name, "upload is empty")


def _sniff_plain(name: str, data: bytes) -> None:
    """Refuse binary junk before a parser sees it: a NUL byte, or bytes that are not UTF-8."""
    idx = data.find(b"\x00")
    if idx >= 0:
        raise FormatError(name, f"binary data (a NUL byte at byte offset {idx}): upload a UTF-8 text file",
                          _nul_line(data, idx))
    decode_utf8(data, name)  # raises FormatError with the line of the first bad byte


def _sniff_zip(name: str, data: bytes | Path) -> None:
    """Open the archive's directory (nothing is inflated) and refuse nested archives."""
    try:
        with zipfile.ZipFile(data if isinstance(data, Path) else BytesIO(data)) as zf:
            names = [i.filename for i in zf.infolist() if not i.is_dir()]
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, struct.error) as e:
        raise FormatError(name, f"not a readable zip archive ({type(e).__name__}); is it truncated?") from None
    for member in names:
        if member.lower().endswith(NESTED_ARCHIVE_SUFFIXES):
            raise FormatError(f"{name}!{member}", "archives inside an archive are refused; unpack it and upload "
                                                  "its files")


def _check_documents(docs: Sequence[Document], fmt: str) -> None:
    """A NUL character inside a text (a binary member of a zip, ``\\u0000`` in JSON) is junk."""
    for d in docs:
        idx = d.text.find("\x00")
        if idx < 0:
            continue
        where = d.source_file or str(d.doc_id)
        if fmt == "jsonl":  # the JSONL reader refuses these with their line; this is a backstop
            raise FormatError(where, "a document holds binary data (a NUL character)")
        raise FormatError(where, "binary data (a NUL character): upload UTF-8 text files", _nul_line(d.text, idx))


def check_local_zip(path: str | os.PathLike) -> None:
    """The command line's ``import`` of a ``.zip`` on disk gets the upload's nested-archive check."""
    p = Path(path)
    if p.is_file() and p.suffix.lower() == ".zip":
        _sniff_zip(upload_name(p.name), p)


def check_documents(docs: Sequence[Document], fmt: str) -> None:
    """Public form of the NUL-character check, for documents read from local paths."""
    _check_documents(docs, fmt)


# --------------------------------------------------------------------------- reading

def read_upload(filename: str, data: bytes, fmt: str, schema: LabelSchema,
                limits: UploadLimits | None = None, *, allow_overlap: bool = True,
                columns: TableColumns | None = None) -> list[Document]:
    """The documents of one upload (a single file, or a ``.zip`` of files), checked, not stored.

    Used to de-identify uploads without storing them, and by :func:`import_upload`. All or
    nothing: raises :class:`FormatError` naming the uploaded file (and member and line) for
    anything wrong in any file. ``brat`` needs a zip (a ``.txt`` and its ``.ann``).
    ``allow_overlap=False`` refuses overlapping spans here, with the file and line.
    ``columns``: which columns of a table upload hold what (:class:`~pipeline.formats.table.TableColumns`).
    """
    limits = limits or UploadLimits()
    name = upload_name(filename)
    if fmt not in READERS:
        raise FormatError(name, f"unknown import format {safe_label(fmt, READERS)}; use one of {', '.join(READERS)}")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise FormatError(name, "upload is not bytes")
    data = bytes(data)
    _check_size(name, data, limits)
    is_zip = name.lower().endswith(".zip")
    if is_zip:
        _sniff_zip(name, data)
    else:
        if fmt == "brat":
            raise FormatError(name, "brat needs each .txt with its .ann: upload a .zip holding both")
        if fmt not in BINARY_FORMATS:  # a .spacy or .parquet file is binary by design; its reader checks it
            _sniff_plain(name, data)
    with tempfile.TemporaryDirectory(prefix="wb-upload-") as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        del data
        prefix = f"{tmp}/"
        try:
            if columns is not None and fmt in TABLE_READERS:
                docs = read_table_documents(path, schema, fmt=fmt, columns=columns, limits=limits.reader_limits(),
                                            allow_overlap=allow_overlap)
            else:
                docs = read_collection(path, fmt, schema, limits=limits.reader_limits(), allow_overlap=allow_overlap)
        except FormatError as e:
            raise _relabel(e, prefix) from None
    for d in docs:
        if d.source_file:
            d.source_file = d.source_file.replace(prefix, "")
    _check_documents(docs, fmt)
    return docs


def read_local(path: str | os.PathLike, fmt: str, schema: LabelSchema, *, limits: Limits | None = None,
               progress=None, allow_overlap: bool = True) -> list[Document]:
    """The documents of a file, folder or ``.zip`` on disk (the command line's ``import``), with
    the upload's checks: no archive inside the archive, no binary data (a NUL character)."""
    check_local_zip(path)
    docs = read_collection(Path(path), fmt, schema, progress=progress, limits=limits, allow_overlap=allow_overlap)
    check_documents(docs, fmt)
    return docs


__all__ = ["UploadLimits", "read_local", "read_upload", "upload_name"]
