"""Reading and writing a collection a few documents at a time (commands over thousands of notes).

Why: ``detect`` over 25,000 notes must not hold 25,000 documents. :func:`iter_collection` reads
brat and plain-text folders (or zips) one document at a time, each read when asked for (names are
checked before the first; a broken file is raised when its turn comes, after the documents before
it were handed out), i2b2 XML one file at a time, JSONL one line at a time (each file's text is read
whole, its documents made when asked for).
:class:`CollectionWriter` writes what it is given at once, refusing a document id that an earlier
write already used, so a stream of chunks gives the files :func:`~pipeline.formats.write_collection`
would give for the whole list (formats of one file for the whole collection, CoNLL and the
annotation tools', are held and written at the end).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Iterator, Sequence

from pipeline.errors import FormatError
from pipeline.formats._output import FILE_MODE, check_spans_fit, make_private_dirs, name_key
from pipeline.formats._sources import Limits, PathLike
from pipeline.schemas import LabelSchema
from pipeline.spans import Document

#: Formats :func:`iter_collection` reads lazily (the others are read whole).
STREAMED_FORMATS = ("brat", "text", "jsonl", "xml")
#: Formats that write one file (or one dataset) for the whole collection from the whole list:
#: written per chunk, each chunk would replace the one before, so they are held until the end.
WHOLE_FILE_FORMATS = frozenset({"conll", "label-studio", "doccano", "prodigy", "spacy", "hf-dataset"})


def iter_collection(path: PathLike | Sequence[PathLike], fmt: str, schema: LabelSchema, *,
                    limits: Limits | None = None, spans: bool = True) -> Iterator[Document]:
    """The documents of :func:`~pipeline.formats.read_collection`, in the same order, lazily.
    ``spans=False``: brat ``.ann`` files are not read (for a command that replaces the spans)."""
    from pipeline.formats import READERS
    from pipeline.formats.brat import iter_brat
    from pipeline.formats.i2b2_xml import iter_i2b2_xml
    from pipeline.formats.jsonl import iter_jsonl
    from pipeline.formats.text import iter_text

    if fmt not in READERS:
        raise FormatError(str(path), f"unknown import format {fmt!r}; use one of {', '.join(READERS)}")
    if fmt == "brat":
        yield from iter_brat(path, schema, limits=limits or Limits(), spans=spans)
    elif fmt == "text":
        yield from iter_text(path, schema, limits=limits or Limits())
    elif fmt == "jsonl":
        yield from iter_jsonl(path, schema, limits=limits or Limits())
    else:
        yield from iter_i2b2_xml(path, schema, limits=limits or Limits())


class ReadAgain:
    """A collection read anew, lazily, each time it is iterated (:func:`iter_collection`): what a
    command that passes over thousands of notes twice (``deidentify``) holds instead of a list."""

    def __init__(self, path: PathLike | Sequence[PathLike], fmt: str, schema: LabelSchema, *,
                 spans: bool = True, limits: Limits | None = None) -> None:
        self.path, self.fmt, self.schema, self.spans, self.limits = path, fmt, schema, spans, limits

    def __iter__(self) -> Iterator[Document]:
        return iter_collection(self.path, self.fmt, self.schema, limits=self.limits, spans=self.spans)


#: Documents the ``auto`` schema is first chosen from (:func:`open_collection` with ``provisional``);
#: the first full pass over the input checks the rest.
SNIFF_DOCS = 64
#: A JSONL file larger than this gives those documents from its first this many bytes (a whole
#: file is what its reader reads): the preset is chosen without reading the file once per preset.
SNIFF_BYTES = 1 << 20


class SchemaGuessError(Exception):
    """A label past the first :data:`SNIFF_DOCS` documents does not fit the preset chosen from them.

    Not a user error: the caller catches it and starts again from :meth:`retry` (the next preset
    that fits, as a whole read would have chosen); it is raised during the first full pass, before
    a caller that writes only after that pass has written anything."""

    def __init__(self, retry: Callable[[], "tuple[LabelSchema, ReadAgain]"]) -> None:
        super().__init__("a later label does not fit the schema chosen from the first documents")
        self.retry = retry


class AutoRead(ReadAgain):
    """A :class:`ReadAgain` under a preset chosen from the first :data:`SNIFF_DOCS` documents.

    Why: choosing ``auto`` by reading the whole input once per preset tried, before a command's
    own two passes, read a JSONL input whole three or four times. Its first full iteration reads
    the spans too (whatever ``spans`` says) and checks every label against the preset; a label
    that does not fit raises :class:`SchemaGuessError`, whose ``retry`` tries the presets after it.
    Once a full iteration ends, :attr:`verified` is true and the input is read as ``spans`` asks."""

    def __init__(self, path: PathLike | Sequence[PathLike], fmt: str, schema: LabelSchema, *, spans: bool,
                 first_later: int) -> None:
        super().__init__(path, fmt, schema, spans=spans)
        self.first_later = first_later          # index in AUTO_SCHEMA_ORDER of the next preset to try
        self.verified = False

    def __iter__(self) -> Iterator[Document]:
        return super().__iter__() if self.verified else self._verifying()

    def _verifying(self) -> Iterator[Document]:
        from pipeline.errors import LabelNotInSchemaError

        try:
            yield from iter_collection(self.path, self.fmt, self.schema, limits=self.limits)
        except LabelNotInSchemaError:
            raise SchemaGuessError(self.retry) from None
        self.verified = True

    def verify(self) -> None:
        """Read the rest now if no full pass has: a caller about to refuse the run for another
        reason first learns whether a later label chooses another preset (:class:`SchemaGuessError`)."""
        if not self.verified:
            for _ in self:
                pass

    def retry(self) -> tuple[LabelSchema, ReadAgain]:
        return open_collection(self.path, self.fmt, "auto", spans=self.spans, provisional=True,
                               _first=self.first_later)


def _reads_whole(path: PathLike | Sequence[PathLike], fmt: str, schema: LabelSchema, limit: int | None) -> bool:
    """Read up to ``limit`` documents (all with ``None``) under ``schema``; whether that was all of
    them. A label outside ``schema`` raises :class:`~pipeline.errors.LabelNotInSchemaError`."""
    docs = iter_collection(path, fmt, schema)
    try:
        for n, _ in enumerate(docs, 1):
            if limit is not None and n > limit:
                return False
        return True
    finally:
        docs.close()


Record = tuple[str, str, str, int]       # a JSONL line, its default id, its file, its line number


def _jsonl_head(path: PathLike | Sequence[PathLike]) -> list[Record] | None:
    """The first ``SNIFF_DOCS + 1`` non-blank lines of a JSONL input whose first file is larger
    than :data:`SNIFF_BYTES`, from that file's first :data:`SNIFF_BYTES` (named as
    :func:`~pipeline.formats.jsonl.iter_jsonl` names them); ``None`` for any other input, or a
    start it could not cut into lines: that input is read as its reader reads it."""
    from pipeline.formats._sources import Limits, open_entries
    from pipeline.formats.jsonl import SUFFIXES

    with open_entries(path, SUFFIXES, Limits()) as entries:
        if not entries or entries[0].size <= SNIFF_BYTES:
            return None
        first = entries[0]
        data = first.head(SNIFF_BYTES)
    try:
        text = data[:data.rfind(b"\n") + 1].decode("utf-8")
    except UnicodeDecodeError:
        return None
    text = text[1:] if text.startswith("\ufeff") else text
    lines = [(raw, f"{first.stem_id}-{n}", first.display, n) for n, raw in enumerate(text.split("\n"), 1)
             if raw.strip()]
    return lines[:SNIFF_DOCS + 1] or None


def _fits_head(path: PathLike | Sequence[PathLike], head: list[Record], schema: LabelSchema) -> bool:
    """:func:`_reads_whole` over the lines of :func:`_jsonl_head` (never the whole input). Any
    error but a label's sends the preset to :func:`_reads_whole`, which meets it where the reader does."""
    from pipeline.errors import LabelNotInSchemaError
    from pipeline.formats.jsonl import parse_line

    try:
        for raw, default_id, display, line in head:
            parse_line(raw, schema, default_id, display, line)
    except LabelNotInSchemaError:
        raise
    except (FormatError, ValueError):
        return _reads_whole(path, "jsonl", schema, SNIFF_DOCS)
    return False


def open_collection(path: PathLike | Sequence[PathLike], fmt: str, schema: str = "auto", *,
                    spans: bool = True, provisional: bool = False,
                    _first: int = 0) -> tuple[LabelSchema, ReadAgain]:
    """:func:`~pipeline.formats.read_collection_auto` as a :class:`ReadAgain`: the named schema,
    or with ``"auto"`` the first preset every label fits (each tried by reading the whole input,
    one document at a time). ``spans=False``: spans are not read (brat ``.ann`` files are not opened)
    when the iteration comes; they are read to choose the schema.

    ``provisional``: each preset is tried on the first :data:`SNIFF_DOCS` documents only, and the
    first that fits them is returned as an :class:`AutoRead`, checked by the caller's first full
    pass (the same preset in the end, read once instead of once per preset tried). Only a caller
    that handles :class:`SchemaGuessError` before it writes asks for it."""
    from pipeline.errors import LabelNotInSchemaError
    from pipeline.formats import AUTO_SCHEMA_ORDER
    from pipeline.schemas import get_schema

    if schema != "auto":
        return get_schema(schema), ReadAgain(path, fmt, get_schema(schema), spans=spans)
    head = _jsonl_head(path) if provisional and fmt == "jsonl" else None
    for k, name in enumerate(AUTO_SCHEMA_ORDER[_first:], _first):
        chosen = get_schema(name)
        try:
            whole = (_fits_head(path, head, chosen) if head else
                     _reads_whole(path, fmt, chosen, SNIFF_DOCS if provisional else None))
        except LabelNotInSchemaError:
            continue
        if whole:
            return chosen, ReadAgain(path, fmt, chosen, spans=spans)
        return chosen, AutoRead(path, fmt, chosen, spans=spans, first_later=k + 1)
    if provisional:        # no preset fits the first notes: the whole read's refusal, word for word
        return open_collection(path, fmt, "auto", spans=spans, _first=_first)
    raise FormatError(str(path), f"labels fit none of the preset schemas ({', '.join(AUTO_SCHEMA_ORDER)}); "
                                 "pass --schema with a JSON schema file")


class CollectionWriter:
    """Writes chunks of documents under ``out_dir`` in ``fmt``; JSONL lines go to one file."""

    def __init__(self, out_dir: str | os.PathLike, fmt: str, **options) -> None:
        from pipeline.formats import WRITERS

        if fmt not in WRITERS:
            raise FormatError(str(out_dir), f"unknown export format {fmt!r}; use one of {', '.join(WRITERS)}")
        self.out_dir, self.fmt, self.options = Path(out_dir), fmt, options
        self._seen: set[str] = set()
        self._held: list[Document] = []
        self._file = None
        self._closed = False
        self.written = 0

    def __enter__(self) -> "CollectionWriter":
        return self

    def __exit__(self, exc_type, *exc) -> None:
        self.close(failed=exc_type is not None)

    def _open_jsonl(self):
        path = self.out_dir / self.options.get("filename", "documents.jsonl")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
        if hasattr(os, "fchmod"):
            os.fchmod(fd, FILE_MODE)
        return open(fd, "w", encoding="utf-8", newline="")

    def write(self, docs: Sequence[Document]) -> None:
        from pipeline.formats import WRITERS
        from pipeline.formats.jsonl import to_record

        make_private_dirs(self.out_dir)  # 0700 whatever the umask: what is written holds PHI
        for doc in docs:
            key = name_key(str(doc.doc_id)) if self.fmt != "jsonl" else str(doc.doc_id)
            if key in self._seen:
                raise FormatError(str(self.out_dir), f"two documents share the id {doc.doc_id!r}")
            self._seen.add(key)
        if self.fmt == "jsonl":
            for doc in docs:
                check_spans_fit(doc, self.out_dir)
            if self._file is None:
                self._file = self._open_jsonl()
            self._file.write("".join(json.dumps(to_record(d), ensure_ascii=False) + "\n" for d in docs))
        elif self.fmt in WHOLE_FILE_FORMATS:
            self._held.extend(docs)   # one file for the collection: written whole at close
        elif docs:
            WRITERS[self.fmt](list(docs), self.out_dir, **self.options)
        self.written += len(docs)

    def close(self, failed: bool = False) -> None:
        """Finish the output; ``failed``: the stream broke off (no empty file is made then)."""
        if self._closed:
            return
        self._closed = True
        if self.fmt in WHOLE_FILE_FORMATS and not failed:
            from pipeline.formats import WRITERS

            WRITERS[self.fmt](self._held, self.out_dir, **self.options)
            self._held = []
        if self.fmt == "jsonl" and self._file is None and not failed:
            make_private_dirs(self.out_dir)
            self._file = self._open_jsonl()          # an empty collection is an empty file, as write_jsonl
        if self._file is not None:
            self._file.close()
            self._file = None
