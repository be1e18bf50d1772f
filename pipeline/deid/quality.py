"""How good are the surrogates: the quality report of a run, paraphrase and list surrogates side by side.

Per system (a profile's outputs over the same notes and spans) it gives:

* **Same rate**: the share of replacements identical to their original (case-, accent- and
  spacing-insensitive). Must be 0: a surrogate equal to its original is a leak.
* **n-gram overlap with the original**, per replacement, averaged: the character-trigram
  Jaccard similarity of surrogate and original (how much of the original's spelling survives),
  and the word overlap (the share of the surrogate's words that are words of the original).
  Lower is safer.
* **BERTScore-style similarity** of each de-identified note with its original note: every
  token vector of one is matched greedily to its most similar (cosine) token vector of the
  other; precision averages over the de-identified note's tokens, recall over the original's,
  F1 is their harmonic mean, averaged over notes (no IDF weighting, no baseline rescaling).
  Higher means the note reads closer to the original. The token vectors come from an
  ``embed`` function the caller injects (the project's masked language model,
  :meth:`models.masked_lm.MaskedLM.embed`): nothing here loads a model.

Only replacements count (``replace`` and ``paraphrase``: a shifted date is the same in both
systems, a placeholder is not a surrogate). Everything is computed in memory from the texts;
what a report keeps are figures (:meth:`QualityRow.to_dict`), never a string.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from pipeline.deid.batch import deidentify_batch
from pipeline.deid.context import DeidContext
from pipeline.deid.operators import trigram_similarity
from pipeline.deid.result import DeidResult
from pipeline.deid.normalize import fold_same_length, norm_key

Embed = Callable[[Sequence[str]], list[np.ndarray]]   # texts -> per text, unit token vectors (n x d)
REPLACING = ("replace", "paraphrase")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Replacement:
    """One replaced span: its original and its surrogate (in memory only) and how it was made."""

    category: str
    original: str
    surrogate: str
    action: str

    def __repr__(self) -> str:  # never the strings
        return f"Replacement(category={self.category!r}, action={self.action!r})"


def replacements(original_text: str, result: DeidResult) -> list[Replacement]:
    """The replaced spans of one result (``replace`` and ``paraphrase``), original beside surrogate."""
    out = []
    for src, new, action in zip(result.source_spans, result.spans, result.actions):
        if action in REPLACING:
            out.append(Replacement(src.category, original_text[src.start:src.end].strip(),
                                   result.text[new.start:new.end].strip(), action))
    return out


def word_overlap(original: str, surrogate: str) -> float:
    """Share of the surrogate's words (folded) that are words of the original (0 for none)."""
    new = _WORD.findall(fold_same_length(surrogate))
    if not new:
        return 0.0
    old = set(_WORD.findall(fold_same_length(original)))
    return sum(1 for w in new if w in old) / len(new)


def greedy_match(reference: np.ndarray, candidate: np.ndarray) -> tuple[float, float, float]:
    """BERTScore-style (precision, recall, F1) of two sets of unit token vectors (rows)."""
    if not len(reference) or not len(candidate):
        return 0.0, 0.0, 0.0
    sim = np.asarray(candidate, dtype=np.float32) @ np.asarray(reference, dtype=np.float32).T
    p = float(sim.max(axis=1).mean())
    r = float(sim.max(axis=0).mean())
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f


@dataclass
class QualityRow:
    """One system's figures (no text)."""

    system: str
    notes: int
    replacements: int
    same_rate: float
    char_trigram_overlap: float
    word_overlap: float
    bertscore_precision: float | None = None
    bertscore_recall: float | None = None
    bertscore_f1: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def quality_row(system: str, originals: Sequence[str], outputs: Sequence[str], reps: Sequence[Replacement], *,
                original_vectors: Sequence[np.ndarray] | None = None, embed: Embed | None = None) -> QualityRow:
    """The figures of one system: ``outputs[i]`` is the de-identified ``originals[i]``, ``reps``
    every replacement it made. With ``embed`` (or precomputed ``original_vectors`` and ``embed``
    for the outputs) the BERTScore columns are filled."""
    if len(originals) != len(outputs):
        raise ValueError("originals and outputs must be parallel")
    n = len(reps)
    same = sum(1 for r in reps if norm_key(r.original) == norm_key(r.surrogate))
    row = QualityRow(system=system, notes=len(originals), replacements=n,
                     same_rate=round(same / n, 4) if n else 0.0,
                     char_trigram_overlap=round(sum(trigram_similarity(r.original, r.surrogate) for r in reps) / n, 4)
                     if n else 0.0,
                     word_overlap=round(sum(word_overlap(r.original, r.surrogate) for r in reps) / n, 4) if n else 0.0)
    if embed is not None and originals:
        ref = list(original_vectors) if original_vectors is not None else embed(list(originals))
        cand = embed(list(outputs))
        scores = [greedy_match(a, b) for a, b in zip(ref, cand) if len(a) and len(b)]
        if scores:
            row.bertscore_precision = round(float(np.mean([s[0] for s in scores])), 4)
            row.bertscore_recall = round(float(np.mean([s[1] for s in scores])), 4)
            row.bertscore_f1 = round(float(np.mean([s[2] for s in scores])), 4)
    return row


def quality_table(originals: Sequence[str], systems: Mapping[str, tuple[Sequence[str], Sequence[Replacement]]],
                  embed: Embed | None = None) -> list[QualityRow]:
    """One :class:`QualityRow` per system (``name -> (outputs, replacements)``), the original
    notes embedded once."""
    ref = embed(list(originals)) if embed is not None and originals else None
    return [quality_row(name, originals, outs, reps, original_vectors=ref, embed=embed)
            for name, (outs, reps) in systems.items()]


PARAPHRASE, LIST = "paraphrase", "list surrogates"


def compare_with_list_surrogates(docs: Sequence, results: Sequence[DeidResult], profile, ctx: DeidContext, *,
                                 embed: Embed | None = None,
                                 spans: Mapping[str, Sequence] | None = None) -> list[QualityRow]:
    """The quality table of a paraphrase run (``results`` of ``docs`` with ``profile``) beside
    the same documents and spans de-identified with list surrogates instead
    (:meth:`pipeline.deid.profile.Profile.with_list_surrogates`, same secret and locale, in
    memory). ``spans``: the spans the run used where they are not the documents' own."""
    by_id = {d.doc_id: d for d in docs}
    done = [r for r in results if r.doc_id in by_id]
    chosen = [by_id[r.doc_id] for r in done]
    list_ctx = DeidContext(secret=ctx.secret, locale=ctx.locale, extra_lists=ctx.extra_lists,
                           list_loader=ctx.list_loader)
    baseline = deidentify_batch(chosen, profile.with_list_surrogates(), list_ctx,
                                spans={k: list(v) for k, v in (spans or {}).items()}).results
    originals = [d.text for d in chosen]
    systems = {
        PARAPHRASE: ([r.text for r in done], [x for d, r in zip(chosen, done) for x in replacements(d.text, r)]),
        LIST: ([r.text for r in baseline], [x for d, r in zip(chosen, baseline) for x in replacements(d.text, r)]),
    }
    return quality_table(originals, systems, embed)


def format_table(rows: Sequence[QualityRow | dict]) -> str:
    """A plain-text table of the rows (for the command line and the benchmark)."""
    cols = ("system", "notes", "replacements", "same_rate", "char_trigram_overlap", "word_overlap",
            "bertscore_precision", "bertscore_recall", "bertscore_f1")
    heads = ("system", "notes", "replaced", "Same rate", "char 3-gram", "word overlap", "BERTScore P",
             "BERTScore R", "BERTScore F1")
    data = [r.to_dict() if isinstance(r, QualityRow) else dict(r) for r in rows]

    def cell(v) -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.4f}"
        return str(v)

    table = [list(heads)] + [[cell(d.get(c)) for c in cols] for d in data]
    widths = [max(len(r[i]) for r in table) for i in range(len(cols))]
    lines = ["  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(r, widths)))
             for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
