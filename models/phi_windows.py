"""PHI windows: short copies of a training note made of its PHI lines and their neighbours.

Why it was tried: a ward's notes are about 4 % PHI characters (vitals, drips, labs, devices; a
name in one line of six), so a CRF sees a few dozen examples of a type among tens of thousands of
tokens that are not PHI. CRFsuite has no instance weights; a window copy is the weight: each PHI
line is seen again with ``context`` lines either side, the lines without PHI once, in the note.
Measured (400 train-part ward notes, no refit, ``benchmarks/english_ward_loop.py``): other
patients of the same ward 0.948 -> 0.951 character recall (model alone), held-out ward templates
0.519 -> 0.432: the imbalance was not what held the model back (see docs/benchmarks.md, "why the
model learned little"), so every locale keeps it off (``TrainConfig.phi_windows``).
"""
from __future__ import annotations

from pipeline.spans import Document


def _line_bounds(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every line, the newline excluded."""
    out, start = [], 0
    while True:
        nl = text.find("\n", start)
        if nl < 0:
            out.append((start, len(text)))
            return out
        out.append((start, nl))
        start = nl + 1


def phi_window(doc: Document, context: int = 1) -> Document | None:
    """One copy of ``doc`` holding only its lines that carry PHI and ``context`` lines either side
    (kept in order, joined by newlines, spans moved with their lines); None when it has no spans
    or every line would be kept (the copy would be the note again)."""
    if not doc.spans:
        return None
    lines = _line_bounds(doc.text)
    keep: set[int] = set()
    k = 0
    for s in sorted(doc.spans, key=lambda s: s.start):
        while k + 1 < len(lines) and lines[k][1] < s.start:
            k += 1
        last = k
        while last + 1 < len(lines) and lines[last][1] < s.end:
            last += 1
        keep.update(range(max(0, k - context), min(len(lines), last + context + 1)))
    if len(keep) == len(lines):
        return None
    pieces, shift, pos = [], {}, 0
    for i in sorted(keep):
        a, b = lines[i]
        shift[i] = pos - a
        pieces.append(doc.text[a:b])
        pos += b - a + 1
    text = "\n".join(pieces)
    spans = []
    for s in doc.spans:
        i = next(j for j, (a, b) in enumerate(lines) if a <= s.start <= b)
        spans.append(s.with_(doc_id=doc.doc_id + "#w", start=s.start + shift[i], end=s.end + shift[i]))
    return Document(doc.doc_id + "#w", text, spans, meta={**doc.meta, "phi_window": True}, patient_id=doc.patient_id)


def phi_windows(docs: list[Document], copies: int, context: int = 1) -> list[Document]:
    """``copies`` window copies (:func:`phi_window`) of every note that has PHI and lines without."""
    if copies <= 0:
        return []
    made = [w for w in (phi_window(d, context) for d in docs) if w is not None]
    return [w for _ in range(copies) for w in made]
