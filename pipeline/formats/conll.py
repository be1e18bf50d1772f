"""CoNLL/BIO export: ``token<TAB>B-LABEL|I-LABEL|O``, one token per line.

Each document starts with a ``-DOCSTART-`` line; sentences (here: lines of the text) are
separated by a blank line. Tokens are runs of word characters or single punctuation marks, with
character offsets, so every token maps back to its place in the text. A token overlapping a span
takes the span's label (B on the token holding the span's start); where spans overlap, the one
starting first (longest on ties) wins. Export only: offsets, not tokens, are the truth elsewhere.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Sequence

from pipeline.errors import FormatError
from pipeline.formats._output import check_spans_fit, write_file
from pipeline.spans import Document, Span

# word runs, or one visible non-space character; zero-width marks (BOM, ZWSP, joiners) are skipped
_TOKEN = re.compile(r"\w+|[^\w\s\ufeff\u200b\u200c\u200d\u2060]")
DOCSTART = "-DOCSTART-"


def tokens_with_offsets(text: str) -> list[tuple[str, int, int]]:
    """``[(token, start, end), ...]`` in text order; ``text[start:end] == token``."""
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def bio_tags(text: str, spans: Sequence[Span], *, label: str = "type") -> list[tuple[str, int, int, str]]:
    """``[(token, start, end, tag), ...]`` with BIO tags; ``label`` is ``"type"`` or ``"category"``."""
    def name(s: Span) -> str:
        return (s.category if label == "category" else s.label).replace(" ", "_")

    ordered = sorted(spans, key=lambda s: (s.start, -(s.end - s.start)))
    out: list[tuple[str, int, int, str]] = []
    j = 0
    prev: Span | None = None
    for tok, ts, te in tokens_with_offsets(text):
        while j < len(ordered) and ordered[j].end <= ts:
            j += 1
        hit = None
        for s in ordered[j:]:
            if s.start >= te:
                break
            if s.end > ts:
                hit = s
                break
        if hit is None:
            out.append((tok, ts, te, "O"))
        else:
            out.append((tok, ts, te, ("I-" if hit is prev else "B-") + name(hit)))
        prev = hit
    return out


def format_conll(doc: Document, *, label: str = "type") -> str:
    lines = [f"{DOCSTART}\tO", ""]
    last_end = None
    for tok, ts, te, tag in bio_tags(doc.text, doc.spans, label=label):
        if last_end is not None and "\n" in doc.text[last_end:ts] and lines[-1] != "":
            lines.append("")
        lines.append(f"{tok}\t{tag}")
        last_end = te
    if lines[-1] != "":
        lines.append("")
    return "\n".join(lines) + "\n"


def write_conll(docs: Sequence[Document], out_dir: str | os.PathLike, *, label: str = "type",
                filename: str = "documents.conll") -> list[Path]:
    """All documents into ``out_dir/<filename>`` in input order."""
    if label not in ("type", "category"):
        raise ValueError("label must be 'type' or 'category'")
    out = Path(out_dir)
    for doc in docs:
        check_spans_fit(doc, out)
    path = out / filename
    write_file(path, "".join(format_conll(d, label=label) for d in docs))
    return [path]


def read_conll(path: str | os.PathLike) -> list[list[tuple[str, str]]]:
    """A written CoNLL file back as ``[[(token, tag), ...] per document]`` (for checks and tests)."""
    docs: list[list[tuple[str, str]]] = []
    with open(path, encoding="utf-8", newline="") as f:
        for lineno, line in enumerate(f, start=1):
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith(DOCSTART):
                docs.append([])
                continue
            parts = line.split("\t")
            if len(parts) != 2 or not docs:
                raise FormatError(str(path), "expected 'token<TAB>tag' after a -DOCSTART- line", lineno)
            docs[-1].append((parts[0], parts[1]))
    return docs
