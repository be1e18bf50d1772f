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

from pipeline.risk.gold_classifier import GoldClassifier, train_classifier
from pipeline.risk.gold_memory import GoldMemory, build_memory
from pipeline.risk.gold_tokens import GoldNote, Words, free_tokens, is_content, words_of
from pipeline.risk.residual import only_glue
from pipeline.risk.types import GOLD_CLASSIFIER as CLASSIFIER
from pipeline.risk.types import GOLD_MEMORY as MEMORY
from pipeline.risk.types import DeidDocument, DeidSpan

#: fewer gold notes than this teach a classifier nothing it can be trusted on
MIN_NOTES = 5
#: suggestions below this are not kept (the thresholds that colour start well above it)
FLOOR = 0.2


@dataclass(frozen=True)
class GoldOpinion:
    """The second detector: a classifier and a memory, trained on ``notes`` gold notes."""

    classifier: GoldClassifier | None
    memory: GoldMemory
    notes: int

    def candidates(self, doc: DeidDocument, floor: float = FLOOR) -> list[DeidSpan]:
        """Stretches of words outside every span of ``doc`` that either reader scores at least
        ``floor``: one candidate per stretch and reader, with its highest score."""
        words = words_of(doc.text)
        if not len(words):
            return []
        free = free_tokens(words, [(s.start, s.end) for s in doc.spans])
        usable = [f and is_content(w) and not only_glue(w) for f, w in zip(free, words.text)]
        out: list[DeidSpan] = []
        if self.classifier is not None:
            _, phi, cats = self.classifier.predict(doc.text)
            out += _stretches(words, usable, [(float(p), c) for p, c in zip(phi, cats)], floor, CLASSIFIER)
        hits = [(h.rate, h.category) if h is not None else (0.0, "") for h in self.memory.rates(words)]
        out += _stretches(words, usable, hits, floor, MEMORY)
        return out


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
                                score=round(p, 4), source=source))
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
    return GoldOpinion(train_classifier(notes), build_memory(notes), len(notes))
