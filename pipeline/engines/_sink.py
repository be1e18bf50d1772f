"""Writing results as they stream back, through the :mod:`pipeline.formats` writers.

Per-document formats (brat, xml, text): each batch is written into a private folder inside the
output folder and every file is then moved into place with :func:`os.replace`, so a file in the
output is always complete; a rerun overwrites it with identical bytes (or skips it with
``--resume``), never duplicates it. JSONL (one file): documents are appended in input order as
the gap before them closes, to a temporary file that replaces ``documents.jsonl`` at the end.
Each file moved into place is recorded in the folder's :class:`~pipeline.engines.manifest.OutputManifest`
(when one is given), which is what a resume trusts. :func:`write_atomically` is the same for a
batch written at once (the local engine).
"""
from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path
from typing import Callable, Mapping, Sequence

from pipeline.spans import Document

TMP_PREFIX = ".engine-tmp-"
SUFFIX = {"brat": ".txt", "xml": ".xml", "text": ".txt"}
JSONL_NAME = "documents.jsonl"


def write_atomically(docs: Sequence[Document], out_dir: Path, fmt: str, manifest=None) -> list[Path]:
    """Write ``docs`` (``write_collection``) into a private folder inside ``out_dir``, then move
    each file into place and record it: a process killed midway leaves only finished files (and
    a private folder the next run removes), never a 0-byte or half-written output."""
    from pipeline.formats import write_collection

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    remove_stale_tmp(out)
    tmp = out / f"{TMP_PREFIX}{uuid.uuid4().hex}"
    try:
        placed = []
        for p in write_collection(docs, tmp, fmt):
            dest = out / Path(p).relative_to(tmp)
            dest.parent.mkdir(parents=True, exist_ok=True)
            data = Path(p).read_bytes() if manifest is not None else None
            os.replace(p, dest)
            placed.append(dest)
            if manifest is not None:
                manifest.record(dest, data)
                manifest.save(every=256)
        return placed
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if manifest is not None:
            manifest.save()


def remove_stale_tmp(out_dir: Path) -> None:
    """Private folders a killed run left behind (never holding a finished output file)."""
    if out_dir.is_dir():
        for p in out_dir.iterdir():
            if p.name.startswith(TMP_PREFIX) and p.is_dir():
                shutil.rmtree(p, ignore_errors=True)


class OutputSink:
    """``put(index, document)`` in any order; ``close()`` finishes the output.

    ``ids``: the input's document ids, in order (JSONL is written in that order); ``expected``: the indices
    that will be ``put``; ``kept``: for JSONL, documents a prior run wrote, keyed by the input
    id they came from (taken for the indices not expected). ``on_ordered(index, item)`` is
    called in input order for each successful expected index (the run summary is accumulated
    there, in the local engine's order).
    """

    def __init__(self, ids: Sequence[str], out_dir: Path, fmt: str, expected: set[int], *,
                 kept: Mapping[str, Document] | None = None,
                 on_ordered: Callable[[int, object], None] | None = None, flush_every: int = 256,
                 manifest=None):
        from pipeline.formats import write_collection  # noqa: F401 - fail early if formats is broken

        self.ids, self.out, self.fmt = ids, Path(out_dir), fmt
        self.expected, self.kept = expected, dict(kept or {})
        self.on_ordered = on_ordered
        self.manifest = manifest            # pipeline.engines.manifest.OutputManifest, or None
        self.flush_every = flush_every
        self.tmp = self.out / f"{TMP_PREFIX}{uuid.uuid4().hex}"
        self.pending: dict[int, tuple[Document | None, object, bool]] = {}
        self.next = 0
        self.chunk: list[Document] = []
        self._jsonl = None
        remove_stale_tmp(self.out)

    # ------------------------------------------------------------------ input
    def put(self, index: int, doc: Document | None, item: object = None) -> None:
        """``doc`` None: the document failed (nothing is written for it). ``item`` goes to
        ``on_ordered`` in input order; per-document formats are written at once."""
        self.put_many([(index, doc, item)])

    def put_many(self, results: Sequence[tuple[int, Document | None, object]]) -> None:
        """:meth:`put` for each ``(index, doc, item)``; per-document formats written in one call."""
        if self.fmt != "jsonl":
            self._write_now([doc for _, doc, _ in results if doc is not None])
        for index, doc, item in results:
            self.pending[index] = (doc if self.fmt == "jsonl" else None, item, doc is not None)
        self._advance()

    def _advance(self) -> None:
        n = len(self.ids)
        while self.next < n:
            i = self.next
            doc = None
            if i in self.expected:
                if i not in self.pending:
                    return
                doc, item, ok = self.pending.pop(i)
                if ok and self.on_ordered:
                    self.on_ordered(i, item)
            elif self.fmt == "jsonl":
                doc = self.kept.get(self.ids[i])
            if doc is not None:
                self.chunk.append(doc)
                if len(self.chunk) >= self.flush_every:
                    self._flush_jsonl()
            self.next += 1

    # ----------------------------------------------------------------- output
    def _write_now(self, docs: list[Document]) -> None:
        from pipeline.formats import write_collection

        if not docs:
            return
        self.tmp.mkdir(parents=True, exist_ok=True)
        for p in write_collection(docs, self.tmp, self.fmt):
            dest = self.out / Path(p).relative_to(self.tmp)
            dest.parent.mkdir(parents=True, exist_ok=True)
            data = Path(p).read_bytes() if self.manifest is not None else None
            os.replace(p, dest)
            if self.manifest is not None:
                self.manifest.record(dest, data)
                self.manifest.save(every=self.flush_every)

    def _flush_jsonl(self) -> None:
        from pipeline.formats import write_collection

        self.tmp.mkdir(parents=True, exist_ok=True)
        if self._jsonl is None:
            self._jsonl = open(self.tmp / JSONL_NAME, "wb")
        if self.chunk:
            part = write_collection(self.chunk, self.tmp, "jsonl", filename="part.jsonl")[0]
            self._jsonl.write(Path(part).read_bytes())
            self.chunk = []

    def close(self, *, complete: bool) -> None:
        """Finish: JSONL replaces ``documents.jsonl`` only when ``complete`` (every document ok)."""
        try:
            if self.fmt == "jsonl" and complete:
                self._advance()
                self._flush_jsonl()
                self._jsonl.close()
                self._jsonl = None
                os.replace(self.tmp / JSONL_NAME, self.out / JSONL_NAME)
                if self.manifest is not None:
                    self.manifest.record(self.out / JSONL_NAME)
        finally:
            if self.manifest is not None:
                self.manifest.save()
            if self._jsonl is not None:
                self._jsonl.close()
            shutil.rmtree(self.tmp, ignore_errors=True)
