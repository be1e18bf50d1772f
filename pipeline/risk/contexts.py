"""Entity contexts: the words around each entity of a de-identified document.

DeIDClinic's context of an entity is the ``window`` words on each side of it. Here each entity
(and every other entity inside the window) is replaced by a ``[CATEGORY]`` placeholder, so the
context says *what kind* of thing stood there without depending on the surrogate that replaced it:
random surrogates would otherwise make every context look unique, and redaction marks would make
them all look alike. Words are ``\\w+`` runs, lower-cased; punctuation is dropped.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.risk.types import DeidDocument, DeidSpan

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Context:
    """One entity's context: the entity, the character stretch the window covers, its string."""

    doc_id: str
    span_index: int          # index into the document's ``spans``
    start: int               # window start in the de-identified text
    end: int                 # window end (exclusive)
    text: str                # normalised context string (placeholders, lower-case words)


def _tokens(text: str, spans: list[DeidSpan]) -> tuple[list[str], list[int], list[int], list[int]]:
    """Tokens of ``text`` where each entity is one placeholder token.

    Returns token strings, their start and end offsets, and for each span (in input order) the
    index of its token. Overlapping spans share the token of the first one.
    """
    order = sorted(range(len(spans)), key=lambda i: (spans[i].start, -spans[i].end))
    toks: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    tok_of = [0] * len(spans)
    cursor = 0
    last_tok = -1
    last_end = -1
    for i in order:
        s = spans[i]
        if s.start < last_end:               # overlaps the previous entity: same token
            tok_of[i] = last_tok
            if s.end > last_end:
                ends[last_tok] = last_end = s.end
            continue
        for m in _WORD.finditer(text, cursor, s.start):
            toks.append(m.group().lower())
            starts.append(m.start())
            ends.append(m.end())
        toks.append(f"[{s.category.lower()}]")
        starts.append(s.start)
        ends.append(s.end)
        last_tok = tok_of[i] = len(toks) - 1
        cursor = last_end = s.end
    for m in _WORD.finditer(text, cursor):
        toks.append(m.group().lower())
        starts.append(m.start())
        ends.append(m.end())
    return toks, starts, ends, tok_of


def extract_contexts(doc: DeidDocument, window: int = 5) -> list[Context]:
    """One :class:`Context` per span of ``doc`` (same order as ``doc.spans``)."""
    if not doc.spans:
        return []
    toks, starts, ends, tok_of = _tokens(doc.text, doc.spans)
    out: list[Context] = []
    n = len(toks)
    for i, t in enumerate(tok_of):
        lo, hi = max(0, t - window), min(n, t + window + 1)
        out.append(Context(doc.doc_id, i, starts[lo], ends[hi - 1], " ".join(toks[lo:hi])))
    return out
