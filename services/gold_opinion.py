"""The second opinion a risk run asks for: a word classifier and a memory of marked words
(:mod:`pipeline.risk.gold_evidence`), trained on the project's finished gold notes.

Trained at risk-run time from the store, not saved beside a model version, because:

* the gold changes more often than the model (a document sent back from the Risk page and
  fixed is gold the next run should know), and a risk run over a rules-only or borrowed
  detector has no version of the project's to save it in;
* training takes seconds (hashed features, averaged SGD; ``benchmarks/risk_separation.py``
  prints the cost) and is deterministic: the same gold gives the same opinion. The process
  keeps the last few, keyed by a digest of the gold (texts and spans), so a page that scores
  twice trains once.
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from sqlite_utils import Database

import store
from pipeline.layers import GOLD
from pipeline.risk.gold_evidence import MIN_NOTES, GoldOpinion, train_opinion
from pipeline.risk.gold_tokens import GoldNote
from pipeline.spans import Document

_KEEP = 4
_cache: OrderedDict[str, GoldOpinion | None] = OrderedDict()
_lock = threading.Lock()


def gold_notes(docs: list[Document]) -> list[GoldNote]:
    """Gold documents as the second opinion reads them: text and (start, end, category)."""
    return [GoldNote(d.text, tuple(sorted((s.start, s.end, s.category) for s in d.spans))) for d in docs]


def digest(notes: list[GoldNote]) -> str:
    """A digest of the gold the opinion learns from (texts and spans, in order)."""
    h = hashlib.sha256()
    for n in notes:
        h.update(hashlib.sha256(n.text.encode("utf-8")).digest())
        h.update(repr(n.spans).encode("ascii", "backslashreplace"))
    return h.hexdigest()


def opinion_of(notes: list[GoldNote]) -> GoldOpinion | None:
    """:func:`pipeline.risk.gold_evidence.train_opinion`, remembered by the gold's digest."""
    key = digest(notes)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    opinion = train_opinion(notes)
    with _lock:
        _cache[key] = opinion
        while len(_cache) > _KEEP:
            _cache.popitem(last=False)
    return opinion


def project_opinion(db: Database, project_id: int) -> tuple[GoldOpinion | None, str]:
    """The second opinion of the project's finished gold notes, and in words what it is (or why
    there is none)."""
    notes = gold_notes(store.load_documents(db, project_id, layer=GOLD, status="finished"))
    opinion = opinion_of(notes)
    if opinion is None and len(notes) < MIN_NOTES:
        return None, f"no second opinion: the project has {len(notes)} finished gold note(s), it needs {MIN_NOTES}"
    if opinion is None:
        return None, f"no second opinion: none of the project's {len(notes)} finished gold notes marks any PHI"
    return opinion, f"a second detector trained on {opinion.notes} gold notes of this project looked too"
