"""PHI versus not-PHI per character: what leaks, whatever the label and however spans are cut.

Span-level scores punish a name found as "Ana" + "Pérez" as two errors although nothing leaks,
and token scores depend on how text is split. Counting characters does neither: a reference
character is found when any system span covers it (any label), a system character is right
when any reference span covers it. Whitespace is never counted (a span that runs over the
blank between two words neither gains nor loses). This is how de-identification of free text
is scored on sets whose gold is cut differently from the system (the ICU nursing notes of the
2008 PhysioNet deid package, the public synthetic PII sets).

The breakdown files a character under its own side's label: recall per reference label (of its
characters, how many the system covered), precision per system label (of its characters, how
many lie in reference PHI). Spans are ``(start, end, label)`` triples here, so the trainer's dev
scoring (:mod:`models.train_tune`) and :func:`pipeline.metrics.report.evaluate` share this code.

>>> text = "Pt John Smith seen by Dr. Lee on 12/03."
>>> gold = [(3, 13, "NAME"), (26, 29, "NAME"), (33, 38, "DATE")]
>>> found = [(3, 7, "NAME"), (8, 13, "NAME"), (22, 29, "NAME")]
>>> c = character_counts(text, found, gold)
>>> c.micro.tp, c.micro.fn, c.micro.fp     # John Smith and Lee found, 12/03 missed, "Dr." flagged
(12, 5, 3)
>>> round(c.micro.recall, 3), round(c.micro.precision, 3)
(0.706, 0.8)
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from pipeline.metrics.counts import Counts, Measure
from pipeline.spans import Span

Triple = tuple[int, int, str]


@dataclass
class CharacterCounts:
    """Character counts of one or more documents: pooled (``micro``) and per label, and how many
    documents had reference PHI and had all of it covered (document recall)."""

    micro: Counts = field(default_factory=Counts)
    per_label: dict[str, Counts] = field(default_factory=dict)
    documents_with_phi: int = 0
    documents_all_found: int = 0

    @property
    def document_recall(self) -> float:
        """Share of documents with reference PHI whose PHI characters were all covered (1.0 when
        no document has PHI)."""
        return self.documents_all_found / self.documents_with_phi if self.documents_with_phi else 1.0

    def __add__(self, other: "CharacterCounts") -> "CharacterCounts":
        labels = set(self.per_label) | set(other.per_label)
        return CharacterCounts(self.micro + other.micro,
                               {k: self.per_label.get(k, Counts(tp_sys=0)) + other.per_label.get(k, Counts(tp_sys=0))
                                for k in sorted(labels)},
                               self.documents_with_phi + other.documents_with_phi,
                               self.documents_all_found + other.documents_all_found)

    def summary(self) -> dict:
        """Precision, recall and F1 over characters, document recall and the PHI characters counted."""
        m = self.micro
        return {"precision": m.precision, "recall": m.recall, "f1": m.f1, "document_recall": self.document_recall,
                "support": m.n_reference}


def _labels_of(text: str, spans: Iterable[Triple]) -> dict[int, str]:
    """Non-blank character position -> label of the span covering it (a later span wins where
    spans of one side overlap, so a character counts once)."""
    out: dict[int, str] = {}
    n = len(text)
    for s, e, label in sorted(spans, key=lambda x: (x[0], x[1])):
        for i in range(max(0, s), min(n, e)):
            if not text[i].isspace():
                out[i] = label
    return out


def character_counts(text: str, system: Iterable[Triple], reference: Iterable[Triple]) -> CharacterCounts:
    """One document's character counts (see the module docstring)."""
    gold = _labels_of(text, reference)
    pred = _labels_of(text, system)
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])   # tp, fp, fn, tp_sys
    for i, label in gold.items():
        per[label][0 if i in pred else 2] += 1
    for i, label in pred.items():
        per[label][3 if i in gold else 1] += 1
    tp = sum(1 for i in gold if i in pred)
    micro = Counts(tp, len(pred) - tp, len(gold) - tp)
    return CharacterCounts(micro, {k: Counts(v[0], v[1], v[2], v[3]) for k, v in sorted(per.items())},
                           1 if gold else 0, 1 if gold and micro.fn == 0 else 0)


def corpus_counts(texts: Sequence[str], system: Sequence[Iterable[Triple]],
                  reference: Sequence[Iterable[Triple]]) -> CharacterCounts:
    """Character counts pooled over documents paired by position (texts, system, reference)."""
    out = CharacterCounts()
    for text, p, g in zip(texts, system, reference):
        out = out + character_counts(text, p, g)
    return out


def character_measure(system: Mapping[str, Sequence[Span]], reference: Mapping[str, Sequence[Span]],
                      texts: Mapping[str, str], doc_ids: Sequence[str]) -> Measure:
    """The ``characters`` measure of :func:`pipeline.metrics.report.evaluate`: per fine type and
    per category, pooled over ``doc_ids``."""
    ids = list(doc_ids)
    by_type = corpus_counts([texts.get(d, "") for d in ids],
                            [[(s.start, s.end, s.label) for s in system.get(d, ())] for d in ids],
                            [[(s.start, s.end, s.label) for s in reference.get(d, ())] for d in ids])
    by_cat = corpus_counts([texts.get(d, "") for d in ids],
                           [[(s.start, s.end, s.category) for s in system.get(d, ())] for d in ids],
                           [[(s.start, s.end, s.category) for s in reference.get(d, ())] for d in ids])
    return Measure.build("characters", by_type.per_label, by_cat.per_label, by_type.micro, by_cat.micro)


def by_label(counts: Mapping[str, Counts], micro: Counts | None = None) -> dict[str, dict]:
    """``{label: {"recall", "precision", "support"}}`` for tables (``None`` where a side has no
    characters of that label), with ``"ALL"`` from ``micro`` when given."""
    def row(c: Counts) -> dict:
        return {"recall": c.recall if c.n_reference else None,
                "precision": c.precision if c.n_system else None, "support": c.n_reference}

    out = {k: row(c) for k, c in counts.items()}
    if micro is not None:
        out["ALL"] = row(micro)
    return out
