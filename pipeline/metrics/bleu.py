"""Corpus BLEU (Papineni et al. 2002), small and dependency-free, for the content-preservation
score of a rewriting member (:mod:`pipeline.metrics.rewriting`).

``corpus_bleu`` is the original system-level BLEU: clipped n-gram counts (n = 1..4, uniform
weights) summed over the corpus before dividing, the closest reference length for the brevity
penalty, no smoothing (a corpus with no matching 4-gram scores 0). It returns a fraction in
[0, 1] (multiply by 100 for the usual scale) and agrees with NLTK's ``corpus_bleu`` on its
published examples (see ``tests/test_rewrite_measures.py``). ``bleu_tokens`` is the tokenizer used
on notes: letter runs, digit runs and single symbols, case kept (close to sacrebleu's ``13a``,
which splits punctuation off words).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Sequence

_TOKEN = re.compile(r"[^\W\d_]+|\d+|[^\w\s]|_", re.UNICODE)


def bleu_tokens(text: str) -> list[str]:
    """Tokens BLEU counts: letter runs, digit runs, single symbols; whitespace dropped."""
    return _TOKEN.findall(text)


def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def modified_precision(references: Sequence[Sequence[str]], hypothesis: Sequence[str], n: int) -> tuple[int, int]:
    """``(clipped matches, hypothesis n-grams)``: each n-gram counts at most as often as in the
    reference where it is most frequent."""
    counts = _ngrams(hypothesis, n)
    if not counts:
        return 0, 0
    best: Counter = Counter()
    for ref in references:
        for g, c in _ngrams(ref, n).items():
            if g in counts and c > best[g]:
                best[g] = c
    return sum(min(c, best[g]) for g, c in counts.items()), sum(counts.values())


def closest_ref_length(references: Sequence[Sequence[str]], hyp_len: int) -> int:
    """The reference length nearest ``hyp_len`` (the shorter one on a tie)."""
    return min((len(r) for r in references), key=lambda r: (abs(r - hyp_len), r))


def brevity_penalty(ref_len: int, hyp_len: int) -> float:
    if hyp_len > ref_len:
        return 1.0
    if hyp_len == 0:
        return 0.0
    return math.exp(1.0 - ref_len / hyp_len)


def corpus_bleu(references: Sequence[Sequence[Sequence[str]]], hypotheses: Sequence[Sequence[str]],
                weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25)) -> float:
    """System-level BLEU of ``hypotheses`` (token lists) against their ``references`` (for each
    hypothesis, a list of token lists). 0.0 when some n-gram order has no match."""
    if len(references) != len(hypotheses):
        raise ValueError("one list of references per hypothesis")
    num = [0] * len(weights)
    den = [0] * len(weights)
    hyp_len = ref_len = 0
    for refs, hyp in zip(references, hypotheses):
        if not refs:
            raise ValueError("every hypothesis needs at least one reference")
        for k in range(len(weights)):
            a, b = modified_precision(refs, hyp, k + 1)
            num[k] += a
            den[k] += b
        hyp_len += len(hyp)
        ref_len += closest_ref_length(refs, len(hyp))
    terms = []
    for w, a, b in zip(weights, num, den):
        if w == 0:
            continue
        if a == 0 or b == 0:
            return 0.0
        terms.append(w * math.log(a / b))
    return brevity_penalty(ref_len, hyp_len) * math.exp(math.fsum(terms))


def text_bleu(references: Sequence[str], hypotheses: Sequence[str]) -> float:
    """:func:`corpus_bleu` of texts (one reference each), tokenized by :func:`bleu_tokens`."""
    return corpus_bleu([[bleu_tokens(r)] for r in references], [bleu_tokens(h) for h in hypotheses])
