"""Cutting a note's sub-word pieces into overlapping windows, and which piece starts a word.

A note longer than an encoder's window is read in overlapping windows (:func:`windows`); only
the first piece of each word carries its label (:func:`first_pieces`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def windows(n: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Cover ``range(n)`` with windows of ``size`` overlapping by ``overlap`` (the last one flush right)."""
    if n <= size:
        return [(0, n)]
    step = max(1, size - overlap)
    out = []
    a = 0
    while True:
        if a + size >= n:
            out.append((max(0, n - size), n))
            break
        out.append((a, a + size))
        a += step
    return out


@dataclass
class EncodedDoc:
    """One note as pieces: piece ids, the word each piece belongs to, and the word labels when training."""

    ids: list[int]
    wids: list[int]
    n_words: int
    labels: list[int] | None = None   # per word


def first_pieces(wids: list[int]) -> np.ndarray:
    w = np.asarray(wids)
    first = np.ones(len(w), dtype=bool)
    if len(w) > 1:
        first[1:] = w[1:] != w[:-1]
    return first
