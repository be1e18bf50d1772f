"""The text side of the generative member: where a note is cut into chunks that fit the model,
the spans recovered from its rewrites, and the per-token distribution they vote with.

Kept apart from :mod:`models.llm_member` (which loads and runs the model) because none of it
needs a model: the tests and the benchmark's oracle rows exercise it with stub rewriters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from models.words import Words
from pipeline.detection.rewrite_labels import resolve_tag
from pipeline.schemas import LabelSchema

@dataclass(frozen=True)
class Placed:
    """A recovered span of a note: absolute offsets, placeholder tag, chunk faithfulness."""

    start: int
    end: int
    tag: str
    score: float



# ------------------------------------------------------------------------------ chunking
_SENTENCE_END = re.compile(r"(?<=[.!?;:])[ \t]+")
_WORD_GAP = re.compile(r"[ \t]+")


def _split(text: str, start: int, end: int, pattern: re.Pattern) -> list[tuple[int, int]]:
    out, a = [], start
    for m in pattern.finditer(text, start, end):
        if m.end() < end:
            out.append((a, m.end()))
            a = m.end()
    out.append((a, end))
    return [r for r in out if r[1] > r[0]]


def chunk_ranges(text: str, count: Callable[[list[str]], list[int]], limit: int) -> list[tuple[int, int]]:
    """Contiguous ``(start, end)`` ranges covering ``text``, each of at most ``limit`` tokens by
    ``count`` where the text allows: lines are packed together; a longer line is cut after
    sentence ends, a longer sentence between words (a single longer word stays whole)."""
    if not text:
        return []
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]*\n|[^\n]+$", text)]
    pieces: list[tuple[int, int]] = []
    sizes: list[int] = []

    def add(ranges: list[tuple[int, int]], level: int) -> None:
        n = count([text[a:b] for a, b in ranges])
        for (a, b), k in zip(ranges, n):
            if k > limit and level < 2:
                add(_split(text, a, b, (_SENTENCE_END, _WORD_GAP)[level]), level + 1)
            else:
                pieces.append((a, b))
                sizes.append(k)

    add(lines, 0)
    chunks: list[tuple[int, int]] = []
    cur_a, cur_n = None, 0
    for (a, b), k in zip(pieces, sizes):
        if cur_a is not None and cur_n + k > limit:
            chunks.append((cur_a, a))
            cur_a, cur_n = None, 0
        if cur_a is None:
            cur_a = a
        cur_n += k
    if cur_a is not None:
        chunks.append((cur_a, len(text)))
    return chunks


# ------------------------------------------------------------------------- probabilities
def tag_types(tag: str, schema: LabelSchema, types: Sequence[str]) -> list[int]:
    """Indices into ``types`` that a placeholder tag votes for (all of them for an untyped or
    unplaceable tag)."""
    got = resolve_tag(tag, schema) if tag else None
    if got is not None:
        cat, fine = got
        if fine and fine in types:
            return [types.index(fine)]
        idx = [k for k, t in enumerate(types) if schema._type_to_category.get(t) == cat]
        if idx:
            return idx
    return list(range(len(types)))


def spans_to_probs(placed: Sequence[Placed], words: Words, labels: Sequence[str], schema: LabelSchema,
                   confidence: float = 0.95) -> np.ndarray:
    """A ``(n_words, n_labels)`` distribution per word token, the shape every member gives (see
    the module notes): ``O`` = 1 outside spans; inside, ``confidence x score`` on the B- (first
    token) or I- (the rest) columns of the tag's types, evenly, the remainder on ``O``."""
    types = [l[2:] for l in labels[1::2]]
    out = np.zeros((len(words), len(labels)), dtype=np.float32)
    out[:, 0] = 1.0
    if not len(words) or not types:
        return out
    starts = np.asarray(words.starts)
    ends = np.asarray(words.ends)
    taken = np.zeros(len(words), dtype=bool)
    for p in sorted(placed, key=lambda p: (-p.score, p.start, p.end)):   # overlaps: the surer span votes
        i0 = int(np.searchsorted(ends, p.start, side="right"))
        i1 = int(np.searchsorted(starts, p.end, side="left"))
        if i0 >= i1 or taken[i0:i1].any():
            continue
        taken[i0:i1] = True
        mass = float(min(1.0, max(0.0, confidence * p.score)))
        cols = tag_types(p.tag, schema, types)
        share = mass / len(cols)
        out[i0:i1, 0] = 1.0 - mass
        out[i0, [1 + 2 * k for k in cols]] = share
        if i1 > i0 + 1:
            out[i0 + 1:i1, [2 + 2 * k for k in cols]] = share
    return out



def _dedupe(placed: list[Placed]) -> list[Placed]:
    """Sorted and non-overlapping: a continuation may place a span again, or over part of one;
    overlapping spans become their union (the surer span's tag, the higher score)."""
    out: list[Placed] = []
    for p in sorted(placed, key=lambda p: (p.start, -p.end)):
        if out and p.start < out[-1].end:
            q = out[-1]
            tag = q.tag if q.score >= p.score else p.tag
            out[-1] = Placed(q.start, max(q.end, p.end), tag, max(q.score, p.score))
        else:
            out.append(p)
    return out
