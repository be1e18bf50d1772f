"""Context uniqueness scores: the share of a document's contexts that match nothing elsewhere.

Two scores, one signature ``(unique_in_doc, contexts_in_doc, contexts_in_corpus) -> 0..100``:

- ``corpus-share`` (DeIDClinic as published): unique contexts of the document / all contexts of
  all documents x 100. Its denominator grows with the corpus, so the same document scores lower
  in a bigger run: at 10,000 documents of 30 entities, a document whose every context is unique
  scores 0.01 and shows green. It ranks documents within one run, but its colour bands
  (green < 25, amber 25-50, red > 50) only mean something for very small runs.
- ``document-share`` (the UI default): unique contexts of the document / contexts of the
  document x 100. It is a property of the document against the rest of the corpus, does not
  shrink as the corpus grows, and a red document means "more than half of what surrounds its
  entities is found nowhere else", which a reviewer can check. Same bands.
"""
from __future__ import annotations

from typing import Callable

ScoreFn = Callable[[int, int, int], float]


def document_share(unique_in_doc: int, contexts_in_doc: int, contexts_in_corpus: int) -> float:
    return 100.0 * unique_in_doc / contexts_in_doc if contexts_in_doc else 0.0


def corpus_share(unique_in_doc: int, contexts_in_doc: int, contexts_in_corpus: int) -> float:
    return 100.0 * unique_in_doc / contexts_in_corpus if contexts_in_corpus else 0.0


METHODS: dict[str, ScoreFn] = {
    "document-share": document_share,
    "corpus-share": corpus_share,
}
DEFAULT_METHOD = "document-share"
