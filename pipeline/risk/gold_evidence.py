"""The second opinion on PHI left: what a detector of another kind, trained on the project's
gold, reads as PHI in a released note outside its spans.

The project's detector decides what is replaced; where it misses, its own near-miss probability
is low too (``benchmarks/risk_separation.py``: half the MEDDOCAN dev notes with PHI left stayed
green on its evidence alone). :class:`GoldOpinion` holds two readers built from the gold alone:

* :mod:`pipeline.risk.gold_classifier`: a linear word classifier (no sequence decoding, no
  word lists), giving each word the probability that the annotators would have marked it;
* :mod:`pipeline.risk.gold_memory`: how often the annotators marked each word where it appears.

:meth:`GoldOpinion.candidates` returns their suggestions outside the released spans as
candidates (``source`` ``gold:classifier`` / ``gold:memory``), which
:func:`pipeline.risk.residual.candidate_reasons` turns into reasons at
``RiskConfig.second_amber`` / ``second_red`` and ``memory_amber`` / ``memory_red``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from pipeline.risk.gold_classifier import GoldClassifier, train_classifier
from pipeline.risk.gold_memory import GoldMemory, build_memory
from pipeline.risk.gold_tokens import OUTSIDE, GoldNote, Words, free_tokens, gold_labels, is_content, words_of
from pipeline.risk.residual import only_glue
from pipeline.risk.types import GOLD_CLASSIFIER as CLASSIFIER
from pipeline.risk.types import GOLD_MEMORY as MEMORY
from pipeline.risk.types import DeidDocument, DeidSpan

#: fewer gold notes than this teach a classifier nothing it can be trusted on
MIN_NOTES = 5
#: folds of the gold for the held-out reference (see :meth:`GoldOpinion.rarity`)
REFERENCE_FOLDS = 5
#: suggestions below this are not kept: the lowest threshold that colours (``RiskConfig.memory_amber``
#: 0.9; the classifier's 0.998); at 0.5 a hundred MEDDOCAN notes gave 11,605 candidates
FLOOR = 0.9


@dataclass(frozen=True)
class GoldOpinion:
    """The second detector: a classifier and a memory, trained on ``notes`` gold notes.

    ``reference``: the classifier's probabilities, sorted, for the words the annotators left
    unmarked in gold notes it did not learn from (``REFERENCE_FOLDS`` folds of the gold, each
    scored by a classifier trained on the others). A word's score is the share of those it outranks
    (:meth:`rarity`): 0.999 means one unmarked word in a thousand scores as high. A probability
    means different things for a classifier trained on 18 notes and on 500 (the smaller is far
    more sure of itself); this share does not, so one threshold serves every project."""

    classifier: GoldClassifier | None
    memory: GoldMemory
    notes: int
    reference: np.ndarray | None = None

    def rarity(self, p: np.ndarray) -> np.ndarray:
        """Per probability, the share of the reference (unmarked held-out words) scoring below it."""
        if self.reference is None or not len(self.reference):
            return np.asarray(p, dtype=np.float64)
        return np.searchsorted(self.reference, p, side="left") / len(self.reference)

    def candidates(self, doc: DeidDocument, floor: float = FLOOR) -> list[DeidSpan]:
        """Stretches of words outside every span of ``doc`` that either reader scores at least
        ``floor``: one candidate per stretch and reader, with its highest score."""
        words = words_of(doc.text)
        if not len(words):
            return []
        free = free_tokens(words, [(s.start, s.end) for s in doc.spans])
        usable = [f and evidence_word(w) for f, w in zip(free, words.text)]
        out: list[DeidSpan] = []
        if self.classifier is not None:
            _, phi, cats = self.classifier.predict(doc.text)
            scores = self.rarity(phi)
            out += _stretches(words, usable, [(float(p), c) for p, c in zip(scores, cats)], floor, CLASSIFIER)
        hits = [(h.rate, h.category) if h is not None else (0.0, "") for h in self.memory.rates(words)]
        out += _stretches(words, usable, hits, floor, MEMORY)
        return out


def evidence_word(w: str) -> bool:
    """A word whose being left can be evidence: content (:func:`is_content`), not glue, and not
    a number of one or two digits alone (a dose, a count or a lab value far more often than an age
    or a day: on MEDDOCAN train, cross-fitted, leaving them out raised the flagged share at the
    same green share)."""
    return is_content(w) and not only_glue(w) and not (w.isdigit() and len(w) <= 2)


def _stretches(words: Words, usable: Sequence[bool], scored: Sequence[tuple[float, str]], floor: float,
               source: str) -> list[DeidSpan]:
    """Runs of consecutive usable words scoring >= ``floor``, each as one candidate."""
    out: list[DeidSpan] = []
    run: list[int] = []

    def close() -> None:
        if run:
            best = max(run, key=lambda j: scored[j][0])
            p, cat = scored[best]
            out.append(DeidSpan(words.starts[run[0]], words.ends[run[-1]], cat, cat, action="none",
                                score=round(p, 6), source=source))
            run.clear()

    for j in range(len(words)):
        if usable[j] and scored[j][0] >= floor:
            run.append(j)
        elif not (run and words.text[j] in ("-", "/") and words.starts[j] == words.ends[j - 1]):
            close()         # a hyphen or slash glued to a stretch ("Swan-Ganz", "12/03") keeps it open
    close()
    return out


def train_opinion(notes: Sequence[GoldNote], *, min_notes: int = MIN_NOTES) -> GoldOpinion | None:
    """The second opinion of ``notes``; None with fewer than ``min_notes`` notes or no marked word."""
    if len(notes) < min_notes or not any(n.spans for n in notes):
        return None
    return GoldOpinion(train_classifier(notes), build_memory(notes), len(notes), held_out_reference(notes))


def held_out_reference(notes: Sequence[GoldNote], folds: int = 0) -> np.ndarray | None:
    """The sorted probabilities a classifier gives the unmarked evidence words of gold notes it
    did not learn from (notes split by position, fold ``i`` = every ``folds``-th note from ``i``;
    ``REFERENCE_FOLDS`` by default: each fold's classifier learns from most of the gold, so its
    probabilities look like the final classifier's, which learns from all of it)."""
    folds = folds or REFERENCE_FOLDS
    scores: list[np.ndarray] = []
    for i in range(folds):
        held = [n for j, n in enumerate(notes) if j % folds == i]
        clf = train_classifier([n for j, n in enumerate(notes) if j % folds != i])
        if clf is None or not held:
            continue
        for n in held:
            words, phi, _ = clf.predict(n.text)
            unmarked = [lab == OUTSIDE and evidence_word(w) for lab, w in zip(gold_labels(words, n.spans), words.text)]
            scores.append(phi[np.asarray(unmarked, dtype=bool)] if len(words) else np.zeros(0))
    return np.sort(np.concatenate(scores)) if scores else None
