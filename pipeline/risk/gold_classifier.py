"""A second detector of another kind: a linear token classifier trained on the project's gold,
whose suggestions outside the released spans are evidence of PHI left.

The detector is a CRF (or an encoder) that decodes whole sequences and is tuned to a threshold;
where it misses, its own probabilities are low too. This one is built differently on purpose:
logistic regression over hashed, independent features of each word (its lower case, shape,
affixes, character trigrams, its neighbours two words either side and their shapes), no
sequence decoding, no gazetteers, no thresholds tuned for detection. It reads a released note
word by word and gives each word the probability that the project's annotators would have
marked it (a binary model) and its likeliest category (a second model, fitted on the marked
words only). :class:`pipeline.risk.gold_evidence.GoldOpinion` turns the probability into a
share of held-out unmarked words it outranks, so thresholds carry from project to project.

Deterministic (averaged SGD in a fixed order, fixed hashing); scikit-learn. Kept in memory only:
its hashed weights and the memory beside it are never written or logged.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from pipeline.risk.gold_tokens import OUTSIDE, GoldNote, Words, gold_labels, words_of

N_FEATURES = 2 ** 20
ALPHA = 1e-5
EPOCHS = 15


def _shape(w: str) -> str:
    out = []
    for c in w:
        k = "X" if c.isupper() else "x" if c.isalpha() else "d" if c.isdigit() else c
        if not out or out[-1] != k:
            out.append(k)
    return "".join(out)


def _token_features(w: str) -> list[str]:
    low = w.lower()
    f = [f"w={low}", f"s={_shape(w)}", f"p3={low[:3]}", f"x3={low[-3:]}", f"x2={low[-2:]}",
         f"n={min(len(w), 12)}"]
    if w[:1].isupper():
        f.append("cap")
    if w.isupper() and len(w) > 1:
        f.append("upper")
    if any(c.isdigit() for c in w):
        f.append(f"digits={min(sum(c.isdigit() for c in w), 10)}")
    padded = f"<{low}>"
    f.extend(f"c3={padded[i:i + 3]}" for i in range(len(padded) - 2))
    return f


def features(words: Words, text: str) -> list[list[str]]:
    """Per token, its feature strings (hashed later)."""
    toks = words.text
    low = [w.lower() for w in toks]
    shapes = [_shape(w) for w in toks]
    n = len(toks)
    out = []
    for i, w in enumerate(toks):
        f = _token_features(w)
        for d in (-2, -1, 1, 2):
            j = i + d
            f.append(f"w{d}={low[j] if 0 <= j < n else '#'}")
            if abs(d) == 1:
                f.append(f"s{d}={shapes[j] if 0 <= j < n else '#'}")
        f.append(f"bi-1={low[i - 1] if i else '#'}|{low[i]}")
        line_start = i == 0 or "\n" in text[words.ends[i - 1]:words.starts[i]]
        if line_start:
            f.append("line_start")
        out.append(f)
    return out


@dataclass
class GoldClassifier:
    """A fitted classifier: whether a word is marked (binary), and if so as what (a second model
    fitted on the marked words only, so the large unmarked class never slows it)."""

    marked: object
    category: object | None
    classes: tuple[str, ...]
    hasher: object

    def predict(self, text: str) -> tuple[Words, np.ndarray, list[str]]:
        """The note's tokens, each one's probability of being marked, and its likeliest category."""
        words = words_of(text)
        if not len(words):
            return words, np.zeros(0), []
        x = self.hasher.transform(features(words, text))
        phi = self.marked.predict_proba(x)[:, 1]
        if self.category is None:
            return words, phi, [self.classes[0]] * len(words)
        return words, phi, [str(c) for c in self.category.predict(x)]


def _sgd(alpha: float):
    """Logistic regression fitted by averaged stochastic gradient descent: a fixed number of
    passes in a fixed order (``random_state``), one thread, so the same gold gives the same model;
    seconds where lbfgs over a million hashed columns took minutes."""
    from sklearn.linear_model import SGDClassifier
    return SGDClassifier(loss="log_loss", alpha=alpha, max_iter=EPOCHS, tol=None, average=True, random_state=0)


def _hasher():
    from sklearn.feature_extraction import FeatureHasher
    return FeatureHasher(n_features=N_FEATURES, input_type="string", alternate_sign=False)


def train_classifier(notes: Iterable[GoldNote], alpha: float = ALPHA) -> GoldClassifier | None:
    """Fit on ``notes``; None when the gold has no marked word or nothing unmarked to contrast."""
    rows: list[list[str]] = []
    labels: list[str] = []
    for note in notes:
        words = words_of(note.text)
        rows.extend(features(words, note.text))
        labels.extend(gold_labels(words, note.spans))
    y = np.asarray(labels)
    is_marked = y != OUTSIDE
    if is_marked.all() or not is_marked.any():
        return None
    hasher = _hasher()
    x = hasher.transform(rows)
    marked = _sgd(alpha).fit(x, is_marked.astype(np.int8))
    classes = tuple(sorted(set(y[is_marked].tolist())))
    category = None
    if len(classes) > 1:
        category = _sgd(alpha).fit(x[is_marked], y[is_marked])
    return GoldClassifier(marked, category, classes, hasher)

