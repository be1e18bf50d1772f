"""Word clusters learned from the project's own texts, as features for the CRF member.

A CRF knows only the words it was trained on; a surname or a town it never saw has no weight.
Words that occur in the same contexts (after "Dr.", before "años", inside addresses) fall into
the same cluster, so the cluster id carries what was learned about their neighbours. Built
from unlabelled text (every document of the project may be used): positive PMI of a +-2 word
co-occurrence matrix, truncated SVD, k-means at two granularities. Deterministic for a seed.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable

import numpy as np
import scipy.sparse as sp

from models.crf_feature_spec import norm_token
from models.words import tokenize


def train_clusters(texts: Iterable[str], sizes: tuple[int, ...] = (64, 256), dim: int = 64, min_count: int = 2,
                   window: int = 2, seed: int = 13, max_vocab: int = 30000) -> dict[str, list[int]]:
    """``word -> [cluster id per size]`` for words seen at least ``min_count`` times."""
    from scipy.sparse.linalg import svds
    from sklearn.cluster import KMeans

    docs = [[norm_token(t) for t in tokenize(text).tokens] for text in texts]
    counts = Counter(w for d in docs for w in d)
    vocab = [w for w, c in sorted(counts.items(), key=lambda x: (-x[1], x[0])) if c >= min_count][:max_vocab]
    if len(vocab) < max(sizes) + 2:
        return {}
    index = {w: i for i, w in enumerate(vocab)}
    rows: list[int] = []
    cols: list[int] = []
    for d in docs:
        ids = [index.get(w, -1) for w in d]
        n = len(ids)
        for i, a in enumerate(ids):
            if a < 0:
                continue
            for k in range(max(0, i - window), min(n, i + window + 1)):
                b = ids[k]
                if k != i and b >= 0:
                    rows.append(a)
                    # left and right contexts apart: "Dr. X" and "X años" say different things
                    cols.append(b if k < i else b + len(vocab))
    V = len(vocab)
    m = sp.csr_matrix((np.ones(len(rows), dtype=np.float64), (rows, cols)), shape=(V, 2 * V))
    m.sum_duplicates()
    total = m.sum()
    row = np.asarray(m.sum(axis=1)).ravel()
    col = np.asarray(m.sum(axis=0)).ravel() ** 0.75
    col = col / col.sum() * total
    coo = m.tocoo()
    pmi = np.log(coo.data * total / (row[coo.row] * col[coo.col]))
    keep = pmi > 0
    ppmi = sp.csr_matrix((pmi[keep], (coo.row[keep], coo.col[keep])), shape=m.shape)
    k = min(dim, min(ppmi.shape) - 1)
    rng = np.random.default_rng(seed)
    u, s, _ = svds(ppmi, k=k, v0=rng.standard_normal(min(ppmi.shape)))
    emb = u * np.sqrt(s)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True) + 1e-9
    out: dict[str, list[int]] = {w: [] for w in vocab}
    for size in sizes:
        km = KMeans(n_clusters=size, n_init=1, random_state=seed, max_iter=100).fit(emb)
        for w, c in zip(vocab, km.labels_):
            out[w].append(int(c))
    return out
